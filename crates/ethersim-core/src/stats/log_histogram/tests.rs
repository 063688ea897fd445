use super::*;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// The highest level a histogram can reach (every `u64` in `u64` counters).
const MAX_LEVEL: u32 = 5;

fn indices(level: u32) -> u32 {
    ((INDEX_COUNT - 1) >> level) + 1
}

/// The order statistic of the rank `value_at_quantile` uses, from sorted values.
fn exact(sorted: &[u64], q: f64) -> u64 {
    let n = sorted.len() as u64;
    let rank = ((q * n as f64).ceil() as u64).clamp(1, n);
    sorted[rank as usize - 1]
}

/// Whether `got` is within the documented bound of `truth` at `level`:
/// `|got − truth| ≤ 2^−(10 − level) · max(truth, 262.144 ns)`, in integers.
fn within_bound(got: u64, truth: u64, level: u32) -> bool {
    u128::from(got.abs_diff(truth)) << (FULL_BITS + 1 - level) <= u128::from(truth.max(LINEAR_LIMIT_PS))
}

fn record_all(values: &[u64]) -> LogHistogram {
    let mut h = LogHistogram::new();
    for &v in values {
        h.record(v);
    }
    h
}

/// `n` copies of `ps` at once, by the path merges take.
fn record_n(h: &mut LogHistogram, ps: u64, n: u64) {
    h.total += n;
    h.min = h.min.min(ps);
    h.max = h.max.max(ps);
    h.add(full_index(ps), 0, n);
}

/// Log-uniform values between `lo` and `lo · 2^octaves` ps.
fn log_uniform(seed: u64, n: usize, lo: f64, octaves: f64) -> Vec<u64> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    (0..n).map(|_| (lo * (octaves * rng.random::<f64>()).exp2()) as u64).collect()
}

fn assert_quantiles_within_bound(h: &LogHistogram, values: &[u64]) {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    for q in [0.0, 0.001, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1.0] {
        let (got, truth) = (h.value_at_quantile(q).unwrap(), exact(&sorted, q));
        assert!(within_bound(got, truth, h.level()), "q {q}: {got} for {truth} at level {}", h.level());
    }
}

#[test]
fn every_bucket_holds_exactly_the_values_between_its_bounds() {
    for level in 0..=MAX_LEVEL {
        let mut next_lo = 0u128;
        for j in 0..indices(level) {
            let (lo, width) = bucket_bounds(j, level);
            assert_eq!(u128::from(lo), next_lo, "bucket {j} at level {level} leaves a gap");
            assert_eq!(full_index(lo) >> level, j);
            assert_eq!(full_index(lo + (width - 1)) >> level, j);
            next_lo = u128::from(lo) + u128::from(width);
        }
        assert_eq!(next_lo, 1 << 64, "level {level} ends at the largest u64");
    }
}

#[test]
fn the_error_bound_holds_at_every_bucket_edge_and_is_reached() {
    for level in 0..=MAX_LEVEL {
        let mut worst = 0.0f64;
        for j in 0..indices(level) {
            let (lo, width) = bucket_bounds(j, level);
            let mid = lo + width / 2;
            for v in [lo, lo + (width - 1)] {
                assert!(within_bound(mid, v, level), "{v} reported as {mid} at level {level}");
                let bound = v.max(LINEAR_LIMIT_PS) as f64 / f64::from(1 << (FULL_BITS + 1 - level));
                worst = worst.max(mid.abs_diff(v) as f64 / bound);
            }
        }
        // The documented figure is the true worst case, not a loose one.
        assert!(worst > 0.999, "level {level}: worst {worst} of the bound");
    }
    assert!((LogHistogram::new().relative_error() - 1.0 / 1024.0).abs() < 1e-15);
}

#[test]
fn ranks_follow_the_hdr_rule_and_extremes_are_exact() {
    // Values far apart, so a rank off by one lands in another bucket.
    let values: Vec<u64> = (0..10).map(|k| 1_000_000 << k).collect();
    let h = record_all(&values);
    for (q, k) in [(0.0, 0), (0.1, 0), (0.11, 1), (0.5, 4), (0.51, 5), (0.9, 8), (0.91, 9), (1.0, 9)] {
        let got = h.value_at_quantile(q).unwrap();
        assert!(within_bound(got, values[k], h.level()), "q {q}: {got}, not {}", values[k]);
    }
    assert_eq!(h.value_at_quantile(0.0), Some(1_000_000));
    assert_eq!(h.value_at_quantile(1.0), Some(1_000_000 << 9));
    assert_eq!(LogHistogram::new().value_at_quantile(0.5), None);
}

#[test]
fn the_level_follows_the_range_and_collapse_keeps_every_count() {
    // Ranges of 3, 6, 12, 24 and 40 powers of two above 1 us.
    for (octaves, level) in [(3.0, 0), (6.0, 1), (12.0, 2), (24.0, 3), (40.0, 4)] {
        let values = log_uniform(octaves as u64, 20_000, 1e6, octaves);
        let h = record_all(&values);
        assert_eq!(h.level(), level, "{octaves} powers of two");
        assert_eq!(h.buckets().map(|(_, n)| n).sum::<u64>(), 20_000);
        assert!(h.heap_bytes() <= MAX_COUNTER_BYTES);
        assert_quantiles_within_bound(&h, &values);
    }
}

#[test]
fn nothing_is_allocated_before_the_first_value_nor_within_the_window() {
    let info = allocation_counter::measure(|| {
        let mut h = LogHistogram::new();
        h.merge(&LogHistogram::new());
        assert_eq!((h.count(), h.min(), h.value_at_quantile(0.5)), (0, None, None));
    });
    assert_eq!(info.count_total, 0);
    let mut h = record_all(&[1_000_000, 2_000_000]);
    assert!(h.heap_bytes() > 0);
    let info = allocation_counter::measure(|| {
        for k in 0..10_000 {
            h.record(1_000_000 + k * 100);
        }
    });
    assert_eq!(info.count_total, 0);
}

#[test]
fn a_light_flow_costs_a_few_dozen_bytes() {
    let h = record_all(&[2_000_000, 2_000_100, 2_001_000]);
    assert_eq!(h.heap_bytes(), MIN_WINDOW * 4);
}

#[test]
fn a_count_past_u32_widens_rather_than_wraps() {
    let mut h = LogHistogram::new();
    record_n(&mut h, 5_000_000, u64::from(u32::MAX));
    assert!(matches!(h.counts, Counters::Narrow(_)));
    h.record(5_000_000);
    assert!(matches!(h.counts, Counters::Wide(_)));
    assert_eq!(h.buckets().collect::<Vec<_>>(), [(full_index(5_000_000), 1 << 32)]);
    assert_eq!(h.count(), 1 << 32);

    // Three powers of two at full resolution need more counters than u64s may take.
    let values = log_uniform(3, 5_000, 1e6, 3.0);
    let mut h = record_all(&values);
    assert_eq!(h.level(), 0);
    record_n(&mut h, 2_000_000, u64::from(u32::MAX));
    assert_eq!(h.level(), 1);
    assert!(h.heap_bytes() <= MAX_COUNTER_BYTES);
    assert_eq!(h.buckets().map(|(_, n)| n).sum::<u64>(), h.count());
    assert_eq!(h.count(), 5_000 + u64::from(u32::MAX));
}

#[test]
fn merging_across_levels_sums_into_the_coarser() {
    let (narrow, wide) = (log_uniform(1, 1000, 1e6, 1.0), log_uniform(2, 1000, 1e6, 30.0));
    let mut a = record_all(&narrow);
    let b = record_all(&wide);
    assert!(a.level() < b.level());
    a.merge(&b);
    assert_eq!(a.level(), b.level());
    assert_eq!(a.count(), 2000);
    assert_quantiles_within_bound(&a, &[narrow, wide].concat());
}

/// Values from tens of picoseconds to the largest `u64`, each scale as likely.
fn any_scale() -> impl Strategy<Value = u64> {
    (0u32..64, any::<u64>()).prop_map(|(s, x)| x >> s)
}

proptest! {
    #[test]
    fn merging_equals_recording_both_sets_into_one(
        a in proptest::collection::vec(any_scale(), 0..200),
        b in proptest::collection::vec(any_scale(), 0..200),
        near in proptest::collection::vec(1_000_000u64..1_300_000, 0..200),
    ) {
        let a = [a, near].concat();
        let mut merged = record_all(&a);
        merged.merge(&record_all(&b));
        let one = record_all(&[a.as_slice(), b.as_slice()].concat());
        prop_assert_eq!(merged.level(), one.level());
        prop_assert_eq!((merged.count(), merged.min(), merged.max()), (one.count(), one.min(), one.max()));
        prop_assert_eq!(merged.buckets().collect::<Vec<_>>(), one.buckets().collect::<Vec<_>>());
    }

    #[test]
    fn counters_never_pass_8_kib_and_quantiles_keep_the_bound(
        values in proptest::collection::vec(any_scale(), 1..500),
    ) {
        let mut h = LogHistogram::new();
        for &v in &values {
            h.record(v);
            prop_assert!(h.heap_bytes() <= MAX_COUNTER_BYTES, "{} bytes", h.heap_bytes());
        }
        prop_assert_eq!(h.buckets().map(|(_, n)| n).sum::<u64>(), h.count());
        assert_quantiles_within_bound(&h, &values);
    }
}

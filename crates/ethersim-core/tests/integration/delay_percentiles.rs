//! The percentiles a run reports are within their documented accuracy of the exact
//! quantiles: fixed-seed samples of a few hundred thousand delays, shaped like a run's
//! (a loaded queue, a mixture with a heavy tail, a ping with an outage), are recorded
//! into `DelayStats` and compared with their own sorted values under the same rank rule.

use ethersim_core::stats::log_histogram::{LINEAR_LIMIT_PS, MAX_COUNTER_BYTES};
use ethersim_core::stats::DelayStats;
use ethersim_core::time::Duration;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

const SAMPLES: usize = 300_000;

fn exponential(rng: &mut Pcg64Mcg, mean: f64) -> f64 {
    -mean * (1.0 - rng.random::<f64>()).ln()
}

fn lognormal(rng: &mut Pcg64Mcg, median: f64, sigma: f64) -> f64 {
    // Box–Muller: one standard normal from two uniforms.
    let (u, v) = (1.0 - rng.random::<f64>(), rng.random::<f64>());
    median * (sigma * (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()).exp()
}

/// One-way delays through a 10 Gb/s port loaded at 90 % (Lindley's recursion for an
/// M/M/1 queue of 1500-B frames) behind 12 us of propagation: about 4 powers of two.
fn loaded_queue() -> Vec<u64> {
    let mut rng = Pcg64Mcg::seed_from_u64(29);
    let (service_ps, load) = (1.2e6, 0.9);
    let mut wait = 0.0f64;
    (0..SAMPLES)
        .map(|_| {
            let service = exponential(&mut rng, service_ps);
            let delay = 12e6 + wait + service;
            wait = (wait + service - exponential(&mut rng, service_ps / load)).max(0.0);
            delay as u64
        })
        .collect()
}

/// Most delays near 20 us, a quarter near 150 us and a Pareto tail from 300 us cut at
/// 1 ms (where a full buffer stops queueing): about 7 powers of two.
fn heavy_tailed_mixture() -> Vec<u64> {
    let mut rng = Pcg64Mcg::seed_from_u64(2029);
    (0..SAMPLES)
        .map(|_| {
            let pick = rng.random::<f64>();
            let ps = if pick < 0.70 {
                lognormal(&mut rng, 20e6, 0.2)
            } else if pick < 0.95 {
                lognormal(&mut rng, 150e6, 0.3)
            } else {
                300e6 * (1.0 - rng.random::<f64>()).powf(-1.0 / 1.5)
            };
            ps.min(1e9) as u64
        })
        .collect()
}

/// A ping's round trips: 5 us apart from a few thousand that waited out a 20-ms outage.
fn ping_with_an_outage() -> Vec<u64> {
    let mut rng = Pcg64Mcg::seed_from_u64(7);
    (0..SAMPLES)
        .map(|i| {
            let base = 4.8e6 + exponential(&mut rng, 50e3);
            let waited = if i % 100 == 0 { rng.random::<f64>() * 20e9 } else { 0.0 };
            (base + waited) as u64
        })
        .collect()
}

fn record(values: &[u64]) -> DelayStats {
    let mut d = DelayStats::default();
    for &ps in values {
        d.record(Duration(ps));
    }
    d
}

/// Checks p50, p90 and p99 against the exact quantiles and returns the error bound.
fn assert_percentiles_within_bound(values: &[u64]) -> f64 {
    let d = record(values);
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let exact = |q: f64| {
        let n = sorted.len() as u64;
        sorted[((q * n as f64).ceil() as u64).clamp(1, n) as usize - 1] as f64 / 1e12
    };
    let s = d.summary();
    let bound = d.percentile_error();
    let floor_s = LINEAR_LIMIT_PS as f64 / 1e12;
    for (q, got) in [(0.5, s.p50_s), (0.9, s.p90_s), (0.99, s.p99_s)] {
        let truth = exact(q);
        // The float conversion of an integer error adds a part in 1e15 at most.
        let allowed = bound * truth.max(floor_s) * (1.0 + 1e-12);
        assert!((got - truth).abs() <= allowed, "q {q}: {got} s for {truth} s, bound {bound}");
    }
    assert_eq!((s.count, s.min_s, s.max_s), (values.len() as u64, exact(0.0), exact(1.0)));
    assert!(d.heap_bytes() <= MAX_COUNTER_BYTES);
    bound
}

/// The histogram kept `2^exponent` as its relative error bound.
fn assert_bound(bound: f64, exponent: i32) {
    assert!((bound - 2f64.powi(exponent)).abs() < 1e-18, "bound {bound}, not 2^{exponent}");
}

#[test]
fn a_loaded_queue_keeps_full_resolution() {
    assert_bound(assert_percentiles_within_bound(&loaded_queue()), -10);
}

#[test]
fn a_heavy_tailed_mixture_is_within_its_bound() {
    let values = heavy_tailed_mixture();
    let (lo, hi) = (values.iter().min().unwrap(), values.iter().max().unwrap());
    let octaves = (*hi as f64 / *lo as f64).log2();
    assert!((6.0..8.0).contains(&octaves), "{octaves} powers of two");
    assert_bound(assert_percentiles_within_bound(&values), -9);
}

#[test]
fn a_ping_outage_is_within_its_bound() {
    assert_bound(assert_percentiles_within_bound(&ping_with_an_outage()), -8);
}

#[test]
fn merging_flows_reports_what_one_flow_of_all_their_delays_does() {
    let values = heavy_tailed_mixture();
    let mut merged = DelayStats::default();
    for part in values.chunks(SAMPLES / 7) {
        merged.merge(&record(part));
    }
    let (m, one) = (merged.summary(), record(&values).summary());
    assert_eq!((m.count, m.min_s, m.max_s), (one.count, one.min_s, one.max_s));
    assert_eq!((m.p50_s, m.p90_s, m.p99_s), (one.p50_s, one.p90_s, one.p99_s));
    assert!((m.mean_s - one.mean_s).abs() <= 1e-12 * one.mean_s);
}

//! Host timing variability against closed forms: absent it changes nothing, and a noisy
//! host's sends, idle intervals and their spread follow its draws.
//!
//! The oracle: two hosts, one rank each, on one switch, a synthetic alltoall (one message
//! each way per call, one 1000 B block: one frame) with `n0` noisy and `n1` exact. When
//! every overshoot of `n0` exceeds twice the one-way delivery time `D` of a message, `n1`'s
//! message is always there when `n0` sends: `n0`'s call ends the instant its own message is
//! handed to its host, so `n0` sends every `sleep + overhead + X_k` exactly, where `X_k` is
//! its k-th draw, and `n1` follows it. (Proof by induction on the calls: if `n0` starts
//! call k at least `D` after `n1`, `n1`'s block is there and `n0` ends it at once; `n1`
//! ends it when `n0`'s block arrives, `D` after `n0`'s start, so `n0`, sleeping `X ≥ 2D`
//! longer, starts call k + 1 at least `D` after `n1` again.)

#![allow(clippy::format_push_string)] // test scenarios are assembled as text

use ethersim_core::engine::rng;
use ethersim_core::ids::PortId;
use ethersim_core::node::Variability;
use ethersim_core::run_text;
use ethersim_core::scenario;
use ethersim_core::time::Duration;

use crate::common::{data_starts, logged};

const US: u64 = 1_000_000;
const NS: u64 = 1_000;
/// Sleep, call overhead and block of the job.
const SLEEP: u64 = 100 * US;
const OVERHEAD: u64 = 5 * US;
/// One 1046 B frame at 1 Gb/s: preamble and frame, then the inter-frame gap.
const LINE: u64 = (8 + 1046) * 8 * NS;
const GAP: u64 = 96 * NS;
/// A message's one-way delivery: two store-and-forward hops of line time and 1 us delay.
const D: u64 = 2 * (LINE + US);
/// n0's port (its link is the first: ports 0 and 1).
const N0: PortId = PortId(0);

/// Hosts n0..n3 on switch `sw` (1 Gb/s, 1 us); `n0` and `n2` carry the tables given; job
/// `a2a` on n0 and n1, and `extra` (if asked) on n2 and n3.
fn scenario(n0: &str, n2: &str, iterations: u64, extra: bool) -> String {
    let mut text = String::from("seed = 7\n[[switches]]\nname = \"sw\"\n");
    for (i, table) in [(0, n0), (1, ""), (2, n2), (3, "")] {
        text += &format!("[[hosts]]\nname = \"n{i}\"\n");
        if !table.is_empty() {
            text += &format!("timing_variability = {table}\n");
        }
    }
    for i in 0..4 {
        text += &format!("[[links]]\nbetween = [\"n{i}\", \"sw\"]\nrate = \"1 Gb/s\"\ndelay = \"1 us\"\n");
    }
    let job = |name: &str, a: u32, b: u32| {
        format!(
            "[[mpi_jobs]]\nname = \"{name}\"\nnodes = [\"n{a}\", \"n{b}\"]\noverhead = {{ fixed = \"5 us\" }}\n\
             synthetic = {{ collective = \"alltoall\", bytes = \"1000 B\", sleep = \"100 us\", iterations = {iterations} }}\n"
        )
    };
    text += &job("a2a", 0, 1);
    if extra {
        text += &job("extra", 2, 3);
    }
    text
}

fn summary_json(text: &str) -> String {
    let report = run_text(text, &[], None).unwrap_or_else(|e| panic!("{e}"));
    serde_json::to_string(&report.summary).expect("summary serializes")
}

/// The gaps between n0's successive sends, ps.
fn send_gaps(text: &str) -> Vec<u64> {
    let mut sim = logged(text);
    sim.run();
    data_starts(&sim, N0).windows(2).map(|w| w[1] - w[0]).collect()
}

/// `count` draws of `v` from n0's rank stream for `purpose`, ps.
fn draws(v: &Variability, purpose: &str, count: usize) -> Vec<u64> {
    let mut stream = rng::stream(7, &format!("host/n0/{purpose}/a2a/0"));
    (0..count).map(|_| v.sample(&mut stream).as_ps()).collect()
}

fn mean_std(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    (mean, (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt())
}

#[test]
fn absent_and_all_zero_timing_variability_give_byte_identical_summaries() {
    let zero = "{ kind = \"exponential\", offset = \"0 s\", mean = \"0 s\" }";
    let table = format!("{{ sleep_overshoot = {zero}, call_overhead = {zero} }}");
    let absent = summary_json(&scenario("", "", 50, true));
    assert_eq!(absent, summary_json(&scenario(&table, &table, 50, true)));
    // An empty table is no variability either.
    assert_eq!(absent, summary_json(&scenario("{}", "", 50, true)));
}

#[test]
fn a_noisy_host_sends_every_sleep_plus_overhead_plus_its_own_draws() {
    // Sleep overshoot 50 us (Linux's default timer slack) + Exp(20 us), call overhead
    // 1 us + Exp(2 us): every overshoot is at least 50 us > 2 D = 37.7 us.
    let table = "{ sleep_overshoot = { kind = \"exponential\", offset = \"50 us\", mean = \"20 us\" }, \
                 call_overhead = { kind = \"exponential\", offset = \"1 us\", mean = \"2 us\" } }";
    let gaps = send_gaps(&scenario(table, "", 200, false));
    assert_eq!(gaps.len(), 199);
    let sleep = Variability::Exponential { offset: Duration::from_us(50), mean: Duration::from_us(20) };
    let call = Variability::Exponential { offset: Duration::from_us(1), mean: Duration::from_us(2) };
    // Call 0 draws an overhead and no sleep; call k >= 1 one sleep, then one overhead.
    let x = draws(&sleep, "sleep_overshoot", 199);
    let y = draws(&call, "call_overhead", 200);
    let mut want: Vec<u64> = (1..200).map(|k| SLEEP + OVERHEAD + x[k - 1] + y[k]).collect();
    // Both ranks sleep nothing before call 0: n0, y[0] late, still waits for n1's block,
    // which arrives D after n1 sent it.
    want[0] += D.saturating_sub(y[0]);
    assert_eq!(gaps, want);
}

#[test]
fn the_idle_intervals_of_a_noisy_host_rise_by_its_mean_overshoot_and_spread_as_it_does() {
    // Exact hosts: both ranks wait for each other, so every call takes D and n0's port is
    // idle sleep + overhead + D less its frame's line time and gap, every time.
    let n = 2001;
    let exact = send_gaps(&scenario("", "", n, false));
    assert!(exact.iter().all(|&g| g == SLEEP + OVERHEAD + D), "{:?}", &exact[..3]);
    let idle = |text: &str| {
        let report = run_text(text, &[], None).expect("runs");
        let port = report.summary.ports.iter().find(|p| p.node == "n0").expect("n0's port").idle.clone();
        assert_eq!(port.count, n - 1);
        port.mean_s * 1e12
    };
    let exact_idle = idle(&scenario("", "", n, false));
    assert!((exact_idle - (SLEEP + OVERHEAD + D - LINE - GAP) as f64).abs() < 1e-3, "{exact_idle}");

    // Overshoot 50 us + Exp(mean m): the idle interval becomes sleep + overshoot + the rest
    // less the wait for the peer (n1's block is already there): its mean rises by
    // 50 us + m - D and its standard deviation, 0 before, becomes the exponential's, m.
    let mut spreads = Vec::new();
    for m in [5u64, 20] {
        let table = format!(
            "{{ sleep_overshoot = {{ kind = \"exponential\", offset = \"50 us\", mean = \"{m} us\" }} }}"
        );
        let text = scenario(&table, "", n, false);
        let gaps: Vec<f64> = send_gaps(&text).iter().map(|&g| g as f64).collect();
        let (mean, std) = mean_std(&gaps);
        let m = (m * US) as f64;
        let count = gaps.len() as f64;
        // Standard errors: of the mean m / sqrt(n); of an exponential's sample standard
        // deviation about m sqrt(2 / n) (its kurtosis is 9).
        let want = (SLEEP + OVERHEAD + 50 * US) as f64 + m;
        assert!((mean - want).abs() < 5.0 * m / count.sqrt(), "mean gap {mean} vs {want}");
        assert!((std - m).abs() < 5.0 * m * (2.0 / count).sqrt(), "std {std} vs {m}");
        let rise = idle(&text) - exact_idle;
        let want_rise = (50 * US) as f64 + m - D as f64;
        assert!((rise - want_rise).abs() < 5.0 * m / count.sqrt(), "idle rise {rise} vs {want_rise}");
        spreads.push(std);
    }
    assert!(spreads[1] > 3.0 * spreads[0], "the spread grows with the overshoot: {spreads:?}");
}

#[test]
fn another_noisy_host_leaves_a_hosts_draws_unchanged() {
    let table = "{ sleep_overshoot = { kind = \"lognormal\", mean = \"60 us\", std = \"5 us\" } }";
    let alone = send_gaps(&scenario(table, "", 100, false));
    let crowded = send_gaps(&scenario(table, table, 100, true));
    assert_eq!(alone, crowded);
    // And the draws are n0's rank stream's: offset by sleep and overhead.
    // (In call 0 neither rank has slept: n0 waits D for n1's block.)
    let x =
        draws(&Variability::lognormal(Duration::from_us(60), Duration::from_us(5)), "sleep_overshoot", 99);
    let mut want: Vec<u64> = x.iter().map(|x| SLEEP + OVERHEAD + x).collect();
    want[0] += D;
    assert_eq!(alone, want);
}

#[test]
fn an_empirical_overshoot_draws_between_its_points() {
    // Uniform over [40 us, 60 us]: every gap within, the mean at 50 us.
    let table = "{ sleep_overshoot = { kind = \"empirical\", points = [{ value = \"40 us\", p = 0 }, \
                 { value = \"60 us\", p = 1 }] } }";
    let gaps = send_gaps(&scenario(table, "", 1001, false));
    let base = SLEEP + OVERHEAD;
    // (The first gap also holds call 0's wait for n1's block.)
    let gaps = &gaps[1..];
    assert!(gaps.iter().all(|&g| (base + 40 * US..=base + 60 * US).contains(&g)));
    let (mean, _) = mean_std(&gaps.iter().map(|&g| (g - base) as f64).collect::<Vec<_>>());
    // Standard error: 20 us / sqrt(12 × 999).
    assert!((mean - 50e6).abs() < 5.0 * 20e6 / 11_988f64.sqrt(), "mean {mean}");
}

#[test]
fn a_table_on_a_host_without_mpi_ranks_is_warned_about() {
    let table = "{ call_overhead = { kind = \"exponential\", mean = \"1 us\" } }";
    let report = run_text(&scenario("", table, 2, false), &[], None).expect("runs");
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.starts_with("hosts[2].timing_variability: no MPI job runs on \"n2\"")),
        "{:?}",
        report.warnings
    );
}

#[test]
fn bad_timing_variability_names_its_key_path() {
    let at = "hosts[0].timing_variability";
    let sleep = format!("{at}.sleep_overshoot");
    let call = format!("{at}.call_overhead");
    let cases: Vec<(&str, String, &str)> = vec![
        ("{ sleep_overshoot = { kind = \"exponential\", mean = \"-5 us\" } }", format!("{sleep}.mean"), "negative"),
        ("{ sleep_overshoot = { kind = \"gamma\", mean = \"5 us\" } }", format!("{sleep}.kind"), "gamma"),
        ("{ sleep_overshoot = { kind = \"exponential\", median = \"5 us\" } }", format!("{sleep}.median"), "unknown field"),
        ("{ wake_latency = { kind = \"exponential\", mean = \"5 us\" } }", format!("{at}.wake_latency"), "unknown field"),
        ("{ sleep_overshoot = { kind = \"exponential\" } }", format!("{sleep}.mean"), "missing"),
        ("{ sleep_overshoot = { kind = \"exponential\", mean = \"2 s\" } }", format!("{sleep}.mean"), "at most 1 s"),
        ("{ call_overhead = { kind = \"lognormal\", mean = \"2 us\", offset = \"1 us\", std = \"1 us\" } }", format!("{call}.offset"), "takes no offset"),
        ("{ call_overhead = { kind = \"lognormal\", mean = \"2 us\" } }", format!("{call}.std"), "missing"),
        ("{ call_overhead = { kind = \"lognormal\", mean = \"0 us\", std = \"1 us\" } }", format!("{call}.mean"), "above 0"),
        ("{ call_overhead = { kind = \"empirical\" } }", format!("{call}.points"), "missing"),
        ("{ call_overhead = { kind = \"empirical\", points = [{ value = \"1 us\", p = 0 }] } }", format!("{call}.points"), "at least 2"),
        ("{ call_overhead = { kind = \"empirical\", points = [{ value = \"1 us\", p = 0.1 }, { value = \"2 us\", p = 1 }] } }", format!("{call}.points[0].p"), "first point"),
        ("{ call_overhead = { kind = \"empirical\", points = [{ value = \"1 us\", p = 0 }, { value = \"2 us\", p = nan }, { value = \"3 us\", p = 1 }] } }", format!("{call}.points[1].p"), "probability"),
        ("{ call_overhead = { kind = \"empirical\", points = [{ value = \"1 us\", p = 0 }, { value = \"2 us\", p = -0.5 }, { value = \"3 us\", p = 1 }] } }", format!("{call}.points[1].p"), "probability"),
        ("{ call_overhead = { kind = \"empirical\", points = [{ value = \"1 us\", p = 0 }, { value = \"2 us\", p = 0.6 }, { value = \"3 us\", p = 0.4 }, { value = \"4 us\", p = 1 }] } }", format!("{call}.points[2].p"), "rise strictly"),
        ("{ call_overhead = { kind = \"empirical\", points = [{ value = \"1 us\", p = 0 }, { value = \"2 us\", p = 0.5 }, { value = \"2 us\", p = 0.5 }, { value = \"4 us\", p = 1 }] } }", format!("{call}.points[2].p"), "zero probability"),
        ("{ call_overhead = { kind = \"empirical\", points = [{ value = \"5 us\", p = 0 }, { value = \"2 us\", p = 0.5 }, { value = \"9 us\", p = 1 }] } }", format!("{call}.points[1].value"), "must not fall"),
        ("{ call_overhead = { kind = \"empirical\", points = [{ value = \"1 us\", p = \"half\" }, { value = \"2 us\", p = 1 }] } }", format!("{call}.points[0].p"), "half"),
    ];
    for (table, path, want) in cases {
        let text = scenario(table, "", 1, false);
        let e = scenario::load(&text, &[]).and_then(|s| scenario::build(&s).map(|_| ())).expect_err(table);
        assert_eq!(e.path, path, "{table}: {e}");
        assert!(e.message.contains(want), "{table}: {}", e.message);
    }
}

//! Queueing theory as an oracle: Poisson arrivals of fixed-size frames on one link form
//! an M/D/1 queue, whose mean wait is ρ·S / (2(1 − ρ)) (Pollaczek–Khinchine).

use crate::common::{simulation, two_hosts};
use ethersim_core::scenario;
use ethersim_core::sim::Simulation;

/// Mean waiting time in queue of one replication, in seconds.
#[allow(clippy::cast_lossless)]
fn mean_wait(seed: u64, rho: f64) -> f64 {
    let payload = 1472u64; // 1518 B frames
    let service_bytes = 1518 + 20; // line time per frame, incl. preamble and gap
    let link_bps = 1e9;
    let service_s = service_bytes as f64 * 8.0 / link_bps;
    // Payload rate giving utilization rho of the line.
    let rate_bps = (rho / service_s * payload as f64 * 8.0).round() as u64;
    let app =
        format!("kind = \"poisson\"\nrate = \"{rate_bps} b/s\"\npayload = \"{payload} B\"\ncount = 20000");
    let text = two_hosts("1 Gb/s", "0 s", 100_000, &app);
    let mut s = scenario::load(&text, &[]).unwrap();
    s.seed = seed;
    let built = scenario::build(&s).unwrap();
    let mut sim = Simulation::new(built.network, built.limits);
    sim.run();
    let d = sim.network().flows[0].counters.delay.summary();
    // Delay = wait + preamble and frame on the wire (the gap follows the frame).
    d.mean_s - (8 + 1518) as f64 * 8.0 / link_bps
}

/// 30 independent replications; the theory must lie within 4 standard errors of their
/// mean (a false failure has probability below 1e-4 if the model is right).
#[test]
fn md1_mean_wait_matches_pollaczek_khinchine() {
    for rho in [0.3, 0.7] {
        let service_s = 1538.0 * 8.0 / 1e9;
        let theory = rho * service_s / (2.0 * (1.0 - rho));
        let waits: Vec<f64> = (1..=30).map(|seed| mean_wait(seed, rho)).collect();
        let n = waits.len() as f64;
        let mean = waits.iter().sum::<f64>() / n;
        let var = waits.iter().map(|w| (w - mean).powi(2)).sum::<f64>() / (n - 1.0);
        let se = (var / n).sqrt();
        assert!(
            (mean - theory).abs() < 4.0 * se,
            "rho {rho}: simulated {mean:.4e} s ± {se:.1e}, theory {theory:.4e} s"
        );
        // And the bound is a meaningful one: within 5% of the theory.
        assert!(4.0 * se < 0.05 * theory, "confidence bound too loose: {se:e}");
    }
}

/// Sanity of the helper: at utilization near zero there is no waiting.
#[test]
fn a_lone_frame_does_not_wait() {
    let app = "kind = \"constant_rate\"\nrate = \"1 Mb/s\"\ncount = 5";
    let mut sim = simulation(&two_hosts("1 Gb/s", "0 s", 8, app));
    sim.run();
    let d = sim.network().flows[0].counters.delay.summary();
    assert!((d.max_s - 1526.0 * 8e-9).abs() < 1e-15);
}

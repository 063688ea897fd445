//! CUBIC (RFC 9438) on the scripted wire: a loss in slow start, then the congestion
//! avoidance stage against the RFC's equations, on a long and on a short round trip.

use super::*;
use crate::transport::tcp::cc::cubic::{ALPHA, C};
use crate::transport::tcp::{BuiltinCc, CcAlgorithm, Cubic};

/// SACK on (recovery enters at cwnd = ssthresh), Limited Transmit off (FlightSize at the
/// loss is the flight the client shows), CUBIC at the client.
fn cubic_cfg() -> TcpConfig {
    TcpConfig { congestion_control: CcAlgorithm::Cubic, sack: true, limited_transmit: false, ..cfg() }
}

fn cubic(c: &Connection) -> &Cubic {
    match c.cc() {
        BuiltinCc::Cubic(c) => c,
        other @ BuiltinCc::NewReno(_) => panic!("CUBIC asked for, {:?} running", other.algorithm()),
    }
}

/// What the client showed when the one loss was detected and after recovery.
struct Loss {
    /// The snapshot index of the entry into recovery.
    entry: usize,
    /// cwnd just before the reduction (W_max and cwnd_prior), bytes.
    w_max: u64,
    /// When recovery ended.
    exit_at: SimTime,
}

/// Runs a transfer of `file` bytes over one-way `delay` with data segment `drop` lost, for
/// `after` past the loss, and checks section 4.6's reduction on the way.
fn one_loss(file: u64, delay: Duration, drop: u64, after: Duration) -> (Pair, Loss) {
    let mut p = Pair::new(cubic_cfg(), TcpConfig { sack: true, ..cfg() }, file, delay);
    p.drop_data = vec![drop];
    // Slow start reaches segment `drop` well within 3 s at these round trips; then run
    // `after` past the loss.
    p.run(SimTime::ZERO + Duration::from_secs(3));
    let entry = p.snaps.iter().position(|s| s.in_recovery).expect("recovery entered");
    p.run(p.snaps[entry].at + after);
    let (before, at) = (p.snaps[entry - 1], p.snaps[entry]);
    // Section 4.6, Figure 5: ssthresh = flight_size·beta_cubic, cwnd = ssthresh (SACK);
    // W_max (no earlier W_max: no fast convergence) and cwnd_prior = cwnd before.
    assert_eq!(at.ssthresh, before.flight * 7 / 10, "ssthresh = 0.7·FlightSize");
    assert_eq!(at.cwnd, at.ssthresh);
    let c = cubic(&p.client);
    assert_eq!((c.w_max(), c.cwnd_prior()), (before.cwnd, before.cwnd));
    let exit = entry + p.snaps[entry..].iter().position(|s| !s.in_recovery).expect("recovery ended");
    let s = p.client.stats();
    assert_eq!((s.fast_retransmits, s.timeouts), (1, 0), "one congestion event");
    let exit_at = p.snaps[exit].at;
    (p, Loss { entry, w_max: before.cwnd, exit_at })
}

fn secs(d: Duration) -> f64 {
    d.0 as f64 / 1e12
}

#[test]
fn after_a_loss_on_a_long_path_cwnd_follows_w_cubic() {
    // RTT 100 ms, segment 400 lost in slow start: the loss is seen at about 210
    // segments, so K ≈ 5.4 s, and W_est (0.53 segment per RTT from 0.7·W_max) stays
    // below the curve: the concave region up to W_max, then the convex one.
    let rtt = Duration::from_ms(100);
    let (pair, loss) = one_loss(60_000_000, Duration::from_ms(50), 400, Duration::from_secs(13));
    let cc = cubic(&pair.client);
    let t0 = cc.epoch_start().expect("a congestion avoidance stage");
    // The stage starts with the first ACK after recovery (section 4.2), one RTT at most
    // after the full ACK.
    assert!(t0 >= loss.exit_at && t0 <= loss.exit_at + rtt, "{t0} vs {}", loss.exit_at);
    let seg = MSS as f64;
    let w_max = loss.w_max as f64 / seg;
    let w_epoch = cc.cwnd_epoch().unwrap() as f64 / seg;
    // Figure 2, from what the client showed.
    let k = ((w_max - w_epoch) / C).cbrt();
    assert!((secs(cc.k().unwrap()) - k).abs() < 1e-9, "K {:?} vs {k} s", cc.k());
    let w_cubic = |t: f64| C * (t - k).powi(3) + w_max;
    // cwnd against W_cubic(t − t0) over the stage, as it stands after each instant's
    // inputs (on this wire a window's ACKs arrive together, and the window is what it is
    // once they are in). Each ACK closes its share of the gap to the target
    // W_cubic(t + RTT), so a window of ACKs closes about 1 − 1/e of it and cwnd, a
    // first-order lag of one RTT chasing the curve one RTT ahead, settles on the curve at
    // t itself. Allowed: the curve's growth over one RTT either side, plus one segment,
    // and 1% of the curve.
    let stage = &pair.snaps[loss.entry..];
    let held = stage.windows(2).filter(|w| w[1].at > w[0].at).map(|w| w[0]);
    let (mut worst, mut n, mut above) = (0.0f64, 0, 0);
    for snap in held.filter(|x| x.at >= t0 + rtt) {
        let t = secs(snap.at - t0);
        let w = snap.cwnd as f64 / seg;
        let err = (w - w_cubic(t)).abs();
        let band = w_cubic(t + 0.1) - w_cubic(t - 0.1) + 1.0;
        assert!(err <= band, "t = {t} s: cwnd {w} against W_cubic {} (± {band})", w_cubic(t));
        worst = worst.max(err / w_cubic(t));
        above += usize::from(w > w_max);
        n += 1;
    }
    eprintln!(
        "cubic long path: W_max {w_max} segments, K {k:.3} s, {n} instants; worst |cwnd − W_cubic| / W_cubic {:.2}%",
        100.0 * worst
    );
    assert!(worst < 0.01, "within 1% of the curve: {}%", 100.0 * worst);
    // Both regions were crossed, the run went past 2K, and W_est ended below the curve.
    assert!(above > 50 && n - above > 50, "{above} points convex, {} concave", n - above);
    let t_end = secs(pair.snaps.last().unwrap().at - t0);
    assert!(t_end > 2.0 * k, "ran to {t_end} s, 2K = {} s", 2.0 * k);
    assert!(cc.w_est().unwrap() / seg < w_cubic(t_end), "never Reno-friendly here");
}

#[test]
fn on_a_short_path_cwnd_is_the_reno_friendly_estimate() {
    // RTT 2 ms, segment 60 lost: W_max ≈ 40 segments, K ≈ 3 s, while W_est gains 9/17
    // segment per RTT: the Reno-friendly region (section 4.3), where cwnd = W_est. Per
    // ACK of `a` bytes W_est grows by alpha·SMSS·a/cwnd, so with cwnd = W_est,
    // d(W²) = 2·alpha·SMSS·dB over the bytes B acknowledged: alpha_cubic = 9/17 until W_est
    // reaches cwnd_prior, 1 after.
    let (pair, loss) = one_loss(20_000_000, Duration::from_ms(1), 60, Duration::from_ms(300));
    let cc = cubic(&pair.client);
    let t0 = cc.epoch_start().expect("a stage");
    let seg = MSS as f64;
    let (w_max, w_epoch) = (loss.w_max as f64 / seg, cc.cwnd_epoch().unwrap() as f64 / seg);
    let k = ((w_max - w_epoch) / C).cbrt();
    let stage: Vec<Snap> = pair.snaps[loss.entry..].iter().filter(|x| x.at > t0).copied().collect();
    for x in &stage {
        let t = secs(x.at - t0);
        let w_cubic = C * (t - k).powi(3) + w_max;
        assert!(
            x.cwnd as f64 / seg > w_cubic,
            "t = {t} s: {} segments, W_cubic {w_cubic}",
            x.cwnd as f64 / seg
        );
    }
    // The growth law on either side of cwnd_prior (= W_max here).
    let split = stage.iter().position(|x| x.cwnd >= loss.w_max).expect("W_est passed cwnd_prior");
    let slope = |a: &Snap, b: &Snap| {
        let (wa, wb) = (a.cwnd as f64, b.cwnd as f64);
        (wb * wb - wa * wa) / (2.0 * seg * (b.una - a.una) as f64)
    };
    let below = slope(&stage[0], &stage[split - 1]);
    let beyond = slope(&stage[split], stage.last().unwrap());
    eprintln!("cubic short path: W_max {w_max} segments, alpha below cwnd_prior {below:.4} (9/17 = {ALPHA:.4}), beyond {beyond:.4}");
    assert!((below / ALPHA - 1.0).abs() < 0.01, "alpha_cubic {below}");
    assert!((beyond - 1.0).abs() < 0.01, "alpha 1 beyond cwnd_prior: {beyond}");
    assert!(stage.last().unwrap().cwnd as f64 / seg > 2.0 * w_max, "grew well past W_max");
}

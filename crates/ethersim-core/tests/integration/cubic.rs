//! CUBIC (RFC 9438) end to end: after one loss on a clean long path the congestion
//! window, read from the flow's `tcp_series`, follows the RFC's curve.

use crate::common::{host_switch_host as path, overrides};
use ethersim_core::run::run_text;
use ethersim_core::sim::RunSummary;

/// C (segment/s³) and beta_cubic of RFC 9438 section 4.1.1, and alpha_cubic of 4.3.
const C: f64 = 0.4;
const BETA: f64 = 0.7;
const ALPHA: f64 = 3.0 * (1.0 - BETA) / (1.0 + BETA);
const MSS: f64 = 1460.0;

/// The `quantity` series of the one TCP flow: (t ps, level from t on).
fn series(s: &RunSummary, quantity: &str) -> Vec<(u64, u64)> {
    let x = s.tcp_series.iter().find(|x| x.quantity == quantity).unwrap_or_else(|| panic!("no {quantity}"));
    assert_eq!(x.dropped_points, 0, "every change kept");
    x.t_ps.iter().copied().zip(x.value.iter().copied()).collect()
}

/// The level of a change-point series at `t` ps.
fn level(s: &[(u64, u64)], t: u64) -> u64 {
    let i = s.partition_point(|&(at, _)| at <= t);
    s[i.checked_sub(1).expect("t after the first point")].1
}

#[test]
fn after_a_loss_on_a_clean_long_path_cwnd_follows_the_rfc_9438_curve() {
    // 1 Gb/s hops of 25 ms each (RTT 100 ms), a buffer nothing fills: the only loss is the
    // scripted one, frame 400 of the flow, in slow start. A window of a few hundred
    // segments is 3% of the path's 8,000-segment bandwidth-delay product, so the queue
    // stays empty and the RTT at its idle value.
    let app = "kind = \"tcp_bulk\"\nstop = \"17 s\"\ntcp = { congestion_control = \"cubic\", sack = true }";
    let text =
        path("1 Gb/s", "1 Gb/s", "25 ms", 100_000, app, "[[series]]\napp = \"t\"\nmax_points = 1000000");
    let drop = overrides(&[("links[0].loss", "{ drop = [{ app = \"t\", frames = [400] }] }")]);
    let report = run_text(&text, &drop, None).unwrap();
    let summary = &report.summary;
    let json = serde_json::to_value(summary).unwrap();
    let flow = &json["flows"][0];
    assert_eq!(
        (flow["lost"].as_u64(), flow["fast_retransmits"].as_u64(), flow["timeouts"].as_u64()),
        (Some(1), Some(1), Some(0))
    );
    let (cwnd, ssthresh, flight) =
        (series(summary, "cwnd"), series(summary, "ssthresh"), series(summary, "flight"));
    let srtt = series(summary, "srtt").last().unwrap().1 as f64 / 1e12;

    // Section 4.6: at the loss (ssthresh's first change), ssthresh = 0.7·FlightSize, the
    // segments Limited Transmit sent left out (RFC 5681 section 3.2 step 2); W_max is
    // the window just before.
    let (t_loss, ss) = ssthresh[1];
    let lt = flow["limited_transmits"].as_u64().unwrap() * MSS as u64;
    let before = t_loss - 1;
    assert_eq!(ss, (level(&flight, before) - lt) * 7 / 10, "ssthresh = beta_cubic · FlightSize");
    let w_max = level(&cwnd, before) as f64 / MSS;
    // The congestion avoidance stage begins at the first growth of a window at or above
    // ssthresh after the loss (section 4.2; the stage's first ACK always raises it).
    let start = cwnd.windows(2).position(|w| w[0].0 > t_loss && w[0].1 >= ss && w[1].1 > w[0].1).unwrap() + 1;
    let (t0, w_epoch) = (cwnd[start].0, cwnd[start - 1].1 as f64 / MSS);
    // Figure 2: K = cubic_root((W_max − cwnd_epoch)/C); Figure 1: the curve.
    let k = ((w_max - w_epoch) / C).cbrt();
    let w_cubic = |t: f64| C * (t - k).powi(3) + w_max;
    let end = summary.sim_time_ps.min(cwnd.last().unwrap().0);
    assert!(((end - t0) as f64 / 1e12) > 2.0 * k + 1.0, "the run covers the concave and the convex region");

    // Every 10 ms from one RTT into the stage: cwnd against W_cubic(t), and W_est (which
    // grows alpha_cubic per RTT from cwnd_epoch) below the curve, so the curve governs.
    // The sender's window goes out back to back, so its ACKs come back together and cwnd
    // climbs in one step per RTT, chasing W_cubic(t + RTT) (section 4.2): it can match
    // the curve to within half the curve's growth over an RTT either side, plus half a
    // segment. Averaged over the stage, it sits on the curve.
    let (mut worst, mut sum, mut points) = (0.0f64, 0.0f64, 0);
    let mut t_ps = t0 + 100_000_000_000;
    while t_ps < end {
        let t = (t_ps - t0) as f64 / 1e12;
        let w = level(&cwnd, t_ps) as f64 / MSS;
        let curve = w_cubic(t);
        assert!(w_epoch + ALPHA * t / srtt < curve, "t = {t}: Reno-friendly");
        let band = (w_cubic(t + srtt) - w_cubic(t - srtt)) / 2.0 + 0.5;
        assert!((w - curve).abs() <= band, "t = {t} s: cwnd {w} segments against W_cubic {curve} (± {band})");
        worst = worst.max((w - curve).abs() / curve);
        sum += (w - curve) / curve;
        points += 1;
        t_ps += 10_000_000_000;
    }
    let mean = sum / f64::from(points);
    eprintln!(
        "cubic end to end: W_max {w_max:.2} segments, cwnd_epoch {w_epoch:.2}, K {k:.3} s, SRTT {srtt:.6} s; \
         {points} samples, (cwnd − W_cubic)/W_cubic worst {:.3}%, mean {:.3}%",
        100.0 * worst,
        100.0 * mean
    );
    assert!(worst < 0.02 && mean.abs() < 0.002, "worst {worst}, mean {mean}");
    // The plateau: at K the window is W_max.
    let at_k = level(&cwnd, t0 + (k * 1e12) as u64) as f64 / MSS;
    assert!((at_k - w_max).abs() < 0.5, "cwnd at K: {at_k} segments, W_max {w_max}");
}

#[test]
fn cubic_is_chosen_by_the_scenario_under_any_profile_and_newreno_stays_the_default() {
    // The same lossy path five ways: the default, newreno named, CUBIC, and the linux
    // profile with and without CUBIC. A profile never changes the algorithm; CUBIC's larger
    // window after each loss (beta 0.7, not 0.5) and its curve deliver more than NewReno.
    let run = |tcp: &str| {
        let app = format!("kind = \"tcp_bulk\"\nstop = \"30 s\"\nmeasure_from = \"5 s\"\ntcp = {{ {tcp} }}");
        let text = path("1 Gb/s", "1 Gb/s", "10 ms", 100_000, &app, "");
        let lossy = overrides(&[("links[1].loss", "{ probability = 0.0001, from = \"s\" }")]);
        let report = run_text(&text, &lossy, None).unwrap();
        let v = serde_json::to_value(&report.summary).unwrap();
        v["flows"][0]["window_goodput_bps"].as_f64().unwrap()
    };
    let reno = run("sack = true");
    let named_reno = run("sack = true, congestion_control = \"newreno\"");
    let cubic = run("sack = true, congestion_control = \"cubic\"");
    let linux_cubic = run("profile = \"linux\", congestion_control = \"cubic\"");
    let linux = run("profile = \"linux\"");
    eprintln!("lossy 40 ms path: NewReno {reno}, CUBIC {cubic}, linux {linux}, linux + CUBIC {linux_cubic}");
    assert_eq!(reno.to_bits(), named_reno.to_bits(), "newreno is the default");
    assert!(cubic > 1.2 * reno, "CUBIC {cubic} against NewReno {reno}");
    assert!(linux_cubic > 1.2 * linux, "linux + CUBIC {linux_cubic} against linux {linux}");
}

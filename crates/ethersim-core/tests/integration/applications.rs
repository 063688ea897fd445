//! Applications against closed forms: pacing, counts, stop times and sender-side drops.

use crate::common::{simulation, two_hosts};
use ethersim_core::engine::StopReason;
use ethersim_core::time::SimTime;

/// A file sent at a set payload rate: datagram k is handed over at k·(payload·8/rate),
/// so the last one (k = N−1) arrives (N−1)·interval + its own time on the wire later.
#[test]
fn rate_paced_file_transfer_completes_on_schedule() {
    const N: u64 = 40;
    let app = format!("kind = \"udp_file\"\nsize = \"{} B\"\nrate = \"100 Mb/s\"", N * 1000);
    let text = two_hosts("1 Gb/s", "0 s", 8, &format!("{app}\npayload = \"1000 B\""));
    let mut sim = simulation(&text);
    sim.run();
    let interval_ps = 1000 * 8 * 10_000; // 8000 bits at 100 Mb/s = 80 us
    let frame = 14 + 20 + 8 + 1000 + 4;
    let wire_ps = (8 + frame) * 8 * 1000; // at 1 Gb/s, 1 ns per bit
    let app = &sim.network().flows[0];
    assert_eq!(app.forward().packets_received, N);
    assert_eq!(app.completed_at, Some(SimTime((N - 1) * interval_ps + wire_ps)));
}

/// A constant-rate source with a stop time sends at start, start + T, ... strictly
/// before the stop: 1 ms at one packet per 10 us is exactly 100 packets.
#[test]
fn constant_rate_source_stops_before_its_stop_time() {
    let app = "kind = \"constant_rate\"\nrate = \"100 Mb/s\"\npayload = \"125 B\"\nstart = \"3 us\"\nstop = \"1003 us\"";
    let mut sim = simulation(&two_hosts("1 Gb/s", "0 s", 8, app));
    sim.run();
    let app = &sim.network().flows[0];
    assert_eq!(app.forward().packets_sent, 100);
    assert_eq!(app.forward().packets_received, 100);
}

/// A source at twice the line rate on a host with one transmit buffer: the buffer is
/// busy for one frame time T (until the frame and its gap are off the wire) and packets
/// come every T/2, so every other packet finds no buffer and is lost at the sender.
#[test]
fn a_source_faster_than_its_host_loses_half_at_the_sender() {
    // Frame of 1518 B: T = 1538 · 8 ns at 1 Gb/s. This payload rate gives 1472 B every
    // 6152.001 ns (the interval rounds up to the picosecond), a hair over T/2.
    let app = "kind = \"constant_rate\"\nrate = \"1914174252 b/s\"\ncount = 1000";
    let mut sim = simulation(&two_hosts("1 Gb/s", "0 s", 1, app));
    sim.run();
    let app = &sim.network().flows[0];
    assert_eq!(app.forward().packets_sent + sim.network().endpoints[0].send_drops(), 1000);
    assert_eq!(app.forward().packets_sent, 500);
    assert_eq!(app.forward().packets_received, 500);
}

#[test]
fn the_event_budget_stops_the_run_after_exactly_that_many_events() {
    let app = "kind = \"udp_file\"\nsize = \"10 MB\"";
    let text = format!("max_events = 1234\n{}", two_hosts("1 Gb/s", "0 s", 8, app));
    let mut sim = simulation(&text);
    assert_eq!(sim.run(), StopReason::EventBudget);
    assert_eq!(sim.scheduler().events_executed(), 1234);
}

/// Two file transfers on one host share its transmit buffers: freed buffers go round
/// robin, so the two interleave and finish at about 2N frame times, apart by no more than
/// the head start the first one took (it filled all B buffers at t = 0): B + 1 frames.
/// Served one after the other, the first would finish at N frame times instead.
#[test]
fn transfers_sharing_a_host_share_its_buffers() {
    const N: u64 = 500;
    let text = format!(
        r#"
[[hosts]]
name = "a"
tx_buffers = 4
[[hosts]]
name = "b"
[[links]]
between = ["a", "b"]
rate = "1 Gb/s"
[[apps]]
kind = "udp_file"
from = "a"
to = "b"
size = "{size} B"
[[apps]]
kind = "udp_file"
from = "a"
to = "b"
size = "{size} B"
"#,
        size = N * 1472
    );
    let mut sim = simulation(&text);
    sim.run();
    let frame_ps = 1538 * 8 * 1000;
    let done: Vec<u64> = sim.network().flows.iter().map(|a| a.completed_at.unwrap().as_ps()).collect();
    assert!(done[0].abs_diff(done[1]) <= (4 + 1) * frame_ps, "{done:?}");
    for d in done {
        assert!(d >= (2 * N - 4 - 2) * frame_ps && d <= 2 * N * frame_ps, "{d}");
    }
}

/// A timeline longer than the clock (10 MB at 1 b/s: about 2.5 years) stops at the last
/// instant it could simulate, with its results and a warning saying why, instead of piling
/// events up at the clock's last instant.
#[test]
fn a_timeline_beyond_the_clock_stops_with_its_results_not_a_clamp() {
    let app = "kind = \"udp_file\"\nsize = \"10 MB\"";
    let text = two_hosts("1 b/s", "0 s", 8, app);
    let report = ethersim_core::run_text(&text, &[], None).unwrap();
    let s = &report.summary;
    assert_eq!(s.stop_reason, Some(StopReason::ClockOverflow));
    assert!(s.sim_time_ps < SimTime::END.as_ps(), "{}", s.sim_time_ps);
    // At 1 b/s a 1518 B frame takes 12,144 s: about 1,500 of them fit in 213 days.
    let sent = s.flows[0].packets_sent;
    assert!((1_400..=1_600).contains(&sent), "{sent}");
    assert!(report.warnings.iter().any(|w| w.contains("beyond the engine's clock")), "{:?}", report.warnings);
}

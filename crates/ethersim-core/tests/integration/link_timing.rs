//! Frame timing on links and through a store-and-forward switch, against closed forms.
//!
//! On the wire a frame of L bytes costs (8 + L + 12) bytes of line time: preamble and
//! SFD before it, the inter-frame gap after it (IEEE 802.3 clauses 4.2.5, 4.4.2). Its
//! last bit reaches the receiver (8 + L)·8/rate + delay after its preamble started.

use crate::common::{simulation, simulation_until, simulation_with, two_hosts};
use ethersim_core::time::{Duration, SimTime};

const NS: u64 = 1_000;

#[test]
fn a_maximum_frame_occupies_a_gigabit_wire_for_exactly_12304_ns() {
    let app = "kind = \"constant_rate\"\nrate = \"1 Mb/s\"\npayload = \"1472 B\"\ncount = 1";
    let mut sim = simulation(&two_hosts("1 Gb/s", "0 s", 8, app));
    sim.run();
    // Delivered when its last bit arrives: (8 + 1518) bytes at 1 ns per bit. The run ends
    // there, with the inter-frame gap still to come.
    let end = SimTime((8 + 1518) * 8 * NS);
    assert_eq!(sim.network().flows[0].forward().last_rx, Some(end));
    assert_eq!(sim.scheduler().now(), end);
    let port = &sim.network().ports[0];
    assert_eq!(port.frames_sent_by(end), 1);
    assert_eq!(port.bytes_sent_by(end), 1518);
    assert_eq!(port.stats().frames_sent, 0, "the gap is not over");
    assert!((port.utilization(end) - 1.0).abs() < 1e-12);
    // With a second frame much later, the first transmission completes: the wire was
    // occupied for exactly (1518 + 20) bytes.
    let mut later = simulation_with(&two_hosts("1 Gb/s", "0 s", 8, app), &[("apps[0].count", "2")]);
    later.run();
    let port = &later.network().ports[0];
    assert_eq!(port.stats().frames_sent, 1);
    assert_eq!(port.stats().busy_ps, (1518 + 20) * 8 * NS);
}

/// N frames handed over at t = 0 leave back to back; frame k (from 0) is received at
/// k·(L+20)·8/r + (L+8)·8/r + d, and not one picosecond earlier.
#[test]
fn back_to_back_frames_arrive_at_exact_instants() {
    const N: u64 = 50;
    let delay_ps = 2_345_678; // an odd propagation delay, in ps
    let app = format!("kind = \"udp_file\"\nsize = \"{} B\"", N * 1472);
    let text = two_hosts("10 Gb/s", &format!("{delay_ps} ps"), N as u32, &app);
    // At 10 Gb/s one byte takes 800 ps.
    let arrival = |k: u64| SimTime(k * 1538 * 800 + 1526 * 800 + delay_ps);
    for k in 0..N {
        let mut before = simulation_until(&text, SimTime(arrival(k).0 - 1));
        before.run();
        assert_eq!(before.network().flows[0].forward().packets_received, k, "frame {k} arrived early");
        let mut at = simulation_until(&text, arrival(k));
        at.run();
        assert_eq!(
            at.network().flows[0].forward().packets_received,
            k + 1,
            "frame {k} not there at its instant"
        );
    }
}

/// Through a store-and-forward switch each frame is received whole before it is sent
/// on, so each hop adds (8 + L)·8/r + d; the first frame's delay is the sum over hops.
#[test]
fn store_and_forward_adds_one_frame_time_per_hop() {
    let text = r#"
[[hosts]]
name = "a"
[[hosts]]
name = "b"
[[switches]]
name = "s1"
[[switches]]
name = "s2"
[[links]]
between = ["a", "s1"]
rate = "1 Gb/s"
delay = "1 us"
[[links]]
between = ["s1", "s2"]
rate = "1 Gb/s"
delay = "2 us"
[[links]]
between = ["s2", "b"]
rate = "1 Gb/s"
delay = "3 us"
[[apps]]
kind = "constant_rate"
from = "a"
to = "b"
rate = "1 Mb/s"
payload = "100 B"
count = 3
"#;
    let mut sim = simulation(text);
    sim.run();
    let app = &sim.network().flows[0];
    let frame = 14 + 20 + 8 + 100 + 4; // Ethernet + IPv4 + UDP headers, payload, FCS
    let per_hop = Duration::from_ns((8 + frame) * 8);
    let expected = per_hop.as_ps() * 3 + Duration::from_us(1 + 2 + 3).as_ps();
    let d = app.counters.delay.summary();
    assert_eq!(app.forward().packets_received, 3);
    assert!((d.min_s - expected as f64 * 1e-12).abs() < 1e-15, "{d:?}");
    assert!((d.max_s - expected as f64 * 1e-12).abs() < 1e-15, "{d:?}");
}

/// A host that takes 10 us per packet limits a transfer to one packet per 10 us, even
/// on a fast link: the completion time is N·10 us plus the last frame's time on the wire.
#[test]
fn host_processing_time_bounds_the_packet_rate() {
    const N: u64 = 100;
    let text = format!(
        r#"
[[hosts]]
name = "a"
tx_processing = "10 us"
[[hosts]]
name = "b"
[[links]]
between = ["a", "b"]
rate = "10 Gb/s"
[[apps]]
kind = "udp_file"
from = "a"
to = "b"
size = "{} B"
"#,
        N * 1472
    );
    let mut sim = simulation(&text);
    sim.run();
    let app = &sim.network().flows[0];
    let expected = N * 10_000_000 + 1526 * 800;
    assert_eq!(app.completed_at, Some(SimTime(expected)));
}

//! Scheduled link outages against closed forms: a waiting frame starts exactly when the
//! outage ends, the frame whose last bit had not left is lost, and a buffer of S bytes
//! behind a link dark for T loses max(0, R·T − S) of a stream arriving at R.

#![allow(clippy::format_push_string)] // test scenarios are assembled as text

use crate::common::simulation;
use ethersim_core::sim::{Subscriber, TraceLog, TraceRecord};
use ethersim_core::time::{BitRate, Bytes, Duration, SimTime};

const US: u64 = 1_000_000;

/// Hosts `a` and `b` on one 1 Gb/s link with 1 us of delay and the given outages (the
/// inside of a TOML array), then `apps`.
fn a_b_link(outages: &str, apps: &str) -> String {
    format!(
        "[[hosts]]\nname = \"a\"\n[[hosts]]\nname = \"b\"\n[[links]]\nbetween = [\"a\", \"b\"]\n\
         rate = \"1 Gb/s\"\ndelay = \"1 us\"\noutages = [{outages}]\n{apps}"
    )
}

/// The link dark over [100, 150) us; `a` sends a maximum frame at each of `sends` (in us).
fn two_hosts_with_outage(sends: &[u64]) -> String {
    let mut text = a_b_link(r#"{ start = "100 us", duration = "50 us" }"#, "");
    for (i, t) in sends.iter().enumerate() {
        text.push_str(&format!(
            "[[apps]]\nname = \"f{i}\"\nkind = \"constant_rate\"\nfrom = \"a\"\nto = \"b\"\nrate = \"1 Mb/s\"\nstart = \"{t} us\"\ncount = 1\n"
        ));
    }
    text
}

/// Last bit of a maximum frame started at `start` reaches `b`: (8 + 1518)·8 ns + 1 us.
fn arrival(start: u64) -> SimTime {
    SimTime(start + BitRate::gbps(1).time_to_send(Bytes(8 + 1518)).as_ps() + US)
}

#[test]
fn a_frame_queued_behind_an_outage_starts_exactly_when_it_ends() {
    let mut sim = simulation(&two_hosts_with_outage(&[120]));
    sim.network_mut().trace.subscribe(Subscriber::Log(TraceLog::default()));
    sim.run();
    let net = sim.network();
    assert_eq!(net.flows[0].forward().last_rx, Some(arrival(150 * US)));
    let Subscriber::Log(log) = &net.trace.subscribers()[0] else { unreachable!() };
    let starts: Vec<SimTime> = log
        .records
        .iter()
        .filter(|(_, r)| matches!(r, TraceRecord::TxStarted { .. }))
        .map(|(t, _)| *t)
        .collect();
    assert_eq!(starts, vec![SimTime(150 * US)]);
}

#[test]
fn the_frame_whose_last_bit_has_not_left_is_lost_and_the_others_arrive() {
    // At 99 us a frame is 1 us into its 12.2 us on the wire: cut off. At 87 us a frame's
    // last bit leaves at 99.208 us, before the outage, and it arrives (its gap overlaps).
    let mut sim = simulation(&two_hosts_with_outage(&[87, 99, 130]));
    sim.run();
    let net = sim.network();
    let received: Vec<u64> = net.flows.iter().map(|f| f.forward().packets_received).collect();
    let lost: Vec<u64> = net.flows.iter().map(|f| f.forward().lost).collect();
    assert_eq!(received, vec![1, 0, 1]);
    assert_eq!(lost, vec![0, 1, 0]);
    assert_eq!(net.ports[0].stats().wire_losses, 1);
    assert_eq!(net.flows[0].forward().last_rx, Some(arrival(87 * US)));
    // The frame due at 130 us waited for the end of the outage.
    assert_eq!(net.flows[2].forward().last_rx, Some(arrival(150 * US)));
    let summary = sim.summary("x", 1);
    assert_eq!(summary.links[0].outages, 1);
    assert!((summary.links[0].dark_s - 50e-6).abs() < 1e-15);
}

/// A stream of maximum frames every Δ = 1472·8/R from a 10 Gb/s host into a switch whose
/// 1 Gb/s output link goes dark for T behind a buffer of S bytes.
fn burst_into_outage(rate_mbps: u64, outage_ms: u64, buffer: u64) -> (u64, u64, f64) {
    let text = format!(
        r#"
duration = "{end} ms"
[[hosts]]
name = "a"
[[hosts]]
name = "b"
[[switches]]
name = "s"
port_buffer = {{ bytes = "{buffer} B" }}
[[links]]
between = ["a", "s"]
rate = "10 Gb/s"
[[links]]
between = ["s", "b"]
rate = "1 Gb/s"
outages = [{{ start = "10 ms", duration = "{outage_ms} ms" }}]
[[apps]]
kind = "constant_rate"
from = "a"
to = "b"
rate = "{rate_mbps} Mb/s"
start = "1 us"
stop = "{stop} ms"
"#,
        end = 10 + outage_ms + 20,
        stop = 10 + outage_ms + 10
    );
    let mut sim = simulation(&text);
    sim.run();
    let net = sim.network();
    let flow = &net.flows[0];
    let drops = net.ports[2].stats().drops; // port 2: s on link 1, towards b
    let wire = net.ports[2].stats().wire_losses;
    assert_eq!(flow.forward().lost, drops + wire, "every loss is a queue drop or a cut-off");
    assert_eq!(flow.forward().packets_sent, flow.forward().packets_received + flow.forward().lost);
    // The burst-loss model (SPEC): L = max(0, R·T − S) bytes, here with R in frame bytes
    // (a 1518 B frame every Δ), lost as ceil(L / 1518) frames.
    let interval_s = 1472.0 * 8.0 / (rate_mbps as f64 * 1e6);
    let arriving_bytes = outage_ms as f64 * 1e-3 / interval_s * 1518.0;
    let closed_form = ((arriving_bytes - buffer as f64).max(0.0) / 1518.0).ceil();
    (drops, wire, closed_form)
}

#[test]
fn frames_lost_behind_an_outage_match_the_burst_loss_closed_form() {
    for (rate, outage, buffer) in [(500, 1, 10_000), (500, 5, 65_536), (800, 3, 100_000), (300, 2, 256_000)] {
        let (drops, wire, closed_form) = burst_into_outage(rate, outage, buffer);
        assert!(wire <= 1);
        assert!(
            (drops as f64 - closed_form).abs() <= 1.0,
            "R {rate} Mb/s, T {outage} ms, S {buffer} B: {drops} dropped, closed form {closed_form:.2}"
        );
    }
    // The cases cover both sides of the max(): the last buffer absorbs its whole outage.
    assert_eq!(burst_into_outage(300, 2, 256_000).0, 0);
}

/// Both directions go dark: a ping sent during the outage waits for its end, and the
/// port's time series shows the gate shut exactly over the outage.
#[test]
fn an_outage_darkens_both_directions_and_shows_in_the_series() {
    let text = r#"
[[hosts]]
name = "a"
[[hosts]]
name = "b"
[[links]]
between = ["a", "b"]
rate = "1 Gb/s"
outages = [{ start = "1 ms", duration = "2 ms" }]
[[apps]]
kind = "ping"
from = "a"
to = "b"
interval = "800 us"
count = 5
[[series]]
port = "b->a"
"#;
    let mut sim = simulation(text);
    sim.run();
    let summary = sim.summary("x", 1);
    let flow = &summary.flows[0];
    assert_eq!(flow.app["ping_replies"], 5);
    // Requests go at 0, 0.8, 1.6, 2.4 and 3.2 ms. Those of 1.6 and 2.4 ms wait for the
    // end of the outage at 3 ms; the longest RTT is the 1.6 ms one's: 1.4 ms of waiting,
    // then its request and its reply each take 8 + 102 B of wire time (no delay, no
    // processing).
    let frame = BitRate::gbps(1).time_to_send(Bytes(8 + 102)).as_ps();
    let max_rtt = flow.app["rtt"]["max_s"].as_f64().unwrap();
    let want = (Duration::from_us(1400).as_ps() + 2 * frame) as f64 * 1e-12;
    assert!((max_rtt - want).abs() < 1e-15, "{max_rtt} vs {want}");
    let gate = summary.series.iter().find(|s| s.quantity == "gate_open").unwrap();
    assert_eq!(gate.t_ps, vec![0, Duration::from_ms(1).as_ps(), Duration::from_ms(3).as_ps()]);
    assert_eq!(gate.value, vec![1, 0, 1]);
}

/// An outage shorter than the rest of a frame cuts it off; a short frame sent after the
/// outage then arrives before the cut frame would have, and must not wait for it (the
/// cut frame leaves the cable at once).
#[test]
fn a_short_frame_after_a_short_outage_arrives_at_its_own_time() {
    let apps = "[[apps]]\nname = \"big\"\nkind = \"constant_rate\"\nfrom = \"a\"\nto = \"b\"\n\
                rate = \"1 Mb/s\"\nstart = \"100 us\"\ncount = 1\n\
                [[apps]]\nname = \"small\"\nkind = \"constant_rate\"\nfrom = \"a\"\nto = \"b\"\n\
                rate = \"1 Mb/s\"\npayload = \"18 B\"\nstart = \"100500 ns\"\ncount = 1\n";
    let text = a_b_link(r#"{ start = "101 us", duration = "1 us" }"#, apps);
    let mut sim = simulation(&text);
    sim.run();
    let net = sim.network();
    assert_eq!(net.flows[0].forward().lost, 1, "the big frame is cut off");
    // The 64 B frame starts when the outage ends at 102 us: (8 + 64)·8 ns + 1 us later.
    let want = SimTime(102 * US + BitRate::gbps(1).time_to_send(Bytes(8 + 64)).as_ps() + US);
    assert_eq!(net.flows[1].forward().last_rx, Some(want));
    assert_eq!(sim.scheduler().now(), want, "the clock never ran past it");
}

/// The link is dark over [start, end): a frame handed over at the very instant an outage
/// starts waits for its end, whatever else happens at that instant.
#[test]
fn a_frame_due_as_the_outage_starts_waits_for_its_end() {
    let ping = |outages: &str| {
        let app = "[[apps]]\nkind = \"ping\"\nfrom = \"a\"\nto = \"b\"\ninterval = \"1 ms\"\ncount = 2\nstart = \"1 ms\"\n";
        a_b_link(outages, app)
    };
    for outages in [
        r#"{ start = "1 ms", duration = "100 us" }"#,
        r#"{ start = "500 us", duration = "100 us" }, { start = "1 ms", duration = "100 us" }"#,
        r#"{ start = "0 s", duration = "1 ms" }, { start = "1 ms", duration = "100 us" }"#,
    ] {
        let mut sim = simulation(&ping(outages));
        sim.run();
        let s = sim.summary("x", 1);
        let flow = &s.flows[0];
        assert_eq!((flow.packets_received, flow.lost, s.ports[0].wire_losses), (2, 0, 0), "{outages}");
        // The first request waited 100 us: RTT 100 us plus two 110 B frames and 2 us.
        let frame = BitRate::gbps(1).time_to_send(Bytes(8 + 102)).as_ps();
        let want = (Duration::from_us(100 + 2).as_ps() + 2 * frame) as f64 * 1e-12;
        assert!((flow.app["rtt"]["max_s"].as_f64().unwrap() - want).abs() < 1e-15, "{outages}");
    }
}

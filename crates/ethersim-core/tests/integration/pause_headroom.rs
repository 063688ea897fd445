//! The default PAUSE high-water mark leaves enough headroom for everything that can still
//! arrive after it (issue 24): whatever the rates of the inputs, of the congested output
//! and of each link's two directions, a switch with the default marks, whose link
//! partners all honour PAUSE, drops nothing.
//!
//! Each case: four senders, at the ingress rate with different delays, flood one sink at
//! the egress rate through a switch; the sink pauses the switch's output to it now and
//! then (so the output does not drain at all for a while, the case the headroom must
//! cover without counting on draining) and sends full-size frames back to every sender,
//! so that an XOFF may wait behind a maximum frame on its way out.

#![allow(clippy::format_push_string)] // test scenarios are assembled as text

use crate::common::simulation;
use ethersim_core::node::Port;
use ethersim_core::sim::{Node, Simulation};

const SENDERS: usize = 4;

/// One-way delay of sender `k`'s link.
const DELAYS: [&str; SENDERS] = ["500 ns", "1 us", "2 us", "5 us"];

/// The whole-network scenario: senders at `ingress` (each link's `extra` keys added),
/// the sink at `egress`, a switch whose ports hold `buffer`, default marks.
fn flood(egress: &str, ingress: &str, buffer: &str, extra: &str) -> String {
    let mut text = format!(
        r#"
[[switches]]
name = "sw"
port_buffer = {{ bytes = "{buffer}" }}
pause = {{ send = true }}
[[hosts]]
name = "sink"
[[links]]
between = ["sw", "sink"]
rate = "{egress}"
delay = "1 us"
[[pause_generators]]
port = "sink->sw"
every = "2 ms"
pause = "400 us"
start = "300 us"
count = 20
"#
    );
    for (k, delay) in DELAYS.iter().enumerate() {
        text.push_str(&format!(
            r#"
[[hosts]]
name = "s{k}"
[[links]]
between = ["s{k}", "sw"]
rate = "{ingress}"
delay = "{delay}"
{extra}
[[apps]]
kind = "udp_file"
from = "s{k}"
to = "sink"
size = "1 MB"
[[apps]]
kind = "udp_file"
from = "sink"
to = "s{k}"
size = "500 kB"
"#
        ));
    }
    text
}

/// The switch's ports.
fn switch_ports(sim: &Simulation) -> Vec<&Port> {
    let net = sim.network();
    net.ports.iter().filter(|p| matches!(net.nodes[p.node.index()], Node::Switch(_))).collect()
}

/// PAUSE frames the switch's ports sent.
fn switch_xoffs(sim: &Simulation) -> u64 {
    let net = sim.network();
    let on_switch = |i: &usize| matches!(net.nodes[net.ports[*i].node.index()], Node::Switch(_));
    (0..net.ports.len()).filter(on_switch).map(|i| net.attached.pause[i].rx.sent).sum()
}

/// Runs `text` and returns (frames dropped at the switch, PAUSE frames the switch sent
/// its inputs, frames delivered, frames sent).
fn run(text: &str) -> (u64, u64, u64, u64) {
    let mut sim = simulation(text);
    sim.run();
    let ports = switch_ports(&sim);
    let drops = ports.iter().map(|p| p.stats().drops).sum();
    let xoffs = switch_xoffs(&sim);
    let flows = &sim.network().flows;
    let got = flows.iter().map(|f| f.forward().packets_received).sum();
    let sent = flows.iter().map(|f| f.forward().packets_sent).sum();
    (drops, xoffs, got, sent)
}

const RATES: [&str; 3] = ["100 Mb/s", "1 Gb/s", "10 Gb/s"];

#[track_caller]
fn check(egress: &str, ingress: &str, buffer: &str, extra: &str) {
    let (drops, xoffs, got, sent) = run(&flood(egress, ingress, buffer, extra));
    let case = format!("egress {egress}, ingress {ingress} {extra}");
    assert!(xoffs > 0, "{case}: the switch never reached its high-water mark");
    assert_eq!(drops, 0, "{case}: {drops} frames dropped at the switch");
    assert_eq!(got, sent, "{case}: every frame is delivered");
}

#[test]
fn the_default_marks_drop_nothing_at_any_pair_of_rates() {
    for egress in RATES {
        for ingress in RATES {
            check(egress, ingress, "256 KiB", "");
        }
    }
}

#[test]
fn the_default_marks_drop_nothing_with_a_900_mbps_egress() {
    // The reported case: a 900 Mb/s egress paused by its host, gigabit inputs.
    check("900 Mb/s", "1 Gb/s", "256 KiB", "");
    check("900 Mb/s", "10 Gb/s", "256 KiB", "");
}

#[test]
fn the_default_marks_drop_nothing_when_the_switch_sends_slower_than_its_inputs() {
    // Each sender's link carries 10 Gb/s towards the switch but 100 Mb/s back (its
    // switch→sender direction scaled down at once): an XOFF behind a maximum frame waits
    // 123 us, in which a sender puts 154 kB on the wire, and a pause of 65535 quanta lasts
    // 3.4 ms at the sender's rate, not the 336 ms it would at the switch's.
    let slow_back = r#"rate_switching = { rates = ["100 Mb/s", "10 Gb/s"], switch_time = "1 us", from = "sw", policy = { kind = "schedule", changes = [{ at = "1 ns", rate = "100 Mb/s" }] } }"#;
    check("1 Gb/s", "10 Gb/s", "1 MiB", slow_back);
    check("100 Mb/s", "10 Gb/s", "1 MiB", slow_back);
}

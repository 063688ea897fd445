//! Ping against closed forms: on an idle path the round-trip time is the sum of each
//! hop's serialization and propagation, both ways, and both hosts' processing times.

#![allow(clippy::format_push_string)] // test scenarios are assembled as text

use crate::common::simulation;
use ethersim_core::app::EndpointKind;
use ethersim_core::sim::Simulation;
use ethersim_core::time::{BitRate, Bytes, Duration, SimTime};

/// Host `a` (tx 3 us, rx 2 us) — 1 Gb/s, 700 ns — switch — 100 Mb/s, 1.3 us — host `b`
/// (tx 5 us, rx 4 us); `count` pings of `payload` bytes, 1 ms apart (the path is idle
/// between them) or `interval` apart.
fn ping_path(payload: u64, count: u64) -> Simulation {
    simulation(&ping_text(payload, count, "1 ms"))
}

fn ping_text(payload: u64, count: u64, interval: &str) -> String {
    format!(
        r#"
[[hosts]]
name = "a"
tx_processing = "3 us"
rx_processing = "2 us"
[[hosts]]
name = "b"
tx_processing = "5 us"
rx_processing = "4 us"
[[switches]]
name = "s"
[[links]]
between = ["a", "s"]
rate = "1 Gb/s"
delay = "700 ns"
[[links]]
between = ["s", "b"]
rate = "100 Mb/s"
delay = "1300 ns"
[[apps]]
kind = "ping"
name = "p"
from = "a"
to = "b"
interval = "{interval}"
payload = "{payload} B"
count = {count}
"#
    )
}

/// Time from the first bit of the preamble to the frame's last bit arriving at the far
/// end of one hop (store-and-forward starts then): (8 + L)·8/rate + delay.
fn hop(rate: BitRate, delay: Duration, frame: u64) -> u64 {
    rate.time_to_send(Bytes(8 + frame)).as_ps() + delay.as_ps()
}

fn expected_rtt(frame: u64) -> Duration {
    let fast = hop(BitRate::gbps(1), Duration::from_ns(700), frame);
    let slow = hop(BitRate::mbps(100), Duration::from_ns(1300), frame);
    let processing = Duration::from_us(3 + 4 + 5 + 2).as_ps();
    Duration(2 * (fast + slow) + processing)
}

#[test]
fn rtt_on_an_idle_path_equals_the_closed_form_to_the_picosecond() {
    // 56 B of echo data: 14 + 20 + 8 + 56 + 4 = 102 B frames; 0 B pads to 64 B.
    for (payload, frame) in [(56, 102), (0, 64), (1472, 1518)] {
        let mut sim = ping_path(payload, 20);
        sim.run();
        let net = sim.network();
        let EndpointKind::PingClient(client) = &net.endpoints[0].kind else {
            panic!("source end is the pinger")
        };
        let want = expected_rtt(frame);
        assert_eq!(client.replies(), 20);
        assert_eq!(client.rtt().min(), Some(want), "payload {payload}");
        assert_eq!(client.rtt().max(), Some(want), "payload {payload}");
        // The flow completes when the last reply is delivered: 19 intervals and one RTT.
        let flow = &net.flows[0];
        assert_eq!(flow.completed_at.unwrap().as_ps(), 19 * Duration::from_ms(1).as_ps() + want.as_ps());
    }
}

/// Requests and replies are both data, each counted on its own direction of the flow.
#[test]
fn requests_count_forward_and_replies_backward() {
    let mut sim = ping_path(56, 7);
    sim.run();
    let flow = &sim.network().flows[0];
    assert_eq!((flow.forward().packets_sent, flow.forward().packets_received), (7, 7));
    assert_eq!((flow.reverse().packets_sent, flow.reverse().packets_received), (7, 7));
    assert_eq!(flow.forward().bytes_received, 7 * 56);
    assert_eq!(flow.in_flight, 0);
}

/// Pings closer together than the round trip overlap in flight, yet each is answered
/// in exactly the idle-path time: requests and replies use opposite directions of each
/// full-duplex link and different processors of each host, and every resource is free
/// again within 20 us (the slowest step is a 102 B frame on the 100 Mb/s hop, 8.8 us).
#[test]
fn pings_closer_than_the_rtt_are_answered_independently() {
    let mut sim = simulation(&ping_text(56, 50, "20 us"));
    sim.run();
    let net = sim.network();
    let EndpointKind::PingClient(client) = &net.endpoints[0].kind else { panic!("source end is the pinger") };
    let want = expected_rtt(102);
    assert!(want > Duration::from_us(20), "the pings must overlap: RTT {want}");
    assert_eq!(client.replies(), 50);
    assert_eq!((client.rtt().min(), client.rtt().max()), (Some(want), Some(want)));
}

/// Three hosts ping one: the one echo responder of that host serves every flow, each
/// reply on its request's flow, through the host's single transmit buffer.
#[test]
fn one_responder_answers_many_peers_each_on_its_own_flow() {
    let mut text = String::from(
        "[[hosts]]\nname = \"b\"\ntx_buffers = 1\ntx_processing = \"5 us\"\n[[switches]]\nname = \"s\"\n\
         [[links]]\nbetween = [\"b\", \"s\"]\nrate = \"1 Gb/s\"\n",
    );
    for (h, count) in [("a", 7), ("c", 5), ("d", 9)] {
        text.push_str(&format!(
            "[[hosts]]\nname = \"{h}\"\n[[links]]\nbetween = [\"{h}\", \"s\"]\nrate = \"1 Gb/s\"\n\
             [[apps]]\nkind = \"ping\"\nname = \"{h}\"\nfrom = \"{h}\"\nto = \"b\"\ninterval = \"10 us\"\ncount = {count}\n"
        ));
    }
    let mut sim = simulation(&text);
    sim.run();
    let net = sim.network();
    assert_eq!(net.endpoints.len(), 3 + 1, "three pingers and one responder");
    assert!(net.flows.iter().all(|f| f.ends[1] == net.flows[0].ends[1]));
    for (flow, count) in net.flows.iter().zip([7, 5, 9]) {
        assert_eq!(flow.forward().packets_received, count, "{}", flow.name);
        assert_eq!(
            (flow.reverse().packets_sent, flow.reverse().packets_received),
            (count, count),
            "{}",
            flow.name
        );
        assert!(flow.completed_at.is_some());
    }
    // b is busy from the first request on: each reply takes 5 us of processing and then
    // holds b's one buffer for its 976 ns on the wire (8 + 102 + 12 B at 1 Gb/s), so reply
    // k (from 0) starts on b's wire at 1760 ns (the first request's two hops) + 5 us +
    // k · 5976 ns and reaches its pinger 1760 ns later. The last of the 21, d's request of
    // 80 us, completes flow d.
    let wire = BitRate::gbps(1).time_to_send(Bytes(8 + 102)).as_ps();
    let cycle = Duration::from_us(5).as_ps() + BitRate::gbps(1).time_to_send(Bytes(8 + 102 + 12)).as_ps();
    let last = 2 * wire + Duration::from_us(5).as_ps() + 20 * cycle + 2 * wire;
    assert_eq!(net.flows[2].completed_at, Some(SimTime(last)));
    assert_eq!(sim.scheduler().now(), SimTime(last));
}

//! Delivery by (flow, end): flows sharing hosts each count their own packets; MAC control
//! frames appear in port counters and never in a flow; echo replies count on their
//! flow's reverse direction.

use crate::common::simulation;
use ethersim_core::ids::{NodeId, PortId};
use ethersim_core::sim::Simulation;
use ethersim_core::time::{Duration, SimTime};
use ethersim_core::wire::{ethernet, Packet};

const SHARED: &str = r#"
[[hosts]]
name = "a"
tx_processing = "1 us"
tx_buffers = 16
[[hosts]]
name = "b"
rx_processing = "1 us"
[[switches]]
name = "s"
[[links]]
between = ["a", "s"]
rate = "1 Gb/s"
delay = "1 us"
[[links]]
between = ["s", "b"]
rate = "1 Gb/s"
delay = "1 us"
[[apps]]
kind = "udp_file"
name = "file"
from = "a"
to = "b"
size = "1472000 B"
rate = "400 Mb/s"   # paced, so that the pings on its host find transmit buffers
[[apps]]
kind = "ping"
name = "a-pings-b"
from = "a"
to = "b"
interval = "100 us"
count = 20
[[apps]]
kind = "ping"
name = "b-pings-a"
from = "b"
to = "a"
interval = "150 us"
count = 10
payload = "1000 B"
"#;

fn run(control_frames: u32) -> Simulation {
    let mut sim = simulation(SHARED);
    for k in 0..control_frames {
        sim.run_until(SimTime(Duration::from_us(200 + 300 * u64::from(k)).as_ps()));
        let (net, sched) = sim.parts_mut();
        let now = sched.now();
        net.send_control_frame(
            sched,
            PortId(0),
            Packet::control(NodeId(0), NodeId(2), ethernet::MIN_FRAME as u32, now),
        );
    }
    sim.run();
    sim
}

#[test]
fn flows_sharing_hosts_each_count_their_own_packets() {
    let sim = run(0);
    let s = sim.summary("x", 1);
    let by_name = |n: &str| s.flows.iter().find(|f| f.name == n).unwrap();
    let (file, ab, ba) = (by_name("file"), by_name("a-pings-b"), by_name("b-pings-a"));
    assert_eq!((file.kind, ab.kind, ba.kind), ("udp_file", "ping", "ping"));
    assert_eq!((file.packets_sent, file.packets_received, file.bytes_received), (1000, 1000, 1_472_000));
    assert_eq!((file.reverse_packets_sent, file.reverse_packets_received), (0, 0));
    assert_eq!((ab.packets_received, ab.reverse_packets_received, ab.bytes_received), (20, 20, 20 * 56));
    assert_eq!((ba.packets_received, ba.reverse_packets_received, ba.bytes_received), (10, 10, 10_000));
    assert_eq!((ab.app["ping_replies"].as_u64(), ba.app["ping_replies"].as_u64()), (Some(20), Some(10)));
    // Port a→s carried the file, a's requests and a's replies to b; s→a only the rest.
    let port = |node: &str, peer: &str| s.ports.iter().find(|p| p.node == node && p.peer == peer).unwrap();
    assert_eq!(port("a", "s").frames_sent, 1000 + 20 + 10);
    assert_eq!(port("s", "a").frames_sent, 20 + 10);
    assert_eq!(port("b", "s").frames_sent, 20 + 10);
    let host = |n: &str| s.hosts.iter().find(|h| h.name == n).unwrap();
    assert_eq!(host("b").rx_packets, 1000 + 20 + 10);
}

#[test]
fn mac_control_frames_count_at_ports_and_never_in_a_flow() {
    let (plain, with_control) = (run(0), run(3));
    let (p, c) = (plain.summary("x", 1), with_control.summary("x", 1));
    assert_eq!(c.ports[0].control_sent, 3, "a's port sent them");
    assert_eq!(c.ports[1].control_received, 3, "s's port on that link received them");
    assert_eq!(c.ports[0].frames_sent, p.ports[0].frames_sent, "not counted as data frames");
    for (f, g) in p.flows.iter().zip(&c.flows) {
        assert_eq!(
            (f.packets_sent, f.packets_received, f.bytes_received, f.reverse_packets_received, f.lost),
            (g.packets_sent, g.packets_received, g.bytes_received, g.reverse_packets_received, g.lost),
            "flow {}",
            f.name
        );
    }
    // They took wire time, though: 3 × (8 + 64 + 12) B at 1 Gb/s = 2016 ns more busy time.
    let busy = |s: &ethersim_core::sim::RunSummary| s.ports[0].utilization * s.sim_time_s;
    assert!((busy(&c) - busy(&p) - 2016e-9).abs() < 1e-12, "{} vs {}", busy(&c), busy(&p));
}

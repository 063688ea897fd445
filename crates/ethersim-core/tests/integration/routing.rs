//! Forwarding through several switches: every packet takes the shortest path, and each
//! link carries exactly the flows routed over it.

#![allow(clippy::format_push_string)] // test scenarios are assembled as text

use crate::common::simulation;

/// Two switches, two hosts on each; every host sends 10 packets to every other host.
/// Frames sent on the inter-switch link in each direction: 2 sources × 2 destinations ×
/// 10 packets = 40. Each host's uplink carries its own 3 × 10 = 30.
#[test]
fn all_to_all_over_two_switches_uses_shortest_paths() {
    let hosts = ["a", "b", "c", "d"];
    let mut text = String::new();
    for h in hosts {
        text.push_str(&format!("[[hosts]]\nname = \"{h}\"\n"));
    }
    text.push_str("[[switches]]\nname = \"s1\"\n[[switches]]\nname = \"s2\"\n");
    for (h, s) in [("a", "s1"), ("b", "s1"), ("c", "s2"), ("d", "s2"), ("s1", "s2")] {
        text.push_str(&format!(
            "[[links]]\nbetween = [\"{h}\", \"{s}\"]\nrate = \"1 Gb/s\"\ndelay = \"1 us\"\n"
        ));
    }
    for from in hosts {
        for to in hosts.iter().filter(|&&t| t != from) {
            text.push_str(&format!(
                "[[apps]]\nkind = \"constant_rate\"\nfrom = \"{from}\"\nto = \"{to}\"\nrate = \"10 Mb/s\"\ncount = 10\n"
            ));
        }
    }
    let mut sim = simulation(&text);
    sim.run();
    let net = sim.network();
    for app in &net.flows {
        assert_eq!(app.forward().packets_received, 10);
        assert_eq!(app.forward().reordered, 0);
    }
    // Ports 2i and 2i+1 are link i's ends; link 4 joins s1 and s2.
    assert_eq!(net.ports[8].stats().frames_sent, 40);
    assert_eq!(net.ports[9].stats().frames_sent, 40);
    for host_link in 0..4 {
        assert_eq!(net.ports[2 * host_link].stats().frames_sent, 30, "uplink of host {host_link}");
        assert_eq!(net.ports[2 * host_link + 1].stats().frames_sent, 30, "downlink of host {host_link}");
    }
}

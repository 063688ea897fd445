//! Same scenario and seed: byte-identical summary. Different seed: different random workload.
//! And conservation of packets under random loads.

mod common;

use ethersim_core::run_text;
use proptest::prelude::*;

#[allow(clippy::format_push_string)]
fn fan_in(load_mbps: u64, buffer_frames: u32, duration_ms: u64) -> String {
    let mut s = format!("duration = \"{duration_ms} ms\"\n");
    for i in 0..4 {
        s += &format!("[[hosts]]\nname = \"h{i}\"\n");
    }
    s += &format!("[[switches]]\nname = \"s\"\nport_buffer = {{ frames = {buffer_frames} }}\n");
    for i in 0..4 {
        s += &format!("[[links]]\nbetween = [\"h{i}\", \"s\"]\nrate = \"100 Mb/s\"\ndelay = \"1 us\"\n");
    }
    for i in 1..4 {
        s += &format!(
            "[[apps]]\nkind = \"poisson\"\nfrom = \"h{i}\"\nto = \"h0\"\nrate = \"{load_mbps} Mb/s\"\npayload = \"500 B\"\n"
        );
    }
    s
}

fn summary_json(text: &str, seed: Option<u64>) -> String {
    let report = run_text(text, &[], seed).unwrap();
    serde_json::to_string(&report.summary).unwrap()
}

#[test]
fn same_seed_gives_a_byte_identical_summary() {
    let text = fan_in(40, 20, 50);
    assert_eq!(summary_json(&text, Some(3)), summary_json(&text, Some(3)));
}

#[test]
fn a_different_seed_changes_a_random_workload() {
    let text = fan_in(40, 20, 50);
    assert_ne!(summary_json(&text, Some(3)), summary_json(&text, Some(4)));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Every packet handed to a host is delivered, dropped, or still in flight; and every
    /// drop is counted at the port that dropped it.
    #[test]
    fn packets_are_conserved(load in 1u64..80, frames in 1u32..50, ms in 1u64..30, seed in 0u64..1000) {
        let report = run_text(&fan_in(load, frames, ms), &[], Some(seed)).unwrap();
        let s = &report.summary;
        let mut port_drops = 0;
        for p in &s.ports {
            port_drops += p.drops;
            prop_assert!(p.max_queue_frames <= u64::from(frames) || p.node != "s");
        }
        let mut lost = 0;
        for f in &s.flows {
            prop_assert_eq!(f.packets_sent, f.packets_received + f.lost + f.in_flight);
            lost += f.lost;
        }
        prop_assert_eq!(lost, port_drops);
    }
}

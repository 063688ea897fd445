//! Same scenario and seed: byte-identical summary. Different seed: different random workload.
//! And conservation of packets under random loads.

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

/// Count-limited Poisson sources into one receiver that takes 2 us per frame with a
/// small ring, so frames are lost both at the switch and at the receiving host.
#[allow(clippy::format_push_string)]
fn fan_in_to_slow_host(load_mbps: u64, buffer_frames: u32, ring: u32, count: u64) -> String {
    let mut s = format!("[[hosts]]\nname = \"h0\"\nrx_processing = \"2 us\"\nrx_buffers = {ring}\n");
    for i in 1..4 {
        s += &format!("[[hosts]]\nname = \"h{i}\"\n");
    }
    s += &format!("[[switches]]\nname = \"s\"\nport_buffer = {{ frames = {buffer_frames} }}\n");
    for i in 0..4 {
        s += &format!("[[links]]\nbetween = [\"h{i}\", \"s\"]\nrate = \"1 Gb/s\"\ndelay = \"1 us\"\n");
    }
    for i in 1..4 {
        s += &format!(
            "[[apps]]\nkind = \"poisson\"\nfrom = \"h{i}\"\nto = \"h0\"\nrate = \"{load_mbps} Mb/s\"\npayload = \"200 B\"\ncount = {count}\n"
        );
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Counters kept by different components agree: what each host's uplink carried is
    /// what its application sent; what the receiver's downlink carried was delivered or
    /// lost in the receive ring; every loss is a switch-queue drop or a ring drop.
    #[test]
    fn counters_of_different_components_agree(load in 50u64..600, frames in 1u32..40, ring in 1u32..8,
                                              count in 1u64..400, seed in 0u64..1000) {
        let report = run_text(&fan_in_to_slow_host(load, frames, ring, count), &[], Some(seed)).unwrap();
        let s = &report.summary;
        prop_assert_eq!(s.stop_reason, Some(ethersim_core::engine::StopReason::WorkDone));
        let port = |node: &str, peer: &str| s.ports.iter().find(|p| p.node == node && p.peer == peer).unwrap();
        let host = |name: &str| s.hosts.iter().find(|h| h.name == name).unwrap();
        let received: u64 = s.flows.iter().map(|f| f.packets_received).sum();
        let lost: u64 = s.flows.iter().map(|f| f.lost).sum();
        for f in &s.flows {
            prop_assert_eq!(f.in_flight, 0);
            prop_assert_eq!(port(&f.from, "s").frames_sent, f.packets_sent);
            prop_assert_eq!(host(&f.from).tx_packets, f.packets_sent);
        }
        let downlink = port("s", "h0");
        prop_assert!(downlink.max_queue_frames <= u64::from(frames));
        prop_assert_eq!(downlink.frames_sent, received + host("h0").rx_drops);
        prop_assert_eq!(host("h0").rx_packets, received);
        prop_assert_eq!(lost, downlink.drops + host("h0").rx_drops);
    }
}

/// A named application keeps its random numbers when another is added before it.
#[test]
fn adding_an_application_does_not_shift_another_ones_random_numbers() {
    let base = fan_in(40, 20, 50);
    let extra = "[[apps]]\nkind = \"poisson\"\nfrom = \"h3\"\nto = \"h2\"\nrate = \"1 Mb/s\"\n";
    // Insert the extra application first: every later application moves down one place.
    let at = base.find("[[apps]]").unwrap();
    let shifted = format!("{}{extra}{}", &base[..at], &base[at..]);
    // The source from h1, named `p`: the first application of `base`, the second of `shifted`.
    let flow = |text: &str, index: usize| {
        let name = [(format!("apps[{index}].name"), "p".to_owned())];
        let r = run_text(text, &name, Some(9)).unwrap();
        let f = r.summary.flows.into_iter().find(|f| f.name == "p").unwrap();
        assert_eq!(f.from, "h1");
        f.packets_sent
    };
    assert!(flow(&base, 0) > 0);
    // The sending side is compared: it depends only on the application's own stream.
    assert_eq!(flow(&base, 0), flow(&shifted, 1));
}

/// The effective scenario (overrides and seed applied) runs exactly what the scenario with
/// its overrides and seed ran: the provenance a results folder keeps as `scenario.toml`.
#[test]
fn the_effective_scenario_reruns_to_a_byte_identical_summary() {
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let overrides = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs.iter().map(|(p, v)| ((*p).to_owned(), (*v).to_owned())).collect()
    };
    let cases = [
        ("poisson-fan-in.toml", overrides(&[("duration", "\"20 ms\"")]), Some(7)),
        (
            "tcp-file.toml",
            overrides(&[("apps[0].size", "\"2 MB\""), ("links[1].rate", "\"100 Mb/s\"")]),
            None,
        ),
        ("capacity-scaling.toml", overrides(&[("duration", "\"2 s\"")]), Some(u64::MAX)),
    ];
    for (file, pairs, seed) in cases {
        let text = std::fs::read_to_string(examples.join(file)).unwrap();
        let effective = ethersim_core::scenario::effective_text(&text, &pairs, seed).unwrap();
        let direct = serde_json::to_string(&run_text(&text, &pairs, seed).unwrap().summary).unwrap();
        // A seed beyond TOML's integers is not written: it is given again, as the user did.
        let again_seed = seed.filter(|s| i64::try_from(*s).is_err());
        assert_eq!(summary_json(&effective, again_seed), direct, "{file}");
        for (path, _) in &pairs {
            let leaf = path.rsplit('.').next().unwrap();
            assert!(effective.contains(leaf), "{file}: {path} in\n{effective}");
        }
    }
}

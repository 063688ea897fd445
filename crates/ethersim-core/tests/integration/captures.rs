//! Packet captures and trace replay: a capture changes nothing in the simulation, holds
//! every frame the port sent and received, and a capture replayed as a trace gives back
//! the original frames' times and lengths exactly.

use std::path::{Path, PathBuf};

use crate::common::overrides;
use ethersim_core::capture::read_trace;
use ethersim_core::run::Run;

/// A fresh, empty folder for one test's files.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ethersim-captures-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(text: &str, out: Option<&Path>) -> ethersim_core::RunReport {
    run_with(text, &[], out)
}

/// [`run`] with `pairs` set by key path.
fn run_with(text: &str, pairs: &[(&str, &str)], out: Option<&Path>) -> ethersim_core::RunReport {
    let pairs = overrides(pairs);
    let mut run = Run::prepare_writing(text, &pairs, None, out).unwrap_or_else(|e| panic!("{e}"));
    let reason = loop {
        if let Some(r) = run.advance(u64::MAX) {
            break r;
        }
    };
    run.report(reason).unwrap_or_else(|e| panic!("{e}"))
}

/// Poisson UDP and pings from `a` through a 100 Mb/s switch to `b`, all delivered before
/// the run ends.
fn network(extra: &str) -> String {
    format!(
        r#"
seed = 7
duration = "100 ms"
[[hosts]]
name = "a"
[[hosts]]
name = "b"
[[switches]]
name = "sw"
[[links]]
between = ["a", "sw"]
rate = "1 Gb/s"
delay = "1 us"
[[links]]
between = ["sw", "b"]
rate = "100 Mb/s"
delay = "3 us"
[[apps]]
kind = "poisson"
from = "a"
to = "b"
rate = "60 Mb/s"
payload = "700 B"
stop = "90 ms"
[[apps]]
kind = "ping"
from = "b"
to = "a"
interval = "1 ms"
stop = "90 ms"
{extra}
"#
    )
}

#[test]
fn a_capture_changes_nothing_and_holds_every_frame_of_its_port() {
    let dir = folder("holds");
    let plain = run(&network(""), None);
    let captured = run(
        &network("[[captures]]\nport = \"sw->b\"\n[[captures]]\nport = \"a->sw\"\nformat = \"pcap\"\ndirection = \"out\"\n"),
        Some(&dir),
    );
    assert_eq!(plain.summary.events, captured.summary.events);
    assert_eq!(
        serde_json::to_value(&plain.summary.flows).unwrap(),
        serde_json::to_value(&captured.summary.flows).unwrap()
    );
    let port = |node: &str, peer: &str| {
        captured.summary.ports.iter().find(|p| p.node == node && p.peer == peer).unwrap().clone()
    };
    let (sw_b, b_sw, a_sw) = (port("sw", "b"), port("b", "sw"), port("a", "sw"));
    let caps = &captured.summary.captures;
    assert_eq!(caps[0].file, "captures/sw-b.pcapng");
    // Both directions: what sw->b sent, and what b sent that arrived (no loss here).
    assert_eq!(caps[0].frames, sw_b.frames_sent + b_sw.frames_sent);
    assert_eq!(caps[1].file, "captures/a-sw.pcap");
    assert_eq!(caps[1].frames, a_sw.frames_sent);
    for c in caps {
        let trace = read_trace(&std::fs::read(dir.join(&c.file)).unwrap()).unwrap();
        assert_eq!(trace.frames.len() as u64, c.frames, "{}", c.file);
        let bytes: u64 = trace.frames.iter().map(|f| u64::from(f.frame_len)).sum();
        assert_eq!(bytes, c.frame_bytes, "{}: wire lengths come back from the file", c.file);
        assert!(trace.frames.windows(2).all(|w| w[0].offset_ps <= w[1].offset_ps), "time order");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_capture_replayed_as_a_trace_gives_back_its_frame_times_and_lengths() {
    for resolution in ["ps", "ns"] {
        let dir = folder(&format!("replay-{resolution}"));
        let capture =
            format!("[[captures]]\nport = \"a->sw\"\ndirection = \"out\"\nresolution = \"{resolution}\"\n");
        run(&network(&capture), Some(&dir));
        let original = dir.join("captures/a-sw.pcapng");
        // The trace drives a host on the same link; it is captured in turn.
        let replay = format!(
            r#"
duration = "100 ms"
[[hosts]]
name = "a"
[[hosts]]
name = "b"
[[links]]
between = ["a", "b"]
rate = "1 Gb/s"
delay = "1 us"
[[apps]]
kind = "replay"
from = "a"
to = "b"
file = "{}"
align = "capture"
[[captures]]
port = "a->b"
file = "again.pcapng"
direction = "out"
resolution = "{resolution}"
"#,
            original.display()
        );
        let report = run(&replay, Some(&dir));
        let first = read_trace(&std::fs::read(&original).unwrap()).unwrap();
        let second = read_trace(&std::fs::read(dir.join("captures/again.pcapng")).unwrap()).unwrap();
        assert!(first.frames.len() > 1000, "{}", first.frames.len());
        assert_eq!(first, second, "{resolution}: same first instant, offsets and lengths");
        let flow = &report.summary.flows[0];
        assert_eq!(flow.packets_sent, first.frames.len() as u64);
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn a_default_capture_file_stays_in_the_captures_folder_whatever_the_nodes_are_called() {
    let dir = folder("names");
    // Host `a` renamed wherever it is named: its host, its link, its two applications'
    // ends, the capture's port.
    let name = "../../x y";
    let renamed = [
        ("hosts[0].name", name.to_owned()),
        ("links[0].between[0]", name.to_owned()),
        ("apps[0].from", name.to_owned()),
        ("apps[1].to", name.to_owned()),
        ("captures[0].port", format!("{name}->sw")),
    ];
    let pairs: Vec<(&str, &str)> = renamed.iter().map(|(p, v)| (*p, v.as_str())).collect();
    let report = run_with(&network("[[captures]]\nport = \"a->sw\"\n"), &pairs, Some(&dir));
    let file = &report.summary.captures[0].file;
    assert_eq!(file, "captures/..-..-x-y-sw.pcapng");
    assert!(dir.join(file).is_file());
    std::fs::remove_dir_all(dir).unwrap();
}

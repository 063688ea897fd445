//! Link-rate switching against its rules, to the picosecond: frames on the wire finish
//! at the old rate, the link is dark for the switching time after them, a waiting frame
//! starts exactly when the link comes back and is sent at the new rate; the ALR policy
//! switches up when a queue builds and down when it empties; time at each rate and time
//! dark add up to the run.

#![allow(clippy::format_push_string)] // test scenarios are assembled as text

use crate::common::{data_starts, log, logged, logged_with, overrides};
use ethersim_core::ids::PortId;
use ethersim_core::scenario;
use ethersim_core::sim::TraceRecord;
use ethersim_core::time::{BitRate, Bytes, SimTime};

const US: u64 = 1_000_000;

/// `a` → `b` on one link with rates 1 and 10 Gb/s (starting at 1), 1 us of delay and a
/// switch to 10 Gb/s requested at 100 us, dark 10 us; `a` sends one maximum frame at
/// each of `sends` (us).
fn scheduled(sends: &[u64]) -> String {
    let mut text = String::from(
        r#"
[[hosts]]
name = "a"
[[hosts]]
name = "b"
[[links]]
between = ["a", "b"]
rate = "1 Gb/s"
delay = "1 us"
rate_switching = { rates = ["10 Gb/s", "1 Gb/s"], switch_time = "10 us", policy = { kind = "schedule", changes = [{ at = "100 us", rate = "10 Gb/s" }] } }
"#,
    );
    for (i, t) in sends.iter().enumerate() {
        text.push_str(&format!(
            "[[apps]]\nname = \"f{i}\"\nkind = \"constant_rate\"\nfrom = \"a\"\nto = \"b\"\nrate = \"1 Mb/s\"\nstart = \"{t} us\"\ncount = 1\n"
        ));
    }
    text
}

fn send_time(rate: BitRate, bytes: u64) -> u64 {
    rate.time_to_send(Bytes(bytes)).as_ps()
}

#[test]
fn a_frame_waiting_for_a_switch_starts_when_the_link_comes_back_at_the_new_rate() {
    // The frame started at 99 us finishes at 1 Gb/s (last bit at 111.208 us); the link is
    // dark 10 us after it; the frame queued at 105 us starts at 121.208 us at 10 Gb/s.
    let mut sim = logged(&scheduled(&[99, 105]));
    sim.run();
    let g1 = BitRate::gbps(1);
    let g10 = BitRate::gbps(10);
    let last_bit = 99 * US + send_time(g1, 8 + 1518);
    let back = last_bit + 10 * US;
    assert_eq!(data_starts(&sim, PortId(0)), vec![99 * US, back]);
    let net = sim.network();
    assert_eq!(net.flows[0].forward().last_rx, Some(SimTime(last_bit + US)), "finished at the old rate");
    assert_eq!(
        net.flows[1].forward().last_rx,
        Some(SimTime(back + send_time(g10, 8 + 1518) + US)),
        "sent at the new rate"
    );
    let summary = sim.summary("x", 1);
    let link = &summary.links[0];
    assert_eq!(
        (link.mechanisms.rate.rate_switches, link.mechanisms.rate.rates_bps.clone()),
        (1, vec![1_000_000_000, 10_000_000_000])
    );
    assert!((link.mechanisms.rate.switching_s - 10e-6).abs() < 1e-15);
    let end = summary.sim_time_ps as f64 / 1e12;
    assert!((link.mechanisms.rate.time_at_rate_s[0] - last_bit as f64 / 1e12).abs() < 1e-15);
    assert!(
        (link.mechanisms.rate.time_at_rate_s.iter().sum::<f64>() + link.mechanisms.rate.switching_s - end)
            .abs()
            < 1e-12
    );
}

#[test]
fn a_frame_due_at_the_instant_of_a_scheduled_switch_waits_for_it() {
    // Whatever the order of the events at 100 us, the switch requested then comes first.
    let mut sim = logged(&scheduled(&[100]));
    sim.run();
    assert_eq!(data_starts(&sim, PortId(0)), vec![110 * US]);
}

#[test]
fn time_at_each_rate_stops_at_the_end_of_a_run_cut_short_by_a_switch() {
    // The run ends at 105 us, while the frame started at 99 us still finishes at 1 Gb/s.
    let text = format!("duration = \"105 us\"\n{}", scheduled(&[99]));
    let mut sim = logged(&text);
    sim.run();
    let summary = sim.summary("x", 1);
    let link = &summary.links[0];
    assert!(
        (link.mechanisms.rate.time_at_rate_s[0] - 105e-6).abs() < 1e-15,
        "{:?}",
        link.mechanisms.rate.time_at_rate_s
    );
    assert_eq!((link.mechanisms.rate.time_at_rate_s[1], link.mechanisms.rate.switching_s), (0.0, 0.0));
    assert!((summary.ports[0].mean_rate_bps - 1e9).abs() < 1e-3, "still 1 Gb/s until it goes dark");
}

#[test]
fn a_switch_requested_on_an_idle_link_darkens_it_at_once() {
    let mut sim = logged(&scheduled(&[101]));
    sim.run();
    assert_eq!(data_starts(&sim, PortId(0)), vec![110 * US], "dark over [100, 110) us");
}

/// `a` (10 Gb/s) sends `frames` maximum frames back to back through a switch to `b`
/// over a link with rates 1 and 10 Gb/s under ALR (high 30 000 B, low 0 B).
fn alr(frames: u64) -> String {
    format!(
        r#"
[[hosts]]
name = "a"
[[hosts]]
name = "b"
[[switches]]
name = "s"
port_buffer = {{ bytes = "1 MB" }}
[[links]]
between = ["a", "s"]
rate = "10 Gb/s"
[[links]]
between = ["s", "b"]
rate = "1 Gb/s"
rate_switching = {{ rates = ["1 Gb/s", "10 Gb/s"], switch_time = "5 us", policy = {{ kind = "alr", high = "30000 B", low = "0 B" }} }}
[[apps]]
kind = "udp_file"
from = "a"
to = "b"
size = "{} B"
"#,
        frames * 1472
    )
}

#[test]
fn alr_switches_up_when_the_queue_builds_and_down_when_it_empties() {
    let mut sim = logged(&alr(200));
    sim.run();
    let summary = sim.summary("x", 1);
    let link = &summary.links[1];
    assert_eq!(link.mechanisms.rate.rate_switches, 2, "up once, down once");
    assert_eq!(summary.flows[0].packets_received, 200);
    // The queue reached 30 000 B: 20 waiting frames (19 hold 28 842 B).
    assert!(summary.ports[2].max_queue_bytes >= 20 * 1518);
    // Once fast, it drains faster than it fills (10 Gb/s in and out): no second rise.
    let darks: Vec<u64> = log(&sim)
        .records
        .iter()
        .filter_map(|(t, r)| matches!(r, TraceRecord::LinkDark { .. }).then_some(t.as_ps()))
        .collect();
    assert_eq!(darks.len(), 2);
    // The switch down happened when `s->b` went idle with nothing waiting: after its
    // last frame started.
    let starts = data_starts(&sim, PortId(2));
    assert_eq!(starts.len(), 200);
    assert!(darks[1] >= *starts.last().unwrap());
    let end = summary.sim_time_ps as f64 / 1e12;
    assert!(
        (link.mechanisms.rate.time_at_rate_s.iter().sum::<f64>() + link.mechanisms.rate.switching_s - end)
            .abs()
            < 1e-12
    );
}

#[test]
fn a_rate_switch_and_an_outage_on_one_link_keep_the_longer_darkness() {
    // A switch at 100 us darkens the link until 110 us; an outage over [105, 130) us
    // must not reopen it early, and the switch must not shorten the outage.
    let outage = ("links[0].outages", r#"[{ start = "105 us", duration = "25 us" }]"#);
    let mut sim = logged_with(&scheduled(&[101]), &[outage]);
    sim.run();
    assert_eq!(data_starts(&sim, PortId(0)), vec![130 * US]);
}

#[test]
fn a_scheduled_change_within_the_minimum_interval_waits_for_it() {
    // Changes asked at 100 us and 110 us, at least 50 us apart: the second is requested
    // at 150 us, the first instant the interval allows, and then carried out.
    let text = scheduled(&[500]);
    let pairs = [
        ("links[0].rate_switching.min_interval", "50 us"),
        (
            "links[0].rate_switching.policy.changes",
            r#"[{ at = "100 us", rate = "10 Gb/s" }, { at = "110 us", rate = "1 Gb/s" }]"#,
        ),
    ];
    let ran = scenario::effective_text(&text, &overrides(&pairs), None).unwrap();
    assert!(ran.contains("min_interval"), "the scenario was edited");
    let mut sim = logged_with(&text, &pairs);
    sim.run();
    let dark: Vec<(u64, u64)> = log(&sim)
        .records
        .iter()
        .filter_map(|(t, r)| match r {
            TraceRecord::LinkDark { until, .. } => Some((t.as_ps(), until.as_ps())),
            _ => None,
        })
        .collect();
    assert_eq!(dark, vec![(100 * US, 110 * US), (150 * US, 160 * US)]);
    let net = sim.network();
    assert_eq!(net.links[0].dirs[0].rate(), BitRate::gbps(1), "the deferred change happened");
    assert_eq!(net.attached.rate_switching.get(ethersim_core::ids::LinkId(0)).unwrap().switches(), 2);
}

//! IEEE 802.3x PAUSE against the standard's timing rules, to the picosecond: a pause
//! starts after the frame on the wire and lasts quanta·512 bit times, a newer PAUSE
//! replaces it, 0 resumes; a port that ignores PAUSE keeps sending; threshold flow
//! control pauses the input that fills a buffer, refreshes the pause and releases it;
//! switches that pause each other never deadlock.

#![allow(clippy::format_push_string)] // test scenarios are assembled as text

use crate::common::{data_starts, log, logged, logged_with, simulation, simulation_with};
use ethersim_core::ids::PortId;
use ethersim_core::mechanisms::pause::wire as mac_control;
use ethersim_core::phy::FrameClass;
use ethersim_core::sim::attach::closers;
use ethersim_core::sim::{PortSeries, Simulation, Subscriber, TraceRecord};
use ethersim_core::time::{BitRate, Bytes, Duration, SimTime};

const US: u64 = 1_000_000;

/// Line time of `bytes` at 1 Gb/s.
fn at_1g(bytes: u64) -> u64 {
    BitRate::gbps(1).time_to_send(Bytes(bytes)).as_ps()
}

/// Host `a` sends maximum frames back to back to `b` over one 1 Gb/s link with 1 us of
/// delay; `b` sends PAUSE as `generator` says (a TOML table body, or nothing).
fn a_floods_b(a_honours: bool, generator: &str) -> String {
    let mut text = format!(
        r#"
[[hosts]]
name = "a"
pause = {{ honour = {a_honours} }}
[[hosts]]
name = "b"
[[links]]
between = ["a", "b"]
rate = "1 Gb/s"
delay = "1 us"
[[apps]]
kind = "udp_file"
from = "a"
to = "b"
size = "{} B"
"#,
        40 * 1472
    );
    if !generator.is_empty() {
        text.push_str(&format!("[[pause_generators]]\nport = \"b->a\"\n{generator}\n"));
    }
    text
}

/// A frame every (8 + 1518 + 12)·8 ns from 0: the start of frame `k` when none is paused.
fn unpaused_start(k: u64) -> u64 {
    k * at_1g(1538)
}

/// The PAUSE frame sent by `b` at `t` reaches `a` whole after its preamble and 64 bytes
/// and 1 us of propagation.
fn pause_arrives(t: u64) -> u64 {
    t + at_1g(8 + 64) + US
}

#[test]
fn a_pause_starts_after_the_frame_on_the_wire_and_lasts_its_quanta() {
    let mut sim =
        logged(&a_floods_b(true, "every = \"1 s\"\npause = \"10 us\"\nstart = \"100 us\"\ncount = 1"));
    sim.run();
    let starts = data_starts(&sim, PortId(0));
    // The PAUSE arrives at 101.576 us, during frame 8 (98.432 us to its last bit at
    // 110.640 us): frame 8 finishes, then 20 quanta (10 us rounded up: 10.24 us) pass.
    let arrives = pause_arrives(100 * US);
    let k = arrives / unpaused_start(1);
    assert_eq!(k, 8);
    let last_bit = unpaused_start(k) + at_1g(8 + 1518);
    assert!(arrives < last_bit);
    let quanta = mac_control::quanta_for(Duration::from_us(10), BitRate::gbps(1)).unwrap();
    assert_eq!(quanta, 20);
    let resumed = last_bit + u64::from(quanta) * 512 * 1000;
    assert_eq!(starts[..=8], (0..=8).map(unpaused_start).collect::<Vec<_>>()[..]);
    assert_eq!(starts[9], resumed, "the next frame starts when the pause ends");
    assert_eq!(starts[10], resumed + at_1g(1538));
    let port = &sim.network().attached.pause[0];
    assert_eq!(
        (port.rx.received, port.rx.paused_time(SimTime(US * 1000))),
        (1, Duration(resumed - last_bit))
    );
    assert_eq!(sim.network().attached.pause[1].rx.sent, 1);
    assert_eq!(sim.network().flows[0].forward().packets_received, 40, "PAUSE loses nothing");
}

#[test]
fn a_newer_pause_replaces_the_running_one() {
    // The second PAUSE, sent at 115 us, arrives while the first holds `a` (until
    // 120.88 us) and restarts the pause from its own arrival.
    let gen = "every = \"15 us\"\npause = \"10 us\"\nstart = \"100 us\"\ncount = 2";
    let mut sim = logged(&a_floods_b(true, gen));
    sim.run();
    let starts = data_starts(&sim, PortId(0));
    let first_end = unpaused_start(8) + at_1g(8 + 1518) + 20 * 512 * 1000;
    let second = pause_arrives(115 * US);
    assert!(second < first_end);
    assert_eq!(starts[9], second + 20 * 512 * 1000);
}

#[test]
fn a_pause_of_zero_resumes_at_once() {
    // A pause of 1 ms from 100 us; at 150 us `b` sends a pause time of 0.
    let gen = "every = \"1 s\"\npause = \"1 ms\"\nstart = \"100 us\"\ncount = 1";
    let mut sim = logged(&a_floods_b(true, gen));
    sim.run_until(SimTime(150 * US));
    let (net, sched) = sim.parts_mut();
    net.send_pause(sched, PortId(1), 0);
    sim.run();
    let starts = data_starts(&sim, PortId(0));
    assert_eq!(starts[9], pause_arrives(150 * US), "data resumes as the PAUSE of 0 arrives");
    let paused = sim.network().attached.pause[0].rx.paused_time(SimTime::NEVER);
    assert_eq!(paused, Duration(pause_arrives(150 * US) - (unpaused_start(8) + at_1g(8 + 1518))));
}

#[test]
fn a_nic_that_ignores_pause_keeps_sending() {
    let gen = "every = \"1 s\"\npause = \"10 us\"\nstart = \"100 us\"\ncount = 1";
    let mut sim = logged(&a_floods_b(false, gen));
    sim.run();
    let starts = data_starts(&sim, PortId(0));
    assert_eq!(starts, (0..40).map(unpaused_start).collect::<Vec<_>>());
    let port = &sim.network().attached.pause[0];
    assert_eq!((port.rx.received, port.rx.paused_time(SimTime::NEVER)), (1, Duration::ZERO));
    let summary = sim.summary("x", 1);
    assert!(
        !summary.ports[0].mechanisms.pause.honours_pause && summary.ports[0].mechanisms.pause.paused_s == 0.0
    );
}

/// `a` (10 Gb/s) floods `b` (1 Gb/s) through a switch that sends PAUSE at 20 000 B and
/// releases at 10 000 B of a 40 000 B port buffer.
fn threshold_scenario(a_honours: bool, size: u64, extra: &str) -> String {
    format!(
        r#"
{extra}
[[hosts]]
name = "a"
pause = {{ honour = {a_honours} }}
[[hosts]]
name = "b"
[[switches]]
name = "s"
port_buffer = {{ bytes = "40000 B" }}
pause = {{ send = true, high_water = "20000 B", low_water = "10000 B" }}
[[links]]
between = ["a", "s"]
rate = "10 Gb/s"
delay = "1 us"
[[links]]
between = ["s", "b"]
rate = "1 Gb/s"
delay = "1 us"
[[apps]]
kind = "udp_file"
from = "a"
to = "b"
size = "{size} B"
"#
    )
}

/// The (instant, quanta) of every PAUSE `port` received.
fn pauses_received(sim: &Simulation, port: PortId) -> Vec<(u64, u16)> {
    log(sim)
        .records
        .iter()
        .filter_map(|(t, r)| match r {
            // A PAUSE frame: opcode 0x0001, its pause time in quanta (802.3 Annex 31B).
            TraceRecord::ControlReceived { port: p, opcode: 0x0001, parameter } if *p == port => {
                Some((t.as_ps(), *parameter))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_switch_pauses_the_input_that_fills_its_buffer_and_releases_it_below_the_low_water_mark() {
    let mut sim = logged(&threshold_scenario(true, 2000 * 1472, ""));
    sim.network_mut().trace.subscribe(Subscriber::Series(PortSeries::new(
        PortId(2),
        0,
        ethersim_core::stats::SeriesLimits::points(1 << 20),
    )));
    sim.run();
    let net = sim.network();
    // Ports: a->s 0, s->a 1, s->b 2, b->s 3.
    let pauses = pauses_received(&sim, PortId(0));
    assert!(pauses.len() >= 4, "{pauses:?}");
    // XOFF and XON alternate: no refresh is due in so short a pause.
    for (i, (_, q)) in pauses.iter().enumerate() {
        assert_eq!(*q, if i % 2 == 0 { 65_535 } else { 0 }, "{pauses:?}");
    }
    // Each PAUSE left the switch at the instant the buffer crossed its mark: check the
    // level the switch's output held then, from its series.
    let Subscriber::Series(series) = &net.trace.subscribers()[1] else { unreachable!() };
    let series = series.settled(SimTime::NEVER);
    let level_at = |t: u64| -> u64 {
        series.queue_bytes.points.iter().take_while(|(at, _)| at.as_ps() <= t).last().map_or(0, |p| p.1)
    };
    // The PAUSE frame takes (8 + 64)·0.8 ns at 10 Gb/s and 1 us to reach `a`.
    let path = BitRate::gbps(10).time_to_send(Bytes(72)).as_ps() + US;
    for &(t, q) in &pauses {
        let held = level_at(t - path);
        if q > 0 {
            assert!(held >= 20_000, "XOFF at {t} with {held} B");
        } else {
            assert!(held <= 10_000, "XON at {t} with {held} B");
        }
    }
    assert_eq!(net.ports[2].stats().drops, 0, "PAUSE honoured: nothing is lost");
    assert_eq!(net.flows[0].forward().packets_received, 2000);
    assert_eq!(net.attached.pause[1].rx.sent, net.attached.pause[0].rx.received, "every PAUSE arrives");
    // The buffer never exceeds the high-water mark by more than the headroom in flight.
    let max = net.ports[2].queue().bytes_level(SimTime::NEVER).max_until(SimTime::NEVER);
    assert!((20_000..20_000 + 3 * 1538).contains(&max), "{max}");
}

#[test]
fn the_same_flood_into_a_nic_that_ignores_pause_overflows_the_buffer() {
    let mut sim = simulation(&threshold_scenario(false, 2000 * 1472, ""));
    sim.run();
    let net = sim.network();
    assert!(net.ports[2].stats().drops > 0);
    assert!(net.attached.pause[0].rx.received > 0);
    let got = net.flows[0].forward().packets_received;
    assert_eq!(got + net.ports[2].stats().drops, 2000, "every frame is delivered or dropped");
}

#[test]
fn a_pause_held_by_a_congested_output_is_refreshed_at_half_its_length() {
    // `b` pauses the switch for 30 ms: the switch's output fills and it pauses `a` with
    // 65535 quanta (6.7 ms at 10 Gb/s), re-sent every half of that until `b` resumes.
    let extra = "[[pause_generators]]\nport = \"b->s\"\nevery = \"1 s\"\npause = \"30 ms\"\ncount = 1";
    let mut sim = logged(&threshold_scenario(true, 20_000 * 1472, extra));
    sim.run();
    let pauses = pauses_received(&sim, PortId(0));
    let half = mac_control::quanta_duration(65_535, BitRate::gbps(10)).as_ps() / 2;
    let xoffs: Vec<u64> = pauses.iter().take_while(|(_, q)| *q > 0).map(|(t, _)| *t).collect();
    assert!(xoffs.len() >= 4, "{pauses:?}");
    for w in xoffs.windows(2) {
        assert_eq!(w[1] - w[0], half, "refreshed every half pause");
    }
    assert_eq!(pauses[xoffs.len()].1, 0, "released once `b` resumes and the buffer drains");
    assert!(pauses[xoffs.len()].0 > 30 * 1000 * US);
    let net = sim.network();
    assert_eq!(net.ports[2].stats().drops, 0);
    assert_eq!(net.flows[0].forward().packets_received, 20_000);
}

#[test]
fn a_refresh_comes_before_the_pause_runs_out_at_the_partners_own_rate() {
    // The switch→a direction is scaled down to 1 Gb/s while `a` keeps sending at 10 Gb/s.
    // `a` counts the 65535 quanta in its own bit times (Annex 31B.2): 3.36 ms, not the
    // 33.6 ms they last at the switch's rate, so the refresh comes every 1.68 ms.
    let extra = "[[pause_generators]]\nport = \"b->s\"\nevery = \"1 s\"\npause = \"30 ms\"\ncount = 1";
    let scaled = r#"{ rates = ["1 Gb/s", "10 Gb/s"], switch_time = "1 us", from = "s", policy = { kind = "schedule", changes = [{ at = "1 ns", rate = "1 Gb/s" }] } }"#;
    let text = threshold_scenario(true, 20_000 * 1472, extra);
    let mut sim = logged_with(&text, &[("links[0].rate_switching", scaled)]);
    sim.run();
    let pauses = pauses_received(&sim, PortId(0));
    let half = mac_control::quanta_duration(65_535, BitRate::gbps(10)).as_ps() / 2;
    let xoffs: Vec<u64> = pauses.iter().take_while(|(_, q)| *q > 0).map(|(t, _)| *t).collect();
    assert!(xoffs.len() >= 10, "{pauses:?}");
    for w in xoffs.windows(2) {
        assert_eq!(w[1] - w[0], half, "refreshed every half pause at a's rate");
    }
    let net = sim.network();
    assert_eq!(net.ports[2].stats().drops, 0, "the pause never lapses while the output is full");
    assert_eq!(net.flows[0].forward().packets_received, 20_000);
}

#[test]
fn switches_that_pause_each_other_keep_moving_data() {
    // a1 → b2 and b1 → a2 cross two switches; each flow leaves on a 100 Mb/s link, so
    // each switch pauses the other (and then its own sender): the inter-switch link is
    // paused in both directions at once, and only MAC control frames can release it.
    let text = r#"
[[hosts]]
name = "a1"
[[hosts]]
name = "a2"
[[hosts]]
name = "b1"
[[hosts]]
name = "b2"
[[switches]]
name = "s1"
port_buffer = { bytes = "16 KiB" }
pause = { send = true }
[[switches]]
name = "s2"
port_buffer = { bytes = "16 KiB" }
pause = { send = true }
[[links]]
between = ["a1", "s1"]
rate = "1 Gb/s"
[[links]]
between = ["a2", "s1"]
rate = "100 Mb/s"
[[links]]
between = ["s1", "s2"]
rate = "1 Gb/s"
delay = "5 us"
[[links]]
between = ["b1", "s2"]
rate = "1 Gb/s"
[[links]]
between = ["b2", "s2"]
rate = "100 Mb/s"
[[apps]]
kind = "udp_file"
from = "a1"
to = "b2"
size = "3 MB"
[[apps]]
kind = "udp_file"
from = "b1"
to = "a2"
size = "3 MB"
"#;
    let mut sim = logged(text);
    sim.run();
    let net = sim.network();
    for f in &net.flows {
        assert_eq!(f.forward().packets_received, f.forward().packets_sent, "{}", f.name);
        assert!(f.completed_at.is_some());
    }
    // What keeps it moving: PAUSE frames leave ports that are themselves paused. Count the
    // control frames each inter-switch port started while PAUSE held its data.
    let mut paused_until = [SimTime::ZERO; 10];
    let mut sent_while_paused = [0u32; 10];
    for (t, r) in &log(&sim).records {
        match *r {
            TraceRecord::Gate { port, closer: closers::PAUSE, until } => paused_until[port.index()] = until,
            TraceRecord::TxStarted { port, class: FrameClass::Control, .. }
                if paused_until[port.index()] > *t =>
            {
                sent_while_paused[port.index()] += 1;
            }
            _ => {}
        }
    }
    assert!(sent_while_paused[4] > 0 && sent_while_paused[5] > 0, "{sent_while_paused:?}");
    assert!(net.ports.iter().all(|p| p.stats().drops == 0));
    // Each switch paused the other: the inter-switch ports (4: s1->s2, 5: s2->s1) were paused.
    assert!(net.attached.pause[4].rx.received > 0 && net.attached.pause[5].rx.received > 0);
    assert!(net.attached.pause[4].rx.paused_time(SimTime::NEVER) > Duration::ZERO);
    assert!(net.attached.pause[5].rx.paused_time(SimTime::NEVER) > Duration::ZERO);
}

#[test]
fn an_input_held_by_two_congested_outputs_is_released_only_when_both_drain() {
    // `a` (10 Gb/s, ignoring PAUSE so that it keeps both outputs congested) sends to `b`
    // and `c` (1 Gb/s each) through one switch; both outputs reach the high-water mark
    // and hold `a`. The flow to `b` is short: its output drains long before the one to
    // `c`. No XON may leave until the output to `c` has drained too.
    let text = r#"
[[hosts]]
name = "a"
pause = { honour = false }
[[hosts]]
name = "b"
[[hosts]]
name = "c"
[[switches]]
name = "s"
port_buffer = { bytes = "40000 B" }
pause = { send = true, high_water = "20000 B", low_water = "10000 B" }
[[links]]
between = ["a", "s"]
rate = "10 Gb/s"
[[links]]
between = ["s", "b"]
rate = "1 Gb/s"
[[links]]
between = ["s", "c"]
rate = "1 Gb/s"
[[apps]]
kind = "udp_file"
from = "a"
to = "b"
size = "44160 B"
[[apps]]
kind = "udp_file"
from = "a"
to = "c"
size = "2944000 B"
"#;
    let mut sim = logged(text);
    let limits = ethersim_core::stats::SeriesLimits::points(1 << 20);
    // Ports: a->s 0, s->a 1, s->b 2, b->s 3, s->c 4, c->s 5.
    for port in [2, 4] {
        sim.network_mut().trace.subscribe(Subscriber::Series(PortSeries::new(PortId(port), 0, limits)));
    }
    sim.run();
    let net = sim.network();
    let series = |k: usize| {
        let Subscriber::Series(s) = &net.trace.subscribers()[k] else { unreachable!() };
        s.settled(SimTime::NEVER).queue_bytes.points
    };
    let (to_b, to_c) = (series(1), series(2));
    let level = |points: &[(SimTime, u64)], t: u64| {
        points.iter().take_while(|(at, _)| at.as_ps() <= t).last().map_or(0, |p| p.1)
    };
    let pauses = pauses_received(&sim, PortId(0));
    assert!(pauses[0].1 > 0 && (level(&to_b, pauses[0].0) >= 20_000 || level(&to_c, pauses[0].0) >= 20_000));
    // Both outputs went above the high-water mark while `a` kept sending.
    assert!(to_b.iter().any(|&(_, v)| v >= 20_000) && to_c.iter().any(|&(_, v)| v >= 20_000));
    let xons: Vec<u64> = pauses.iter().filter(|(_, q)| *q == 0).map(|(t, _)| *t).collect();
    assert_eq!(xons.len(), 1, "{pauses:?}");
    // The output to `b` drained first, long before the XON; the XON left when the
    // output to `c` reached its low-water mark (the frame takes 57.6 ns to reach `a`).
    let b_drained = to_b.iter().find(|&&(at, v)| at.as_ps() > pauses[0].0 && v <= 10_000).unwrap().0;
    let sent = xons[0] - BitRate::gbps(10).time_to_send(Bytes(72)).as_ps();
    assert!(b_drained.as_ps() + 1_000 * US < sent, "b drained at {b_drained}, XON at {sent}");
    // (Departures are seen as frames start: within one frame time of the crossing.)
    let frame = BitRate::gbps(1).time_to_send(Bytes(1538)).as_ps();
    assert!(level(&to_c, sent) <= 10_000 && level(&to_c, sent - frame) > 10_000);
}

#[test]
fn a_pause_of_a_few_quanta_does_not_pile_up_frames_or_starve_data() {
    // Half of 1 quantum (25.6 ns at 10 Gb/s) is shorter than a PAUSE frame's line time
    // (67.2 ns): refreshes come no faster than frames can leave, and a waiting frame
    // carries the newest request.
    let text = threshold_scenario(true, 2000 * 1472, "");
    let mut sim = simulation_with(&text, &[("switches[0].pause.quanta", "1")]);
    sim.run();
    let net = sim.network();
    let s_to_a = &net.ports[1];
    let s_to_a_sent = net.attached.pause[1].rx.sent;
    assert!(s_to_a_sent > 1000);
    assert!(s_to_a_sent <= s_to_a.stats().control_sent + 1, "no backlog of PAUSE frames");
    // A pause this short barely holds `a`: its data still flows (and the buffer overflows).
    assert_eq!(net.ports[0].stats().frames_sent, 2000, "data is not starved");
    let f = net.flows[0].forward();
    assert_eq!(f.packets_received + net.ports[2].stats().drops, 2000);
}

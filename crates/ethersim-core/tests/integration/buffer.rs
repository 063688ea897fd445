//! The buffer convention at network level: a switch port with a buffer of S bytes never
//! holds more than S bytes, counting the frame on the wire until its last bit has left;
//! and memory stays proportional to what is asked (idle flows cost little).

#![allow(clippy::format_push_string, clippy::cast_possible_wrap)] // scenarios assembled as text; small counts

use ethersim_core::sim::{Subscriber, TraceLog, TraceRecord};
use proptest::prelude::*;

/// Poisson sources on three hosts into one 100 Mb/s switch port with a buffer of
/// `buffer` bytes; frames of random sizes from the payloads given.
fn fan_in(buffer: u64, payloads: [u64; 3], load_mbps: u64) -> String {
    let mut s = String::from("duration = \"20 ms\"\n");
    for h in ["h0", "h1", "h2", "h3"] {
        s += &format!("[[hosts]]\nname = \"{h}\"\n");
    }
    s += &format!("[[switches]]\nname = \"s\"\nport_buffer = {{ bytes = \"{buffer} B\" }}\n");
    for h in ["h0", "h1", "h2", "h3"] {
        let rate = if h == "h0" { "100 Mb/s" } else { "1 Gb/s" };
        s += &format!("[[links]]\nbetween = [\"{h}\", \"s\"]\nrate = \"{rate}\"\ndelay = \"1 us\"\n");
    }
    for (i, p) in payloads.iter().enumerate() {
        s += &format!(
            "[[apps]]\nkind = \"poisson\"\nfrom = \"h{}\"\nto = \"h0\"\nrate = \"{load_mbps} Mb/s\"\npayload = \"{p} B\"\n",
            i + 1
        );
    }
    s += "[[series]]\nport = \"s->h0\"\n";
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn a_port_never_holds_more_than_its_buffer_counting_the_frame_on_the_wire(
        buffer in 1518u64..30_000, p0 in 1u64..1472, p1 in 1u64..1472, p2 in 1u64..1472,
        load in 20u64..120, seed in 0u64..1000,
    ) {
        let text = fan_in(buffer, [p0, p1, p2], load);
        let s = ethersim_core::scenario::load(&text, &[]).unwrap();
        let mut s = s;
        s.seed = seed;
        let built = ethersim_core::scenario::build(&s).unwrap();
        let mut sim = ethersim_core::sim::Simulation::new(built.network, built.limits);
        sim.network_mut().trace.subscribe(Subscriber::Log(TraceLog::default()));
        sim.run();
        // Port s->h0 is link 0's second end.
        let downlink = ethersim_core::ids::PortId(1);
        let Subscriber::Log(log) = &sim.network().trace.subscribers()[1] else { unreachable!() };
        // Rebuild the occupancy from the records alone: + frame on enqueue, − frame at its
        // last bit; check it against S at every change.
        let mut held: i64 = 0;
        let mut leaving: Vec<(u64, i64)> = Vec::new();
        let mut peak = 0;
        for (t, rec) in &log.records {
            leaving.retain(|&(last_bit, len)| if last_bit <= t.as_ps() { held -= len; false } else { true });
            match *rec {
                TraceRecord::Enqueued { port, held_bytes, .. } if port == downlink => {
                    prop_assert!(held_bytes <= buffer);
                    held = held_bytes as i64;
                }
                TraceRecord::TxStarted { port, frame_len, last_bit, .. } if port == downlink => {
                    leaving.push((last_bit.as_ps(), i64::from(frame_len)));
                }
                _ => {}
            }
            peak = peak.max(held);
            prop_assert!(held >= 0 && held as u64 <= buffer);
        }
        let summary = sim.summary("x", seed);
        let port = &summary.ports[1];
        prop_assert!(port.max_queue_bytes <= buffer);
        prop_assert!(port.max_queue_bytes as i64 <= peak, "the queue's maximum is a level the records show");
        let series = summary.series.iter().find(|s| s.quantity == "queue_bytes").unwrap();
        prop_assert!(series.value.iter().all(|&v| v <= buffer));
        prop_assert_eq!(series.value.iter().copied().max().unwrap_or(0), port.max_queue_bytes);
    }
}

/// Ten thousand flows that have not yet sent cost a few hundred bytes each: their delay
/// statistics hold no histogram until a packet arrives.
#[test]
fn ten_thousand_idle_flows_fit_in_a_few_megabytes() {
    let mut text = String::from("duration = \"1 ms\"\n[[hosts]]\nname = \"a\"\n[[hosts]]\nname = \"b\"\n");
    text += "[[links]]\nbetween = [\"a\", \"b\"]\nrate = \"1 Gb/s\"\n";
    for i in 0..10_000 {
        let kind = if i % 2 == 0 { "ping\"\ninterval = \"1 ms" } else { "poisson\"\nrate = \"1 Mb/s" };
        text += &format!("[[apps]]\nkind = \"{kind}\"\nfrom = \"a\"\nto = \"b\"\nstart = \"2 ms\"\n");
    }
    let (_sim, held) = built_and_run(&text);
    let per_flow = held / 10_000;
    eprintln!("{per_flow} B per idle flow ({held} B in all)");
    assert!(per_flow < 2_000, "{per_flow} B per idle flow ({held} B in all)");
}

/// Builds and runs the scenario `text`; returns the simulation and the bytes its build
/// and run left allocated (the simulation's own memory, the parse excluded).
fn built_and_run(text: &str) -> (ethersim_core::sim::Simulation, i64) {
    let s = ethersim_core::scenario::load(text, &[]).unwrap();
    let mut sim = None;
    let info = allocation_counter::measure(|| {
        let built = ethersim_core::scenario::build(&s).unwrap();
        let mut run = ethersim_core::sim::Simulation::new(built.network, built.limits);
        run.run();
        sim = Some(run);
    });
    (sim.expect("measured"), info.bytes_current)
}

/// Ten thousand flows that each carried a few packets cost little more than idle ones:
/// their delay percentiles hold counters only for the delays they saw (64 bytes here),
/// where an HDR histogram held about 100 KB per flow.
#[test]
fn ten_thousand_active_flows_fit_in_a_few_megabytes() {
    // Buffers for every flow's packet at once: the pings of all flows start together.
    let host = |name: &str| format!("[[hosts]]\nname = \"{name}\"\ntx_buffers = 20000\nrx_buffers = 20000\n");
    let mut text = format!("duration = \"25 ms\"\n{}{}", host("a"), host("b"));
    text += "[[links]]\nbetween = [\"a\", \"b\"]\nrate = \"10 Gb/s\"\n";
    for _ in 0..10_000 {
        text += "[[apps]]\nkind = \"ping\"\ninterval = \"10 ms\"\nfrom = \"a\"\nto = \"b\"\n";
    }
    let (sim, held) = built_and_run(&text);
    let flows = &sim.network().flows;
    assert!(flows.iter().all(|f| f.counters.delay.count() >= 2), "every flow carried packets");
    let histograms: usize = flows.iter().map(|f| f.counters.delay.heap_bytes()).sum();
    assert!(histograms / flows.len() <= 64, "{} B of delay counters per flow", histograms / flows.len());
    let per_flow = held / 10_000;
    eprintln!("{per_flow} B per active flow ({held} B in all)");
    assert!(per_flow < 3_000, "{per_flow} B per active flow ({held} B in all)");
}

/// A TCP flow's row of results is a few hundred bytes beside its counters: the
/// application's two dozen figures are held by static name, not as a map of owned keys
/// (about 2.6 KiB a flow, which took 10,000 TCP flows' results past 100 MB).
#[test]
fn a_thousand_tcp_flows_results_take_under_two_kilobytes_each() {
    let mut text = String::from("duration = \"2 ms\"\n[[hosts]]\nname = \"a\"\n[[hosts]]\nname = \"b\"\n");
    text += "[[links]]\nbetween = [\"a\", \"b\"]\nrate = \"10 Gb/s\"\n";
    for _ in 0..1_000 {
        text += "[[apps]]\nkind = \"tcp_bulk\"\nfrom = \"a\"\nto = \"b\"\n";
    }
    let (sim, _) = built_and_run(&text);
    let mut summary = None;
    let info = allocation_counter::measure(|| summary = Some(sim.summary("tcp", 1)));
    let summary = summary.expect("measured");
    assert!(summary.flows.iter().all(|f| f.app.len() >= 20), "every flow reports its TCP figures");
    let per_flow = info.bytes_current / 1_000;
    eprintln!("{per_flow} B of results per TCP flow");
    assert!(per_flow < 2_000, "{per_flow} B of results per TCP flow");
}

/// A burst from a 1 Gb/s host into a 100 Mb/s port whose buffer is `frames` frames,
/// counting the frame being sent or not.
fn burst_into(frames: u32, counts_in_service: bool) -> ethersim_core::sim::PortResult {
    let mut s = String::from("duration = \"5 ms\"\n[[hosts]]\nname = \"a\"\n[[hosts]]\nname = \"b\"\n");
    s += &format!(
        "[[switches]]\nname = \"s\"\nport_buffer = {{ frames = {frames}, counts_in_service = {counts_in_service} }}\n"
    );
    s += "[[links]]\nbetween = [\"a\", \"s\"]\nrate = \"1 Gb/s\"\n";
    s += "[[links]]\nbetween = [\"s\", \"b\"]\nrate = \"100 Mb/s\"\n";
    s += "[[apps]]\nkind = \"udp_file\"\nfrom = \"a\"\nto = \"b\"\nsize = \"100 kB\"\n";
    let report = ethersim_core::run_text(&s, &[], None).unwrap();
    report.summary.ports.into_iter().find(|p| p.node == "s" && p.peer == "b").unwrap()
}

/// ns-2's DropTail with `limit_` N holds N packets in all (it drops when the queue's
/// length + 1 reaches the limit, and the packet on the link has left the queue); ns-3's
/// DropTailQueue of MaxSize N holds N waiting behind the one being sent. A burst that
/// overruns the port fills it to exactly that.
#[test]
fn a_frame_limit_holds_n_in_all_or_n_behind_the_frame_being_sent() {
    for n in [2, 5, 9] {
        let ns2 = burst_into(n, true);
        let ns3 = burst_into(n, false);
        assert_eq!(ns2.max_queue_frames, u64::from(n), "counting the frame being sent");
        assert_eq!(ns3.max_queue_frames, u64::from(n) + 1, "N waiting and one being sent");
        assert!(ns2.drops > ns3.drops && ns3.drops > 0, "{} vs {} drops", ns2.drops, ns3.drops);
    }
}

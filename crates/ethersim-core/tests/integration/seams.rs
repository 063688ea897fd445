//! The seams later mechanisms plug into, exercised from outside the crate: a queue
//! policy holding a port's gate, a link's rate changed during a run, and the trace path.

use crate::common::{simulation, simulation_with, two_hosts};
use ethersim_core::ids::{LinkId, PortId};
use ethersim_core::node::{PolicyAction, PortPolicy, QueuePolicy, QueueView};
use ethersim_core::phy::FrameClass;
use ethersim_core::sim::{Subscriber, TraceLog, TraceRecord};
use ethersim_core::time::{BitRate, Bytes, Duration, SimTime};

/// Frame coalescing as a policy would do it: hold data until four frames wait or the
/// first has waited `timeout`, then send them as a burst; close again when idle.
#[derive(Debug)]
struct CoalesceFour {
    timeout: Duration,
}

impl QueuePolicy for CoalesceFour {
    fn on_enqueue(&mut self, now: SimTime, q: QueueView) -> PolicyAction {
        match q.frames {
            1 => PolicyAction::Hold(now + self.timeout),
            n if n >= 4 => PolicyAction::Release,
            _ => PolicyAction::Keep,
        }
    }
    fn on_dequeue(&mut self, _: SimTime, _: QueueView) -> PolicyAction {
        PolicyAction::Keep
    }
    fn on_empty(&mut self, _: SimTime) -> PolicyAction {
        PolicyAction::Hold(SimTime::NEVER)
    }
}

fn tx_starts(log: &TraceLog, port: PortId) -> Vec<u64> {
    log.records
        .iter()
        .filter_map(|(t, r)| match r {
            TraceRecord::TxStarted { port: p, class: FrameClass::Data, .. } if *p == port => Some(t.as_ps()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_queue_policy_holds_the_gate_and_releases_bursts() {
    // Ten frames, one every 10 us; a maximum frame takes 1.2304 us at 10 Gb/s, so each
    // burst is over before the next frame comes.
    let app = "kind = \"constant_rate\"\nrate = \"1177600 kb/s\"\ncount = 10";
    let mut sim = simulation(&two_hosts("10 Gb/s", "0 s", 64, app));
    let net = sim.network_mut();
    net.ports[0].policy =
        Some(PortPolicy::Custom(Box::new(CoalesceFour { timeout: Duration::from_us(100) })));
    net.trace.subscribe(Subscriber::Log(TraceLog::default()));
    sim.run();
    let Subscriber::Log(log) = &sim.network().trace.subscribers()[0] else { unreachable!() };
    // Bursts: frames 0-3 when the fourth arrives at 30 us, back to back; frames 4-7 when
    // the eighth arrives at 70 us; frames 8 and 9 when the timeout of frame 8 (80 us) ends.
    let t = 1_230_400u64; // ps
    let want: Vec<u64> = [30u64, 70, 180]
        .iter()
        .zip([4u64, 4, 2])
        .flat_map(|(&start, n)| (0..n).map(move |k| start * 1_000_000 + k * t))
        .collect();
    assert_eq!(tx_starts(log, PortId(0)), want);
    assert_eq!(sim.network().flows[0].forward().packets_received, 10);
}

#[test]
fn a_link_rate_changed_during_a_run_times_later_frames_and_reports_its_mean() {
    // One maximum frame every 200 us; at 450 us the link drops to 100 Mb/s, where a frame
    // takes 123.04 us: still no queue.
    let app = "kind = \"constant_rate\"\nrate = \"58880 kb/s\"\ncount = 10";
    let mut sim = simulation(&two_hosts("1 Gb/s", "0 s", 64, app));
    let at = SimTime(Duration::from_us(450).as_ps());
    sim.run_until(at);
    let (net, _) = sim.parts_mut();
    net.links[LinkId(0).index()].set_rate(at, BitRate::mbps(100));
    sim.run();
    let flow = &sim.network().flows[0];
    let last =
        SimTime(Duration::from_us(1800).as_ps() + BitRate::mbps(100).time_to_send(Bytes(8 + 1518)).as_ps());
    assert_eq!(flow.forward().last_rx, Some(last));
    let s = sim.summary("x", 1);
    let end = s.sim_time_ps as f64;
    let mean = (450e6 * 1e9 + (end - 450e6) * 1e8) / end;
    assert_eq!((s.ports[0].rate_bps, s.ports[0].rate_changes), (100_000_000, 1));
    assert!((s.ports[0].mean_rate_bps - mean).abs() < 1e-3, "{} vs {mean}", s.ports[0].mean_rate_bps);
}

#[test]
fn the_trace_path_records_each_edge_of_a_frame_in_order() {
    let text = r#"
[[hosts]]
name = "a"
[[hosts]]
name = "b"
[[switches]]
name = "s"
[[links]]
between = ["a", "s"]
rate = "1 Gb/s"
[[links]]
between = ["s", "b"]
rate = "1 Gb/s"
[[apps]]
kind = "constant_rate"
from = "a"
to = "b"
rate = "1 Mb/s"
count = 1
"#;
    let mut sim = simulation(text);
    assert!(!sim.network().trace.is_on(), "no subscriber: the path is off");
    sim.network_mut().trace.subscribe(Subscriber::Log(TraceLog::default()));
    sim.run_until(SimTime(Duration::from_ms(1).as_ps()));
    let Subscriber::Log(log) = &sim.network().trace.subscribers()[0] else { unreachable!() };
    let kinds: Vec<(u64, &str, u32)> = log
        .records
        .iter()
        .map(|(t, r)| {
            let (name, port) = match r {
                TraceRecord::Enqueued { port, .. } => ("enqueued", port.0),
                TraceRecord::TxStarted { port, .. } => ("tx_started", port.0),
                TraceRecord::TxEnded { port, .. } => ("tx_ended", port.0),
                TraceRecord::Delivered { node, .. } => ("delivered", node.0),
                other => panic!("unexpected {other:?}"),
            };
            (t.as_ps() / 1000, name, port)
        })
        .collect();
    // 1518 B: last bit after 12208 ns, wire free after 12304 ns, on each hop.
    assert_eq!(
        kinds,
        vec![
            (0, "enqueued", 0),
            (0, "tx_started", 0),
            (12_208, "enqueued", 2),
            (12_208, "tx_started", 2),
            (12_304, "tx_ended", 0),
            (24_416, "delivered", 1),
            // The run's work is done at the delivery: the last gap is not waited for.
        ]
    );
}

/// Counts the moments the queue went empty.
#[derive(Debug)]
struct CountEmpty(std::sync::Arc<std::sync::atomic::AtomicU64>);

impl QueuePolicy for CountEmpty {
    fn on_enqueue(&mut self, _: SimTime, _: QueueView) -> PolicyAction {
        PolicyAction::Keep
    }
    fn on_dequeue(&mut self, _: SimTime, _: QueueView) -> PolicyAction {
        PolicyAction::Keep
    }
    fn on_empty(&mut self, _: SimTime) -> PolicyAction {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        PolicyAction::Keep
    }
}

/// Whether a frame finishes or is cut off by an outage, the policy learns that the
/// transmitter went idle with nothing waiting (LPI and coalescing rely on that moment).
/// Two frames 11.776 ms apart: the first ends (or is cut off at 100 us) with nothing
/// behind it; the run's work is done when the second arrives, before its gap ends.
#[test]
fn a_queue_policy_learns_the_queue_is_empty_after_a_cut_off_too() {
    for outage in ["", "outages = [{ start = \"100 us\", duration = \"50 us\" }]\n"] {
        let text = format!(
            "[[hosts]]\nname = \"a\"\n[[hosts]]\nname = \"b\"\n[[links]]\n\
             between = [\"a\", \"b\"]\nrate = \"1 Gb/s\"\n{outage}[[apps]]\nkind = \"constant_rate\"\nfrom = \"a\"\nto = \"b\"\n\
             rate = \"1 Mb/s\"\nstart = \"99 us\"\ncount = 2\n"
        );
        let mut sim = simulation(&text);
        let empties = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        sim.network_mut().ports[0].policy = Some(PortPolicy::Custom(Box::new(CountEmpty(empties.clone()))));
        sim.run();
        assert_eq!(empties.load(std::sync::atomic::Ordering::SeqCst), 1, "outage: {outage:?}");
    }
}

/// Subscribing to the trace makes transmission ends events (the subscribers see them),
/// which changes the number of events and nothing else.
#[test]
fn results_do_not_depend_on_whether_the_trace_is_on() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/ping-outage.toml"))
            .unwrap();
    let summary = |trace: bool| {
        let mut sim = simulation_with(&text, &[("apps[0].size", "5 MB")]);
        if !trace {
            sim.network_mut().trace = ethersim_core::sim::Trace::default();
        }
        sim.run();
        let mut s = serde_json::to_value(sim.summary("x", 1)).unwrap();
        let events = s["events"].take();
        s["series"].take();
        (s, events)
    };
    let ((on, events_on), (off, events_off)) = (summary(true), summary(false));
    assert_eq!(on, off);
    assert!(events_on.as_u64() > events_off.as_u64());
}

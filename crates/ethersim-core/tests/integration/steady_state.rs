//! The event loop does not allocate per event in steady state, and a run split in two
//! with `run_until` ends exactly where one uninterrupted run does.

use crate::common::{host_switch_host, simulation, simulation_with};
use ethersim_core::time::{Duration, SimTime};

/// A long transfer through a switch plus Poisson cross traffic that overflows a
/// frame-limited queue: every kind of event, drops included.
const BUSY: &str = r#"
[[hosts]]
name = "server"
tx_processing = "1 us"
tx_buffers = 64
[[hosts]]
name = "client"
rx_processing = "1 us"
rx_buffers = 32
[[hosts]]
name = "noise"
[[switches]]
name = "switch"
port_buffer = { frames = 100 }
[[links]]
between = ["server", "switch"]
rate = "1 Gb/s"
[[links]]
between = ["noise", "switch"]
rate = "1 Gb/s"
[[links]]
between = ["switch", "client"]
rate = "1 Gb/s"
delay = "5 us"
[[apps]]
kind = "udp_file"
from = "server"
to = "client"
size = "5 GB"
[[apps]]
kind = "poisson"
from = "noise"
to = "client"
rate = "300 Mb/s"
payload = "200 B"
stop = "10 s"
"#;

#[test]
fn steady_state_runs_without_allocating() {
    let mut sim = simulation(BUSY);
    // Warm-up: queues and the event list reach their working sizes.
    sim.run_until(SimTime::ZERO + Duration::from_ms(20));
    let events_before = sim.scheduler().events_executed();
    let info = allocation_counter::measure(|| {
        sim.run_until(SimTime::ZERO + Duration::from_ms(120));
    });
    let events = sim.scheduler().events_executed() - events_before;
    assert!(events > 100_000, "the measured span must be busy: {events} events");
    assert!(sim.network().ports[4].stats().drops > 0, "drops must occur in the measured span");
    assert_eq!(info.count_total, 0, "{} allocations over {events} events", info.count_total);
}

#[test]
fn run_until_in_steps_equals_one_run() {
    let end = SimTime::ZERO + Duration::from_ms(30);
    let mut one = simulation(BUSY);
    one.run_until(end);
    let mut steps = simulation(BUSY);
    for ms in [1, 7, 7, 19, 30] {
        steps.run_until(SimTime::ZERO + Duration::from_ms(ms));
    }
    let a = serde_json::to_string(&one.summary("x", 1)).unwrap();
    let b = serde_json::to_string(&steps.summary("x", 1)).unwrap();
    assert_eq!(a, b);
}

#[test]
fn running_in_slices_changes_nothing_and_stops_at_each_slice() {
    let shorter = [("apps[0].size", "20 MB"), ("apps[1].stop", "50 ms")];
    let mut whole = simulation_with(BUSY, &shorter);
    whole.run();
    let mut sliced = simulation_with(BUSY, &shorter);
    let mut slices = 1;
    while sliced.run_slice(1000).is_none() {
        slices += 1;
    }
    assert!(slices > 10, "{slices} slices");
    assert_eq!(
        serde_json::to_string(&whole.summary("x", 1)).unwrap(),
        serde_json::to_string(&sliced.summary("x", 1)).unwrap()
    );
    let mut partial = simulation_with(BUSY, &shorter);
    for _ in 0..3 {
        assert_eq!(partial.run_slice(1000), None);
    }
    assert_eq!(partial.scheduler().events_executed(), 3000);
}

/// TCP through a drop-tail bottleneck: handshake done, losses and recoveries (SACK and
/// NewReno's), delayed ACKs, timers re-armed on every ACK; NewReno and CUBIC.
#[test]
fn tcp_steady_state_runs_without_allocating() {
    for tcp in ["sack = false", "sack = true", "sack = true, congestion_control = \"cubic\""] {
        let app = format!("kind = \"tcp_bulk\"\nstop = \"20 s\"\ntcp = {{ {tcp} }}");
        let text = host_switch_host("1 Gb/s", "100 Mb/s", "100 us", 40, &app, "");
        let mut sim = simulation(&text);
        sim.run_until(SimTime::ZERO + Duration::from_secs(2));
        let events_before = sim.scheduler().events_executed();
        let drops_before = sim.network().ports[2].stats().drops;
        let info = allocation_counter::measure(|| {
            sim.run_until(SimTime::ZERO + Duration::from_secs(4));
        });
        let events = sim.scheduler().events_executed() - events_before;
        assert!(events > 50_000, "the measured span must be busy: {events} events");
        assert!(
            sim.network().ports[2].stats().drops > drops_before,
            "losses must occur in the measured span"
        );
        assert_eq!(info.count_total, 0, "{tcp}: {} allocations over {events} events", info.count_total);
    }
}

/// PAUSE, link-rate switching and Low Power Idle in steady state: their bench scenarios
/// (threshold PAUSE with refresh and release, a periodic generator, ALR switching
/// thousands of times a second, an EEE link sleeping and waking for most frames) run
/// without allocating.
#[test]
fn pause_rate_switching_and_lpi_run_without_allocating() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/ethersim/bench_scenarios");
    for (name, from, to) in
        [("pause-tcp-500MB", 1000, 2000), ("alr-poisson", 200, 600), ("eee-10g-poisson", 100, 600)]
    {
        let text = std::fs::read_to_string(root.join(format!("{name}.toml"))).unwrap();
        let mut sim = simulation(&text);
        sim.run_until(SimTime::ZERO + Duration::from_ms(from));
        let events_before = sim.scheduler().events_executed();
        let summary_before = sim.summary("x", 1);
        let info = allocation_counter::measure(|| {
            sim.run_until(SimTime::ZERO + Duration::from_ms(to));
        });
        let events = sim.scheduler().events_executed() - events_before;
        assert!(events > 100_000, "{name}: the measured span must be busy: {events} events");
        let after = sim.summary("x", 1);
        let pauses = |s: &ethersim_core::sim::RunSummary| {
            s.ports.iter().map(|p| p.mechanisms.pause.pause_received).sum::<u64>()
        };
        let switches = |s: &ethersim_core::sim::RunSummary| {
            s.links.iter().map(|l| l.mechanisms.rate.rate_switches).sum::<u64>()
        };
        let wakes = |s: &ethersim_core::sim::RunSummary| {
            s.ports.iter().filter_map(|p| p.mechanisms.lpi.lpi_wakes).sum::<u64>()
        };
        assert!(
            pauses(&after) > pauses(&summary_before)
                || switches(&after) > switches(&summary_before)
                || wakes(&after) > wakes(&summary_before),
            "{name}: the mechanism must act in the measured span"
        );
        assert_eq!(info.count_total, 0, "{name}: {} allocations over {events} events", info.count_total);
    }
}

/// Saturating sources (a mix, shuffled block by block), hosts' interrupt holds and a
/// measurement window in steady state: the bench scenario runs without allocating between
/// the window's edges, and the window counts exactly what the port counters gained
/// across it.
#[test]
fn saturating_hosts_run_without_allocating() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/ethersim/bench_scenarios");
    let text = std::fs::read_to_string(root.join("saturating-hosts.toml")).unwrap();
    let mut sim = simulation(&text);
    sim.run_until(SimTime::ZERO + Duration::from_ms(100));
    let before = sim.summary("x", 1);
    // Between the window's edges (each reads the counters once, into new vectors).
    let info = allocation_counter::measure(|| {
        sim.run_until(SimTime::ZERO + Duration::from_ms(399));
    });
    assert_eq!(info.count_total, 0, "{} allocations", info.count_total);
    sim.run_until(SimTime::ZERO + Duration::from_ms(400));
    let after = sim.summary("x", 1);
    let frames = |s: &ethersim_core::sim::RunSummary| s.ports.iter().map(|p| p.frames_sent).sum::<u64>();
    let measured: u64 = after.ports.iter().filter_map(|p| p.measured_frames_sent).sum();
    assert!(frames(&after) - frames(&before) > 50_000);
    assert_eq!(measured, frames(&after) - frames(&before), "the window's count is the counters' difference");
}

/// A saturated 24-station CSMA/CD segment in steady state (deference, collisions, jams,
/// backoff and deliveries) runs without allocating.
#[test]
fn a_saturated_csma_segment_runs_without_allocating() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/ethersim/bench_scenarios");
    let text = std::fs::read_to_string(root.join("csma-24-hosts.toml")).unwrap();
    let mut sim = simulation(&text);
    // Warm-up: queues and lists grow to the sizes the load needs (by about 0.3 s).
    sim.run_until(SimTime::ZERO + Duration::from_ms(500));
    let info = allocation_counter::measure(|| {
        sim.run_until(SimTime::ZERO + Duration::from_ms(2500));
    });
    assert_eq!(info.count_total, 0, "{} allocations", info.count_total);
    let delivered: u64 = sim.network().flows.iter().map(|f| f.forward().packets_received).sum();
    assert!(delivered > 20_000, "{delivered} frames in 2.5 s");
}

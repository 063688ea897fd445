//! Criterion benchmarks of the hot paths: the event queue alone, and whole networks.

#![allow(missing_docs, clippy::many_single_char_names)]

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use ethersim_core::engine::EventQueue;
use ethersim_core::ids::PortId;
use ethersim_core::phy::TxId;
use ethersim_core::scenario;
use ethersim_core::sim::{Event, Simulation};
use ethersim_core::time::SimTime;

/// Hold-model: a queue of `pending` events of the simulator's own event type; each step
/// pops the earliest and pushes one a pseudo-random delay later, as a simulation does in
/// steady state.
fn event_queue(c: &mut Criterion) {
    let mut g = c.benchmark_group("event_queue");
    for pending in [4usize, 16, 1024, 65_536] {
        g.throughput(Throughput::Elements(1));
        g.bench_function(format!("hold_{pending}"), |b| {
            let mut q: EventQueue<Event> = EventQueue::with_capacity(pending + 1);
            let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
            for i in 0..pending as u64 {
                q.push(SimTime(i * 1000), Event::TxDone { port: PortId(i as u32), tx: TxId(0) });
            }
            b.iter(|| {
                let (t, e) = q.pop().expect("queue never empties");
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                q.push(SimTime(t.0 + x % 100_000), e);
            });
        });
    }
    g.finish();
}

/// The headline example, shared with the README's first command.
const UDP_FILE: &str = include_str!("../../../examples/udp-file.toml");

/// The TCP example: a file over NewReno through the same switch.
const TCP_FILE: &str = include_str!("../../../examples/tcp-file.toml");

/// A 10,000-datagram UDP transfer through a switch, built fresh each iteration.
fn udp_transfer(c: &mut Criterion) {
    // 10,000 full datagrams instead of the example's 500 MB, so one iteration is short.
    transfer(c, UDP_FILE, "14720000 B", "udp_file_10k_datagrams");
}

/// A 10,000-segment TCP transfer (handshake, slow start, close), built fresh each iteration.
fn tcp_transfer(c: &mut Criterion) {
    transfer(c, TCP_FILE, "14600000 B", "tcp_file_10k_segments");
}

/// `text` with its first application's size set to `size`, run whole per iteration.
fn transfer(c: &mut Criterion, text: &str, size: &str, name: &str) {
    let smaller = [("apps[0].size".to_owned(), size.to_owned())];
    let s = scenario::load(text, &smaller).expect("bench scenario is valid");
    let events = {
        let built = scenario::build(&s).expect("bench scenario builds");
        let mut sim = Simulation::new(built.network, built.limits);
        sim.run();
        sim.scheduler().events_executed()
    };
    let mut g = c.benchmark_group("network");
    g.throughput(Throughput::Elements(events));
    g.bench_function(name, |b| {
        b.iter_batched(
            || {
                let built = scenario::build(&s).expect("bench scenario builds");
                Simulation::new(built.network, built.limits)
            },
            |mut sim| sim.run(),
            BatchSize::LargeInput,
        );
    });
    g.finish();
}

criterion_group!(benches, event_queue, udp_transfer, tcp_transfer);
criterion_main!(benches);

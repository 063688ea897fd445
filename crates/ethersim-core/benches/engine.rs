//! Criterion benchmarks of the hot paths: the event queue alone, and whole networks.

#![allow(missing_docs, clippy::many_single_char_names)]

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use ethersim_core::engine::EventQueue;
use ethersim_core::scenario;
use ethersim_core::sim::Simulation;
use ethersim_core::time::SimTime;

/// Hold-model: a queue of `pending` events; each step pops the earliest and pushes one
/// a pseudo-random delay later, as a simulation does in steady state.
fn event_queue(c: &mut Criterion) {
    let mut g = c.benchmark_group("event_queue");
    for pending in [16usize, 1024, 65_536] {
        g.throughput(Throughput::Elements(1));
        g.bench_function(format!("hold_{pending}"), |b| {
            let mut q: EventQueue<u64> = EventQueue::with_capacity(pending + 1);
            let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
            for i in 0..pending as u64 {
                q.push(SimTime(i * 1000), i);
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

const UDP_FILE: &str = r#"
[[hosts]]
name = "server"
tx_processing = "1 us"
tx_buffers = 64
[[hosts]]
name = "client"
rx_processing = "1 us"
[[switches]]
name = "switch"
[[links]]
between = ["server", "switch"]
rate = "1 Gb/s"
delay = "500 ns"
[[links]]
between = ["switch", "client"]
rate = "1 Gb/s"
delay = "500 ns"
[[apps]]
kind = "udp_file"
from = "server"
to = "client"
size = "14720000 B"
"#;

/// A 10,000-datagram UDP transfer through a switch, built fresh each iteration.
fn udp_transfer(c: &mut Criterion) {
    let s = scenario::load(UDP_FILE, &[]).expect("bench scenario is valid");
    let events = {
        let built = scenario::build(&s).expect("bench scenario builds");
        let mut sim = Simulation::new(built.network, built.limits);
        sim.run();
        sim.scheduler().events_executed()
    };
    let mut g = c.benchmark_group("network");
    g.throughput(Throughput::Elements(events));
    g.bench_function("udp_file_10k_datagrams", |b| {
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

criterion_group!(benches, event_queue, udp_transfer);
criterion_main!(benches);

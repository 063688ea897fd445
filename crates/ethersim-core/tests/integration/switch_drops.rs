//! A switch port fed faster than it drains drops what a fluid calculation says.
//!
//! A sender on a 10 Gb/s link pushes N maximum frames back to back into a switch whose
//! output link runs at 1 Gb/s with a buffer of Q frames. While the N frames arrive (one
//! every T), the output sends one every 10·T; when the last arrives the buffer is full.
//! A frame holds its buffer space until its last bit has left, so the frame on the wire
//! is one of the Q. The switch finishes (N−1)/10 frames during the arrivals, then sends
//! the Q it holds, and drops the rest: N − Q − (N−1)/10, to within one frame.

use crate::common::simulation;
use ethersim_core::sim::Simulation;

/// N maximum frames from a 10 Gb/s sender through a switch with `port_buffer` to 1 Gb/s.
fn overload(n: u64, port_buffer: &str) -> Simulation {
    let text = format!(
        r#"
[[hosts]]
name = "a"
tx_buffers = 64
[[hosts]]
name = "b"
[[switches]]
name = "s"
port_buffer = {port_buffer}
[[links]]
between = ["a", "s"]
rate = "10 Gb/s"
[[links]]
between = ["s", "b"]
rate = "1 Gb/s"
[[apps]]
kind = "udp_file"
from = "a"
to = "b"
size = "{} B"
"#,
        n * 1472
    );
    let mut sim = simulation(&text);
    sim.run();
    sim
}

fn fluid_drops(n: u64, q: u64) -> f64 {
    n as f64 - q as f64 - (n - 1) as f64 / 10.0
}

#[test]
fn drops_match_the_fluid_model_to_one_frame() {
    for (n, q) in [(1000u64, 50u64), (5000, 200), (2001, 7)] {
        let sim = overload(n, &format!("{{ frames = {q} }}"));
        let app = &sim.network().flows[0];
        let dropped = app.forward().lost as f64;
        let fluid = fluid_drops(n, q);
        assert!((dropped - fluid).abs() <= 1.0, "N={n} Q={q}: dropped {dropped}, fluid {fluid}");
        // Everything sent was delivered or dropped, and the switch port counted the drops.
        assert_eq!(app.forward().packets_sent, app.forward().packets_received + app.forward().lost);
        assert_eq!(sim.network().ports[2].stats().drops, app.forward().lost);
    }
}

/// With a byte limit, Q = floor(B / 1518) maximum frames fit, the one on the wire included.
#[test]
fn byte_limits_hold_whole_frames_only() {
    let (n, bytes) = (3000u64, 100_000u64); // room for 65 frames of 1518 B
    let sim = overload(n, &format!("{{ bytes = \"{bytes} B\" }}"));
    let q = bytes / 1518;
    let dropped = sim.network().flows[0].forward().lost as f64;
    assert!((dropped - fluid_drops(n, q)).abs() <= 1.0, "dropped {dropped}, fluid {}", fluid_drops(n, q));
    let queue = sim.network().ports[2].queue();
    assert_eq!(queue.bytes_level(sim.scheduler().now()).max_until(sim.scheduler().now()), q * 1518);
}

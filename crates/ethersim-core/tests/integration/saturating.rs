//! The saturating source against closed forms: back to back at the line rate, its mixes
//! and weights in the frames it sends.

use crate::common::{simulation, simulation_with, two_hosts};

/// Frames back to back on a 10 Mb/s link: frame k starts at k·T, with T the frame and its
/// 20 B of preamble and gap at 0.1 us per bit; it is received 8 B of preamble plus the
/// frame later. A 64 B frame: T = 67.2 us, 14,880.95 frames/s, the classic maximum frame
/// rate of 10 Mb/s Ethernet.
#[test]
fn a_saturating_source_sends_back_to_back_at_the_line_rate() {
    for (frame, expected_per_s) in [(64u64, 14_880.95), (1518, 812.74)] {
        let app = format!("kind = \"saturating\"\nframe = \"{frame} B\"");
        let text = format!("duration = \"1 s\"\n{}", two_hosts("10 Mb/s", "0 s", 4, &app));
        let mut sim = simulation(&text);
        sim.run();
        let period_ps = (frame + 20) * 8 * 100_000;
        let first_received_ps = (frame + 8) * 8 * 100_000;
        let received = (1_000_000_000_000 - first_received_ps) / period_ps + 1;
        let flow = &sim.network().flows[0];
        assert_eq!(flow.forward().packets_received, received, "{frame} B");
        assert!((received as f64 - expected_per_s).abs() < 1.0, "{frame} B: {received}");
        let port = &sim.summary("x", 1).ports[0];
        assert!(port.utilization > 0.9999, "{frame} B: {}", port.utilization);
    }
}

/// A 7:1 mix of 64 B and 1518 B frames: each block of eight frames carries one long one,
/// so after N blocks the payload bytes are exactly N·(7·18 + 1472).
#[test]
fn a_mix_sends_its_ratio_exactly_per_block() {
    let app =
        "kind = \"saturating\"\nmix = { short = \"64 B\", long = \"1518 B\", ratio = [7, 1] }\ncount = 800";
    let mut sim = simulation(&two_hosts("10 Mb/s", "0 s", 4, app));
    sim.run();
    let flow = &sim.network().flows[0];
    assert_eq!(flow.forward().packets_received, 800);
    assert_eq!(flow.forward().bytes_received, 100 * (7 * 18 + 1472));
}

/// Weighted lengths: 1:1 weights of 64 B and 1518 B frames over 4,000 frames put
/// 2,000 ± 4·31.6 long frames in, each 1,454 payload bytes more than a short one.
#[test]
fn weighted_lengths_are_drawn_in_proportion() {
    let app = "kind = \"saturating\"\nframes = [{ length = \"64 B\", weight = 1 }, { length = \"1518 B\", weight = 1 }]\ncount = 4000";
    let mut sim = simulation(&two_hosts("1 Gb/s", "0 s", 4, app));
    sim.run();
    let flow = &sim.network().flows[0];
    let longs = (flow.forward().bytes_received - 4000 * 18) / 1454;
    assert!(longs.abs_diff(2000) < 4 * 32, "{longs}");
}

/// A host whose controller waits 100 us for the host after each frame (the CSMA/CD
/// capacity study's hosts): frame k+1 starts 100 us after frame k's last bit, so 64 B
/// frames leave every 57.6 + 100 us, 6,345 a second instead of 14,881.
#[test]
fn an_interrupt_service_time_spaces_the_frames_of_a_host() {
    let app = "kind = \"saturating\"\nframe = \"64 B\"";
    let text = format!("duration = \"1 s\"\n{}", two_hosts("10 Mb/s", "0 s", 15, app));
    let mut sim = simulation_with(&text, &[("hosts[0].tx_interrupt", "100 us")]);
    sim.run();
    let last_bit_ps = (64 + 8) * 8 * 100_000; // preamble and frame at 0.1 us per bit
    let period_ps = last_bit_ps + 100_000_000;
    let received = (1_000_000_000_000 - last_bit_ps) / period_ps + 1;
    assert_eq!(sim.network().flows[0].forward().packets_received, received);
    assert_eq!(received, 6345);
}

/// A measurement window counts what happened within it alone: 64 B frames back to back
/// at 10 Mb/s end their gap at (k+1)·67.2 us, so (0.2 s, 0.7 s] holds
/// ⌊700000/67.2⌋ − ⌊200000/67.2⌋ = 7,440 of them: 14,880 frames/s and, counting
/// preamble and gap, 9.99936 Mb/s on the wire. Frame k is delivered 57.6 us after it
/// starts: 7,440 deliveries in the window too.
#[test]
fn a_measurement_window_counts_its_span_alone() {
    let app = "kind = \"saturating\"\nframe = \"64 B\"";
    let text = format!(
        "duration = \"1 s\"\nmeasure = {{ from = \"200 ms\", until = \"700 ms\" }}\n{}",
        two_hosts("10 Mb/s", "0 s", 4, app)
    );
    let mut sim = simulation(&text);
    sim.run();
    let s = sim.summary("x", 1);
    let (port, flow) = (&s.ports[0], &s.flows[0]);
    assert_eq!(port.measured_frames_sent, Some(7440));
    assert_eq!(port.measured_bytes_sent, Some(7440 * 64));
    assert_eq!(port.measured_frame_rate_per_s, Some(14_880.0));
    assert!((port.measured_bit_rate_bps.unwrap() - 9_999_360.0).abs() < 1e-6);
    assert_eq!(flow.measured_packets_received, Some(7440));
    assert_eq!(flow.measured_bytes_received, Some(7440 * 18));
    let w = s.window.unwrap();
    assert_eq!((w.from_s, w.until_s), (0.2, 0.7));
    // The whole run, for contrast, counts every frame.
    assert!(port.frames_sent > 14_000);
}

/// A host's interrupt service closes its port's gate after every frame (the `Driver`
/// closer): a series on that port sees the gate shut once the MAC is done with the frame
/// (its last bit and the 9.6 us gap) until the 100 us of service counted from the last
/// bit have passed. (A series once had no slot for this closer and panicked.)
#[test]
fn a_series_on_a_host_port_shows_the_interrupt_service_closing_its_gate() {
    let app = "kind = \"saturating\"\nframe = \"64 B\"";
    let text = format!(
        "duration = \"1 ms\"\n{}\n[[series]]\nport = \"a->b\"\n",
        two_hosts("10 Mb/s", "0 s", 15, app)
    );
    let mut sim = simulation_with(&text, &[("hosts[0].tx_interrupt", "100 us")]);
    sim.run();
    let summary = sim.summary("x", 1);
    let gate = summary.series.iter().find(|s| s.quantity == "gate_open" && s.port == "a->b");
    let gate = gate.expect("a gate series on a->b");
    let last_bit_ps = (64 + 8) * 8 * 100_000;
    let mac_done_ps = last_bit_ps + 96 * 100_000;
    let period_ps = last_bit_ps + 100_000_000;
    assert_eq!(gate.t_ps[..5], [0, mac_done_ps, period_ps, period_ps + mac_done_ps, 2 * period_ps]);
    assert_eq!(gate.value[..5], [1, 0, 1, 0, 1]);
}

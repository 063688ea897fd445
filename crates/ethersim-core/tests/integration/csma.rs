//! Shared-medium CSMA/CD segments against IEEE 802.3 clause 4's rules, closed forms and
//! the Metcalfe–Boggs estimate.

use std::fmt::Write;

use ethersim_core::ids::PortId;
use ethersim_core::mechanisms::csma::sim::results::StationResult;
use ethersim_core::sim::TraceRecord;

use crate::common::{log, logged, simulation};

/// 0.1 us per bit at 10 Mb/s, in picoseconds.
const BIT_PS: u64 = 100_000;
/// The slot time, 512 bit times.
const SLOT_PS: u64 = 512 * BIT_PS;

/// Picoseconds for a signal to cross `metres` at 0.77 c (as the geometry rounds it).
fn flight_ps(metres: f64) -> u64 {
    (metres / (0.77 * 299_792_458.0) * 1e12).round() as u64
}

/// A segment with one host per `(position, app)`: each host sends to itself.
fn segment(positions: &[f64], host: &str, app: &[String], head: &str) -> String {
    let mut text = format!("{head}\n");
    for i in 0..positions.len() {
        writeln!(text, "[[hosts]]\nname = \"h{i}\"\n{host}").unwrap();
    }
    let stations: Vec<String> =
        positions.iter().enumerate().map(|(i, x)| format!("{{ node = \"h{i}\", at = {x:?} }}")).collect();
    writeln!(
        text,
        "[[segments]]\nname = \"coax\"\nmax_frame = \"4004 B\"\nstations = [{}]",
        stations.join(", ")
    )
    .unwrap();
    for (i, a) in app.iter().enumerate() {
        writeln!(text, "[[apps]]\nkind = \"saturating\"\nfrom = \"h{i}\"\nto = \"h{i}\"\n{a}").unwrap();
    }
    text
}

fn stations(text: &str) -> Vec<StationResult> {
    let mut sim = simulation(text);
    sim.run();
    sim.summary("csma", 1).mechanisms.stations
}

/// One station alone with a NIC that sends from its queue: frames go back to back, each
/// taking its preamble, the frame and the gap, so the wire carries exactly 10 Mb/s in wire
/// bits (the study's accounting: the frame without its FCS plus 24 B). A 64 B frame of the
/// study (68 B with its FCS) then takes 70.4 us: at most 14,204.5 frames/s.
#[test]
fn a_station_alone_sends_back_to_back_at_exactly_10_mbps() {
    for study_len in [64u64, 1536, 4000] {
        let frame = study_len + 4;
        let app = format!("frame = \"{frame} B\"");
        let head = "duration = \"1.2 s\"\nmeasure = { from = \"0.1 s\", until = \"1.1 s\" }";
        let s = &stations(&segment(&[0.0], "tx_buffers = 64", &[app], head))[0];
        // Frame k's last bit leaves at k·T + (8 + frame)·8 bits; it counts if in the window.
        let period = (frame + 20) * 8 * BIT_PS;
        let last_bit = (frame + 8) * 8 * BIT_PS;
        let counted = (0..).map(|k| k * period + last_bit).skip_while(|&t| t < 100_000_000_000);
        let n = counted.take_while(|&t| t < 1_100_000_000_000).count() as u64;
        assert_eq!(s.frames_sent, n, "{study_len} B");
        assert_eq!(s.collisions, 0);
        let bits = n * (study_len + 24) * 8;
        assert!((s.bit_rate_bps - bits as f64).abs() < 1e-6, "{study_len} B: {}", s.bit_rate_bps);
        assert!(
            (s.bit_rate_bps - 10e6).abs() <= ((study_len + 24) * 8) as f64,
            "within one frame of 10 Mb/s"
        );
        // The MAC takes each frame as the one before ends and waits the gap (9.6 us).
        let delay = (last_bit + 96 * BIT_PS) as f64 * 1e-12;
        assert!((s.delay_mean_s - delay).abs() < 1e-15, "{} vs {delay}", s.delay_mean_s);
    }
    assert!((10e6_f64 / (88.0 * 8.0) - 14_204.545).abs() < 1e-3);
}

/// The study's host: after each frame's last bit the host services an interrupt (100 us)
/// before the controller may start the next, so a lone host sends a 64 B frame (68 B with
/// its FCS) every 60.8 + 100 us, each with no deferral, no collision and no excess delay.
#[test]
fn the_interrupt_service_paces_a_lone_host() {
    let head = "duration = \"1.2 s\"\nmeasure = { from = \"0.1 s\", until = \"1.1 s\" }";
    let host = "tx_buffers = 15\ntx_interrupt = \"100 us\"";
    let s = &stations(&segment(&[0.0], host, &["frame = \"68 B\"".into()], head))[0];
    let period_ps = 76 * 8 * BIT_PS + 100_000_000;
    let n = (0..).map(|k| k * period_ps + 76 * 8 * BIT_PS).skip_while(|&t| t < 100_000_000_000);
    assert_eq!(s.frames_sent, n.take_while(|&t| t < 1_100_000_000_000).count() as u64);
    assert!((s.delay_mean_s - 60.8e-6).abs() < 1e-15 && s.delay_std_s < 1e-15);
    assert!(s.excess_delay_mean_s.abs() < 1e-15);
}

/// Station 1 decides to send `offset` after station 0 started, 200 m away: it senses
/// station 0's carrier only once it has arrived (strictly after d = 200 m / 0.77 c), so the
/// two collide if and only if the offset is at most d.
#[test]
fn two_stations_collide_if_and_only_if_the_second_starts_within_the_propagation_time() {
    let d = flight_ps(200.0);
    for (offset, collide) in [(0, true), (d - 1, true), (d, true), (d + 1, false), (2 * d, false)] {
        let apps = [
            "frame = \"72 B\"\ncount = 1".to_string(),
            format!("frame = \"72 B\"\ncount = 1\nstart = \"{offset} ps\""),
        ];
        let got = stations(&segment(&[0.0, 200.0], "", &apps, ""));
        let collisions: u64 = got.iter().map(|s| s.collisions).sum();
        assert_eq!(collisions > 0, collide, "offset {offset} ps against d = {d} ps: {collisions}");
        assert_eq!(got.iter().map(|s| s.frames_sent).sum::<u64>(), 2, "both frames get through");
        if collide {
            assert_eq!(collisions, 2, "each frame collides once, then their backoffs part them (seed 1)");
        }
    }
}

/// Two stations 100 m apart start together: each detects the other as its first bit
/// arrives (d after the start), finishes its 64-bit preamble, jams 32 bits (to 9.6 us),
/// backs off r slot times, r in {0, 1}, and tries again once its backoff has ended, the
/// other's jam has passed it and a 96-bit gap has followed — or, if the other station
/// went first and its carrier reached this one before its backoff ended, after that
/// frame and a gap.
#[test]
fn a_scripted_collision_has_exact_jam_backoff_and_retry_times_on_the_wire() {
    use ethersim_core::time::SimTime;
    let d = flight_ps(100.0);
    let (frame_ps, jam_end, gap) = ((8 + 72) * 8 * BIT_PS, (64 + 32) * BIT_PS, 96 * BIT_PS);
    let mut draws = std::collections::BTreeSet::new();
    for seed in 1..=12 {
        let apps = vec!["frame = \"72 B\"\ncount = 1".to_string(); 2];
        let mut sim = logged(&segment(&[0.0, 100.0], "", &apps, &format!("seed = {seed}")));
        sim.run();
        let records = &log(&sim).records;
        let steps = |port: u32| -> Vec<(SimTime, TraceRecord)> {
            records
                .iter()
                .filter(|(_, r)| match r {
                    TraceRecord::MacAttempt { port: p, .. }
                    | TraceRecord::MacJam { port: p, .. }
                    | TraceRecord::MacBackoff { port: p, .. } => *p == PortId(port),
                    _ => false,
                })
                .take(4)
                .copied()
                .collect()
        };
        let (s0, s1) = (steps(0), steps(1));
        let mut base = [0u64; 2];
        for (port, steps) in [(0u32, &s0), (1, &s1)] {
            let p = PortId(port);
            assert_eq!(steps[0], (SimTime(0), TraceRecord::MacAttempt { port: p, end: SimTime(frame_ps) }));
            assert_eq!(steps[1], (SimTime(d), TraceRecord::MacJam { port: p, end: SimTime(jam_end) }));
            let (at, TraceRecord::MacBackoff { until, .. }) = steps[2] else { panic!("{:?}", steps[2]) };
            assert_eq!(at.as_ps(), jam_end);
            let waited = until.as_ps() - jam_end;
            assert!(waited == 0 || waited == SLOT_PS, "r = {} slots", waited as f64 / SLOT_PS as f64);
            draws.insert(waited / SLOT_PS);
            // The other's jam reaches this station at 9.6 us + d; the gap follows.
            base[port as usize] = until.as_ps().max(jam_end + d + gap);
        }
        for (port, steps) in [(0usize, &s0), (1, &s1)] {
            let (mine, theirs) = (base[port], base[1 - port]);
            let expected = if theirs + d < mine { mine.max(theirs + frame_ps + d + gap) } else { mine };
            let (at, TraceRecord::MacAttempt { .. }) = steps[3] else { panic!("{:?}", steps[3]) };
            assert_eq!(at.as_ps(), expected, "seed {seed}, port {port}");
        }
    }
    assert_eq!(draws.len(), 2, "both backoffs drawn over the seeds");
}

/// The Metcalfe–Boggs estimate of efficiency for Q stations always ready, frames of
/// `bits` bits (P, with their overhead) and slot time T: a slot is won with probability
/// A = (1 − 1/Q)^(Q−1), contention takes W = (1 − A)/A slots per frame, and E = P/C /
/// (P/C + W·T). It assumes the worst spacing; a real network does at least as well.
fn metcalfe_boggs(q: u32, bits: u64) -> f64 {
    let q = f64::from(q);
    let a = (1.0 - 1.0 / q).powf(q - 1.0);
    let w = (1.0 - a) / a;
    let p = bits as f64 / 10e6;
    p / (p + w * 51.2e-6)
}

/// Total efficiency (wire bits over 10 Mb/s) of `hosts` study hosts (interrupt service
/// 100 us, 15 buffers) spread over `length` metres, saturating with study frames of
/// `study_len` bytes (seed 1, 2 s with the middle second measured).
fn efficiency(hosts: usize, length: f64, study_len: u64) -> f64 {
    let positions: Vec<f64> = (0..hosts).map(|i| length * i as f64 / (hosts - 1).max(1) as f64).collect();
    let apps = vec![format!("frame = \"{} B\"", study_len + 4); hosts];
    let host = "tx_buffers = 15\ntx_interrupt = \"100 us\"";
    let head = "duration = \"2 s\"\nmeasure = { from = \"0.5 s\", until = \"1.5 s\" }";
    stations(&segment(&positions, host, &apps, head)).iter().map(|s| s.bit_rate_bps).sum::<f64>() / 10e6
}

#[test]
fn efficiency_falls_with_shorter_frames_and_longer_cables_and_stays_above_metcalfe_boggs() {
    for hosts in [8usize, 24] {
        let short_frames = efficiency(hosts, 914.4, 64);
        let long_frames = efficiency(hosts, 914.4, 1536);
        let short_cable = efficiency(hosts, 6.1, 64);
        assert!(short_frames < long_frames, "{hosts} hosts: 64 B {short_frames} vs 1536 B {long_frames}");
        assert!(short_frames <= short_cable, "{hosts} hosts: 914 m {short_frames} vs 6 m {short_cable}");
        for (e, len) in [(short_frames, 64), (long_frames, 1536)] {
            let mb = metcalfe_boggs(hosts as u32, (len + 24) * 8);
            assert!(e >= mb, "{hosts} hosts, {len} B: {e} below Metcalfe–Boggs {mb}");
            assert!(e <= 1.0);
        }
    }
}

/// Every frame a station sends whole reaches it (it sends to itself); a frame dropped
/// after 16 collisions is counted lost; nothing else disappears.
#[test]
fn frames_are_delivered_or_counted_dropped() {
    let apps = vec!["frame = \"68 B\"".to_string(); 24];
    let positions: Vec<f64> = (0..24u32).map(|i| 304.8 * f64::from(i % 4)).collect();
    let text = segment(&positions, "tx_buffers = 15\ntx_interrupt = \"100 us\"", &apps, "duration = \"1 s\"");
    let mut sim = simulation(&text);
    sim.run();
    let summary = sim.summary("csma", 1);
    for (s, f) in summary.mechanisms.stations.iter().zip(&summary.flows) {
        assert_eq!(s.frames_sent, f.packets_received, "{}", s.node);
        assert_eq!(s.drops, f.lost);
        assert_eq!(f.packets_sent, f.packets_received + f.lost + f.in_flight);
    }
    assert!(summary.mechanisms.stations.iter().map(|s| s.collisions).sum::<u64>() > 0);
}

/// Two segments bridged by a switch that is a station of both: frames cross from one to
/// the other and back (the example `csma-bridged`); the bridge forwards onto the right
/// segment exactly the stream's frames and the ping requests, and back the ping replies.
#[test]
fn a_switch_bridges_two_segments() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let text = std::fs::read_to_string(root.join("csma-bridged.toml")).unwrap();
    let mut sim = simulation(&text);
    sim.run();
    let s = sim.summary("csma-bridged", 1);
    let flow = |name: &str| s.flows.iter().find(|f| f.name == name).unwrap();
    let port = |node: &str, peer: &str| s.ports.iter().find(|p| p.node == node && p.peer == peer).unwrap();
    let (stream, ping) = (flow("stream"), flow("ping"));
    assert_eq!(stream.lost + ping.lost, 0);
    assert_eq!(stream.packets_sent, stream.packets_received + stream.in_flight);
    assert_eq!(ping.packets_received, ping.packets_sent, "every request answered by the run's end");
    // Right-hand deliveries: the stream and the ping requests cross left to right.
    let into_right = port("bridge", "right").frames_sent;
    let ping_requests_arrived = ping.packets_received;
    let stream_arrived = stream.packets_received;
    assert_eq!(into_right, stream_arrived + ping_requests_arrived);
    assert_eq!(port("bridge", "left").frames_sent, ping.reverse_packets_received);
    assert!(
        s.mechanisms.stations.iter().filter(|st| st.segment == "left").map(|st| st.collisions).sum::<u64>()
            > 0
    );
}

/// A host whose interrupt service varies (`tx_interrupt_jitter`): alone, the gaps between
/// its frames' starts are the frame, 100 us and a draw in [0, 20 us): every gap lies in
/// that range, and their mean is the range's middle within four standard errors.
#[test]
fn a_varying_interrupt_service_spaces_frames_by_its_draws() {
    let host = "tx_buffers = 15\ntx_interrupt = \"100 us\"\ntx_interrupt_jitter = \"20 us\"";
    let app = ["frame = \"68 B\"\ncount = 2000".to_string()];
    let mut sim = logged(&segment(&[0.0], host, &app, ""));
    sim.run();
    let starts: Vec<u64> = log(&sim)
        .records
        .iter()
        .filter_map(|(t, r)| matches!(r, TraceRecord::MacAttempt { .. }).then_some(t.as_ps()))
        .collect();
    assert_eq!(starts.len(), 2000);
    let base = 76 * 8 * BIT_PS + 100_000_000;
    let extras: Vec<f64> = starts.windows(2).map(|w| (w[1] - w[0] - base) as f64).collect();
    assert!(extras.iter().all(|&e| (0.0..20e6).contains(&e)), "every draw in [0, 20 us)");
    let mean = extras.iter().sum::<f64>() / extras.len() as f64;
    let se = 20e6 / 12f64.sqrt() / (extras.len() as f64).sqrt();
    assert!((mean - 10e6).abs() < 4.0 * se, "mean {mean} ps, standard error {se}");
}

/// Study hosts take turns by deference alone while each one's interrupt service outlasts
/// the frames of the others that wait: two hosts never collide (each becomes ready during
/// the other's frame, which it defers to), whatever their service times; three settle into
/// strict turns as well, with fixed service times or ones that vary by less than a frame.
/// Service times that vary by more break the turns: two hosts come to wait on a third at
/// once and collide.
#[test]
fn hosts_take_turns_until_their_service_times_vary() {
    let collisions = |hosts: usize, jitter: &str| {
        let host = format!("tx_buffers = 15\ntx_interrupt = \"100 us\"\ntx_interrupt_jitter = \"{jitter}\"");
        let apps = vec!["frame = \"68 B\"".to_string(); hosts];
        let head = "duration = \"2 s\"\nmeasure = { from = \"0.5 s\", until = \"1.5 s\" }";
        let positions: Vec<f64> = (0..hosts).map(|i| 457.2 * i as f64).collect();
        stations(&segment(&positions, &host, &apps, head)).iter().map(|s| s.collisions).sum::<u64>()
    };
    assert_eq!(collisions(2, "0 s"), 0);
    assert_eq!(collisions(2, "50 us"), 0, "two hosts alternate whatever their service times");
    assert_eq!(collisions(3, "0 s"), 0, "three in strict turns");
    assert_eq!(collisions(3, "20 us"), 0, "turns hold while the service varies less than a frame");
    let varied = collisions(3, "100 us");
    assert!(varied > 100, "three with varying service times collide: {varied}");
}

/// A station's port may have a time series (its queue as the MAC takes frames), and a
/// switch that sends threshold PAUSE sends none onto a segment (PAUSE is for full-duplex
/// links): the input the frames came through is a station.
#[test]
fn a_station_has_a_series_and_receives_no_pause() {
    let text = r#"
duration = "20 ms"
[[hosts]]
name = "a"
[[hosts]]
name = "c"
[[switches]]
name = "sw"
port_buffer = { bytes = "20 kB" }
pause = { send = true }
[[segments]]
name = "coax"
stations = [{ node = "a", at = 0.0 }, { node = "sw", at = 10.0 }]
[[links]]
between = ["sw", "c"]
rate = "1 Mb/s"
[[series]]
port = "a->coax"
[[apps]]
kind = "saturating"
from = "a"
to = "c"
frame = "1000 B"
"#;
    let mut sim = simulation(text);
    sim.run();
    let s = sim.summary("x", 1);
    let port = |node: &str, peer: &str| s.ports.iter().find(|p| p.node == node && p.peer == peer).unwrap();
    assert!(port("sw", "c").frames_sent > 0 && port("sw", "c").drops > 0, "the 1 Mb/s output overflows");
    assert_eq!(port("sw", "coax").mechanisms.pause.pause_sent, 0, "no PAUSE onto the segment");
    assert_eq!(port("a", "coax").mechanisms.pause.pause_received, 0);
    let queue = s.series.iter().find(|x| x.port == "a->coax" && x.quantity == "queue_frames").unwrap();
    assert!(queue.value.iter().any(|&v| v > 0) && queue.value.iter().all(|&v| v <= 256));
}

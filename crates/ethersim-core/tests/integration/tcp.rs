//! TCP end to end against closed forms: a clean path runs at the line rate less the
//! headers, a window-limited flow at window/RTT, random loss near Mathis et al., and a
//! drop-tail bottleneck's sawtooth with the textbook period.

use std::fmt::Write as _;

use crate::common::{host_switch_host as path, overrides, simulation_until};
use ethersim_core::app::EndpointKind;
use ethersim_core::run::run_text;
use ethersim_core::time::{Duration, SimTime};
use ethersim_core::transport::tcp::CongestionControl;

fn flow(report: &ethersim_core::RunReport) -> &serde_json::Map<String, serde_json::Value> {
    let v = serde_json::to_value(&report.summary).unwrap();
    let f = v["flows"][0].as_object().unwrap().clone();
    Box::leak(Box::new(f))
}

fn num(f: &serde_json::Map<String, serde_json::Value>, key: &str) -> f64 {
    f[key].as_f64().unwrap_or_else(|| panic!("{key} missing in {f:?}"))
}

fn count(f: &serde_json::Map<String, serde_json::Value>, key: &str) -> u64 {
    f[key].as_u64().unwrap_or_else(|| panic!("{key} missing or not a count in {f:?}"))
}

/// Line time of a full segment: preamble 8 + frame 1518 + gap 12 bytes; it carries 1460.
const LINE_BYTES: f64 = 8.0 + 1518.0 + 12.0;

#[test]
fn a_clean_path_delivers_the_line_rate_times_payload_over_wire_bytes() {
    // Goodput = R · MSS / (MSS + 40 + 18 + 20): the ACKs travel the other direction of
    // the full-duplex links and take no forward capacity; handshake and close add one
    // RTT each, a few microseconds here against 0.4 s.
    let text = path("1 Gb/s", "1 Gb/s", "500 ns", 1000, "kind = \"tcp_file\"\nsize = \"50 MB\"", "");
    let report = run_text(&text, &[], None).unwrap();
    let f = flow(&report);
    let expected = 1e9 * 1460.0 / LINE_BYTES;
    let goodput = num(f, "goodput_bps");
    eprintln!("clean: goodput {goodput} expected {expected}");
    assert!((goodput / expected - 1.0).abs() < 0.005, "{goodput} vs {expected}");
    assert_eq!(count(f, "retransmissions"), 0);
    assert_eq!(count(f, "delivered_bytes"), 50_000_000);
}

/// Round trip of a full segment and its ACK on an idle path of two store-and-forward
/// hops at `rate` with one-way `delay_s` each: each frame is serialized twice and
/// propagates twice each way (a pure ACK is a 64 B frame: 84 B of line time).
fn idle_rtt_s(rate: f64, delay_s: f64) -> f64 {
    2.0 * LINE_BYTES * 8.0 / rate + 2.0 * 84.0 * 8.0 / rate + 4.0 * delay_s
}

#[test]
fn a_window_limited_flow_delivers_one_window_per_round_trip() {
    // A receive buffer of 20 segments, no scaling needed; 5 ms per hop: RTT ≈ 20 ms, far
    // below what 1 Gb/s could carry, so the window alone sets the rate.
    let w = 20.0 * 1460.0;
    // Measured over 40 s (about 2000 windows), so the last partial window weighs 0.05%.
    let app = "kind = \"tcp_bulk\"\nstop = \"41 s\"\nmeasure_from = \"1 s\"\ntcp = { receive_buffer = \"29200 B\" }";
    let report = run_text(&path("1 Gb/s", "1 Gb/s", "5 ms", 1000, app, ""), &[], None).unwrap();
    let f = flow(&report);
    let rtt = idle_rtt_s(1e9, 5e-3);
    let expected = w * 8.0 / rtt;
    let goodput = num(f, "window_goodput_bps");
    eprintln!("window: {goodput} expected {expected}");
    // The ACK of every second segment releases two segments back to back, so a window
    // takes one RTT plus one segment's serialization: 0.06% above the RTT here.
    assert!((goodput / expected - 1.0).abs() < 0.002, "{goodput} vs {expected}");
    assert_eq!(count(f, "retransmissions"), 0);
}

/// Long-run goodput under random loss p against Mathis et al. (1997):
/// BW = (MSS/RTT)·sqrt(3/(2·b·p)), with b = 2 segments per ACK (delayed ACKs).
fn mathis_ratio(p: f64, seed: u64) -> f64 {
    let app =
        "kind = \"tcp_bulk\"\nstop = \"400 s\"\nmeasure_from = \"20 s\"\ntcp = { rto_min = \"200 ms\" }";
    let text = path("1 Gb/s", "1 Gb/s", "5 ms", 10_000, app, "");
    let (seed, loss) = (seed.to_string(), format!("{{ probability = {p}, from = \"s\" }}"));
    let report = run_text(&text, &overrides(&[("seed", &seed), ("links[1].loss", &loss)]), None).unwrap();
    let f = flow(&report);
    let rtt = idle_rtt_s(1e9, 5e-3);
    let mathis = 1460.0 * 8.0 / rtt * (3.0 / (2.0 * 2.0 * p)).sqrt();
    let g = num(f, "window_goodput_bps");
    eprintln!(
        "mathis p={p} seed={seed}: {g} vs {mathis} ratio {} timeouts {} frs {}",
        g / mathis,
        num(f, "timeouts"),
        num(f, "fast_retransmits")
    );
    g / mathis
}

#[test]
fn random_loss_gives_goodput_near_the_mathis_formula() {
    // Mathis et al. model periodic loss and ignore timeouts and the recovery round trip;
    // for random loss at these rates the model is known to hold to within some 10-20%.
    // The band is +-15% on the mean of three seeds, and each seed within +-25%.
    for p in [0.0005, 0.002] {
        let ratios: Vec<f64> = (1..=3).map(|seed| mathis_ratio(p, seed)).collect();
        let mean = ratios.iter().sum::<f64>() / 3.0;
        assert!((0.85..1.15).contains(&mean), "p = {p}: goodput / Mathis = {mean} ({ratios:?})");
        assert!(ratios.iter().all(|r| (0.75..1.25).contains(r)), "p = {p}: {ratios:?}");
    }
}

#[test]
fn a_drop_tail_bottleneck_gives_the_textbook_sawtooth() {
    // 1 Gb/s into a 100 Mb/s bottleneck whose buffer holds B = 80 frames, one-way 2.5 ms
    // per hop. Congestion avoidance with delayed ACKs grows cwnd by one segment per two
    // RTTs (b = 2); the queue overflows at W_max = BDP + B + 1 segments in flight, and
    // cwnd halves. While the queue is non-empty an RTT lasts w·s (s: a segment's line
    // time at the bottleneck), so growing from W_max/2 to W_max takes
    //   T = sum over w of b·w·s ≈ b·s·(3/8)·W_max²,
    // and with B ≥ BDP·(about 1) the bottleneck never idles: goodput is the line rate
    // times payload over line bytes.
    let buffer = 80.0;
    let app = "kind = \"tcp_bulk\"\nstop = \"200 s\"\nmeasure_from = \"20 s\"";
    let text = path("1 Gb/s", "100 Mb/s", "2.5 ms", 80, app, "");
    let report = run_text(&text, &[], None).unwrap();
    let summary = flow(&report);
    let rate = 100e6;
    let seg = LINE_BYTES * 8.0 / rate;
    // The idle round trip: four propagation delays, a segment serialized at 1 Gb/s and at
    // 100 Mb/s, its ACK at 100 Mb/s and at 1 Gb/s.
    let rtt0 = 4.0 * 2.5e-3 + seg + LINE_BYTES * 8.0 / 1e9 + 84.0 * 8.0 / rate + 84.0 * 8.0 / 1e9;
    let bdp = rtt0 / seg;
    let w_max = bdp + buffer + 1.0;
    let period = 2.0 * seg * 0.375 * w_max * w_max;
    // Loss events between 20 s and the stop, counted on the sender; the same run
    // stopped at 20 s gives the count before.
    let fast_retransmits = |until_s: u64| {
        let mut sim = simulation_until(&text, SimTime::ZERO + Duration::from_secs(until_s));
        sim.run();
        let EndpointKind::TcpSender(t) = &sim.network().endpoints[0].kind else { panic!("a TCP sender") };
        (t.connection().stats().fast_retransmits, t.connection().cc().ssthresh())
    };
    let (before, _) = fast_retransmits(20);
    let (after, ssthresh) = fast_retransmits(200);
    let measured = 180.0 / (after - before) as f64;
    eprintln!("sawtooth: predicted period {period} s, measured {measured} s ({} events)", after - before);
    assert!((measured / period - 1.0).abs() < 0.1, "period {measured} s vs {period} s");
    // ssthresh after an event is half the flight at the loss: about W_max/2 segments.
    let level = ssthresh as f64 / 1460.0;
    assert!((level / (w_max / 2.0) - 1.0).abs() < 0.05, "ssthresh {level} segments vs {}", w_max / 2.0);
    let goodput = num(summary, "window_goodput_bps");
    let line = rate * 1460.0 / LINE_BYTES;
    assert!((goodput / line - 1.0).abs() < 0.01, "{goodput} vs {line}");
    assert_eq!(count(summary, "timeouts"), 0);
}

fn file_with_drops(frames: &str, sack: bool) -> serde_json::Map<String, serde_json::Value> {
    let app = format!("kind = \"tcp_file\"\nsize = \"1 MB\"\ntcp = {{ sack = {sack} }}");
    let text = path("1 Gb/s", "1 Gb/s", "1 ms", 1000, &app, "");
    let loss = format!("{{ drop = [{{ app = \"t\", frames = [{frames}] }}] }}");
    let report = run_text(&text, &overrides(&[("links[0].loss", &loss)]), None).unwrap();
    let v = serde_json::to_value(&report.summary).unwrap();
    assert_eq!(v["links"][0]["frames_lost"][0].as_u64().unwrap() as usize, frames.split(',').count());
    flow(&report).clone()
}

#[test]
fn a_scripted_loss_is_repaired_by_one_fast_retransmit() {
    let f = file_with_drops("100", false);
    for (key, want) in [("lost", 1), ("retransmissions", 1), ("fast_retransmits", 1), ("timeouts", 0)] {
        assert_eq!(count(&f, key), want, "{key}");
    }
    assert_eq!(count(&f, "delivered_bytes"), 1_000_000);
    assert_eq!(count(&f, "in_flight"), 0);
    assert!(num(&f, "completion_time_s") > num(&f, "transfer_time_s"), "the close follows the last byte");
    assert_eq!(f["tcp_state"], "TimeWait");
}

#[test]
fn sack_repairs_several_losses_in_one_window_sooner_than_newreno() {
    // Four losses in one window: NewReno learns of each hole one round trip after the
    // last (one partial ACK each); SACK sees them all at once (RFC 6675).
    let reno = file_with_drops("200, 203, 206, 209", false);
    let sack = file_with_drops("200, 203, 206, 209", true);
    for f in [&reno, &sack] {
        assert_eq!(
            (num(f, "retransmissions"), num(f, "timeouts"), num(f, "fast_retransmits")),
            (4.0, 0.0, 1.0)
        );
        assert_eq!(count(f, "delivered_bytes"), 1_000_000);
    }
    assert_eq!(count(&reno, "partial_acks"), 3);
    assert_eq!(sack["sack"], true);
    let (t_reno, t_sack) = (num(&reno, "transfer_time_s"), num(&sack, "transfer_time_s"));
    // NewReno spends three more round trips in recovery, partly hidden by new data
    // that its inflated window lets out meanwhile.
    assert!(t_sack < t_reno, "SACK {t_sack} s, NewReno {t_reno} s");
}

#[test]
fn tcp_runs_are_deterministic() {
    let app = "kind = \"tcp_bulk\"\nstop = \"2 s\"\ntcp = { sack = true }";
    let text = path("1 Gb/s", "100 Mb/s", "1 ms", 50, app, "");
    let lossy = overrides(&[("links[1].loss", "{ probability = 0.001 }")]);
    let a = serde_json::to_string(&run_text(&text, &lossy, None).unwrap().summary).unwrap();
    let b = serde_json::to_string(&run_text(&text, &lossy, None).unwrap().summary).unwrap();
    assert_eq!(a, b);
    let other = serde_json::to_string(&run_text(&text, &lossy, Some(2)).unwrap().summary).unwrap();
    assert_ne!(a, other, "another seed draws other losses");
}

#[test]
fn a_slow_reader_closes_the_window_and_sets_the_pace() {
    // The receiving application reads 10 Mb/s; its 64 KiB buffer fills, the window
    // closes, and each segment's worth it reads reopens it: goodput is the read rate.
    let app =
        "kind = \"tcp_bulk\"\nstop = \"10 s\"\nmeasure_from = \"2 s\"\ntcp = { receive_buffer = \"64 KiB\" }";
    let text = path("1 Gb/s", "1 Gb/s", "1 ms", 1000, app, "");
    let report = run_text(&text, &overrides(&[("apps[0].read_rate", "10 Mb/s")]), None).unwrap();
    let f = flow(&report);
    let goodput = num(f, "window_goodput_bps");
    assert!((goodput / 10e6 - 1.0).abs() < 0.002, "{goodput}");
    assert_eq!((count(f, "retransmissions"), count(f, "timeouts")), (0, 0));
    // Without the limit the same path runs near the line rate.
    let fast = run_text(&text, &[], None).unwrap();
    assert!(num(flow(&fast), "window_goodput_bps") > 100e6);
}

#[test]
fn a_stalled_reader_is_probed_by_the_persist_timer_and_never_starved() {
    // A reader of 20 kb/s takes 0.58 s per segment's worth: the sender sees the window
    // close with nothing outstanding, and its persist timer probes it (RFC 9293
    // 3.8.6.1) until the receiver announces a segment's worth of room. The reader never
    // runs dry, so the file takes size / read rate.
    let app = "kind = \"tcp_file\"\nsize = \"50 kB\"\nread_rate = \"20 kb/s\"\n\
               tcp = { receive_buffer = \"8 KiB\", rto_min = \"200 ms\", delayed_ack_timeout = \"40 ms\" }";
    let report = run_text(&path("1 Gb/s", "1 Gb/s", "1 ms", 1000, app, ""), &[], None).unwrap();
    let f = flow(&report);
    assert!(count(f, "window_probes") >= 1, "{f:?}");
    assert_eq!((count(f, "timeouts"), count(f, "retransmissions")), (0, 0));
    assert_eq!(count(f, "delivered_bytes"), 50_000);
    let expected = 50_000.0 * 8.0 / 20e3;
    let transfer = num(f, "transfer_time_s");
    // The reader starts when the first segment arrives (a handshake and a one-way trip
    // after the start: about 6 ms).
    assert!((transfer - expected).abs() < 0.01, "{transfer} s vs {expected} s");
}

#[test]
fn two_flows_sharing_a_bottleneck_split_it_fairly_and_fill_it() {
    // Two NewReno flows of equal RTT from two hosts through one 100 Mb/s drop-tail port:
    // together they keep it busy (the line share of full segments), and each gets about
    // half (Jain's fairness index near 1).
    let mut text = String::from(
        "seed = 3\n[[hosts]]\nname = \"a1\"\n[[hosts]]\nname = \"a2\"\n[[hosts]]\nname = \"b\"\n",
    );
    text += "[[switches]]\nname = \"s\"\nport_buffer = { frames = 100 }\n";
    for a in ["a1", "a2"] {
        writeln!(text, "[[links]]\nbetween = [\"{a}\", \"s\"]\nrate = \"1 Gb/s\"\ndelay = \"2 ms\"").unwrap();
    }
    text += "[[links]]\nbetween = [\"s\", \"b\"]\nrate = \"100 Mb/s\"\ndelay = \"2 ms\"\n";
    for (i, a) in ["a1", "a2"].iter().enumerate() {
        writeln!(
            text,
            "[[apps]]\nkind = \"tcp_bulk\"\nname = \"f{i}\"\nfrom = \"{a}\"\nto = \"b\"\nstart = \"{} ms\"\n\
             stop = \"120 s\"\nmeasure_from = \"20 s\"",
            7 * i
        )
        .unwrap();
    }
    let report = run_text(&text, &[], None).unwrap();
    let v = serde_json::to_value(&report.summary).unwrap();
    let x: Vec<f64> = (0..2).map(|i| v["flows"][i]["window_goodput_bps"].as_f64().unwrap()).collect();
    let total: f64 = x.iter().sum();
    let jain = total * total / (2.0 * x.iter().map(|g| g * g).sum::<f64>());
    eprintln!("shares {x:?} total {total} jain {jain}");
    assert!((total / (100e6 * 1460.0 / LINE_BYTES) - 1.0).abs() < 0.01, "{total}");
    assert!(jain > 0.95, "{x:?}: Jain's index {jain}");
}

#[test]
fn limited_transmit_keeps_a_flow_through_a_two_frame_buffer_out_of_timeouts() {
    // The capacity-scaling study's small-RTT cell: a 10 Mb/s bottleneck whose buffer holds
    // two frames, fed at 100 Mb/s, RTT about 1 ms. Its window is a few segments, so
    // without Limited Transmit (RFC 3042) a loss seldom brings three duplicate ACKs and
    // waits out the timer; with it, the two extra segments bring them.
    let run = |lt: bool, delayed_ack: bool| {
        let app = format!(
            "kind = \"tcp_bulk\"\nstop = \"30 s\"\nmeasure_from = \"1 s\"\n\
             tcp = {{ rto_min = \"200 ms\", limited_transmit = {lt}, delayed_ack = {delayed_ack} }}"
        );
        let report = run_text(&path("100 Mb/s", "10 Mb/s", "250 us", 2, &app, ""), &[], None).unwrap();
        let f = flow(&report);
        let counts = (count(f, "fast_retransmits"), count(f, "timeouts"), count(f, "limited_transmits"));
        (num(f, "window_goodput_bps"), counts)
    };
    let framing_limit = 10e6 * 1460.0 / LINE_BYTES;
    // Delayed ACKs (the default): each ACK releases two segments back to back at
    // 100 Mb/s and the second finds the one waiting place taken, so losses are frequent
    // and the window stays at a few segments.
    let (without, (fr0, to0, lt0)) = run(false, true);
    let (with, (fr1, to1, lt1)) = run(true, true);
    eprintln!("two frames: without {without} ({fr0} fast, {to0} timeouts), with {with} ({fr1} fast, {to1} timeouts, {lt1} limited)");
    assert_eq!(lt0, 0);
    assert!(to0 > 100 && fr0 < to0 / 10, "without: {fr0} fast retransmits, {to0} timeouts");
    assert!(lt1 > 0 && fr1 > 100 && to1 == 0, "with: {fr1} fast retransmits, {to1} timeouts");
    assert!(with > 10.0 * without, "{with} against {without}");
    // ACKing every segment (as ns-2's TCPSink does), each ACK releases one segment: the
    // flow keeps most of the framing limit, its losses repaired by fast retransmit.
    let (every, (fr2, to2, _)) = run(true, false);
    eprintln!("two frames, an ACK per segment: {every} ({fr2} fast, {to2} timeouts)");
    assert!(fr2 > 100 * to2.max(1), "{fr2} fast retransmits, {to2} timeouts");
    assert!(every >= 0.85 * framing_limit, "{every} against the framing limit {framing_limit}");
}

#[test]
fn the_ns2_profile_is_window_limited_to_twenty_packets_of_1000_bytes() {
    // ns-2's Agent/TCP window_ (20 packets) of packetSize_ (1000 B), every packet ACKed:
    // on a long, fast path the flow carries one window per round trip, W·MSS/RTT.
    let app = "kind = \"tcp_bulk\"\nstop = \"41 s\"\nmeasure_from = \"1 s\"\ntcp = { profile = \"ns2\" }";
    let report = run_text(&path("100 Mb/s", "100 Mb/s", "25 ms", 1000, app, ""), &[], None).unwrap();
    let v = serde_json::to_value(&report.summary).unwrap();
    let f = v["flows"][0].as_object().unwrap();
    assert_eq!(f["tcp_profile"], "ns2");
    assert_eq!(f["mss"], 1000);
    // A 1000 B segment is a 1058 B frame (40 B of IPv4 and TCP, 18 of Ethernet) and
    // 1078 B of line time; an ACK 84 B. Two store-and-forward hops each way.
    let rate = 100e6;
    let rtt = 2.0 * 1078.0 * 8.0 / rate + 2.0 * 84.0 * 8.0 / rate + 4.0 * 25e-3;
    let expected = 20.0 * 1000.0 * 8.0 / rtt;
    let goodput = f["window_goodput_bps"].as_f64().unwrap();
    eprintln!("ns2 window: {goodput} expected {expected}");
    assert!((goodput / expected - 1.0).abs() < 0.002, "{goodput} vs {expected}");
    assert_eq!(f["retransmissions"], 0);
}

#[test]
fn a_window_limit_of_zero_lifts_the_ns2_profiles_cap() {
    // The same path as above: ns-2's 20 packets hold the flow to W·MSS/RTT; with the cap
    // lifted the window grows until the 100 Mb/s path is full.
    let app = "kind = \"tcp_bulk\"\nstop = \"41 s\"\nmeasure_from = \"1 s\"\ntcp = { profile = \"ns2\", window_limit = 0 }";
    let report = run_text(&path("100 Mb/s", "100 Mb/s", "25 ms", 1000, app, ""), &[], None).unwrap();
    let v = serde_json::to_value(&report.summary).unwrap();
    let goodput = v["flows"][0]["window_goodput_bps"].as_f64().unwrap();
    let capped = 20.0 * 1000.0 * 8.0 / 0.1;
    assert!(goodput > 5.0 * capped, "{goodput} b/s against the capped {capped}");
}

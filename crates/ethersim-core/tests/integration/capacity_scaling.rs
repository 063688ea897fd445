//! Capacity scaling of a router output port (practRA) against its rules: with power
//! control off the port is exactly a fixed-rate port; constant-rate input settles at the
//! smallest rate at or above it and keeps the delay bound; two changes are at least mRCI
//! apart and each keeps the port dark for δ; the power model's energy is the closed form
//! of the time at each rate; runs that differ only in power control share their
//! background traffic and their bottleneck's capacity trajectory exactly.

use crate::common::{log, logged};
use ethersim_core::ids::{LinkId, PortId};
use ethersim_core::phy::{Closer, FrameClass};
use ethersim_core::sim::TraceRecord;
use ethersim_core::time::SimTime;

const MS: u64 = 1_000_000_000;

/// n0 — n1 — n2 — n3 (n1 and n2 routers, 100 Mb/s access, 10 Mb/s n1→n2 and n2→n3),
/// `delay` on the access link, router buffers of `buffer`; `scaling` is the n1–n2 link's
/// `rate_switching` (empty: none), `bottleneck` the n2–n3 link's extra keys, `apps` the
/// applications.
fn chain(delay: &str, buffer: &str, rate: &str, scaling: &str, bottleneck: &str, apps: &str) -> String {
    let scaling = if scaling.is_empty() { String::new() } else { format!("rate_switching = {scaling}\n") };
    format!(
        r#"
seed = 5
[[hosts]]
name = "n0"
[[hosts]]
name = "n3"
[[switches]]
name = "n1"
port_buffer = {{ bytes = "{buffer}" }}
[[switches]]
name = "n2"
port_buffer = {{ bytes = "{buffer}" }}
[[links]]
between = ["n0", "n1"]
rate = "100 Mb/s"
delay = "{delay}"
[[links]]
between = ["n1", "n2"]
rate = "{rate}"
{scaling}[[links]]
between = ["n2", "n3"]
rate = "10 Mb/s"
{bottleneck}
{apps}"#
    )
}

const RATES: &str = r#"["1 Mb/s", "2 Mb/s", "3 Mb/s", "4 Mb/s", "5 Mb/s", "6 Mb/s", "7 Mb/s", "8 Mb/s", "9 Mb/s", "10 Mb/s"]"#;

fn practra(mrci: &str, delay_bound: &str) -> String {
    format!(
        r#"{{ rates = {RATES}, switch_time = "1 ms", from = "n1", min_interval = "{mrci}", policy = {{ kind = "practra", delay_bound = "{delay_bound}" }}, power = {{ kind = "linear", static_w = 5.0, max_w = 10.0 }} }}"#
    )
}

const TCP: &str =
    "[[apps]]\nname = \"tcp\"\nkind = \"tcp_bulk\"\nfrom = \"n0\"\nto = \"n3\"\nstop = \"20 s\"\n";

fn summary(text: &str) -> serde_json::Value {
    let report = ethersim_core::run::run_text(text, &[], None).unwrap_or_else(|e| panic!("{e}"));
    let mut v = serde_json::to_value(&report.summary).unwrap();
    v.as_object_mut().unwrap().remove("wall_s");
    v
}

/// The port n1→n2 of [`chain`]: links' ports are 2i and 2i + 1, n1 is the first end.
const SCALED: PortId = PortId(2);

#[test]
fn with_power_control_off_the_port_is_a_fixed_ten_megabit_port() {
    let fixed = r#"{ rates = ["1 Mb/s", "5 Mb/s", "10 Mb/s"], switch_time = "1 ms", from = "n1", min_interval = "10 ms", policy = { kind = "fixed" }, power = { kind = "linear", static_w = 5.0, max_w = 10.0 } }"#;
    let plain = summary(&chain("10 ms", "25000 B", "10 Mb/s", "", "", TCP));
    let off = summary(&chain("10 ms", "25000 B", "10 Mb/s", fixed, "", TCP));
    assert_eq!(plain["flows"], off["flows"], "every flow result identical");
    assert_eq!(plain["events"], off["events"], "the same events");
    let strip = |v: &serde_json::Value| {
        let mut ports = v["ports"].as_array().unwrap().clone();
        for p in &mut ports {
            for key in [
                "rate_scaled",
                "service_rate_mean_bps",
                "service_rate_reduction_percent",
                "service_energy_j",
                "service_energy_fastest_j",
                "service_energy_saved_percent",
            ] {
                p.as_object_mut().unwrap().remove(key);
            }
        }
        ports
    };
    assert_eq!(strip(&plain), strip(&off), "every port counter identical");
    let port = &off["ports"][2];
    assert_eq!(port["rate_scaled"], true);
    assert_eq!(port["service_rate_reduction_percent"], 0.0);
    assert_eq!(port["service_energy_saved_percent"], 0.0);
    let end_s = off["sim_time_s"].as_f64().unwrap();
    assert!((port["service_energy_j"].as_f64().unwrap() - 10.0 * end_s).abs() < 1e-9);
}

/// A constant-rate UDP source of `payload_mbps` from n0 to n3 over a practRA port that
/// starts at `initial`.
fn constant_input(initial: &str, payload_mbps: f64, mrci: &str) -> String {
    let app = format!(
        "[[apps]]\nname = \"cbr\"\nkind = \"constant_rate\"\nfrom = \"n0\"\nto = \"n3\"\nrate = \"{payload_mbps} Mb/s\"\nstop = \"30 s\"\n"
    );
    chain("1 ms", "1000000 B", initial, &practra(mrci, "50 ms"), "", &app)
}

#[test]
fn constant_input_settles_at_the_smallest_rate_at_or_above_it_and_keeps_the_delay_bound() {
    // 3.2 Mb/s of payload in 1472 B datagrams: 3.30 Mb/s of frames, 3.34 Mb/s on the wire
    // with preamble and gap; both lie between 3 and 4 Mb/s, so practRA must settle at 4.
    for initial in ["1 Mb/s", "10 Mb/s"] {
        let mut sim = logged(&constant_input(initial, 3.2, "100 ms"));
        sim.run();
        let records = &log(&sim).records;
        let changes: Vec<(SimTime, u64, SimTime)> = records
            .iter()
            .filter_map(|(t, r)| match *r {
                TraceRecord::RateChanged { port, rate_bps, from } if port == SCALED => {
                    Some((*t, rate_bps, from))
                }
                _ => None,
            })
            .collect();
        let &(last_at, last_rate, settled) = changes.last().expect("the rate changed");
        assert_eq!(last_rate, 4_000_000, "from {initial}: settled at {last_rate} b/s");
        assert!(last_at < SimTime(5_000 * MS), "from {initial}: settled late, at {last_at}");
        // Once settled and the backlog of the climb drained (the mRCI hold-off may keep a
        // port below its load for a while: the bound cannot hold then), the queueing
        // delay of every frame (the bytes ahead of it and its own, at 4 Mb/s) stays under
        // the 50 ms bound.
        let held: Vec<(SimTime, u64, u32)> = records
            .iter()
            .filter_map(|(t, r)| match *r {
                TraceRecord::Enqueued { port, held_bytes, frame_len, .. }
                    if port == SCALED && *t >= settled =>
                {
                    Some((*t, held_bytes, frame_len))
                }
                _ => None,
            })
            .collect();
        let drained = held.iter().position(|&(_, b, len)| b == u64::from(len)).expect("the queue drains");
        assert!(held[drained].0 < SimTime(10_000 * MS), "from {initial}: drained at {}", held[drained].0);
        let worst = held[drained..].iter().map(|&(_, b, _)| b).max().unwrap();
        assert!(worst as f64 * 8.0 / 4e6 <= 0.05, "from {initial}: {worst} B held after settling");
        let net = sim.network();
        assert_eq!(net.ports[SCALED.index()].stats().drops, 0);
        assert_eq!(net.attached.rate_switching.get(LinkId(1)).unwrap().rate_index(), 3);
    }
}

#[test]
fn changes_are_at_least_mrci_apart_and_each_keeps_the_port_dark_for_delta() {
    let mrci = 200 * MS;
    let delta = MS; // switch_time 1 ms
                    // TCP keeps practRA busy both ways.
    let mut sim = logged(&chain("20 ms", "50000 B", "10 Mb/s", &practra("200 ms", "20 ms"), "", TCP));
    sim.run();
    let records = &log(&sim).records;
    let closes: Vec<(SimTime, SimTime)> = records
        .iter()
        .filter_map(|(t, r)| match *r {
            TraceRecord::Gate { port, closer: Closer::LINK, until } if port == SCALED && until > *t => {
                Some((*t, until))
            }
            _ => None,
        })
        .collect();
    assert!(closes.len() > 10, "practRA changed the rate {} times", closes.len());
    for w in closes.windows(2) {
        assert!(w[1].0.as_ps() - w[0].0.as_ps() >= mrci, "changes at {} and {}", w[0].0, w[1].0);
    }
    for &(request, until) in &closes {
        assert!(until.as_ps() - request.as_ps() >= delta, "dark from {request} to {until}");
        // No data frame starts while the port is dark.
        let dark_from = until.as_ps() - delta;
        let started_dark = records.iter().any(|(t, r)| {
            matches!(r, TraceRecord::TxStarted { port, class: FrameClass::Data, .. } if *port == SCALED)
                && t.as_ps() >= dark_from
                && t.as_ps() < until.as_ps()
        });
        assert!(!started_dark, "a frame started in the dark time ending at {until}");
    }
    // The other direction (the ACKs, n2→n1) never changes rate.
    assert!(!records
        .iter()
        .any(|(_, r)| matches!(r, TraceRecord::RateChanged { port, .. } if *port == PortId(3))));
    // Time at the rates and the dark time add up to the run; the energy is their
    // closed form under P(r) = 5 + 5·r/10 Mb/s, each dark time at the higher rate's power.
    let end = sim.scheduler().now();
    let rs = sim.network().attached.rate_switching.get(LinkId(1)).unwrap();
    let at = rs.time_at_rates(end);
    let total: u64 = at.iter().map(|d| d.as_ps()).sum::<u64>() + rs.dark_time(end).as_ps();
    assert_eq!(total, end.as_ps());
    let carrying: f64 =
        at.iter().enumerate().map(|(i, d)| d.as_secs_f64() * (5.0 + 0.5 * (i + 1) as f64)).sum();
    let energy = rs.energy_j(end).unwrap();
    let dark_j = energy - carrying;
    let dark_s = rs.dark_time(end).as_secs_f64();
    assert!(
        dark_j >= 5.5 * dark_s - 1e-12 && dark_j <= 10.0 * dark_s + 1e-12,
        "{dark_j} J over {dark_s} s dark"
    );
}

#[test]
fn paired_runs_share_their_background_and_bottleneck_trajectories_exactly() {
    let background = "[[apps]]\nname = \"bg\"\nkind = \"on_off\"\nfrom = \"n0\"\nto = \"n3\"\nrate = \"5 Mb/s\"\nmean_burst = \"50 ms\"\nstop = \"20 s\"\n";
    let bottleneck = r#"capacity = { min = "1 Mb/s", max = "10 Mb/s", mean_hold = "500 ms", from = "n2" }"#;
    let apps = format!("{TCP}{background}");
    let fixed = format!(
        r#"{{ rates = {RATES}, switch_time = "1 ms", from = "n1", min_interval = "50 ms", policy = {{ kind = "fixed" }} }}"#
    );
    let run = |scaling: &str| {
        let mut sim = logged(&chain("5 ms", "12500 B", "10 Mb/s", scaling, bottleneck, &apps));
        sim.run();
        let trajectory: Vec<(SimTime, u64, SimTime)> = log(&sim)
            .records
            .iter()
            .filter_map(|(t, r)| match *r {
                // Over the traffic's 20 s (the runs end when TCP has closed, at different times).
                TraceRecord::RateChanged { port, rate_bps, from }
                    if port == PortId(4) && *t < SimTime(20_000 * MS) =>
                {
                    Some((*t, rate_bps, from))
                }
                _ => None,
            })
            .collect();
        let net = sim.network();
        let bg = net.flows.iter().position(|f| f.name == "bg").unwrap();
        let generated = match &net.endpoints[net.flows[bg].ends[0].index()].kind {
            ethersim_core::app::EndpointKind::Source(s) => s.generated(),
            other => panic!("{other:?}"),
        };
        let scaled_changes = net.attached.rate_switching.get(LinkId(1)).unwrap().switches();
        (trajectory, generated, scaled_changes, net.flows[0].forward().bytes_received)
    };
    let (with_pc, bg_pc, changes_pc, tcp_pc) = run(&practra("50 ms", "20 ms"));
    let (without, bg_nopc, changes_nopc, tcp_nopc) = run(&fixed);
    assert!(with_pc.len() > 10, "the bottleneck's capacity changed {} times", with_pc.len());
    assert_eq!(with_pc, without, "the same capacity trajectory");
    assert_eq!(bg_pc, bg_nopc, "the same background packets");
    assert!(changes_pc > 0 && changes_nopc == 0);
    assert_ne!(tcp_pc, tcp_nopc, "power control did change what TCP delivered");
    // Every redraw lies in the range and only the n2→n3 direction varies.
    assert!(with_pc.iter().all(|&(t, r, from)| (1_000_000..=10_000_000).contains(&r) && t == from));
}

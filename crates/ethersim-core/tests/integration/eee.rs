//! Energy Efficient Ethernet against its rules and closed forms: an isolated frame after a
//! long idle waits exactly Tw; one arriving during Sleep waits the rest of Ts and Tw (or Tw
//! alone when sleep aborts); gaps shorter than the idle timeout never sleep; the
//! symmetric mode wakes both directions; periodic traffic's time in each state and
//! energy equal the renewal-reward closed form; Poisson traffic's time in LPI equals it
//! within a confidence bound.

#![allow(clippy::format_push_string)] // test scenarios are assembled as text

use crate::common::{data_starts, logged, simulation, simulation_with};
use ethersim_core::ids::PortId;
use ethersim_core::sim::RunSummary;
use ethersim_core::time::{BitRate, Bytes};

const US: u64 = 1_000_000;

/// Hosts `a` and `b` on one 1 Gb/s link with `eee` (a TOML inline table), 1 us of delay;
/// `a` sends one maximum frame at each of `a_sends`, `b` at each of `b_sends` (us).
fn pair(eee: &str, a_sends: &[u64], b_sends: &[u64]) -> String {
    let mut text = format!(
        "[[hosts]]\nname = \"a\"\n[[hosts]]\nname = \"b\"\n[[links]]\nbetween = [\"a\", \"b\"]\n\
         rate = \"1 Gb/s\"\ndelay = \"1 us\"\neee = {eee}\n"
    );
    for (from, to, sends) in [("a", "b", a_sends), ("b", "a", b_sends)] {
        for (i, t) in sends.iter().enumerate() {
            text.push_str(&format!(
                "[[apps]]\nname = \"{from}{i}\"\nkind = \"constant_rate\"\nfrom = \"{from}\"\nto = \"{to}\"\n\
                 rate = \"1 Mb/s\"\nstart = \"{t} us\"\ncount = 1\n"
            ));
        }
    }
    text
}

#[test]
fn an_isolated_frame_after_a_long_idle_waits_exactly_tw() {
    // The idle link slept at 0 (Ts 182 us); the frame at 1 ms wakes it for 16 us.
    let mut sim = logged(&pair(r#"{ phy = "1000BASE-T" }"#, &[1000], &[]));
    sim.run();
    assert_eq!(data_starts(&sim, PortId(0)), vec![1016 * US]);
}

#[test]
fn a_frame_during_sleep_waits_the_rest_of_ts_and_tw_or_tw_alone_when_sleep_aborts() {
    let mut waits = logged(&pair(r#"{ phy = "1000BASE-T" }"#, &[100], &[]));
    waits.run();
    assert_eq!(data_starts(&waits, PortId(0)), vec![(182 + 16) * US]);
    let mut aborts = logged(&pair(r#"{ phy = "1000BASE-T", abort_sleep = true }"#, &[100], &[]));
    aborts.run();
    assert_eq!(data_starts(&aborts, PortId(0)), vec![(100 + 16) * US]);
}

#[test]
fn gaps_shorter_than_the_idle_timeout_never_sleep() {
    let eee = r#"{ phy = "1000BASE-T", policy = { kind = "timeout", timeout = "1 ms" } }"#;
    let sends: Vec<u64> = (0..20).map(|k| 500 * k).collect();
    let mut sim = logged(&pair(eee, &sends, &[]));
    sim.run();
    let starts = data_starts(&sim, PortId(0));
    assert_eq!(starts, sends.iter().map(|t| t * US).collect::<Vec<_>>(), "no frame waited");
    let s = sim.summary("x", 1);
    assert_eq!(s.ports[0].mechanisms.lpi.lpi_sleeps, Some(0));
}

#[test]
fn the_symmetric_mode_wakes_both_directions_together() {
    // `a` wakes the link at 1 ms; `b`'s frame at 1.005 ms finds it waking and starts with
    // `a`'s at 1.016 ms. Each direction on its own, `b` wakes its own PHY at 1.005 ms.
    let mut both = logged(&pair(r#"{ phy = "1000BASE-T" }"#, &[1000], &[1005]));
    both.run();
    assert_eq!(data_starts(&both, PortId(1)), vec![1016 * US]);
    let mut apart = logged(&pair(r#"{ phy = "1000BASE-T", symmetric = false }"#, &[1000], &[1005]));
    apart.run();
    assert_eq!(data_starts(&apart, PortId(1)), vec![1021 * US]);
}

/// Picoseconds as seconds.
fn s(ps: u64) -> f64 {
    ps as f64 / 1e12
}

#[test]
fn periodic_traffic_spends_the_closed_form_time_in_each_state() {
    // 10GBASE-T (Ts 2.88, Tw 4.48, Tq 39.68, Tr 1.28 us), immediate policy, each
    // direction apart: `a` sends a maximum frame every P = 200 us from S = 100 us, N of
    // them. Per period (renewal-reward): Wake Tw, Active W (the
    // frame and its gap), Sleep Ts, then Quiet with a refresh of Tr after every Tq.
    let (n, p, start) = (50u64, 200 * US, 100 * US);
    let text = format!(
        "[[hosts]]\nname = \"a\"\n[[hosts]]\nname = \"b\"\n[[links]]\n\
         between = [\"a\", \"b\"]\nrate = \"10 Gb/s\"\neee = {{ phy = \"10GBASE-T\" }}\n[[apps]]\n\
         kind = \"constant_rate\"\nfrom = \"a\"\nto = \"b\"\nrate = \"58.88 Mb/s\"\nstart = \"100 us\"\ncount = {n}\n"
    );
    let mut sim = simulation(&text);
    sim.run();
    let summary: RunSummary = sim.summary("x", 1);
    let port = &summary.ports[0];
    let (ts, tw, tq, tr) = (2_880_000u64, 4_480_000u64, 39_680_000u64, 1_280_000u64);
    let w = BitRate::gbps(10).time_to_send(Bytes(8 + 1518 + 12)).as_ps();
    let split = |d: u64| {
        let (k, rest) = (d / (tq + tr), d % (tq + tr));
        let refresh = k * tr + rest.saturating_sub(tq);
        (d - refresh, refresh)
    };
    let (q_first, r_first) = split(start - ts); // asleep from 0 to the first frame
    let (q_period, r_period) = split(p - tw - w - ts);
    // The run ends when the last frame has arrived (its gap not yet over): the last
    // period is a wake and the frame alone.
    let end = summary.sim_time_ps;
    let last = start + (n - 1) * p;
    let expected = [
        ("active", (n - 1) * w + (end - last - tw), port.mechanisms.lpi.lpi_active_s),
        ("sleep", n * ts, port.mechanisms.lpi.lpi_sleep_s),
        ("quiet", q_first + (n - 1) * q_period, port.mechanisms.lpi.lpi_quiet_s),
        ("refresh", r_first + (n - 1) * r_period, port.mechanisms.lpi.lpi_refresh_s),
        ("wake", n * tw, port.mechanisms.lpi.lpi_wake_s),
    ];
    for (name, ps, got) in expected {
        let got = got.unwrap();
        assert!((got - s(ps)).abs() < 1e-15, "{name}: {got} s against {} s", s(ps));
    }
    assert_eq!(end, last + tw + BitRate::gbps(10).time_to_send(Bytes(8 + 1518)).as_ps());
    // Energy: Active power in every state but Quiet, a tenth of it in Quiet.
    let quiet = s(q_first + (n - 1) * q_period);
    let total = s(end);
    let energy = 4.0 * (total - quiet) + 0.4 * quiet;
    assert!((port.mechanisms.lpi.energy_j.unwrap() - energy).abs() < 1e-12);
    assert!((port.mechanisms.lpi.energy_eee_off_j.unwrap() - 4.0 * total).abs() < 1e-12);
    assert_eq!(port.mechanisms.lpi.lpi_wakes, Some(n));
}

#[test]
fn poisson_traffic_spends_the_renewal_reward_fraction_of_time_in_lpi() {
    // Immediate policy, each direction apart, Poisson arrivals at rate λ, each frame
    // holding the wire W (frame, preamble and gap: the on-wire convention). A cycle is an
    // idle time X (exponential, from the sleep to the next arrival), asleep for
    // max(X, Ts), a wake Tw, then a busy period. The wire is busy a fraction ρ = λW of
    // the time (every frame is sent once), so E[cycle] = (E[max(X, Ts)] + Tw) / (1 − ρ),
    // with E[max(X, Ts)] = Ts + e^(−λTs)/λ; the fraction asleep (sleep, quiet, refresh)
    // is E[max(X, Ts)] / E[cycle].
    let text = "duration = \"2 s\"\n[[hosts]]\nname = \"a\"\n[[hosts]]\nname = \"b\"\n[[links]]\n\
                between = [\"a\", \"b\"]\nrate = \"1 Gb/s\"\neee = { phy = \"1000BASE-T\", symmetric = false }\n\
                [[apps]]\nkind = \"poisson\"\nfrom = \"a\"\nto = \"b\"\nrate = \"58.88 Mb/s\"\n";
    let mut sim = simulation(text);
    sim.run();
    let summary = sim.summary("x", 1);
    let port = &summary.ports[0];
    let (ts, tw) = (182e-6_f64, 16e-6_f64);
    let w = (8.0 + 1518.0 + 12.0) * 8.0 / 1e9;
    let lambda = 58.88e6 / (1472.0 * 8.0); // 5000 frames/s
    let rho = lambda * w;
    let asleep = ts + (-lambda * ts).exp() / lambda;
    let expected = asleep * (1.0 - rho) / (asleep + tw);
    let got = (port.mechanisms.lpi.lpi_sleep_s.unwrap()
        + port.mechanisms.lpi.lpi_quiet_s.unwrap()
        + port.mechanisms.lpi.lpi_refresh_s.unwrap())
        / 2.0;
    // About 10,000 cycles: each cycle's asleep time has a standard deviation of at most
    // 1/λ (exponential), so the fraction's standard error is below
    // (1/λ)/(E[cycle]·√10000) ≈ 0.01; allow four of them.
    assert!((got - expected).abs() < 0.04 * expected, "{got} against {expected}");
    let frames = summary.flows[0].packets_sent as f64;
    assert!((frames / 2.0 / lambda - 1.0).abs() < 0.05, "the arrival rate is as set");
}

#[test]
fn coalescing_releases_a_burst_together_and_its_timer_releases_fewer() {
    // Each direction apart; the link slept at 0. Three frames at 1000, 1010, 1020 us.
    let frames = |n: u32| {
        format!(
            r#"{{ phy = "1000BASE-T", symmetric = false, policy = {{ kind = "coalescing", frames = {n}, timer = "100 us" }} }}"#
        )
    };
    let gap = BitRate::gbps(1).time_to_send(Bytes(8 + 1518 + 12)).as_ps();
    // N = 3: the third frame wakes the PHY; the burst leaves back to back after Tw.
    let mut burst = logged(&pair(&frames(3), &[1000, 1010, 1020], &[]));
    burst.run();
    let start = 1036 * US;
    assert_eq!(data_starts(&burst, PortId(0)), vec![start, start + gap, start + 2 * gap]);
    // N = 5: the timer, 100 us after the first frame, releases the three.
    let mut timer = logged(&pair(&frames(5), &[1000, 1010, 1020], &[]));
    timer.run();
    let start = (1000 + 100 + 16) * US;
    assert_eq!(data_starts(&timer, PortId(0)), vec![start, start + gap, start + 2 * gap]);
    // No frame waited longer than the timer and a wake (the link was quiet, not sleeping).
    let summary = timer.summary("x", 1);
    assert!(summary.flows.iter().all(|f| f.delay.max_s <= (100.0 + 16.0) * 1e-6 + 4.0 * 12.3e-6));
}

#[test]
fn poisson_traffic_waits_the_setup_time_formula_of_an_m_g_1_queue() {
    // The same Poisson stream (same seed, same application name) over a 1000BASE-T
    // direction with and without EEE (immediate policy, a sleep in progress finishes).
    // With EEE the queue is an M/G/1 queue with setup times: the first frame of a busy
    // period finds the PHY asleep for X (exponential) and waits S = Tw + (Ts − X)^+. The
    // mean wait of an M/G/1 queue with setup times exceeds the plain queue's by
    // (2E[S] + λE[S²]) / (2(1 + λE[S])) (e.g. Takagi, Queueing Analysis vol. 1, 1991,
    // section 2.3); the derivation needs S to be independent only of the arrivals after
    // the one that starts the setup, as here. With Y = (Ts − X)^+:
    // E[Y] = Ts − (1 − e^(−λTs))/λ and E[Y²] = Ts² − 2Ts/λ + 2/λ² − 2e^(−λTs)/λ².
    let text = |eee: &str| {
        format!(
            "duration = \"4 s\"\n[[hosts]]\nname = \"a\"\n[[hosts]]\nname = \"b\"\n[[links]]\n\
             between = [\"a\", \"b\"]\nrate = \"1 Gb/s\"\n{eee}\n[[apps]]\nname = \"p\"\nkind = \"poisson\"\n\
             from = \"a\"\nto = \"b\"\nrate = \"58.88 Mb/s\"\n"
        )
    };
    let run = |t: String| {
        let mut sim = simulation(&t);
        sim.run();
        sim.summary("x", 1)
    };
    let on = run(text(r#"eee = { phy = "1000BASE-T", symmetric = false }"#));
    let off = run(text(""));
    assert_eq!(on.flows[0].packets_received, off.flows[0].packets_received, "the same stream");
    let (ts, tw) = (182e-6_f64, 16e-6_f64);
    let lambda = 58.88e6 / (1472.0 * 8.0);
    let ey = ts - (1.0 - (-lambda * ts).exp()) / lambda;
    let ey2 = ts * ts - 2.0 * ts / lambda + 2.0 / (lambda * lambda)
        - 2.0 * (-lambda * ts).exp() / (lambda * lambda);
    let es = tw + ey;
    let es2 = tw * tw + 2.0 * tw * ey + ey2;
    let expected = (2.0 * es + lambda * es2) / (2.0 * (1.0 + lambda * es));
    let added = on.flows[0].delay.mean_s - off.flows[0].delay.mean_s;
    // Standard error of the difference, bounded by the EEE run's delay spread.
    let n = on.flows[0].packets_received as f64;
    let se = on.flows[0].delay.std_s / n.sqrt();
    assert!((added - expected).abs() < 4.0 * se, "added {added} s, expected {expected} s, se {se} s");
}

#[test]
fn each_end_may_have_its_own_power_and_apart_its_own_policy() {
    // Symmetric: one state timeline, each direction's PHY at its own power.
    let eee =
        r#"{ phy = "1000BASE-T", ends = { a = { active_power_w = 0.5 }, b = { active_power_w = 2.0 } } }"#;
    let mut sim = simulation(&pair(eee, &[1000], &[]));
    sim.run();
    let s = sim.summary("x", 1);
    let (ea, eb) = (s.ports[0].mechanisms.lpi.energy_j.unwrap(), s.ports[1].mechanisms.lpi.energy_j.unwrap());
    assert!((eb / ea - 4.0).abs() < 1e-9, "{ea} J and {eb} J");
    assert_eq!(s.ports[0].mechanisms.lpi.lpi_quiet_s, s.ports[1].mechanisms.lpi.lpi_quiet_s, "one timeline");
    // Apart: `b` never sleeps (a timeout far beyond the run), `a` sleeps at once.
    let eee = r#"{ phy = "1000BASE-T", symmetric = false, ends = { b = { policy = { kind = "timeout", timeout = "10 s" } } } }"#;
    let mut sim = simulation(&pair(eee, &[1000], &[]));
    sim.run();
    let s = sim.summary("x", 1);
    // `a` sleeps at the start and again after its frame.
    assert_eq!(
        (s.ports[0].mechanisms.lpi.lpi_sleeps, s.ports[1].mechanisms.lpi.lpi_sleeps),
        (Some(2), Some(0))
    );
}

/// The `lpi_state` series of port `port` of `sim` (which asked for it).
/// A ping between two other hosts every 1 ms for 5 ms: keeps a run going without touching
/// the EEE link.
const KEEP_GOING: &str = "[[hosts]]\nname = \"c\"\n[[hosts]]\nname = \"d\"\n\
    [[links]]\nbetween = [\"c\", \"d\"]\nrate = \"1 Gb/s\"\n\
    [[apps]]\nkind = \"ping\"\nfrom = \"c\"\nto = \"d\"\ninterval = \"1 ms\"\ncount = 5\n";

fn lpi_series(summary: &RunSummary, port: &str) -> Vec<(u64, u64)> {
    let s = summary.series.iter().find(|s| s.port == port && s.quantity == "lpi_state").unwrap();
    s.t_ps.iter().copied().zip(s.value.iter().copied()).collect()
}

#[test]
fn a_symmetric_link_sleeps_only_when_both_ends_are_idle() {
    // `a` sends a short frame at 1 ms, `b` a maximum frame at 1.004 ms: the
    // wake ends at 1.016 ms for both; `a` is idle after its short frame, while `b` is
    // still sending, and the link goes to sleep only when `b` is idle too (immediate
    // policy).
    // A ping between two other hosts keeps the run going to 5 ms without touching the
    // EEE link after its last sleep.
    let text =
        pair(r#"{ phy = "1000BASE-T" }"#, &[1000], &[1004]) + KEEP_GOING + "[[series]]\nport = \"a->b\"\n";
    // a0, the short frame.
    let mut sim = simulation_with(&text, &[("apps[0].payload", "100 B")]);
    sim.run();
    let summary = sim.summary("x", 1);
    let gap = BitRate::gbps(1).time_to_send(Bytes(8 + 1518 + 12)).as_ps();
    let both_idle = 1016 * US + gap;
    // Active (0) from the end of the wake; Sleep (1) when both ends are idle; then Quiet.
    let points = lpi_series(&summary, "a->b");
    assert!(points.contains(&(1016 * US, 0)), "{points:?}");
    assert!(points.contains(&(both_idle, 1)), "{points:?}");
    assert!(points.contains(&(both_idle + 182 * US, 2)), "the last sleep's end is in the series: {points:?}");
}

#[test]
fn an_idle_timeout_runs_from_the_last_frame() {
    // Timeout 1 ms; `a` sends at 0 and at 600 us, inside the first timeout: the PHY goes
    // to sleep exactly 1 ms after the second frame's transmission (and gap) ends, never
    // before. (Frames sent while awake leave the timer armed; it is re-armed from each
    // idle, so this pins the rule whatever the bookkeeping.) A ping between two other
    // hosts keeps the run going.
    let eee = r#"{ phy = "1000BASE-T", symmetric = false, policy = { kind = "timeout", timeout = "1 ms" } }"#;
    let text = pair(eee, &[0, 600], &[]) + KEEP_GOING + "[[series]]\nport = \"a->b\"\n";
    let mut sim = simulation(&text);
    sim.run();
    let summary = sim.summary("x", 1);
    let gap = BitRate::gbps(1).time_to_send(Bytes(8 + 1518 + 12)).as_ps();
    let sleeps: Vec<u64> = lpi_series(&summary, "a->b").iter().filter(|p| p.1 == 1).map(|p| p.0).collect();
    assert_eq!(sleeps, vec![600 * US + gap + 1000 * US]);
    assert_eq!(summary.ports[0].mechanisms.lpi.lpi_sleeps, Some(1));
}

#[test]
fn a_run_ending_while_a_frame_waits_out_a_sleep_counts_no_wake() {
    // The link sleeps at 0; a frame at 100 us waits for the sleep to end at 182 us; the
    // run ends at 150 us, before the sleep ends: 150 us of sleep and no wake.
    let text = format!(
        "duration = \"150 us\"\n{}",
        pair(r#"{ phy = "1000BASE-T", symmetric = false }"#, &[100], &[])
    );
    let mut sim = simulation(&text);
    sim.run();
    let p = &sim.summary("x", 1).ports[0];
    assert_eq!((p.mechanisms.lpi.lpi_sleep_s, p.mechanisms.lpi.lpi_wakes), (Some(150e-6), Some(0)));
    assert_eq!(
        (p.mechanisms.lpi.lpi_active_s, p.mechanisms.lpi.lpi_quiet_s, p.mechanisms.lpi.lpi_wake_s),
        (Some(0.0), Some(0.0), Some(0.0))
    );
    assert!(p.mechanisms.lpi.energy_saved_percent.unwrap().abs() < 1e-9, "all of it at Active power");
}

#[test]
fn a_pause_frame_wakes_a_coalescing_link_at_once() {
    // Coalescing holds data for 10 frames or 2 ms; a PAUSE `b` sends at 1 ms crosses
    // the sleeping link after the wake alone.
    let eee = r#"{ phy = "1000BASE-T", policy = { kind = "coalescing", frames = 10, timer = "2 ms" } }"#;
    let text = pair(eee, &[], &[])
        + "[[apps]]\nkind = \"constant_rate\"\nfrom = \"a\"\nto = \"b\"\nrate = \"1 Mb/s\"\nstart = \"3 ms\"\ncount = 1\n"
        + "[[pause_generators]]\nport = \"b->a\"\nevery = \"1 s\"\npause = \"10 us\"\nstart = \"1 ms\"\ncount = 1\n";
    let mut sim = logged(&text);
    sim.run();
    let received: Vec<u64> = crate::common::log(&sim)
        .records
        .iter()
        .filter_map(|(t, r)| {
            matches!(r, ethersim_core::sim::TraceRecord::ControlReceived { opcode: 0x0001, .. })
                .then_some(t.as_ps())
        })
        .collect();
    let line = BitRate::gbps(1).time_to_send(Bytes(8 + 64)).as_ps();
    assert_eq!(received, vec![1000 * US + 16 * US + line + US]);
}

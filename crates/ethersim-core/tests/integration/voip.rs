//! Voice calls through the network: on an idle path every packet's one-way delay is
//! the closed form of its hops, its mouth-to-ear delay that plus the jitter buffer and
//! the encoder, and R is the E-model's for that delay with no loss; a link held by PAUSE
//! longer than the jitter buffer turns held packets into late losses, and R falls.

use crate::common::{simulation, two_hosts};
use ethersim_core::app::voip::{EModel, Heard, VoipCall};
use ethersim_core::app::EndpointKind;
use ethersim_core::sim::Simulation;
use ethersim_core::time::{BitRate, Bytes, Duration};

fn call(sim: &Simulation, endpoint: usize) -> &VoipCall {
    match &sim.network().endpoints[endpoint].kind {
        EndpointKind::Voip(v) => v,
        other => panic!("endpoint {endpoint} is {other:?}"),
    }
}

fn heard(sim: &Simulation, endpoint: usize) -> Heard {
    call(sim, endpoint).heard()
}

#[test]
fn on_an_idle_path_delay_is_the_closed_form_and_r_the_e_models() {
    let app = r#"kind = "voip"
name = "c"
duration = "30 s"
jitter_buffer = { kind = "fixed", depth = "40 ms" }"#;
    let mut sim = simulation(&two_hosts("100 Mb/s", "2 us", 256, app));
    sim.run();
    // 160 B of G.711 + 12 B RTP + 8 B UDP + 20 B IPv4 + 14 B Ethernet + 4 B FCS = 218 B,
    // sent with its 8 B preamble at 100 Mb/s, then 2 us of cable.
    let one_way = BitRate::mbps(100).time_to_send(Bytes(8 + 218)) + Duration::from_us(2);
    for end in [0, 1] {
        let h = heard(&sim, end);
        assert!(h.received > 300, "{h:?}");
        assert_eq!((h.network_lost, h.late), (0, 0), "{h:?}");
        // Every packet plays 40 ms after the first of its spurt arrived, with its
        // spacing kept: mouth to ear is the one-way delay, the buffer and 20 ms of
        // encoding, the same for every packet.
        let mouth_to_ear = one_way + Duration::from_ms(40) + Duration::from_ms(20);
        let want = EModel::for_call(mouth_to_ear.as_secs_f64() * 1e3, 0.0, 25.1, 0.0, 1.0).rate().r;
        assert!((h.r.unwrap() - want).abs() < 1e-9, "end {end}: {h:?} against {want}");
    }
}

#[test]
fn pauses_longer_than_the_jitter_buffer_become_late_losses() {
    let app = |depth: &str| {
        format!(
            r#"kind = "voip"
name = "c"
duration = "20 s"
jitter_buffer = {{ kind = "fixed", depth = "{depth}" }}
[[pause_generators]]
port = "b->a"
every = "1 s"
pause = "100 ms"
start = "0.5 s""#
        )
    };
    let run = |depth: &str| {
        // 100 Mb/s: a PAUSE frame can hold the link up to 335 ms (65535 quanta).
        let mut sim = simulation(&two_hosts("100 Mb/s", "500 ns", 256, &app(depth)));
        sim.run();
        (heard(&sim, 1), heard(&sim, 0))
    };
    // The callee hears the caller, whose host `a` is paused for 100 ms each second:
    // the packets of a spurt held by a pause leave back to back when it ends, late by
    // up to 100, 80, 60, 40 and 20 ms.
    let (held_short, other_short) = run("10 ms");
    let (held_long, _) = run("150 ms");
    assert!(held_short.late > 0, "{held_short:?}");
    assert_eq!(held_short.network_lost, 0);
    // A buffer deeper than the pause absorbs it.
    assert_eq!(held_long.late, 0, "{held_long:?}");
    // The unpaused direction loses nothing.
    assert_eq!(other_short.late + other_short.network_lost, 0, "{other_short:?}");
    assert!(held_short.r.unwrap() < other_short.r.unwrap());
    // Late losses come in runs (a pause holds consecutive packets): bursty, BurstR > 1.
    assert!(held_short.burst_ratio > 1.0, "{held_short:?}");
}

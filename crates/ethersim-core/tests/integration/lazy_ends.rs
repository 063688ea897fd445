//! A transmission's end that is not an event changes nothing but the event count.
//!
//! The oracle is the simulator listening: with a trace subscriber every transmission's
//! end is an event (`node/port.rs`), as every one once was; without one, the ends nobody
//! waits for are settled at the port's or the host's next look. Host ports carry the
//! case that matters: two hosts each sending TCP data and acknowledgements, Poisson
//! datagrams and pings through a switch, with few transmit buffers (so endpoints wait
//! for them, and a buffer freed without an event must not be missed or counted twice),
//! with and without an interrupt service time, and links that go dark (cutting frames
//! off mid-transmission). Both runs must give the same summary, bar the number of
//! events.

use proptest::prelude::*;

use ethersim_core::sim::{Subscriber, TraceLog};

use crate::common::simulation;

/// Hosts `a` and `b` on switch `s`, links at `rate_a` and `rate_b`, each dark for 300 us
/// from `dark_us` (and the second 5 ms later too); a TCP file each way, Poisson datagrams
/// from `a`, pings from `b`; each host has `buffers` transmit buffers and the host lines
/// `host` besides.
fn two_way(rate_a: u32, rate_b: u32, buffers: u32, host: &str, dark_us: u64, seed: u64) -> String {
    let later = dark_us + 5_000;
    format!(
        r#"
seed = {seed}
duration = "100 ms"
[[hosts]]
name = "a"
tx_buffers = {buffers}
{host}
[[hosts]]
name = "b"
tx_buffers = {buffers}
{host}
[[switches]]
name = "s"
port_buffer = {{ frames = 20 }}
[[links]]
between = ["a", "s"]
rate = "{rate_a} Mb/s"
delay = "2 us"
outages = [{{ start = "{dark_us} us", duration = "300 us" }}]
[[links]]
between = ["s", "b"]
rate = "{rate_b} Mb/s"
delay = "3 us"
outages = [{{ start = "{dark_us} us", duration = "300 us" }}, {{ start = "{later} us", duration = "300 us" }}]
[[apps]]
kind = "tcp_file"
from = "a"
to = "b"
size = "300 kB"
[[apps]]
kind = "tcp_file"
from = "b"
to = "a"
size = "200 kB"
start = "1 ms"
[[apps]]
kind = "poisson"
from = "a"
to = "b"
rate = "20 Mb/s"
payload = "300 B"
[[apps]]
kind = "ping"
from = "b"
to = "a"
interval = "200 us"
"#
    )
}

/// The summary of `text` run to its end, without its event count, and that count; with
/// `listening`, a trace log subscribed first.
fn summary(text: &str, listening: bool) -> (serde_json::Value, u64) {
    let mut sim = simulation(text);
    if listening {
        sim.network_mut().trace.subscribe(Subscriber::Log(TraceLog::default()));
    }
    sim.run();
    let mut summary = serde_json::to_value(sim.summary("lazy", 1)).unwrap();
    let events = summary.as_object_mut().unwrap().remove("events").unwrap().as_u64().unwrap();
    (summary, events)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn ends_settled_without_events_give_the_results_of_ends_that_are_events(
        rate_a in prop::sample::select(vec![10u32, 100, 1000]),
        rate_b in prop::sample::select(vec![10u32, 100, 1000]),
        buffers in 1u32..5,
        interrupt in prop::sample::select(vec!["", "tx_interrupt = \"20 us\"",
            "tx_interrupt = \"5 us\"\ntx_interrupt_jitter = \"10 us\""]),
        dark_us in 1_000u64..90_000,
        seed in 0u64..1000,
    ) {
        let text = two_way(rate_a, rate_b, buffers, interrupt, dark_us, seed);
        let (quiet, quiet_events) = summary(&text, false);
        let (listened, listened_events) = summary(&text, true);
        prop_assert_eq!(quiet, listened);
        prop_assert!(quiet_events < listened_events, "{} events against {}", quiet_events, listened_events);
    }
}

//! Web page loads through the network: on an idle path a page's load time is the closed
//! form of its handshakes, requests and responses, with and without persistent
//! connections; many connections load a page faster than one; a page load is the same
//! with the same seed.

use crate::common::{simulation, two_hosts};
use ethersim_core::app::web::WebClient;
use ethersim_core::app::EndpointKind;
use ethersim_core::sim::Simulation;
use ethersim_core::time::{BitRate, Bytes, Duration};
use ethersim_core::wire::tcp::frame_len;

fn client(sim: &Simulation) -> &WebClient {
    match &sim.network().endpoints[0].kind {
        EndpointKind::WebClient(w) => w,
        other => panic!("endpoint 0 is {other:?}"),
    }
}

const MSS: u64 = 1460;

/// The link of the tests: 100 Mb/s, 2 us of cable.
struct Path {
    rate: BitRate,
    delay: Duration,
}

impl Path {
    /// A lone frame of `len` bytes from host to host: its preamble and bytes, then the
    /// cable.
    fn one_way(&self, len: u64) -> Duration {
        self.rate.time_to_send(Bytes(8 + len)) + self.delay
    }

    /// A response of `size` bytes sent back to back in full segments (all within the
    /// initial window of 10 segments, RFC 6928): the last one arrives after every earlier
    /// frame's preamble, bytes and 12 B inter-frame gap, then its own one-way time.
    fn response(&self, size: u64) -> Duration {
        assert!(size <= 10 * MSS, "the closed form is for a response within the initial window");
        let segments = size.div_ceil(MSS);
        let last = size - (segments - 1) * MSS;
        let before = (segments - 1) * (8 + frame_len(MSS, 0) + 12);
        self.rate.time_to_send(Bytes(before)) + self.one_way(frame_len(last, 0))
    }

    /// The three-way handshake up to the client's learning it is open: SYN and SYN-ACK,
    /// each with the MSS and window-scale options (8 B).
    fn handshake(&self) -> Duration {
        self.one_way(frame_len(0, 8)) + self.one_way(frame_len(0, 8))
    }

    /// One request (350 B, carrying the ACK) and its response.
    fn fetch(&self, size: u64) -> Duration {
        self.one_way(frame_len(350, 0)) + self.response(size)
    }
}

fn page_app(persistent: bool, connections: u32, pages: u32) -> String {
    format!(
        r#"kind = "web"
name = "w"
pages = {pages}
connections = {connections}
persistent = {persistent}
think_time = "2 s"
parse_time = "0 s"
page = {{ kind = "fixed", main = "3000 B", embedded = ["1000 B", "14600 B", "1461 B"] }}"#
    )
}

const OBJECTS: [u64; 4] = [3000, 1000, 14_600, 1461];

#[test]
fn on_an_idle_path_a_persistent_connection_loads_a_page_in_the_closed_form_time() {
    let p = Path { rate: BitRate::mbps(100), delay: Duration::from_us(2) };
    let mut sim = simulation(&two_hosts("100 Mb/s", "2 us", 256, &page_app(true, 1, 3)));
    sim.run();
    let times = client(&sim).load_times();
    assert_eq!(times.len(), 3);
    // The first page opens the connection, then fetches its objects one after another.
    let fetches: Duration = OBJECTS.iter().fold(Duration::ZERO, |t, &o| t + p.fetch(o));
    assert_eq!(times[0], p.handshake() + fetches, "first page");
    // Later pages reuse it: no handshake.
    assert_eq!(times[1], fetches, "second page");
    assert_eq!(times[2], fetches, "third page");
}

#[test]
fn on_an_idle_path_a_connection_per_object_adds_a_handshake_to_every_object() {
    let p = Path { rate: BitRate::mbps(100), delay: Duration::from_us(2) };
    let mut sim = simulation(&two_hosts("100 Mb/s", "2 us", 256, &page_app(false, 1, 2)));
    sim.run();
    let times = client(&sim).load_times();
    assert_eq!(times.len(), 2);
    let per_object: Duration = OBJECTS.iter().fold(Duration::ZERO, |t, &o| t + p.handshake() + p.fetch(o));
    assert_eq!(times[0], per_object, "first page");
    assert_eq!(times[1], per_object, "second page");
}

#[test]
fn an_object_beyond_the_initial_window_waits_a_round_trip_of_slow_start() {
    // 5 ms of cable each way: the initial window's 10 segments have left long before
    // the first ACK returns.
    let p = Path { rate: BitRate::mbps(100), delay: Duration::from_ms(5) };
    let app = r#"kind = "web"
name = "w"
pages = 1
connections = 1
parse_time = "0 s"
page = { kind = "fixed", main = "29200 B" }"#;
    let mut sim = simulation(&two_hosts("100 Mb/s", "5 ms", 256, app));
    sim.run();
    let times = client(&sim).load_times();
    // 20 full segments. The request reaches the server at `req`; it sends its initial
    // window of 10 back to back, one every `slot`. The client acknowledges every second
    // full segment (RFC 5681 section 4.2) at once: the ACK of segments 1-2 reaches the
    // server at `ack`. Slow start (RFC 5681 section 3.1) grows cwnd by one MSS per ACK,
    // so each ACK releases 3 segments, faster than they can leave (an ACK every 2 slots):
    // segments 11 to 20 leave back to back from `ack`, the last 9 slots after it.
    let slot = p.rate.time_to_send(Bytes(8 + frame_len(MSS, 0) + 12));
    let req = p.handshake() + p.one_way(frame_len(350, 0));
    let ack = req + slot + p.one_way(frame_len(MSS, 0)) + p.one_way(frame_len(0, 0));
    let last = ack + Duration(slot.as_ps() * 9) + p.one_way(frame_len(MSS, 0));
    assert_eq!(times, [last]);
}

#[test]
fn several_connections_fetch_embedded_objects_side_by_side() {
    let p = Path { rate: BitRate::mbps(100), delay: Duration::from_us(50) };
    let run = |connections| {
        let mut sim = simulation(&two_hosts("100 Mb/s", "50 us", 256, &page_app(true, connections, 1)));
        sim.run();
        client(&sim).load_times()[0]
    };
    // With a 100 us round trip, three embedded objects on parallel connections take less
    // than one after another (the closed form of the persistent test), but no less than
    // the first handshake, the main object, and the largest embedded object fetched
    // alone on the open connection.
    let (one, four) = (run(1), run(4));
    let serial = OBJECTS.iter().fold(p.handshake(), |t, &o| t + p.fetch(o));
    assert_eq!(one, serial);
    let floor = p.handshake() + p.fetch(OBJECTS[0]) + p.fetch(14_600);
    assert!(floor <= four && four < one, "{floor} <= {four} < {one}");
}

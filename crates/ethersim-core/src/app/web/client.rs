//! A browser loading pages over HTTP/1.1 (or HTTP/1.0) from one server.
//!
//! A page ([`Pages`]) is fetched as a browser fetches it: the main object first, on the
//! first connection; once it has arrived, and after a parsing time, the embedded objects,
//! each on the first connection that is free (opening one while fewer than
//! `connections` are open), one request at a time per connection (no pipelining, as
//! browsers ship). With persistent connections (HTTP/1.1 keep-alive, RFC 9112
//! section 9.3) a connection, once open, serves every later object and page; without
//! (HTTP/1.0) every object has a connection of its own, which the server closes after
//! its response. Between pages the user reads for a think time. Reading and parsing
//! times are exponential (3GPP2 C.R1002-0: means 30 s and 0.13 s), drawn from the
//! client's stream after the page's own draws.
//!
//! The page-load time is from the instant the page is asked for (the main object's
//! request is written, or its connection opened) to the instant the last byte of its
//! last object is read. After the last page the client closes its connections and
//! finishes once they are closed.

use crate::engine::rng::{self, Stream};
use crate::time::{Duration, SimTime};
use crate::transport::tcp::TcpConfig;
use crate::wire::{Packet, Role, TcpHeader};

use super::conn::HttpConn;
use super::Pages;
use crate::app::{AppFigures, Next, Outgoing};

/// What a client does, and its connections' TCP settings.
#[derive(Clone, Debug, PartialEq)]
pub struct WebSettings {
    /// What its pages are made of.
    pub pages: Pages,
    /// Pages to load.
    pub page_count: u32,
    /// Most connections open at once.
    pub connections: u16,
    /// HTTP/1.1 persistent connections (true) or one connection per object (false).
    pub persistent: bool,
    /// Bytes of each request.
    pub request_bytes: u32,
    /// Mean reading time between pages (exponential; zero: none).
    pub think_time: Duration,
    /// Mean parsing time of a main object before its embedded objects are asked for
    /// (exponential; zero: none).
    pub parse_time: Duration,
    /// No page starts at or after this instant.
    pub stop: Option<SimTime>,
    /// Both ends' TCP settings.
    pub tcp: TcpConfig,
}

/// Where the client is in its pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Reading the last page until this instant.
    Thinking(SimTime),
    /// Fetching the main object.
    Main,
    /// Parsing the main object until this instant.
    Parsing(SimTime),
    /// Fetching the embedded objects.
    Embedded,
    /// Every page loaded: closing the connections.
    Closing,
}

/// One connection slot and the object it is fetching.
#[derive(Clone, Debug)]
struct Slot {
    http: HttpConn,
    /// The object's size (0: idle).
    want: u64,
    /// Bytes of it read.
    got: u64,
    /// Whether its request waits for the connection to open.
    request_due: bool,
}

/// TCP counts of the client's connections, kept as they close.
#[derive(Clone, Copy, Debug, Default)]
struct TcpTotals {
    segments: u64,
    retransmissions: u64,
    timeouts: u64,
}

impl TcpTotals {
    fn add(&mut self, http: &HttpConn) {
        let s = http.conn.stats();
        self.segments += s.segments_sent;
        self.retransmissions += s.retransmissions;
        self.timeouts += s.timeouts;
    }
}

/// The client end of a web application.
#[derive(Clone, Debug)]
pub struct WebClient {
    s: WebSettings,
    slots: Vec<Option<Slot>>,
    /// Connections of finished objects, closing (without persistent connections).
    retiring: Vec<HttpConn>,
    next_port: u16,
    phase: Phase,
    /// The page's embedded objects, and how many have been asked for.
    embedded: Vec<u32>,
    asked: usize,
    page_start: SimTime,
    load_times: Vec<Duration>,
    objects: u64,
    failed_objects: u64,
    object_bytes: u64,
    connections_opened: u64,
    closed_totals: TcpTotals,
    /// The connection whose segment was planned: a slot, or `slots.len() + i` for
    /// retiring connection `i`.
    sending: usize,
    last: TcpHeader,
}

impl WebClient {
    /// A client of `settings`; its first page starts when it is first polled.
    pub fn new(s: WebSettings) -> Self {
        let slots = vec![None; usize::from(s.connections)];
        let load_times = Vec::with_capacity(s.page_count.min(1 << 16) as usize);
        WebClient {
            s,
            slots,
            retiring: Vec::new(),
            next_port: 1,
            phase: Phase::Thinking(SimTime::ZERO),
            embedded: Vec::new(),
            asked: 0,
            page_start: SimTime::ZERO,
            load_times,
            objects: 0,
            failed_objects: 0,
            object_bytes: 0,
            connections_opened: 0,
            closed_totals: TcpTotals::default(),
            sending: 0,
            last: TcpHeader::default(),
        }
    }

    /// The page-load times so far.
    pub fn load_times(&self) -> &[Duration] {
        &self.load_times
    }

    #[inline(never)]
    pub(in crate::app) fn poll(&mut self, now: SimTime, buffer_free: bool, rng: &mut Stream) -> Next {
        for http in self.conns_mut() {
            http.conn.on_timer(now);
        }
        self.progress(now, rng);
        let n = self.slots.len();
        let planned = self
            .slots
            .iter_mut()
            .enumerate()
            .find_map(|(i, s)| s.as_mut().and_then(|s| s.http.plan(now).then_some(i)));
        let planned = planned.or_else(|| self.retiring.iter_mut().position(|h| h.plan(now)).map(|i| n + i));
        if let Some(i) = planned {
            if buffer_free {
                self.sending = i;
                return Next::Send;
            }
            return Next::WaitForBuffer;
        }
        if self.phase == Phase::Closing && self.slots.iter().all(Option::is_none) && self.retiring.is_empty()
        {
            return Next::Finished;
        }
        let phase_at = match self.phase {
            Phase::Thinking(t) | Phase::Parsing(t) => Some(t),
            _ => None,
        };
        let conns_at = self.conns().filter_map(|h| h.conn.poll_at()).min();
        match [phase_at, conns_at].into_iter().flatten().min() {
            Some(t) => Next::SleepUntil(t),
            None => Next::Idle,
        }
    }

    #[inline(never)]
    pub(in crate::app) fn take(&mut self, now: SimTime) -> Outgoing {
        let n = self.slots.len();
        let http = if self.sending < n {
            &mut self.slots[self.sending].as_mut().expect("a planned slot").http
        } else {
            &mut self.retiring[self.sending - n]
        };
        let (out, header) = http.take(now, Role::Sink);
        self.last = header;
        out
    }

    pub(in crate::app) fn last_header(&self) -> &TcpHeader {
        &self.last
    }

    #[inline(never)]
    pub(in crate::app) fn on_packet(&mut self, now: SimTime, pkt: &Packet, h: Option<&TcpHeader>) {
        let Some(h) = h else { return };
        let port = h.port;
        if let Some(http) = self.conns_mut().find(|c| c.port == port) {
            http.on_segment(now, pkt, h);
        }
        // A segment of a connection this end no longer has is ignored (a real stack
        // would answer with a RST).
    }

    /// Whether a connection holds work the network has not seen.
    pub(in crate::app) fn has_pending(&self) -> bool {
        self.conns().any(|h| h.conn.has_unfinished_output())
    }

    fn conns(&self) -> impl Iterator<Item = &HttpConn> {
        self.slots.iter().flatten().map(|s| &s.http).chain(self.retiring.iter())
    }

    fn conns_mut(&mut self) -> impl Iterator<Item = &mut HttpConn> {
        self.slots.iter_mut().flatten().map(|s| &mut s.http).chain(self.retiring.iter_mut())
    }

    /// Reads what has arrived, and moves the pages on as far as `now` allows.
    fn progress(&mut self, now: SimTime, rng: &mut Stream) {
        self.read();
        loop {
            match self.phase {
                Phase::Thinking(t) if now >= t => {
                    if self.load_times.len() as u64 >= u64::from(self.s.page_count)
                        || self.s.stop.is_some_and(|stop| now >= stop)
                    {
                        self.close_all();
                        self.phase = Phase::Closing;
                    } else {
                        let main = self.s.pages.draw(rng, &mut self.embedded);
                        self.asked = 0;
                        self.page_start = now;
                        self.ask(0, main);
                        self.phase = Phase::Main;
                    }
                }
                Phase::Main if self.busy() == 0 => {
                    let parse = rng::exponential(rng, self.s.parse_time);
                    self.phase = Phase::Parsing(now + parse);
                }
                Phase::Parsing(t) if now >= t => self.phase = Phase::Embedded,
                Phase::Embedded => {
                    while self.asked < self.embedded.len() {
                        let Some(i) = self.slots.iter().position(|s| s.as_ref().is_none_or(|s| s.want == 0))
                        else {
                            break;
                        };
                        let size = self.embedded[self.asked];
                        self.asked += 1;
                        self.ask(i, size);
                    }
                    if self.asked < self.embedded.len() || self.busy() > 0 {
                        break;
                    }
                    self.load_times.push(now - self.page_start);
                    let think = rng::exponential(rng, self.s.think_time);
                    self.phase = Phase::Thinking(now + think);
                }
                _ => break,
            }
        }
        self.write_due_requests();
        self.retire_closed();
    }

    /// Objects being fetched.
    fn busy(&self) -> usize {
        self.slots.iter().flatten().filter(|s| s.want > 0).count()
    }

    /// Asks for an object of `size` bytes on slot `i`, opening a connection there if it
    /// has none.
    fn ask(&mut self, i: usize, size: u32) {
        let slot = self.slots[i].get_or_insert_with(|| {
            let port = self.next_port;
            self.next_port = self.next_port.wrapping_add(1).max(1);
            self.connections_opened += 1;
            Slot { http: HttpConn::connect(self.s.tcp, port), want: 0, got: 0, request_due: false }
        });
        // Sizes are at least 1 B (the scenario's checks), so `want > 0` marks a busy slot.
        slot.want = u64::from(size);
        slot.got = 0;
        slot.http.asks = size;
        slot.request_due = true;
    }

    /// Writes the requests whose connections have opened.
    fn write_due_requests(&mut self) {
        let bytes = u64::from(self.s.request_bytes);
        for slot in self.slots.iter_mut().flatten() {
            let conn = &mut slot.http.conn;
            if slot.request_due && conn.is_established() && conn.send_space() >= bytes {
                conn.write(bytes);
                slot.request_due = false;
            }
        }
    }

    /// Reads every connection; an object read whole frees its slot (and, without
    /// persistent connections, its connection closes).
    fn read(&mut self) {
        for i in 0..self.slots.len() {
            let Some(slot) = self.slots[i].as_mut() else { continue };
            if slot.http.conn.aborted() {
                // The connection gave up (RFC 9293's user timeout): its object is
                // counted failed, and the next one opens a new connection.
                if slot.want > 0 {
                    self.failed_objects += 1;
                }
                let slot = self.slots[i].take().expect("the slot just read");
                self.closed_totals.add(&slot.http);
                continue;
            }
            let conn = &mut slot.http.conn;
            let n = conn.read(conn.readable());
            if slot.want == 0 {
                continue;
            }
            slot.got += n;
            if slot.got < slot.want {
                continue;
            }
            self.objects += 1;
            self.object_bytes += slot.want;
            slot.want = 0;
            slot.got = 0;
            slot.http.asks = 0;
            if !self.s.persistent {
                let mut slot = self.slots[i].take().expect("the slot just read");
                slot.http.conn.close();
                self.retiring.push(slot.http);
            }
        }
        for http in &mut self.retiring {
            let conn = &mut http.conn;
            let readable = conn.readable();
            conn.read(readable);
            if conn.peer_closed() && !conn.is_closing() {
                conn.close();
            }
        }
    }

    /// Closes every connection (after the last page).
    fn close_all(&mut self) {
        for slot in &mut self.slots {
            if let Some(s) = slot.take() {
                let mut http = s.http;
                http.conn.close();
                self.retiring.push(http);
            }
        }
    }

    /// Forgets connections that are over.
    fn retire_closed(&mut self) {
        let totals = &mut self.closed_totals;
        self.retiring.retain(|h| {
            let over = h.is_done() && !h.conn.has_unfinished_output();
            if over {
                totals.add(h);
            }
            !over
        });
    }

    pub(in crate::app) fn report(&self, out: &mut AppFigures) {
        let mut tcp = self.closed_totals;
        for h in self.conns() {
            tcp.add(h);
        }
        out.insert("pages_loaded", self.load_times.len() as u64);
        out.insert("objects", self.objects);
        out.insert("failed_objects", self.failed_objects);
        out.insert("object_bytes", self.object_bytes);
        out.insert("connections_opened", self.connections_opened);
        out.insert("persistent", self.s.persistent);
        out.insert("tcp_segments_sent", tcp.segments);
        out.insert("retransmissions", tcp.retransmissions);
        out.insert("timeouts", tcp.timeouts);
        let mut secs: Vec<f64> = self.load_times.iter().map(|d| d.as_secs_f64()).collect();
        out.insert("page_load_times_s", serde_json::Value::from(secs.clone()));
        secs.sort_by(f64::total_cmp);
        let summary = LoadTimes::of(&secs);
        out.insert("page_load_mean_s", summary.map(|s| s.mean));
        out.insert("page_load_p50_s", summary.map(|s| s.p50));
        out.insert("page_load_p95_s", summary.map(|s| s.p95));
        out.insert("page_load_max_s", summary.map(|s| s.max));
    }
}

/// A summary of page-load times.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoadTimes {
    /// Mean, seconds.
    pub mean: f64,
    /// Median (nearest rank), seconds.
    pub p50: f64,
    /// 95th percentile (nearest rank), seconds.
    pub p95: f64,
    /// Longest, seconds.
    pub max: f64,
}

impl LoadTimes {
    /// The summary of `sorted` (ascending); `None` if empty.
    pub fn of(sorted: &[f64]) -> Option<LoadTimes> {
        let n = sorted.len();
        if n == 0 {
            return None;
        }
        // Nearest rank: the ⌈p·n⌉-th smallest.
        let rank = |p: f64| sorted[((p * n as f64).ceil() as usize).clamp(1, n) - 1];
        Some(LoadTimes {
            mean: sorted.iter().sum::<f64>() / n as f64,
            p50: rank(0.5),
            p95: rank(0.95),
            max: sorted[n - 1],
        })
    }
}

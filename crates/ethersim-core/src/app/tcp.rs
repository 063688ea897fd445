//! Applications over TCP: a file transfer (a size → its completion time), a long-lived
//! bulk flow (writes until its stop time; goodput over a measurement window), and the
//! receiving application at the other end, which reads everything as it arrives.
//!
//! Each end holds one [`Connection`]. The sending end opens the connection at its start
//! (the handshake counts in the completion time), writes into the send buffer as room
//! appears, and closes after its last byte; the receiving end closes when the sender has
//! closed and it has read everything. A segment that finds no free transmit buffer on
//! its host waits for one (a blocking socket's qdisc), so nothing is lost at the sender.

use super::AppFigures;

use crate::time::{BitRate, Bytes, SimTime};
use crate::transport::tcp::{
    Arriving, CongestionControl, Connection, Plan, Segment, State, TcpConfig, TcpSeries,
};
use crate::wire::{Packet, PacketKind, Protocol, Role, TcpHeader};

use super::{Next, Outgoing};

/// What the sending application writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpWorkload {
    /// A file of this many bytes, then close.
    File {
        /// Bytes to send.
        size: u64,
    },
    /// As much as the connection takes until `stop` (forever without one), then close.
    Bulk {
        /// When the application stops writing and closes.
        stop: Option<SimTime>,
    },
}

/// A connection as an endpoint drives it, the same at both ends: the end of the flow
/// its segments go to, the segment planned at the last poll, and the segment last taken
/// (headers travel beside packets, so the network asks for its header after `take`).
#[derive(Clone, Debug)]
pub(super) struct Socket {
    conn: Connection,
    to: Role,
    plan: Option<Plan>,
    last: Segment,
}

impl Socket {
    fn new(conn: Connection, to: Role) -> Self {
        Socket { conn, to, plan: None, last: Segment::default() }
    }

    /// `Send` or `WaitForBuffer` if the connection has a segment to send now.
    fn poll_send(&mut self, now: SimTime, buffer_free: bool) -> Option<Next> {
        let plan = self.conn.plan(now)?;
        if buffer_free {
            self.plan = Some(plan);
            Some(Next::Send)
        } else {
            Some(Next::WaitForBuffer)
        }
    }

    /// The segment planned at the last poll, as a packet.
    // Out of line, as the polls below: inlined, TCP's code made the endpoint dispatch too
    // large to inline into the network's hot path, slowing every other kind.
    #[inline(never)]
    pub(super) fn take(&mut self, now: SimTime) -> Outgoing {
        // The endpoint answered Send only with a plan.
        let plan = self.plan.take().expect("a planned segment");
        self.conn.dispatch_into(now, plan, &mut self.last);
        outgoing(&self.last, self.to)
    }

    /// The header of the segment last taken.
    pub(super) fn last_header(&self) -> &TcpHeader {
        &self.last.header
    }

    /// A segment arrived (`tcp`: its header; anything else is ignored).
    #[inline(never)]
    pub(super) fn on_packet(&mut self, now: SimTime, pkt: &Packet, tcp: Option<&TcpHeader>) {
        if let Some(h) = tcp {
            self.conn.on_segment(now, Arriving { seq: pkt.seq, len: pkt.payload, header: h });
        }
    }

    /// Whether the connection holds work the network has not seen.
    pub(super) fn has_pending(&self) -> bool {
        self.conn.has_unfinished_output()
    }
}

/// The sending end of a TCP application.
#[derive(Clone, Debug)]
pub struct TcpSender {
    pub(super) socket: Socket,
    workload: TcpWorkload,
    written: u64,
}

impl TcpSender {
    /// A sender of `workload` over a connection with `cfg`.
    pub fn new(cfg: TcpConfig, workload: TcpWorkload) -> Self {
        TcpSender { socket: Socket::new(Connection::connect(cfg), Role::Sink), workload, written: 0 }
    }

    /// Keeps cwnd, ssthresh, SRTT, RTO and FlightSize series of at most `max_points` each.
    pub fn record_series(&mut self, limits: crate::stats::SeriesLimits) {
        self.socket.conn.record_series(limits);
    }

    /// The connection.
    pub fn connection(&self) -> &Connection {
        &self.socket.conn
    }

    fn feed(&mut self, now: SimTime) {
        let conn = &mut self.socket.conn;
        if !conn.is_established() || conn.is_closing() {
            return;
        }
        match self.workload {
            TcpWorkload::File { size } => {
                let n = (size - self.written).min(conn.send_space());
                conn.write(n);
                self.written += n;
                if self.written == size {
                    conn.close();
                }
            }
            TcpWorkload::Bulk { stop } => {
                if stop.is_some_and(|s| now >= s) {
                    conn.close();
                } else {
                    let n = conn.send_space();
                    conn.write(n);
                    self.written += n;
                }
            }
        }
    }

    #[inline(never)]
    pub(super) fn poll(&mut self, now: SimTime, buffer_free: bool) -> Next {
        self.socket.conn.on_timer(now);
        self.feed(now);
        if let Some(next) = self.socket.poll_send(now, buffer_free) {
            return next;
        }
        let conn = &self.socket.conn;
        if matches!(conn.state(), State::TimeWait | State::Closed) {
            return Next::Finished;
        }
        let stop = match self.workload {
            TcpWorkload::Bulk { stop } if !conn.is_closing() => stop,
            _ => None,
        };
        match [conn.poll_at(), stop].into_iter().flatten().min() {
            Some(t) => Next::SleepUntil(t),
            None => Next::Idle,
        }
    }

    pub(super) fn kind_name(&self) -> &'static str {
        match self.workload {
            TcpWorkload::File { .. } => "tcp_file",
            TcpWorkload::Bulk { .. } => "tcp_bulk",
        }
    }

    pub(super) fn series(&self) -> Option<&TcpSeries> {
        self.socket.conn.series()
    }

    pub(super) fn report(&self, out: &mut AppFigures) {
        let conn = &self.socket.conn;
        let s = conn.stats();
        out.insert("segments_sent", s.data_segments_sent);
        out.insert("retransmissions", s.retransmissions);
        out.insert("retransmitted_bytes", s.retransmitted_bytes);
        out.insert("timeouts", s.timeouts);
        out.insert("fast_retransmits", s.fast_retransmits);
        out.insert("limited_transmits", s.limited_transmits);
        out.insert("partial_acks", s.partial_acks);
        out.insert("dup_acks", s.dup_acks);
        out.insert("window_probes", s.window_probes);
        out.insert("rtt_samples", s.rtt_samples);
        let srtt = conn.rtt().srtt().map(crate::time::Duration::as_secs_f64);
        out.insert("srtt_s", srtt);
        out.insert("rto_s", conn.rtt().rto().as_secs_f64());
        out.insert("cwnd_bytes", conn.cc().cwnd());
        out.insert("mss", conn.smss());
        out.insert("tcp_profile", conn.config().profile.name());
        out.insert("sack", conn.sack_enabled());
        out.insert("tcp_state", format!("{:?}", conn.state()));
        out.insert("aborted", conn.aborted());
    }
}

/// The receiving application: reads everything as soon as it is in order, or at most at
/// a set rate (a slow reader, whose full buffer closes the window).
#[derive(Clone, Debug)]
pub struct TcpReceiver {
    pub(super) socket: Socket,
    flow_start: SimTime,
    expected: Option<u64>,
    completed_at: Option<SimTime>,
    window: Option<(SimTime, SimTime)>,
    window_bytes: u64,
    read_rate: Option<BitRate>,
    /// While data waits for a rate-limited reader: since when it has been reading without
    /// a pause, and how much it has read since (an idle reader banks no credit).
    reading_since: Option<SimTime>,
    read_since: u64,
}

impl TcpReceiver {
    /// A receiver listening with `cfg`, for a flow that starts at `flow_start`; it
    /// expects `expected` bytes (a file), measures goodput over `window` if given, and
    /// reads at most at `read_rate` if given.
    pub fn new(
        cfg: TcpConfig,
        flow_start: SimTime,
        expected: Option<u64>,
        window: Option<(SimTime, SimTime)>,
        read_rate: Option<BitRate>,
    ) -> Self {
        TcpReceiver {
            socket: Socket::new(Connection::listen(cfg), Role::Source),
            flow_start,
            expected,
            completed_at: None,
            window,
            window_bytes: 0,
            read_rate,
            reading_since: None,
            read_since: 0,
        }
    }

    /// The connection.
    pub fn connection(&self) -> &Connection {
        &self.socket.conn
    }

    /// Bytes delivered to the application (in order, each once).
    pub fn delivered(&self) -> u64 {
        self.socket.conn.read_total()
    }

    /// Bytes the application may read at `now`.
    fn may_read(&mut self, now: SimTime) -> u64 {
        let readable = self.socket.conn.readable();
        match self.read_rate {
            None => readable,
            Some(rate) => {
                let since = *self.reading_since.get_or_insert(now);
                let allowed = rate.bytes_in(now - since).get() - self.read_since;
                readable.min(allowed)
            }
        }
    }

    /// When a rate-limited reader may next read a segment's worth (or what is left).
    fn next_read(&self) -> Option<SimTime> {
        let (rate, since) = (self.read_rate?, self.reading_since?);
        let chunk = self.socket.conn.readable().min(self.socket.conn.smss());
        (chunk > 0).then(|| since + rate.time_to_send(Bytes(self.read_since + chunk)))
    }

    fn read(&mut self, now: SimTime) {
        let n = self.may_read(now);
        let conn = &mut self.socket.conn;
        let n = conn.read(n);
        self.read_since += n;
        if conn.readable() == 0 {
            self.reading_since = None;
            self.read_since = 0;
        }
        if n > 0 {
            if self.window.is_some_and(|(from, until)| now >= from && now < until) {
                self.window_bytes += n;
            }
            if self.expected.is_some_and(|e| conn.read_total() >= e) {
                self.completed_at.get_or_insert(now);
            }
        }
        // The application closes once it has read everything up to the peer's FIN.
        if conn.peer_closed() && conn.readable() == 0 && !conn.is_closing() {
            conn.close();
        }
    }

    #[inline(never)]
    pub(super) fn poll(&mut self, now: SimTime, buffer_free: bool) -> Next {
        self.socket.conn.on_timer(now);
        self.read(now);
        if let Some(next) = self.socket.poll_send(now, buffer_free) {
            return next;
        }
        match [self.socket.conn.poll_at(), self.next_read()].into_iter().flatten().min() {
            Some(t) => Next::SleepUntil(t),
            None => Next::Idle,
        }
    }

    pub(super) fn report(&self, out: &mut AppFigures) {
        let stats = self.socket.conn.stats();
        out.insert("delivered_bytes", self.delivered());
        let transfer = self.completed_at.map(|t| t.saturating_since(self.flow_start).as_secs_f64());
        out.insert("transfer_time_s", transfer);
        out.insert("receiver_acks", stats.acks_sent);
        out.insert("out_of_order_segments", stats.out_of_order);
        if let Some((from, until)) = self.window {
            let span = until.saturating_since(from).as_secs_f64();
            let bps = if span > 0.0 { self.window_bytes as f64 * 8.0 / span } else { 0.0 };
            out.insert("window_goodput_bps", bps);
            out.insert("window_start_s", from.as_secs_f64());
            out.insert("window_end_s", until.as_secs_f64());
        }
    }
}

/// A segment as a packet to the end `to`: payload-carrying segments are data, the rest
/// (SYN, FIN, pure ACKs, probes, RST) count as acknowledgements.
/// The header stays with the endpoint until the network asks for it.
pub(super) fn outgoing(seg: &Segment, to: Role) -> Outgoing {
    Outgoing {
        flow: None,
        to,
        kind: if seg.len > 0 { PacketKind::Data } else { PacketKind::Ack },
        protocol: Protocol::Tcp,
        payload: seg.len,
        seq: seg.seq,
        echo: SimTime::NEVER,
    }
}

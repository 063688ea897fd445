//! One TCP connection end as a state machine with time passed in (smoltcp's shape): it
//! is driven by inputs — a segment arrived ([`Connection::on_segment`]), time passed
//! ([`Connection::on_timer`]), the application wrote, closed or read — and asked what to
//! send ([`Connection::plan`], then [`Connection::dispatch`]) and when to be woken
//! ([`Connection::poll_at`]). It knows nothing of the network, so it can be tested by
//! scripting segments into it.
//!
//! Sequence numbers are 64-bit offsets from an initial sequence number of 0 on both
//! sides (see [`crate::wire::tcp`]): the SYN is sequence number 0, data starts at 1.
//!
//! What it implements, by document:
//! * connection life (RFC 9293): three-way handshake with MSS, window scale (RFC 7323)
//!   and SACK-permitted (RFC 2018) options; FIN close from either side; RST on giving up;
//! * sending (RFC 9293 section 3.8.6): the usable window is the smaller of cwnd and the
//!   peer's window; Nagle's algorithm; a zero window is probed by the persist timer
//!   (RFC 9293 section 3.8.6.1, RFC 1122 section 4.2.2.17) with an ACK-eliciting
//!   segment below the window, backed off like the RTO;
//! * receiving: reassembly of out-of-order data within the window; delayed ACKs (every
//!   second full-sized segment or the timeout) and an immediate ACK for out-of-order
//!   data, for data that fills a hole, for a FIN, and for an unacceptable segment
//!   (RFC 5681 section 4.2, RFC 9293 section 3.10.7.4); receiver-side silly window
//!   avoidance for window updates (RFC 9293 section 3.8.6.2.2);
//! * loss recovery: duplicate ACKs as RFC 5681 section 2 defines them; Limited Transmit
//!   (RFC 3042: one new segment beyond cwnd on each of the first two); fast retransmit
//!   and NewReno fast recovery with partial ACKs (RFC 6582 section 3.2, resetting the
//!   timer on the first partial ACK only, the "Impatient" variant of section 4.1); with
//!   SACK negotiated, RFC 6675 recovery (IsLost, pipe, NextSeg rules 1 to 4 with one
//!   rescue retransmission per recovery); retransmission timeout (RFC 6298): the first
//!   unacknowledged segment resent whatever the window, then go-back-N in slow start,
//!   with `recover` set to the highest byte sent (RFC 6582 section 4); a connection is
//!   never given up while the peer answers with a closed window (RFC 1122 4.2.2.17);
//! * congestion control behind [`CongestionControl`] (NewReno or CUBIC, as the settings
//!   choose), told the instant of each event and each RTT sample.
//!
//! Not modelled: timestamps (RFC 7323 section 3), restart after idle (RFC 5681 section 4.1), urgent data, simultaneous open, and the 2·MSL wait
//! of TIME-WAIT (the end stays in TIME-WAIT, answering a retransmitted FIN, until the
//! run ends).

use crate::stats::{Series, SeriesLimits};
use crate::time::{Duration, SimTime};
use crate::wire::TcpHeader;

use super::cc::{BuiltinCc, CongestionControl};
use super::config::TcpConfig;
use super::reassembly::Reassembly;
use super::rtt::RttEstimator;
use super::scoreboard::Scoreboard;

// The connection's inputs (a segment arrived), its output (what to send, and sending
// it) and its timers are each a file of their own; the state is here.
mod input;
mod output;
mod timers;

/// The MSS assumed when the peer sends no MSS option (RFC 9293 section 3.7.1).
const DEFAULT_PEER_MSS: u64 = 536;
/// Longest interval between zero-window probes (as the RTO's maximum, RFC 1122
/// section 4.2.2.17 lets it grow exponentially).
const MAX_PERSIST: Duration = Duration::from_secs(60);

/// Connection states (RFC 9293 section 3.3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// No connection (never opened, finished, or reset).
    Closed,
    /// Waiting for a SYN.
    Listen,
    /// SYN sent, waiting for the SYN-ACK.
    SynSent,
    /// SYN received and answered, waiting for the ACK.
    SynReceived,
    /// Open both ways.
    Established,
    /// FIN sent, not yet acknowledged; the peer may still send.
    FinWait1,
    /// Our FIN acknowledged; waiting for the peer's FIN.
    FinWait2,
    /// The peer's FIN received; we may still send.
    CloseWait,
    /// Both FINs sent, ours not yet acknowledged.
    Closing,
    /// The peer closed first; our FIN sent, not yet acknowledged.
    LastAck,
    /// Both directions closed; answering a retransmitted FIN if it comes.
    TimeWait,
}

/// One segment: the sequence number, the payload length and the header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Segment {
    /// Sequence number of the first byte (or of the SYN or FIN).
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    /// The header.
    pub header: TcpHeader,
}

impl Segment {
    /// Sequence space it occupies: payload plus SYN and FIN.
    pub fn seq_len(&self) -> u64 {
        u64::from(self.len) + self.header.control_len()
    }

    /// The segment as [`Connection::on_segment`] reads it.
    pub fn arriving(&self) -> Arriving<'_> {
        Arriving { seq: self.seq, len: self.len, header: &self.header }
    }
}

/// A segment as it arrives: its numbers, and its header where the network keeps it
/// (beside the packet, in the packet pool). Delivering a segment copies no header: a
/// header is 88 bytes, and each copy on a segment's path cost about 0.4 % of a TCP
/// transfer's instructions.
#[derive(Clone, Copy, Debug)]
pub struct Arriving<'a> {
    /// Sequence number of the first byte (or of the SYN or FIN).
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    /// The header.
    pub header: &'a TcpHeader,
}

/// What the connection will send next (see [`Connection::plan`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plan {
    /// The SYN (first or again).
    Syn,
    /// The SYN-ACK (first or again).
    SynAck,
    /// Payload `[seq, seq + len)`, with FIN after it if `fin`.
    Data {
        /// First byte.
        seq: u64,
        /// Bytes.
        len: u32,
        /// FIN follows the payload.
        fin: bool,
    },
    /// RFC 6675's rescue retransmission: `[seq, seq + len)`, the end of the outstanding
    /// data, resent once per recovery without moving HighRxt.
    Rescue {
        /// First byte.
        seq: u64,
        /// Bytes (the FIN, if it is the last outstanding, is resent with them).
        len: u32,
    },
    /// A FIN without payload at `seq`.
    Fin {
        /// Its sequence number.
        seq: u64,
    },
    /// A pure acknowledgement (or window update).
    Ack,
    /// A zero-window probe: an ACK-eliciting segment just below the window.
    Probe,
    /// A reset, on giving up.
    Rst,
}

/// Counters of one connection end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpStats {
    /// Every segment sent.
    pub segments_sent: u64,
    /// Segments sent carrying payload (retransmissions included).
    pub data_segments_sent: u64,
    /// Payload bytes sent (retransmissions included).
    pub payload_bytes_sent: u64,
    /// Segments retransmitted (payload, SYN or FIN sent again).
    pub retransmissions: u64,
    /// Payload bytes retransmitted.
    pub retransmitted_bytes: u64,
    /// Retransmission timer expiries.
    pub timeouts: u64,
    /// Fast retransmits (entries into loss recovery by duplicate ACKs).
    pub fast_retransmits: u64,
    /// Segments of new data sent by Limited Transmit (RFC 3042) beyond the congestion
    /// window on the first two duplicate ACKs.
    pub limited_transmits: u64,
    /// Partial ACKs during recovery.
    pub partial_acks: u64,
    /// Duplicate ACKs received (RFC 5681 section 2).
    pub dup_acks: u64,
    /// Pure ACKs sent.
    pub acks_sent: u64,
    /// Persist-timer firings answered: a probe of a closed window, or the segment that
    /// fits a window too small for a full one.
    pub window_probes: u64,
    /// Segments received.
    pub segments_received: u64,
    /// Segments received out of order.
    pub out_of_order: u64,
    /// RTT samples taken.
    pub rtt_samples: u64,
}

/// Change-point series of a sender's state, kept only when asked for.
#[derive(Clone, Debug)]
pub struct TcpSeries {
    /// Which change points are kept, per quantity.
    pub limits: SeriesLimits,
    /// Congestion window, bytes.
    pub cwnd: Series,
    /// Slow-start threshold, bytes.
    pub ssthresh: Series,
    /// Smoothed RTT, ps (0 before the first sample).
    pub srtt: Series,
    /// Retransmission timeout, ps.
    pub rto: Series,
    /// FlightSize (sent and not cumulatively acknowledged), bytes.
    pub flight: Series,
}

impl TcpSeries {
    /// Empty series keeping change points as `limits` say.
    pub fn new(limits: SeriesLimits) -> Self {
        TcpSeries {
            limits,
            cwnd: Series::default(),
            ssthresh: Series::default(),
            srtt: Series::default(),
            rto: Series::default(),
            flight: Series::default(),
        }
    }

    /// The quantities with their names as results show them.
    pub fn named(&self) -> [(&'static str, &Series); 5] {
        [
            ("cwnd", &self.cwnd),
            ("ssthresh", &self.ssthresh),
            ("srtt", &self.srtt),
            ("rto", &self.rto),
            ("flight", &self.flight),
        ]
    }
}

/// When the next ACK goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckDue {
    None,
    At(SimTime),
    Now,
}

/// One end of a TCP connection, with congestion control `C`.
// The flags are independent conditions of the protocol (a FIN requested, a probe due,
// SACK agreed...), as RFC 9293 keeps them.
#[allow(clippy::struct_excessive_bools)]
#[derive(Clone, Debug)]
pub struct Connection<C: CongestionControl = BuiltinCc> {
    cfg: TcpConfig,
    state: State,
    cc: C,
    rtt: RttEstimator,
    aborted: bool,
    // Send side.
    smss: u64,
    /// The window limit in bytes (`window_limit` segments of SMSS), `u64::MAX` for none.
    window_cap: u64,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    snd_wnd: u64,
    /// `snd_wnd` within `window_cap`: the window the send path fills, kept with every
    /// change of either so that sending reads one field.
    send_wnd: u64,
    snd_wl1: u64,
    snd_wl2: u64,
    /// Shift applied to windows the peer sends (its announced shift).
    snd_shift: u8,
    /// One past the last byte the application wrote.
    written_end: u64,
    closing: bool,
    syn_retransmitted: bool,
    rto_at: Option<SimTime>,
    retries: u32,
    timed: Option<(u64, SimTime)>,
    in_recovery: bool,
    recover: u64,
    dupacks: u32,
    /// `snd_max` when the first of the current duplicate ACKs arrived.
    dup_snd_max: u64,
    /// What Limited Transmit adds to cwnd for new data now (RFC 3042 section 2): set on
    /// each duplicate ACK, cleared by the next new ACK, by recovery and by a timeout, so
    /// that the send path reads one field.
    lt_allowance: u64,
    partial_seen: bool,
    retransmit_head: bool,
    high_rxt: u64,
    /// RFC 6675's RescueRxt: the recovery point when the rescue retransmission went.
    rescue_rxt: Option<u64>,
    persist_at: Option<SimTime>,
    persist_backoff: u32,
    probe_due: bool,
    rst_due: bool,
    sack_ok: bool,
    scaling_agreed: bool,
    scoreboard: Scoreboard,
    // Receive side.
    rcv: Reassembly,
    /// Our receive-window shift, used once the peer agreed to scaling.
    rcv_shift: u8,
    peer_fin: Option<u64>,
    unread: u64,
    read_total: u64,
    ack_due: AckDue,
    unacked_bytes: u64,
    advertised_edge: u64,
    stats: TcpStats,
    series: Option<Box<TcpSeries>>,
}

impl Connection<BuiltinCc> {
    /// An end that will open a connection (send the SYN) when first asked, with the
    /// congestion control `cfg` names.
    pub fn connect(cfg: TcpConfig) -> Self {
        Self::with_cc(cfg, State::SynSent, |iw| BuiltinCc::new(cfg.congestion_control, iw))
    }

    /// An end that waits for a SYN, with the congestion control `cfg` names.
    pub fn listen(cfg: TcpConfig) -> Self {
        Self::with_cc(cfg, State::Listen, |iw| BuiltinCc::new(cfg.congestion_control, iw))
    }
}

impl<C: CongestionControl> Connection<C> {
    /// An end in `state` (`SynSent` to connect, `Listen` to accept) whose congestion
    /// control is made by `make_cc` from the initial window in bytes.
    pub fn with_cc(cfg: TcpConfig, state: State, make_cc: impl FnOnce(u64) -> C) -> Self {
        let smss = u64::from(cfg.mss);
        Connection {
            cc: make_cc(cfg.initial_window_bytes(smss)),
            rtt: RttEstimator::with_granularity(
                cfg.rto_min,
                cfg.rto_max,
                cfg.rto_initial,
                cfg.clock_granularity,
            ),
            state,
            aborted: false,
            smss,
            window_cap: Self::window_cap(&cfg, smss),
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            snd_wnd: 0,
            send_wnd: 0,
            snd_wl1: 0,
            snd_wl2: 0,
            snd_shift: 0,
            written_end: 1,
            closing: false,
            syn_retransmitted: false,
            rto_at: None,
            retries: 0,
            timed: None,
            in_recovery: false,
            recover: 1,
            dupacks: 0,
            dup_snd_max: 0,
            lt_allowance: 0,
            partial_seen: false,
            retransmit_head: false,
            high_rxt: 0,
            rescue_rxt: None,
            persist_at: None,
            persist_backoff: 0,
            probe_due: false,
            rst_due: false,
            sack_ok: false,
            scaling_agreed: false,
            scoreboard: Scoreboard::default(),
            rcv: Reassembly::new(0),
            rcv_shift: 0,
            peer_fin: None,
            unread: 0,
            read_total: 0,
            ack_due: AckDue::None,
            unacked_bytes: 0,
            advertised_edge: 0,
            stats: TcpStats::default(),
            series: None,
            cfg,
        }
    }

    /// Keeps change-point series of cwnd, ssthresh, SRTT, RTO and FlightSize.
    pub fn record_series(&mut self, limits: SeriesLimits) {
        self.series = Some(Box::new(TcpSeries::new(limits)));
    }

    // ----- what the application and the tests see -----

    /// The state.
    pub fn state(&self) -> State {
        self.state
    }
    /// Whether the connection was given up (too many retransmissions, or reset).
    pub fn aborted(&self) -> bool {
        self.aborted
    }
    /// The counters.
    pub fn stats(&self) -> &TcpStats {
        &self.stats
    }
    /// The series, if kept.
    pub fn series(&self) -> Option<&TcpSeries> {
        self.series.as_deref()
    }
    /// The congestion control state.
    pub fn cc(&self) -> &C {
        &self.cc
    }
    /// The RTT estimator.
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    /// The effective sender MSS.
    pub fn smss(&self) -> u64 {
        self.smss
    }
    /// Oldest unacknowledged sequence number.
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    /// Next sequence number to send.
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    /// One past the highest sequence number sent.
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    /// The peer's window, bytes.
    pub fn snd_wnd(&self) -> u64 {
        self.snd_wnd
    }
    /// FlightSize: sent and not cumulatively acknowledged, bytes (RFC 5681 section 2).
    pub fn flight_size(&self) -> u64 {
        self.snd_max - self.snd_una
    }
    /// The connection's settings.
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }
    /// Whether loss recovery is under way.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    /// Whether SACK was negotiated.
    pub fn sack_enabled(&self) -> bool {
        self.sack_ok
    }
    /// The next byte expected from the peer.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv.rcv_nxt()
    }
    /// When the retransmission timer fires, if running.
    pub fn rto_deadline(&self) -> Option<SimTime> {
        self.rto_at
    }
    /// When the next zero-window probe goes, if the persist timer runs.
    pub fn persist_deadline(&self) -> Option<SimTime> {
        self.persist_at
    }
    /// When a delayed ACK is due, if one is held.
    pub fn delayed_ack_deadline(&self) -> Option<SimTime> {
        match self.ack_due {
            AckDue::At(t) => Some(t),
            _ => None,
        }
    }
    /// Whether the handshake has completed (data may flow).
    pub fn is_established(&self) -> bool {
        !matches!(self.state, State::Closed | State::Listen | State::SynSent | State::SynReceived)
    }

    /// Bytes the application may still write (room in the send buffer).
    pub fn send_space(&self) -> u64 {
        if self.closing || matches!(self.state, State::Closed) {
            return 0;
        }
        let used = self.written_end - self.snd_una.max(1);
        self.cfg.send_buffer.saturating_sub(used)
    }

    /// The application writes `bytes` (at most [`Connection::send_space`]).
    pub fn write(&mut self, bytes: u64) {
        debug_assert!(bytes <= self.send_space());
        self.written_end += bytes;
    }

    /// The application closes its sending direction: a FIN follows the data written.
    pub fn close(&mut self) {
        self.closing = true;
    }

    /// Whether the application has closed.
    pub fn is_closing(&self) -> bool {
        self.closing
    }

    /// In-order bytes received and not yet read.
    pub fn readable(&self) -> u64 {
        self.unread
    }

    /// Bytes the application has read so far.
    pub fn read_total(&self) -> u64 {
        self.read_total
    }

    /// Whether the peer has closed and everything before its FIN has arrived.
    pub fn peer_closed(&self) -> bool {
        self.peer_fin.is_some_and(|f| self.rcv.rcv_nxt() > f)
    }

    /// The application reads up to `max` bytes; returns how many. Reading opens the
    /// window, and a window that grows from below one segment to at least
    /// min(half the buffer, one MSS) is announced at once (RFC 9293 section 3.8.6.2.2).
    pub fn read(&mut self, max: u64) -> u64 {
        let n = self.unread.min(max);
        if n == 0 {
            return 0;
        }
        self.unread -= n;
        self.read_total += n;
        // Announce a window that reopens from below one segment as soon as it may move
        // (RFC 9293 section 3.8.6.2.2); a wider open window waits for the next ACK.
        let offered = self.advertised_edge.saturating_sub(self.rcv.rcv_nxt());
        if offered < self.rcv_mss() && self.window_to_offer() > offered && self.is_established() {
            self.ack_due = AckDue::Now;
        }
        n
    }

    /// Whether this end has work the network has not seen: data, SYN or FIN not yet
    /// acknowledged, or an acknowledgement owed.
    pub fn has_unfinished_output(&self) -> bool {
        if self.state == State::Closed {
            return false;
        }
        self.snd_una < self.snd_max
            || self.ack_due != AckDue::None
            || self.rst_due
            || self.state == State::SynReceived
            || self.state == State::SynSent
            || (self.closing && !self.fin_acked())
    }

    fn fin_seq(&self) -> u64 {
        self.written_end
    }

    fn fin_acked(&self) -> bool {
        self.closing && self.snd_una > self.fin_seq()
    }
}

impl AckDue {
    fn is_at_or_before(self, now: SimTime) -> bool {
        matches!(self, AckDue::At(t) if t <= now)
    }
}

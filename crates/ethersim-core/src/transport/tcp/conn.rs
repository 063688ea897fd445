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
use crate::wire::tcp::MAX_SACK_BLOCKS;
use crate::wire::{TcpFlags, TcpHeader};

use super::cc::{BuiltinCc, CongestionControl};
use super::config::TcpConfig;
use super::reassembly::Reassembly;
use super::rtt::RttEstimator;
use super::scoreboard::Scoreboard;

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

    // ----- timers -----

    /// The earliest instant the connection must be woken at, if any.
    pub fn poll_at(&self) -> Option<SimTime> {
        let ack = match self.ack_due {
            AckDue::At(t) => Some(t),
            _ => None,
        };
        [self.rto_at, self.persist_at, ack].into_iter().flatten().min()
    }

    /// Fires every timer due at `now` (call it whenever the end is polled: it also
    /// starts the persist timer when written data meets a zero window).
    pub fn on_timer(&mut self, now: SimTime) {
        if self.is_established() {
            self.update_persist(now);
        }
        if self.ack_due.is_at_or_before(now) {
            self.ack_due = AckDue::Now;
        }
        if self.persist_at.is_some_and(|t| t <= now) {
            self.probe_due = true;
            self.persist_backoff = self.persist_backoff.saturating_add(1);
            self.persist_at = Some(now + self.persist_interval());
        }
        if self.rto_at.is_some_and(|t| t <= now) {
            self.on_rto(now);
        }
        self.record(now);
    }

    fn persist_interval(&self) -> Duration {
        let base = self.rtt.base_rto().0;
        let v = base.checked_shl(self.persist_backoff).filter(|v| v >> self.persist_backoff == base);
        Duration(v.unwrap_or(u64::MAX).min(MAX_PERSIST.0.max(base)))
    }

    fn on_rto(&mut self, now: SimTime) {
        self.rto_at = None;
        if self.snd_una == self.snd_max {
            return;
        }
        self.stats.timeouts += 1;
        self.retries += 1;
        if self.retries > self.cfg.max_retransmissions {
            self.give_up();
            return;
        }
        // RFC 6298 section 5.5 and 5.6: back off, restart the timer; Karn's rule: the
        // timed segment will be retransmitted, so its measurement is void.
        self.rtt.back_off();
        self.timed = None;
        match self.state {
            State::SynSent | State::SynReceived => {
                self.syn_retransmitted = true;
                self.snd_nxt = 0;
            }
            _ => {
                if self.lt_allowance != 0 {
                    self.count_limited_transmits();
                    self.lt_allowance = 0;
                }
                let flight = self.flight_size();
                self.cc.on_timeout(now, flight, self.smss, self.retries == 1);
                // RFC 6582 section 4: dup ACKs for data sent before the timeout must
                // not trigger a new fast retransmit.
                self.recover = self.snd_max;
                self.in_recovery = false;
                self.dupacks = 0;
                self.retransmit_head = false;
                self.high_rxt = 0;
                // RFC 6675 section 5.1: the scoreboard may have reneged; start afresh.
                self.scoreboard.clear();
                // Go back: resend from the first unacknowledged byte, in slow start. The
                // first resend goes whatever the window (RFC 6298 section 5.4): a window
                // that shrank or a lost update must not silence the timer.
                self.snd_nxt = self.snd_una;
                self.retransmit_head = true;
            }
        }
        self.rto_at = Some(now + self.rtt.rto());
    }

    fn give_up(&mut self) {
        self.aborted = true;
        self.rst_due = true;
        self.rto_at = None;
        self.persist_at = None;
        self.ack_due = AckDue::None;
    }

    // ----- input: a segment arrived -----

    /// A segment from the peer arrived at `now`.
    pub fn on_segment(&mut self, now: SimTime, seg: &Segment) {
        self.stats.segments_received += 1;
        let h = &seg.header;
        if self.state == State::Closed {
            return;
        }
        if h.flags.has(TcpFlags::RST) {
            self.state = State::Closed;
            self.aborted = true;
            self.rto_at = None;
            self.persist_at = None;
            self.ack_due = AckDue::None;
            return;
        }
        match self.state {
            State::Listen => {
                if h.flags.has(TcpFlags::SYN) && !h.flags.has(TcpFlags::ACK) {
                    self.accept_syn(seg);
                    self.state = State::SynReceived;
                }
                self.record(now);
                return;
            }
            State::SynSent => {
                if h.flags.has(TcpFlags::SYN) && h.flags.has(TcpFlags::ACK) && h.ack == 1 {
                    self.accept_syn(seg);
                    self.ack_due = AckDue::Now;
                    self.state = State::Established;
                    self.handshake_acked(now, seg);
                }
                self.record(now);
                return;
            }
            _ => {}
        }
        if h.flags.has(TcpFlags::SYN) {
            // A retransmitted SYN or SYN-ACK: our answer was lost; answer again.
            if self.state == State::SynReceived {
                self.snd_nxt = 0;
            } else {
                self.ack_due = AckDue::Now;
            }
            return;
        }
        if !h.flags.has(TcpFlags::ACK) {
            return;
        }
        if self.state == State::SynReceived {
            if h.ack < 1 || h.ack > self.snd_max {
                return;
            }
            self.state = State::Established;
            self.handshake_acked(now, seg);
        }
        self.process_ack(now, seg);
        self.process_data(now, seg);
        self.record(now);
    }

    fn accept_syn(&mut self, seg: &Segment) {
        let h = &seg.header;
        self.rcv = Reassembly::new(seg.seq);
        self.rcv.advance_control();
        let peer_mss = if h.mss == 0 { DEFAULT_PEER_MSS } else { u64::from(h.mss) };
        self.smss = self.smss.min(peer_mss);
        self.window_cap = Self::window_cap(&self.cfg, self.smss);
        self.set_snd_wnd(self.snd_wnd);
        // Scaling is used only if both sides offer it (RFC 7323 section 2.2).
        if let (Some(theirs), Some(ours)) = (h.window_shift, self.cfg.window_shift()) {
            self.snd_shift = theirs.min(crate::wire::tcp::MAX_WINDOW_SHIFT);
            self.rcv_shift = ours;
            self.scaling_agreed = true;
        } else {
            self.snd_shift = 0;
            self.rcv_shift = 0;
            self.scaling_agreed = false;
        }
        self.sack_ok = self.cfg.sack && h.sack_permitted;
        // The window in a SYN is never scaled (RFC 7323 section 2.2).
        self.set_snd_wnd(u64::from(h.window));
        self.snd_wl1 = seg.seq;
        self.snd_wl2 = h.ack;
    }

    fn handshake_acked(&mut self, now: SimTime, seg: &Segment) {
        // The initial window follows the negotiated MSS (RFC 6928, RFC 5681 section 3.1).
        self.cc.set_initial_window(self.cfg.initial_window_bytes(self.smss));
        self.snd_una = 1;
        self.snd_nxt = self.snd_nxt.max(1);
        self.rto_at = None;
        self.retries = 0;
        if let Some((_, sent)) = self.timed.take() {
            if !self.syn_retransmitted {
                self.take_rtt_sample(now, now - sent);
            }
        }
        if self.syn_retransmitted && self.rtt.srtt().is_none() {
            // RFC 6298 section 5.7: a SYN that timed out leaves an RTO of at least 3 s.
            self.rtt = RttEstimator::with_granularity(
                self.cfg.rto_min,
                self.cfg.rto_max,
                self.cfg.rto_initial.max(Duration::from_secs(3)),
                self.cfg.clock_granularity,
            );
        }
        self.set_snd_wnd(self.scaled_window(seg));
        self.snd_wl1 = seg.seq;
        self.snd_wl2 = seg.header.ack;
    }

    fn scaled_window(&self, seg: &Segment) -> u64 {
        if seg.header.flags.has(TcpFlags::SYN) {
            u64::from(seg.header.window)
        } else {
            u64::from(seg.header.window) << self.snd_shift
        }
    }

    fn process_ack(&mut self, now: SimTime, seg: &Segment) {
        let ack = seg.header.ack;
        if ack > self.snd_max {
            // Acknowledges something not sent: answer with an ACK (RFC 9293 3.10.7.4).
            self.ack_due = AckDue::Now;
            return;
        }
        let window = self.scaled_window(seg);
        if window == 0 && ack == self.snd_una {
            // The peer answers with a closed window: it is alive, and a connection is
            // never given up while it keeps answering (RFC 1122 section 4.2.2.17).
            self.retries = 0;
        }
        if self.sack_ok {
            for b in seg.header.sack_blocks() {
                self.scoreboard.add(*b, self.snd_una.max(ack), self.snd_max);
            }
        }
        if ack > self.snd_una {
            self.on_new_ack(now, ack);
        } else if ack == self.snd_una
            && self.snd_una < self.snd_max
            && seg.len == 0
            && !seg.header.flags.has(TcpFlags::FIN)
            && window == self.snd_wnd
        {
            // RFC 5681 section 2: a duplicate ACK.
            self.on_dupack(now);
        }
        // RFC 9293 section 3.10.7.4: update the window from the newest segment.
        if self.snd_wl1 < seg.seq || (self.snd_wl1 == seg.seq && self.snd_wl2 <= ack) {
            self.set_snd_wnd(window);
            self.snd_wl1 = seg.seq;
            self.snd_wl2 = ack;
        }
        self.update_persist(now);
    }

    fn on_new_ack(&mut self, now: SimTime, ack: u64) {
        if self.lt_allowance != 0 {
            // Duplicate ACKs that led to no recovery: count what Limited Transmit sent.
            self.count_limited_transmits();
            self.lt_allowance = 0;
        }
        let acked = ack - self.snd_una;
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.retries = 0;
        self.dupacks = 0;
        self.scoreboard.acknowledge(ack);
        // Karn's rule: only a segment never retransmitted is timed (see dispatch).
        if let Some((end, sent)) = self.timed {
            if ack >= end {
                self.take_rtt_sample(now, now - sent);
                self.timed = None;
            }
        }
        let mut restart = true;
        if self.in_recovery {
            if ack >= self.recover {
                // Full ACK: recovery is over (RFC 6582 section 3.2 step 3).
                self.in_recovery = false;
                self.retransmit_head = false;
                self.high_rxt = 0;
                let flight = self.flight_size();
                self.cc.on_exit_recovery(now, flight, self.smss);
            } else {
                // Partial ACK (RFC 6582 section 3.2 step 5).
                self.stats.partial_acks += 1;
                if !self.sack_ok {
                    self.cc.on_partial_ack(now, acked, self.smss);
                    self.retransmit_head = true;
                }
                // The "Impatient" variant: only the first partial ACK resets the timer.
                restart = !self.partial_seen;
                self.partial_seen = true;
            }
        } else {
            let data_acked = acked - u64::from(self.fin_acked() && ack == self.fin_seq() + 1);
            if data_acked > 0 {
                self.cc.on_ack(now, data_acked, self.smss);
            }
        }
        // RFC 6298 sections 5.2 and 5.3.
        if self.snd_una == self.snd_max {
            self.rto_at = None;
        } else if restart {
            self.rto_at = Some(now + self.rtt.rto());
        }
        if self.fin_acked() {
            self.state = match self.state {
                State::FinWait1 => State::FinWait2,
                State::Closing => State::TimeWait,
                State::LastAck => State::Closed,
                s => s,
            };
        }
    }

    /// An RTT measurement (RFC 6298 section 2), passed on to congestion control with
    /// the smoothed RTT it leaves.
    fn take_rtt_sample(&mut self, now: SimTime, sample: Duration) {
        self.rtt.sample(sample);
        self.stats.rtt_samples += 1;
        let srtt = self.rtt.srtt().unwrap_or(sample);
        self.cc.on_rtt_sample(now, sample, srtt);
    }

    fn on_dupack(&mut self, now: SimTime) {
        self.dupacks += 1;
        if self.dupacks == 1 {
            self.dup_snd_max = self.snd_max;
        }
        self.stats.dup_acks += 1;
        if self.in_recovery {
            if !self.sack_ok {
                self.cc.on_dupack_in_recovery(now, self.smss);
            }
            return;
        }
        let threshold = self.dupacks >= self.cfg.dupack_threshold;
        let sack_lost = self.sack_ok
            && self.scoreboard.is_lost(self.snd_una, u64::from(self.cfg.dupack_threshold), self.smss);
        // RFC 6582 section 3.2 step 1 (and RFC 6675 section 5): enter only if the ACK
        // covers more than `recover`.
        if (threshold || sack_lost) && self.snd_una >= self.recover {
            self.in_recovery = true;
            self.recover = self.snd_max;
            self.partial_seen = false;
            self.high_rxt = self.snd_una;
            self.rescue_rxt = None;
            // RFC 5681 section 3.2 step 2: what Limited Transmit sent is left out.
            let flight = self.flight_size() - self.count_limited_transmits();
            self.cc.on_enter_recovery(now, flight, self.smss, self.sack_ok);
            self.stats.fast_retransmits += 1;
            self.retransmit_head = true;
            self.lt_allowance = 0;
        } else {
            self.lt_allowance = self.limited_transmit_allowance();
        }
    }

    fn process_data(&mut self, now: SimTime, seg: &Segment) {
        let receiving =
            matches!(self.state, State::Established | State::FinWait1 | State::FinWait2 | State::SynReceived);
        let h = &seg.header;
        let fin = h.flags.has(TcpFlags::FIN);
        if seg.len == 0 && !fin {
            // A pure ACK is acceptable at rcv_nxt; one below it (a zero-window probe or
            // an old duplicate) is answered (RFC 9293 section 3.10.7.4).
            if seg.seq < self.rcv.rcv_nxt() {
                self.ack_due = AckDue::Now;
            }
            return;
        }
        // Only a retransmitted FIN is processed in TIME-WAIT (to be acknowledged again).
        let time_wait_fin = fin && self.state == State::TimeWait;
        if !(receiving || time_wait_fin) {
            self.ack_due = AckDue::Now;
            return;
        }
        let rcv_nxt = self.rcv.rcv_nxt();
        if seg.len > 0 {
            let window_end = rcv_nxt + self.window_to_offer();
            let start = seg.seq;
            let end = (seg.seq + u64::from(seg.len)).min(window_end.max(rcv_nxt));
            if end <= rcv_nxt || start >= window_end {
                // Old or beyond the window: answer with an ACK, keep nothing.
                self.ack_due = AckDue::Now;
            } else {
                let a = self.rcv.insert(start, end);
                self.unread += a.advanced;
                if a.out_of_order {
                    self.stats.out_of_order += 1;
                }
                self.unacked_bytes += a.advanced;
                let full_segments_due = self.unacked_bytes >= 2 * self.rcv_mss();
                if a.out_of_order
                    || a.filled_hole
                    || a.duplicate
                    || !self.cfg.delayed_ack
                    || full_segments_due
                {
                    self.ack_due = AckDue::Now;
                } else if self.ack_due == AckDue::None {
                    self.ack_due = AckDue::At(now + self.cfg.delayed_ack_timeout);
                }
            }
        }
        if fin {
            self.peer_fin.get_or_insert(seg.seq + u64::from(seg.len));
            self.ack_due = AckDue::Now;
        }
        if let Some(f) = self.peer_fin {
            if self.rcv.rcv_nxt() == f && !self.rcv.has_holes() {
                self.rcv.advance_control();
                self.state = match self.state {
                    State::Established | State::SynReceived => State::CloseWait,
                    State::FinWait1 if self.fin_acked() => State::TimeWait,
                    State::FinWait1 => State::Closing,
                    State::FinWait2 => State::TimeWait,
                    s => s,
                };
            }
        }
    }

    /// The MSS the peer sends with (for counting full-sized segments): the smaller of
    /// the two MSS options, as for our own sending.
    fn rcv_mss(&self) -> u64 {
        self.smss
    }

    /// Free receive buffer: what may still arrive (data read by the application and
    /// data held out of order both take from it).
    fn free_buffer(&self) -> u64 {
        self.cfg.receive_buffer.saturating_sub(self.unread + self.rcv.held_bytes())
    }

    /// The window to offer now. The right edge never moves back (RFC 9293 section
    /// 3.8.6.2.2, RFC 7323 section 2.4), and it moves forward only by at least
    /// min(half the buffer, one MSS): receiver-side silly window avoidance (RFC 9293
    /// section 3.8.6.2.2, RFC 1122 section 4.2.3.3), so a slow reader offers a closed
    /// window or a useful one, never a sliver.
    fn window_to_offer(&self) -> u64 {
        let cap = 0xffff_u64 << self.rcv_shift;
        let promised = self.advertised_edge.saturating_sub(self.rcv.rcv_nxt());
        let free = self.free_buffer();
        let w = if free >= promised + self.sws_threshold() { free } else { promised };
        w.min(cap)
    }

    /// The least worth moving the window's right edge for (RFC 9293 section 3.8.6.2.2).
    fn sws_threshold(&self) -> u64 {
        (self.cfg.receive_buffer / 2).min(self.rcv_mss())
    }

    /// The persist timer runs while data waits, nothing is outstanding and the peer's
    /// window is too small to send a segment: zero (RFC 9293 section 3.8.6.1), or below
    /// what sender silly window avoidance lets go (RFC 1122 section 4.2.3.4, whose
    /// override timer this is).
    fn update_persist(&mut self, now: SimTime) {
        let waiting = self.written_end.saturating_sub(self.snd_nxt);
        let stalled = waiting > 0
            && self.snd_wnd < self.smss.min(waiting)
            && self.snd_una == self.snd_max
            && self.is_established();
        if stalled {
            if self.persist_at.is_none() {
                self.persist_backoff = 0;
                self.persist_at = Some(now + self.persist_interval());
            }
        } else {
            self.persist_at = None;
            self.persist_backoff = 0;
            self.probe_due = false;
        }
    }

    // ----- output -----

    /// What the connection would send at `now`, without changing anything.
    pub fn plan(&self, _now: SimTime) -> Option<Plan> {
        if self.rst_due {
            return Some(Plan::Rst);
        }
        match self.state {
            State::Closed | State::Listen => return None,
            State::SynSent => return (self.snd_nxt == 0).then_some(Plan::Syn),
            State::SynReceived => {
                return if self.snd_nxt == 0 {
                    Some(Plan::SynAck)
                } else {
                    (self.ack_due == AckDue::Now).then_some(Plan::Ack)
                }
            }
            _ => {}
        }
        if let Some(p) = self.plan_send() {
            return Some(p);
        }
        if self.probe_due {
            // The persist timer fired: a window too small for a full segment takes what
            // fits (RFC 1122 section 4.2.3.4's override); a closed one is probed.
            let fits = self.snd_wnd.min(self.written_end - self.snd_nxt).min(self.smss);
            if fits > 0 && self.may_send_data() {
                return Some(self.segment_at(self.snd_nxt, fits, self.written_end));
            }
            return Some(Plan::Probe);
        }
        (self.ack_due == AckDue::Now).then_some(Plan::Ack)
    }

    fn may_send_data(&self) -> bool {
        matches!(
            self.state,
            State::Established | State::CloseWait | State::FinWait1 | State::Closing | State::LastAck
        )
    }

    fn plan_send(&self) -> Option<Plan> {
        if !self.may_send_data() {
            return None;
        }
        let data_end = self.written_end;
        if self.retransmit_head && self.snd_una < self.snd_max {
            return Some(self.segment_at(self.snd_una, self.smss, data_end));
        }
        if self.in_recovery && self.sack_ok {
            return self.plan_sack_recovery(data_end);
        }
        let outstanding = self.snd_nxt - self.snd_una;
        let cwnd = self.cc.cwnd() + self.lt_allowance;
        let wnd_end = self.snd_una + cwnd.min(self.send_wnd);
        let usable = wnd_end.saturating_sub(self.snd_nxt);
        let available = data_end.saturating_sub(self.snd_nxt);
        let len = self.smss.min(available).min(usable);
        if len > 0 {
            let resend = self.snd_nxt < self.snd_max;
            let whole_rest = len == available;
            let nagle_ok = !self.cfg.nagle || outstanding == 0 || self.closing || resend;
            if len == self.smss || (whole_rest && nagle_ok) {
                return Some(self.segment_at(self.snd_nxt, len, data_end));
            }
        }
        // The FIN goes once all data is out, whatever the window.
        if self.closing && self.snd_nxt == data_end {
            return Some(Plan::Fin { seq: data_end });
        }
        None
    }

    /// Sets the peer's window, and the window the sender may fill: the peer's within the
    /// configured window limit (ns-2's `window_`, in segments).
    fn set_snd_wnd(&mut self, window: u64) {
        self.snd_wnd = window;
        self.send_wnd = window.min(self.window_cap);
    }

    /// `window_limit` segments of `smss` bytes, or `u64::MAX` for no limit.
    fn window_cap(cfg: &TcpConfig, smss: u64) -> u64 {
        if cfg.window_limit == 0 {
            u64::MAX
        } else {
            u64::from(cfg.window_limit) * smss
        }
    }

    /// The bytes Limited Transmit sent in this run of duplicate ACKs, counted into the
    /// statistics: the new data sent since the first of them that lies beyond cwnd
    /// (duplicate ACKs move neither `snd_una` nor cwnd, and only Limited Transmit sends
    /// past cwnd).
    #[cold]
    fn count_limited_transmits(&mut self) -> u64 {
        if !self.cfg.limited_transmit {
            return 0;
        }
        let sent = self.snd_max - self.dup_snd_max;
        let beyond = self.flight_size().saturating_sub(self.cc.cwnd()).min(sent);
        self.stats.limited_transmits += beyond.div_ceil(self.smss);
        beyond
    }

    /// What Limited Transmit (RFC 3042 section 2) adds to cwnd for new data: one SMSS
    /// per duplicate ACK, for the first two and below the fast-retransmit threshold,
    /// outside recovery, and only while no data is being sent again (after a timeout the
    /// sender goes back over old data, which Limited Transmit never sends). The peer's
    /// window still limits the segment (RFC 3042 condition (a)); the allowance vanishes
    /// with the next new ACK, so outstanding data stays within cwnd + 2·SMSS (condition
    /// (b)) and cwnd itself never changes.
    fn limited_transmit_allowance(&self) -> u64 {
        if !self.cfg.limited_transmit
            || self.in_recovery
            || self.dupacks == 0
            || self.dupacks >= self.cfg.dupack_threshold
            || self.snd_nxt != self.snd_max
        {
            return 0;
        }
        u64::from(self.dupacks.min(2)) * self.smss
    }

    /// The segment starting at `seq` of at most `max` bytes, FIN attached when it ends
    /// the data of a closing end.
    fn segment_at(&self, seq: u64, max: u64, data_end: u64) -> Plan {
        if seq >= data_end {
            return Plan::Fin { seq: data_end };
        }
        let len = max.min(data_end - seq);
        let fin = self.closing && seq + len == data_end;
        Plan::Data { seq, len: len as u32, fin }
    }

    /// RFC 6675 section 5 step (C): NextSeg rules 1 to 4, while cwnd − pipe ≥ 1 SMSS.
    fn plan_sack_recovery(&self, data_end: u64) -> Option<Plan> {
        let dupthresh = u64::from(self.cfg.dupack_threshold);
        let pipe = self.scoreboard.pipe(self.snd_una, self.snd_max, self.high_rxt, dupthresh, self.smss);
        if self.cc.cwnd() < pipe + self.smss {
            return None;
        }
        // Rule 1: the first unSACKed byte above HighRxt that is deemed lost.
        let high_sacked = self.scoreboard.high_sacked().unwrap_or(self.snd_una);
        if let Some(s) = self.scoreboard.next_unsacked(self.high_rxt.max(self.snd_una), high_sacked) {
            if self.scoreboard.is_lost(s, dupthresh, self.smss) {
                let end = self.scoreboard.unsacked_run_end(s, self.snd_max);
                return Some(self.segment_at(s, self.smss.min(end - s), data_end));
            }
        }
        // Rule 2: new data, within the peer's window.
        let available = data_end.saturating_sub(self.snd_max);
        let wnd_room = (self.snd_una + self.send_wnd).saturating_sub(self.snd_max);
        let len = self.smss.min(available).min(wnd_room);
        if len > 0 && self.snd_nxt == self.snd_max {
            return Some(self.segment_at(self.snd_max, len, data_end));
        }
        // Rule 3: an unSACKed byte above HighRxt and below the highest SACKed byte, even
        // if not deemed lost.
        if let Some(s) = self.scoreboard.next_unsacked(self.high_rxt.max(self.snd_una), high_sacked) {
            let end = self.scoreboard.unsacked_run_end(s, high_sacked);
            return Some(self.segment_at(s, self.smss.min(end - s), data_end));
        }
        // Rule 4: one rescue retransmission per recovery (while the cumulative ACK has not
        // passed RescueRxt), of the segment holding the highest outstanding unSACKed
        // byte; HighRxt is left alone.
        if self.rescue_rxt.is_none_or(|r| self.snd_una > r) {
            if let Some(last) = self.scoreboard.last_unsacked(self.snd_una, self.snd_max) {
                let start = last.saturating_sub(self.smss - 1).max(self.snd_una);
                let start = self.scoreboard.unsacked_run_start(start, last);
                return Some(Plan::Rescue { seq: start, len: (last + 1 - start) as u32 });
            }
        }
        None
    }

    /// Builds the segment `plan` describes (from [`Connection::plan`] at the same
    /// instant) and updates the sequence state as if it were sent at `now`.
    pub fn dispatch(&mut self, now: SimTime, plan: Plan) -> Segment {
        let mut header = TcpHeader { flags: TcpFlags::ACK, ..TcpHeader::default() };
        let mut seq = self.snd_nxt;
        let mut len = 0u32;
        match plan {
            Plan::Syn | Plan::SynAck => {
                seq = 0;
                header.flags =
                    if plan == Plan::Syn { TcpFlags::SYN } else { TcpFlags::SYN.with(TcpFlags::ACK) };
                header.mss = self.cfg.mss.min(u32::from(u16::MAX)) as u16;
                // Offer options in a SYN; answer in kind in a SYN-ACK (RFC 7323 2.2, RFC 2018 2).
                let answering = plan == Plan::SynAck;
                header.window_shift = if answering {
                    self.scaling_agreed.then_some(self.rcv_shift)
                } else {
                    self.cfg.window_shift()
                };
                header.sack_permitted = if answering { self.sack_ok } else { self.cfg.sack };
                if self.snd_max > 0 {
                    // Sent again (a timeout, or the peer's SYN came again): Karn's rule
                    // voids the measurement, and the timer restarts.
                    self.note_retransmission(0);
                    self.syn_retransmitted = true;
                    self.timed = None;
                    self.rto_at = Some(now + self.rtt.rto());
                } else {
                    self.timed = Some((1, now));
                    self.rto_at = Some(now + self.rtt.rto());
                }
                self.snd_nxt = 1;
                self.snd_max = self.snd_max.max(1);
                if plan == Plan::Syn {
                    // A SYN's window is never scaled (RFC 7323 section 2.2).
                    header.window = self.cfg.receive_buffer.min(0xffff) as u16;
                }
            }
            Plan::Data { seq: s, len: l, fin } => {
                seq = s;
                len = l;
                if fin {
                    header.flags = header.flags.with(TcpFlags::FIN);
                }
                self.sent_range(now, s, u64::from(l) + u64::from(fin));
                self.stats.data_segments_sent += 1;
                self.stats.payload_bytes_sent += u64::from(l);
                if fin {
                    self.on_fin_sent();
                }
            }
            Plan::Rescue { seq: s, len: l } => {
                // The rescue covers data, a FIN, or both (a FIN sits at `written_end`).
                let payload = (s + u64::from(l)).min(self.written_end).saturating_sub(s);
                let fin = self.closing && s + u64::from(l) > self.written_end;
                seq = s;
                len = payload as u32;
                if fin {
                    header.flags = header.flags.with(TcpFlags::FIN);
                }
                let high_rxt = self.high_rxt;
                self.sent_range(now, s, payload + u64::from(fin));
                self.high_rxt = high_rxt;
                self.rescue_rxt = Some(self.recover);
                self.stats.data_segments_sent += u64::from(payload > 0);
                self.stats.payload_bytes_sent += payload;
            }
            Plan::Fin { seq: s } => {
                seq = s;
                header.flags = header.flags.with(TcpFlags::FIN);
                self.sent_range(now, s, 1);
                self.on_fin_sent();
            }
            Plan::Ack => {
                self.stats.acks_sent += 1;
                seq = self.snd_nxt;
            }
            Plan::Probe => {
                // An old sequence number elicits an ACK carrying the current window.
                seq = self.snd_una.saturating_sub(1);
                self.probe_due = false;
                self.stats.window_probes += 1;
            }
            Plan::Rst => {
                header.flags = TcpFlags::RST;
                self.rst_due = false;
                self.state = State::Closed;
            }
        }
        if header.flags.has(TcpFlags::ACK) {
            self.fill_ack(&mut header);
        }
        self.stats.segments_sent += 1;
        self.record(now);
        Segment { seq, len, header }
    }

    fn on_fin_sent(&mut self) {
        self.state = match self.state {
            State::Established => State::FinWait1,
            State::CloseWait => State::LastAck,
            s => s,
        };
    }

    fn note_retransmission(&mut self, bytes: u64) {
        self.stats.retransmissions += 1;
        self.stats.retransmitted_bytes += bytes;
    }

    /// `[seq, seq + len)` of sequence space was sent at `now`.
    fn sent_range(&mut self, now: SimTime, seq: u64, len: u64) {
        let end = seq + len;
        let payload = end.min(self.written_end).saturating_sub(seq);
        if seq < self.snd_max {
            self.note_retransmission(payload);
            if self.retransmit_head && seq == self.snd_una {
                self.retransmit_head = false;
            }
            self.high_rxt = self.high_rxt.max(end);
            if self.timed.is_some_and(|(t_end, _)| t_end > seq) {
                // Karn: a retransmitted segment is never timed.
                self.timed = None;
            }
        } else if self.timed.is_none() {
            self.timed = Some((end, now));
        }
        if seq == self.snd_nxt {
            self.snd_nxt = end;
        }
        self.snd_max = self.snd_max.max(end);
        // RFC 6298 section 5.1: start the timer if it is not running.
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rtt.rto());
        }
        if self.probe_due {
            self.probe_due = false;
            self.stats.window_probes += 1;
        }
        self.persist_at = None;
    }

    fn fill_ack(&mut self, h: &mut TcpHeader) {
        h.ack = self.rcv.rcv_nxt();
        let win = self.window_to_offer();
        let syn = h.flags.has(TcpFlags::SYN);
        // Scaled, the window is rounded up to the next multiple of 2^shift, so that the
        // right edge already offered is never truncated back (RFC 7323 section 2.4).
        let granule = (1u64 << self.rcv_shift) - 1;
        h.window =
            if syn { win.min(0xffff) as u16 } else { ((win + granule) >> self.rcv_shift).min(0xffff) as u16 };
        let offered = if syn { u64::from(h.window) } else { u64::from(h.window) << self.rcv_shift };
        self.advertised_edge = self.advertised_edge.max(self.rcv.rcv_nxt() + offered);
        if self.sack_ok && self.rcv.has_holes() {
            h.sack_len = self.rcv.sack_blocks(&mut h.sack, MAX_SACK_BLOCKS);
        }
        self.ack_due = AckDue::None;
        self.unacked_bytes = 0;
    }

    // Inlined so that a connection without series pays one branch.
    #[inline]
    fn record(&mut self, now: SimTime) {
        let Some(s) = self.series.as_deref_mut() else { return };
        let max = s.limits;
        s.cwnd.push(max, now, self.cc.cwnd());
        s.ssthresh.push(max, now, self.cc.ssthresh());
        s.srtt.push(max, now, self.rtt.srtt().map_or(0, |d| d.0));
        s.rto.push(max, now, self.rtt.rto().0);
        s.flight.push(max, now, self.snd_max - self.snd_una);
    }
}

impl AckDue {
    fn is_at_or_before(self, now: SimTime) -> bool {
        matches!(self, AckDue::At(t) if t <= now)
    }
}

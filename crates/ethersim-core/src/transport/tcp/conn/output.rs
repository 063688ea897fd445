//! What a connection sends: the plan (RST, handshake, data within the windows,
//! recovery's retransmissions, probes, ACKs), and sending it.

use crate::time::SimTime;
use crate::wire::tcp::MAX_SACK_BLOCKS;
use crate::wire::{TcpFlags, TcpHeader};

use super::{AckDue, Connection, Plan, Segment, State};
use crate::transport::tcp::cc::CongestionControl;
use crate::transport::tcp::config::TcpConfig;

impl<C: CongestionControl> Connection<C> {
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
    pub(super) fn set_snd_wnd(&mut self, window: u64) {
        self.snd_wnd = window;
        self.send_wnd = window.min(self.window_cap);
    }

    /// `window_limit` segments of `smss` bytes, or `u64::MAX` for no limit.
    pub(super) fn window_cap(cfg: &TcpConfig, smss: u64) -> u64 {
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
    pub(super) fn count_limited_transmits(&mut self) -> u64 {
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
    pub(super) fn limited_transmit_allowance(&self) -> u64 {
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
        let mut seg = Segment::default();
        self.dispatch_into(now, plan, &mut seg);
        seg
    }

    /// [`Connection::dispatch`], building the segment in `seg`: an endpoint that keeps
    /// the segment it sent last rewrites it in place, where a segment returned would be
    /// copied on every segment's path (a header is 88 bytes).
    pub fn dispatch_into(&mut self, now: SimTime, plan: Plan, seg: &mut Segment) {
        let header = &mut seg.header;
        *header = TcpHeader { flags: TcpFlags::ACK, ..TcpHeader::default() };
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
            self.fill_ack(header);
        }
        seg.seq = seq;
        seg.len = len;
        self.stats.segments_sent += 1;
        self.record(now);
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
    pub(super) fn record(&mut self, now: SimTime) {
        let Some(s) = self.series.as_deref_mut() else { return };
        let max = s.limits;
        s.cwnd.push(max, now, self.cc.cwnd());
        s.ssthresh.push(max, now, self.cc.ssthresh());
        s.srtt.push(max, now, self.rtt.srtt().map_or(0, |d| d.0));
        s.rto.push(max, now, self.rtt.rto().0);
        s.flight.push(max, now, self.snd_max - self.snd_una);
    }
}

//! A segment from the peer arrived: the handshake, acknowledgements (new, duplicate,
//! partial), RTT samples, data into reassembly, the window to offer.

use crate::time::{Duration, SimTime};
use crate::wire::TcpFlags;

use super::{AckDue, Arriving, Connection, State, DEFAULT_PEER_MSS};
use crate::transport::tcp::cc::CongestionControl;
use crate::transport::tcp::reassembly::Reassembly;
use crate::transport::tcp::rtt::RttEstimator;

impl<C: CongestionControl> Connection<C> {
    /// A segment from the peer arrived at `now`.
    pub fn on_segment(&mut self, now: SimTime, seg: Arriving<'_>) {
        let seg = &seg;
        self.stats.segments_received += 1;
        let h = seg.header;
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

    fn accept_syn(&mut self, seg: &Arriving<'_>) {
        let h = seg.header;
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

    fn handshake_acked(&mut self, now: SimTime, seg: &Arriving<'_>) {
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

    fn scaled_window(&self, seg: &Arriving<'_>) -> u64 {
        if seg.header.flags.has(TcpFlags::SYN) {
            u64::from(seg.header.window)
        } else {
            u64::from(seg.header.window) << self.snd_shift
        }
    }

    fn process_ack(&mut self, now: SimTime, seg: &Arriving<'_>) {
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

    fn process_data(&mut self, now: SimTime, seg: &Arriving<'_>) {
        let receiving =
            matches!(self.state, State::Established | State::FinWait1 | State::FinWait2 | State::SynReceived);
        let h = seg.header;
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
    pub(super) fn rcv_mss(&self) -> u64 {
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
    pub(super) fn window_to_offer(&self) -> u64 {
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
    pub(super) fn update_persist(&mut self, now: SimTime) {
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
}

//! Conformance tests: two connection ends joined by a scripted wire (a fixed one-way
//! delay, segments dropped on request), each rule checked against the clause that
//! states it.

use std::collections::VecDeque;

use super::*;
use crate::time::{Duration, SimTime};
use crate::wire::TcpFlags;

const MSS: u64 = 1000;

fn cfg() -> TcpConfig {
    TcpConfig { mss: MSS as u32, rto_min: Duration::from_ms(200), ..TcpConfig::default() }
}

/// What the client's state looked like after one input.
#[derive(Clone, Copy, Debug)]
struct Snap {
    at: SimTime,
    in_recovery: bool,
    cwnd: u64,
    ssthresh: u64,
    flight: u64,
    timeouts: u64,
    /// The client's oldest unacknowledged byte.
    una: u64,
}

/// A client sending `file` bytes to a server over a wire of one-way delay `delay`.
struct Pair {
    client: Connection,
    server: Connection,
    now: SimTime,
    delay: Duration,
    wire: VecDeque<(SimTime, bool, Segment)>,
    /// Data segments from the client to drop, by their ordinal among data segments sent
    /// (from 1), retransmissions included.
    drop_data: Vec<u64>,
    data_sent: u64,
    /// Segments from the server to drop, by their ordinal among all it sent (from 1).
    drop_server: Vec<u64>,
    server_sent: u64,
    /// Lose every segment, either way, with this probability (drawn from the stream).
    random_loss: Option<(crate::engine::rng::Stream, f64)>,
    /// Every segment sent: (instant, from client, segment, dropped).
    log: Vec<(SimTime, bool, Segment, bool)>,
    snaps: Vec<Snap>,
    /// Every segment delivered to the client, with the range of `log` it answered with
    /// (what the client sent in response to that one input).
    client_inputs: Vec<(Segment, std::ops::Range<usize>)>,
    file: u64,
    written: u64,
    server_reads: bool,
}

impl Pair {
    fn new(client: TcpConfig, server: TcpConfig, file: u64, delay: Duration) -> Self {
        Pair {
            client: Connection::connect(client),
            server: Connection::listen(server),
            now: SimTime::ZERO,
            delay,
            wire: VecDeque::new(),
            drop_data: Vec::new(),
            data_sent: 0,
            drop_server: Vec::new(),
            server_sent: 0,
            random_loss: None,
            log: Vec::new(),
            snaps: Vec::new(),
            client_inputs: Vec::new(),
            file,
            written: 0,
            server_reads: true,
        }
    }

    fn snap(&mut self) {
        let c = &self.client;
        self.snaps.push(Snap {
            at: self.now,
            in_recovery: c.in_recovery(),
            cwnd: c.cc().cwnd(),
            ssthresh: c.cc().ssthresh(),
            flight: c.flight_size(),
            timeouts: c.stats().timeouts,
            una: c.snd_una(),
        });
    }

    fn emit(&mut self) {
        for from_client in [true, false] {
            let now = self.now;
            if from_client {
                if self.client.is_established() {
                    let n = (self.file - self.written).min(self.client.send_space());
                    self.client.write(n);
                    self.written += n;
                    if self.written == self.file && !self.client.is_closing() {
                        self.client.close();
                    }
                }
            } else if self.server_reads {
                let n = self.server.readable();
                self.server.read(n);
                if self.server.peer_closed() && !self.server.is_closing() {
                    self.server.close();
                }
            }
            let end = if from_client { &mut self.client } else { &mut self.server };
            end.on_timer(now);
            while let Some(plan) = end.plan(now) {
                let seg = end.dispatch(now, plan);
                let mut dropped = false;
                if from_client && seg.len > 0 {
                    self.data_sent += 1;
                    if let Some(i) = self.drop_data.iter().position(|&n| n == self.data_sent) {
                        self.drop_data.remove(i);
                        dropped = true;
                    }
                }
                if !from_client {
                    self.server_sent += 1;
                    if let Some(i) = self.drop_server.iter().position(|&n| n == self.server_sent) {
                        self.drop_server.remove(i);
                        dropped = true;
                    }
                }
                if let Some((rng, p)) = self.random_loss.as_mut() {
                    use rand::Rng;
                    dropped |= rng.random::<f64>() < *p;
                }
                self.log.push((now, from_client, seg, dropped));
                if !dropped {
                    self.wire.push_back((now + self.delay, from_client, seg));
                }
            }
        }
    }

    /// Runs until nothing is left to do or `until`.
    fn run(&mut self, until: SimTime) {
        loop {
            self.emit();
            self.snap();
            let next_wire = self.wire.iter().map(|w| w.0).min();
            let next_timer = [self.client.poll_at(), self.server.poll_at()].into_iter().flatten().min();
            let Some(next) = [next_wire, next_timer].into_iter().flatten().min() else { return };
            if next > until {
                return;
            }
            self.now = next;
            // Deliver, in order, everything arriving now.
            while let Some(i) = self.wire.iter().position(|w| w.0 <= self.now) {
                let (_, to_server, seg) = self.wire.remove(i).expect("present");
                if to_server {
                    self.server.on_segment(self.now, seg.arriving());
                } else {
                    self.client.on_segment(self.now, seg.arriving());
                }
                self.snap();
                let before = self.log.len();
                self.emit();
                if !to_server {
                    self.client_inputs.push((seg, before..self.log.len()));
                }
                self.snap();
            }
        }
    }

    fn client_data(&self) -> impl Iterator<Item = &(SimTime, bool, Segment, bool)> {
        self.log.iter().filter(|l| l.1 && l.2.len > 0)
    }
}

fn ms(v: u64) -> Duration {
    Duration::from_ms(v)
}

#[test]
fn a_transfer_opens_with_three_segments_and_closes_both_ways() {
    let mut p = Pair::new(cfg(), cfg(), 10_000, ms(10));
    p.run(SimTime::END);
    // RFC 9293 3.5: SYN, SYN-ACK, ACK (here the ACK rides on the first data).
    let first: Vec<_> = p.log.iter().take(2).map(|l| (l.1, l.2.header.flags)).collect();
    assert_eq!(first, vec![(true, TcpFlags::SYN), (false, TcpFlags::SYN.with(TcpFlags::ACK))]);
    assert_eq!(p.log[2].2.header.ack, 1);
    assert!(p.log[2].2.header.flags.has(TcpFlags::ACK));
    assert_eq!(p.server.read_total(), 10_000);
    assert_eq!((p.client.state(), p.server.state()), (State::TimeWait, State::Closed));
    assert!(!p.client.has_unfinished_output() && !p.server.has_unfinished_output());
    assert_eq!(p.client.stats().retransmissions, 0);
    // The handshake measured the RTT: 20 ms.
    assert_eq!(p.client.rtt().srtt().map(|d| d.0 / 1_000_000_000), Some(20));
}

#[test]
fn the_handshake_negotiates_mss_and_window_scaling() {
    let small = TcpConfig { mss: 536, receive_buffer: 1 << 20, ..cfg() };
    let mut p = Pair::new(cfg(), small, 50_000, ms(1));
    p.run(SimTime::END);
    assert_eq!(p.client.smss(), 536, "the smaller MSS wins (RFC 9293 3.7.1)");
    let syn_ack = p.log[1].2.header;
    assert_eq!(syn_ack.window_shift, Some(5), "1 MiB needs a shift of 5");
    assert_eq!(syn_ack.window, 0xffff, "a SYN's window is never scaled (RFC 7323 2.2)");
    let max_wnd = p
        .log
        .iter()
        .filter(|l| !l.1 && !l.2.header.flags.has(TcpFlags::SYN))
        .map(|l| u64::from(l.2.header.window) << 5)
        .max();
    assert!(max_wnd.unwrap() > 1_000_000, "windows above 64 KiB are offered: {max_wnd:?}");
    assert!(p.client_data().all(|l| l.2.len <= 536));
    let unscaled = TcpConfig { window_scaling: false, ..cfg() };
    let mut q = Pair::new(cfg(), unscaled, 1000, ms(1));
    q.run(SimTime::END);
    assert_eq!(q.log[1].2.header.window_shift, None, "no scaling unless both offer it");
    assert_eq!(q.log[0].2.header.window_shift, Some(7));
}

#[test]
fn one_loss_is_repaired_by_fast_retransmit_without_a_timeout() {
    let mut p = Pair::new(cfg(), cfg(), 100_000, ms(10));
    p.drop_data = vec![20];
    p.run(SimTime::END);
    let s = p.client.stats();
    assert_eq!((s.fast_retransmits, s.timeouts, s.retransmissions), (1, 0, 1));
    assert!(s.dup_acks >= 3);
    // RFC 5681 3.2: ssthresh = max(FlightSize/2, 2·SMSS) on entry; cwnd = ssthresh + 3·SMSS.
    let i = p.snaps.iter().position(|s| s.in_recovery).expect("recovery entered");
    let (before, entry) = (p.snaps[i - 1], p.snaps[i]);
    // Limited Transmit's segments (RFC 3042) are left out of FlightSize (step 2).
    let limited = p.client.stats().limited_transmits * MSS;
    assert_eq!(entry.ssthresh, ((before.flight - limited) / 2).max(2 * MSS));
    // The retransmission went out at once, at the first unacknowledged byte.
    let lost = p.client_data().find(|l| l.3).expect("a drop").2.seq;
    let again: Vec<_> = p.client_data().filter(|l| l.2.seq == lost).collect();
    assert_eq!(again.len(), 2);
    assert_eq!(again[1].0, entry.at, "fast retransmit on the third duplicate ACK");
    // RFC 6582 3.2 step 3 (option 1): on the full ACK, cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS).
    let j = i + p.snaps[i..].iter().position(|s| !s.in_recovery).expect("recovery ended");
    let exit = p.snaps[j];
    assert_eq!(exit.cwnd, entry.ssthresh.min(exit.flight.max(MSS) + MSS));
    assert_eq!(p.server.read_total(), 100_000);
}

#[test]
fn several_losses_in_one_window_take_one_retransmission_per_partial_ack() {
    let mut p = Pair::new(cfg(), cfg(), 200_000, ms(10));
    p.drop_data = vec![30, 33, 36];
    p.run(SimTime::END);
    let s = p.client.stats();
    assert_eq!(s.fast_retransmits, 1, "one recovery for the window (RFC 6582)");
    assert_eq!(s.timeouts, 0);
    assert_eq!(s.partial_acks, 2, "each of the later holes is revealed by a partial ACK");
    assert_eq!(s.retransmissions, 3, "one retransmission per loss");
    // Each retransmission after the first follows a partial ACK by no time at all.
    let lost: Vec<u64> = p.client_data().filter(|l| l.3).map(|l| l.2.seq).collect();
    for seq in &lost {
        assert_eq!(p.client_data().filter(|l| l.2.seq == *seq).count(), 2, "seq {seq} resent once");
    }
    assert_eq!(p.server.read_total(), 200_000);
}

#[test]
fn a_timeout_sets_the_loss_window_and_backs_off_under_karns_rule() {
    // Lose the last segment and its first retransmission: no duplicate ACKs can come.
    let mut p = Pair::new(cfg(), cfg(), 10_000, ms(10));
    p.drop_data = vec![10, 11];
    p.run(SimTime::END);
    let s = *p.client.stats();
    assert_eq!((s.timeouts, s.fast_retransmits), (2, 0));
    let t: Vec<_> =
        p.snaps.windows(2).filter(|w| w[1].timeouts > w[0].timeouts).map(|w| (w[0], w[1])).collect();
    let (before, after) = t[0];
    // RFC 5681 3.1 (4): ssthresh = max(FlightSize/2, 2·SMSS); cwnd = LW = 1 SMSS.
    assert_eq!(after.ssthresh, (before.flight / 2).max(2 * MSS));
    assert_eq!(after.cwnd, MSS);
    // The second expiry of the same segment holds ssthresh and doubles the timeout.
    let (_, after2) = t[1];
    assert_eq!(after2.ssthresh, after.ssthresh);
    let sends: Vec<SimTime> = p.client_data().filter(|l| l.2.seq == 9001).map(|l| l.0).collect();
    assert_eq!(sends.len(), 3);
    let (gap1, gap2) = (sends[1] - sends[0], sends[2] - sends[1]);
    let base = p.client.rtt().base_rto();
    assert!(gap1 >= base, "the first expiry comes an RTO after the timer's last restart");
    assert_eq!(gap2.0, 2 * base.0, "RFC 6298 5.5: the RTO doubles");
    // Karn: the ACK of the retransmission gives no sample; only the handshake and the
    // first flights were timed.
    assert_eq!(p.server.read_total(), 10_000);
    assert!(p.client.rtt().backoff() > 0, "no valid sample since the back-off");
}

#[test]
fn delayed_acks_go_every_second_full_segment_or_at_the_timeout() {
    // A single full segment waits for the 200 ms timer (RFC 5681 4.2, RFC 1122 4.2.3.2).
    let mut c = established_server(cfg());
    let ack = data;
    assert_eq!(c.state(), State::Established);
    c.on_segment(SimTime(20), ack(1, 1000).arriving());
    assert_eq!(c.plan(SimTime(20)), None, "the first full segment is not acknowledged at once");
    assert_eq!(c.delayed_ack_deadline(), Some(SimTime(20) + ms(200)));
    c.on_segment(SimTime(30), ack(1001, 1000).arriving());
    assert_eq!(c.plan(SimTime(30)), Some(Plan::Ack), "the second is");
    let a = c.dispatch(SimTime(30), Plan::Ack);
    assert_eq!(a.header.ack, 2001);
    c.on_segment(SimTime(40), ack(2001, 1000).arriving());
    c.on_timer(SimTime(40) + ms(200));
    assert_eq!(c.plan(SimTime(40) + ms(200)), Some(Plan::Ack), "the timer sends it");
    c.dispatch(SimTime(40) + ms(200), Plan::Ack);
    // Out of order: an immediate duplicate ACK.
    c.on_segment(SimTime(50) + ms(200), ack(4001, 1000).arriving());
    assert_eq!(c.plan(SimTime(50) + ms(200)), Some(Plan::Ack));
    assert_eq!(c.dispatch(SimTime(50) + ms(200), Plan::Ack).header.ack, 3001);
}

#[test]
fn the_receive_window_limits_the_sender_and_a_zero_window_is_probed() {
    let small = TcpConfig { receive_buffer: 4 * MSS, window_scaling: false, ..cfg() };
    let mut p = Pair::new(cfg(), small, 20_000, ms(10));
    p.server_reads = false;
    p.run(SimTime::ZERO + ms(500));
    // The sender stops at the 4000 B the receiver offers.
    let sent: u64 = p.client_data().map(|l| u64::from(l.2.len)).sum();
    assert_eq!(sent, 4 * MSS);
    assert_eq!(p.client.snd_wnd(), 0);
    // RFC 9293 3.8.6.1: the persist timer probes the zero window.
    assert!(p.client.stats().window_probes >= 1);
    assert!(p.client.persist_deadline().is_some());
    assert_eq!(p.client.stats().timeouts, 0, "a zero window is not a loss");
    // The application reads: the window reopens and the transfer completes.
    p.server_reads = true;
    p.run(SimTime::END);
    assert_eq!(p.server.read_total(), 20_000);
    assert_eq!(p.client.state(), State::TimeWait);
}

#[test]
fn with_sack_several_losses_recover_without_a_timeout_and_resend_only_the_holes() {
    let sack = TcpConfig { sack: true, ..cfg() };
    let mut p = Pair::new(sack, sack, 200_000, ms(10));
    p.drop_data = vec![30, 33, 36, 39];
    p.run(SimTime::END);
    assert!(p.client.sack_enabled());
    let s = p.client.stats();
    assert_eq!((s.fast_retransmits, s.timeouts), (1, 0));
    assert_eq!(s.retransmissions, 4, "only the lost segments are resent");
    assert_eq!(p.server.read_total(), 200_000);
    // The receiver reported the holes: some ACK carried SACK blocks.
    assert!(p.log.iter().any(|l| !l.1 && l.2.header.sack_len > 0));
}

#[test]
fn a_lost_syn_is_retransmitted_after_the_initial_timeout() {
    let mut p = Pair::new(cfg(), cfg(), 1000, ms(10));
    // Drop the first SYN by dropping everything until 1 ms, via the wire.
    p.emit();
    p.wire.clear();
    p.run(SimTime::END);
    let syns: Vec<SimTime> =
        p.log.iter().filter(|l| l.1 && l.2.header.flags.has(TcpFlags::SYN)).map(|l| l.0).collect();
    assert_eq!(syns.len(), 2, "{syns:?}");
    assert_eq!(syns[1], SimTime::ZERO + Duration::from_secs(1), "RFC 6298 2.1: initial RTO of 1 s");
    assert_eq!(p.server.read_total(), 1000);
}

/// A server end past the handshake, as `delayed_acks_go_every_second_full_segment_or_at_the_timeout` builds it.
fn established_server(c: TcpConfig) -> Connection {
    let mut s = Connection::listen(c);
    let syn = Segment {
        seq: 0,
        len: 0,
        header: crate::wire::TcpHeader {
            flags: TcpFlags::SYN,
            mss: 1000,
            window: 65535,
            ..Default::default()
        },
    };
    s.on_segment(SimTime::ZERO, syn.arriving());
    let plan = s.plan(SimTime::ZERO).unwrap();
    s.dispatch(SimTime::ZERO, plan);
    s.on_segment(SimTime(1), data(1, 0).arriving());
    s
}

fn data(seq: u64, len: u32) -> Segment {
    Segment {
        seq,
        len,
        header: crate::wire::TcpHeader { flags: TcpFlags::ACK, ack: 1, window: 65535, ..Default::default() },
    }
}

#[test]
fn a_slow_reader_offers_a_closed_window_or_a_useful_one_never_a_sliver() {
    // Receive buffer 4000 B, MSS 1000: the edge moves only by at least 1000 B
    // (RFC 9293 3.8.6.2.2, min(buffer/2, MSS)).
    let mut s = established_server(TcpConfig { receive_buffer: 4000, window_scaling: false, ..cfg() });
    for k in 0..4 {
        s.on_segment(SimTime(10 + k), data(1 + 1000 * k, 1000).arriving());
    }
    let ack = s.dispatch(SimTime(20), s.plan(SimTime(20)).unwrap());
    assert_eq!((ack.header.ack, ack.header.window), (4001, 0), "the buffer is full");
    assert_eq!(s.read(400), 400);
    assert_eq!(s.plan(SimTime(30)), None, "400 B free is not worth announcing");
    assert_eq!(s.read(600), 600);
    assert_eq!(s.plan(SimTime(40)), Some(Plan::Ack), "1000 B free reopens the window at once");
    assert_eq!(s.dispatch(SimTime(40), Plan::Ack).header.window, 1000);
}

/// Data bytes the client sent at exactly instant `t`.
fn sent_at(p: &Pair, t: SimTime) -> u64 {
    p.client_data().filter(|l| l.0 == t).map(|l| u64::from(l.2.len)).sum()
}

#[test]
fn the_initial_window_follows_the_negotiated_mss() {
    // RFC 6928 with SMSS = 536 (the server's MSS option): 10 · 536 B.
    let small = TcpConfig { mss: 536, ..cfg() };
    let mut p = Pair::new(cfg(), small, 100_000, ms(10));
    p.run(SimTime::ZERO + ms(25));
    assert_eq!(p.client.smss(), 536);
    assert_eq!(sent_at(&p, SimTime::ZERO + ms(20)), 10 * 536);
}

#[test]
fn delayed_acks_count_segments_of_the_negotiated_mss() {
    // The sender's segments are 536 B; the receiver's own MSS setting is larger.
    let small = TcpConfig { mss: 536, ..cfg() };
    let mut p = Pair::new(small, cfg(), 536 * 200, ms(10));
    p.run(SimTime::END);
    let data = p.client_data().count();
    let acks = p.log.iter().filter(|l| !l.1 && l.2.len == 0).count();
    // RFC 5681 4.2: at least every second full-sized segment (a few more at the edges).
    assert!(acks * 2 + 4 >= data, "{acks} pure ACKs for {data} data segments");
}

#[test]
fn the_syn_carries_the_receive_window_unscaled() {
    let mut p = Pair::new(cfg(), cfg(), 1000, ms(10));
    p.run(SimTime::END);
    let syn = p.log[0].2.header;
    assert!(syn.flags.has(TcpFlags::SYN));
    assert_eq!(syn.window, 0xffff, "6 MiB offered, capped to the unscaled field (RFC 7323 2.2)");
}

#[test]
fn karn_applies_to_a_syn_ack_sent_again_for_a_duplicate_syn() {
    // The first SYN-ACK is lost; the client's SYN timer (500 ms) fires before the
    // server's (1 s), and the server answers the duplicate SYN with a second SYN-ACK.
    let c = TcpConfig { rto_initial: ms(500), ..cfg() };
    let mut p = Pair::new(c, cfg(), 1000, ms(10));
    p.drop_server = vec![1];
    p.run(SimTime::END);
    assert_eq!(p.server.read_total(), 1000);
    // The ACK answers the second SYN-ACK, not the first: no sample may come from it.
    let srtt = p.server.rtt().srtt();
    assert!(srtt.is_none_or(|s| s < ms(100)), "server SRTT {srtt:?} from an ambiguous sample");
}

#[test]
fn sack_recovery_near_the_end_of_the_data_resends_the_hole_and_one_rescue() {
    // With no new data left, RFC 6675 resends the hole (rule 1) and, once per recovery,
    // the segment holding the highest unSACKed byte (rule 4's rescue); nothing SACKed
    // and nothing else.
    let sack = TcpConfig { sack: true, ..cfg() };
    let mut p = Pair::new(sack, sack, 40_000, ms(10));
    p.drop_data = vec![28];
    p.run(SimTime::END);
    assert_eq!(p.server.read_total(), 40_000);
    let data: Vec<&Segment> = p.client_data().map(|l| &l.2).collect();
    let resent: Vec<u64> = data
        .iter()
        .enumerate()
        .filter(|(i, seg)| {
            data[..*i]
                .iter()
                .any(|earlier| earlier.seq <= seg.seq && seg.seq < earlier.seq + u64::from(earlier.len))
        })
        .map(|(_, seg)| seg.seq)
        .collect();
    assert_eq!(resent[0], 27_001, "the hole first");
    assert!(resent.len() <= 2, "{resent:?}");
    if let Some(&rescue) = resent.get(1) {
        assert!(rescue + 1000 >= 40_001, "a rescue holds the highest unSACKed byte: {rescue}");
    }
    assert_eq!(p.client.stats().retransmissions, resent.len() as u64);
}

#[test]
fn a_receive_buffer_below_one_segment_does_not_stall() {
    let tiny = TcpConfig { receive_buffer: 500, ..cfg() };
    let mut p = Pair::new(cfg(), tiny, 5000, ms(10));
    p.run(SimTime::ZERO + Duration::from_secs(600));
    assert_eq!(p.server.read_total(), 5000);
}

#[test]
fn a_lost_window_update_is_made_up_by_the_persist_timer() {
    let small = TcpConfig { receive_buffer: 4500, window_scaling: false, ..cfg() };
    let mut p = Pair::new(cfg(), small, 20_000, ms(10));
    p.server_reads = false;
    p.run(SimTime::ZERO + ms(500));
    // The application reads; the window update that follows is lost.
    p.drop_server = vec![p.server_sent + 1];
    p.server_reads = true;
    p.run(SimTime::ZERO + Duration::from_secs(600));
    assert_eq!(p.server.read_total(), 20_000);
    assert!(p.client.stats().window_probes >= 1);
}

#[test]
fn a_small_segment_whose_acks_are_lost_is_retransmitted_whatever_the_window() {
    // 4500 B of buffer, MSS 1000, the reader stopped: 4000 B fill the window, the
    // persist timer sends the 500 B that fit, and its ACKs are lost. The timeout must
    // resend it although the window it knows has no room (RFC 6298 5.4).
    let small = TcpConfig { receive_buffer: 4500, window_scaling: false, ..cfg() };
    let mut p = Pair::new(cfg(), small, 20_000, ms(10));
    p.server_reads = false;
    let mut t = SimTime::ZERO;
    while !p.client_data().any(|l| l.2.len < 1000) {
        t += ms(1);
        p.run(t);
    }
    p.server_reads = true;
    p.drop_server = vec![p.server_sent + 1, p.server_sent + 2];
    p.run(SimTime::ZERO + Duration::from_secs(3000));
    assert_eq!(p.server.read_total(), 20_000);
    assert!(!p.client.aborted());
}

#[test]
fn a_closed_window_never_gives_the_connection_up_while_the_peer_answers() {
    // The reader stops for good: the sender probes for ever (RFC 1122 4.2.2.17), and
    // 40 minutes later the connection is still open.
    let small = TcpConfig { receive_buffer: 4000, window_scaling: false, ..cfg() };
    let mut p = Pair::new(cfg(), small, 20_000, ms(10));
    p.server_reads = false;
    p.run(SimTime::ZERO + Duration::from_secs(2400));
    assert!(!p.client.aborted() && p.client.state() == State::Established);
    assert!(p.client.stats().window_probes > 15, "{}", p.client.stats().window_probes);
}

#[test]
fn the_offered_right_edge_never_moves_back_with_scaling() {
    let mut p = Pair::new(cfg(), cfg(), 100_000, ms(10));
    p.drop_data = vec![20];
    p.run(SimTime::END);
    let shift = cfg().window_shift().unwrap();
    let mut max_edge = 0;
    for l in p.log.iter().filter(|l| !l.1 && !l.2.header.flags.has(TcpFlags::SYN)) {
        let edge = l.2.header.ack + (u64::from(l.2.header.window) << shift);
        assert!(edge >= max_edge, "edge {edge} after {max_edge}");
        max_edge = edge;
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 96, ..Default::default() })]

    /// Whatever is lost, either way (SYNs, data, ACKs, FINs), every connection
    /// delivers its file and closes both ways; none is stuck and none gives up.
    #[test]
    fn every_connection_completes_under_random_loss_both_ways(
        seed in 0u64..1_000_000,
        loss in 0.0f64..0.12,
        variant in 0usize..5,
        slow_reader in proptest::bool::ANY,
    ) {
        let (client, server) = match variant {
            0 => (cfg(), cfg()),
            1 => (TcpConfig { sack: true, ..cfg() }, TcpConfig { sack: true, ..cfg() }),
            2 => (cfg(), TcpConfig { receive_buffer: 6500, ..cfg() }),
            3 => (cfg(), TcpConfig { receive_buffer: 12_345, window_scaling: false, ..cfg() }),
            _ => (TcpConfig { delayed_ack: false, ..cfg() }, TcpConfig { sack: true, mss: 536, ..cfg() }),
        };
        let mut p = Pair::new(client, server, 100_001, ms(5));
        p.random_loss = Some((crate::engine::rng::stream(seed, "loss"), loss));
        if slow_reader {
            // The reader reads only every 400 ms.
            let mut t = SimTime::ZERO;
            while p.server.read_total() < 100_001 && t < SimTime::ZERO + Duration::from_secs(3000) {
                p.server_reads = false;
                t += ms(400);
                p.run(t);
                p.server_reads = true;
                p.run(t);
            }
        }
        p.run(SimTime::ZERO + Duration::from_secs(20_000));
        proptest::prop_assert!(!p.client.aborted() && !p.server.aborted(), "gave up");
        proptest::prop_assert_eq!(p.server.read_total(), 100_001);
        proptest::prop_assert_eq!(p.client.state(), State::TimeWait);
        proptest::prop_assert_eq!(p.server.state(), State::Closed);
    }
}

/// What the client sent in answer to each duplicate ACK of `ack` (the ACKs after the
/// first that carry it): its data segments as (seq, len), and its state after each.
fn answers_to_duplicates(p: &Pair, ack: u64) -> Vec<Vec<(u64, u32)>> {
    p.client_inputs
        .iter()
        .filter(|(seg, _)| seg.len == 0 && seg.header.ack == ack)
        .skip(1)
        .map(|(_, range)| {
            p.log[range.clone()].iter().filter(|l| l.1 && l.2.len > 0).map(|l| (l.2.seq, l.2.len)).collect()
        })
        .collect()
}

/// A window of four segments whose second is lost, ACKed one for one (no delayed ACKs,
/// so each arriving segment brings exactly one ACK).
fn small_window_loss(limited_transmit: bool) -> Pair {
    let c = TcpConfig { initial_window: 4, delayed_ack: false, limited_transmit, ..cfg() };
    let mut p = Pair::new(c, c, 30_000, ms(10));
    p.drop_data = vec![2];
    p.run(SimTime::END);
    p
}

#[test]
fn limited_transmit_sends_one_new_segment_on_each_of_the_first_two_duplicate_acks() {
    let p = small_window_loss(true);
    let lost = 1 + MSS;
    let answers = answers_to_duplicates(&p, lost);
    // The new ACK of the first segment opened slow start to 5 segments: 4001 and 5001
    // went out then, so the highest byte sent before the duplicates is 6001.
    // RFC 3042 section 2: one segment of previously unsent data per duplicate ACK...
    assert_eq!(answers[0], vec![(6001, MSS as u32)]);
    assert_eq!(answers[1], vec![(7001, MSS as u32)]);
    // ...and on the third, no new data: the fast retransmit of the lost segment.
    assert_eq!(answers[2], vec![(lost, MSS as u32)]);
    // cwnd is unchanged by the first two (5 segments after the one new ACK) and
    // recovery starts on the third, with the two Limited Transmit segments left out of
    // FlightSize (RFC 5681 section 3.2 step 2): 7 outstanding, 5 counted.
    let entry = p.snaps.iter().find(|s| s.in_recovery).expect("recovery");
    let before = p.snaps.iter().rev().find(|s| s.at <= entry.at && !s.in_recovery).unwrap();
    assert_eq!(before.cwnd, 5 * MSS);
    assert_eq!(entry.ssthresh, (5 * MSS / 2).max(2 * MSS));
    let s = p.client.stats();
    assert_eq!((s.limited_transmits, s.fast_retransmits, s.timeouts), (2, 1, 0));
    assert_eq!(p.server.read_total(), 30_000);
}

#[test]
fn without_limited_transmit_the_first_two_duplicate_acks_send_nothing() {
    let p = small_window_loss(false);
    let answers = answers_to_duplicates(&p, 1 + MSS);
    assert_eq!(answers[..2], [vec![], vec![]]);
    assert_eq!(answers[2], vec![(1 + MSS, MSS as u32)], "fast retransmit on the third");
    let s = p.client.stats();
    assert_eq!((s.limited_transmits, s.fast_retransmits), (0, 1));
}

#[test]
fn limited_transmit_turns_a_timeout_into_a_fast_retransmit_in_a_window_of_three() {
    // A window of three segments, the first lost: without Limited Transmit only two
    // duplicate ACKs can come and the loss waits out the timer; with it, the two new
    // segments bring the third duplicate ACK (RFC 3042 section 1).
    let run = |lt: bool| {
        let c = TcpConfig { initial_window: 3, delayed_ack: false, limited_transmit: lt, ..cfg() };
        let mut p = Pair::new(c, c, 3 * MSS + 2 * MSS, ms(10));
        p.drop_data = vec![1];
        p.run(SimTime::END);
        assert_eq!(p.server.read_total(), 5 * MSS);
        let s = *p.client.stats();
        (s.fast_retransmits, s.timeouts)
    };
    assert_eq!(run(false), (0, 1));
    assert_eq!(run(true), (1, 0));
}

#[test]
fn limited_transmit_respects_the_receivers_window() {
    // RFC 3042 condition (a): the receiver offers exactly the four segments in flight.
    let c = TcpConfig { initial_window: 4, delayed_ack: false, ..cfg() };
    let small = TcpConfig { receive_buffer: 4 * MSS, window_scaling: false, ..c };
    let mut p = Pair::new(c, small, 30_000, ms(10));
    p.drop_data = vec![1];
    p.run(SimTime::END);
    assert_eq!(p.client.stats().limited_transmits, 0);
    assert_eq!(p.server.read_total(), 30_000);
}

mod cubic;

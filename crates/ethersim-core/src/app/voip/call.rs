//! A two-way voice call: each end talks (on/off, [`TalkSpurts`]) and listens. While its
//! talker is in a spurt an end sends one RTP packet over UDP every codec interval (12 B
//! of RTP header before the codec's payload); in a silence it sends nothing (voice
//! activity detection). The caller (the application's `from` end) starts with a spurt,
//! the callee with a silence, so the two do not start by talking over each other.
//!
//! Voice cannot wait: a packet due while the host has no free transmit buffer is not
//! sent (counted as a sender drop) and its sequence number is skipped, so the listener
//! counts it lost as one lost on the way. A packet carries the instant its talk spurt
//! began (RTP's marker bit and timestamp give a receiver the same), which the playout
//! buffer plans each spurt by ([`PlayoutBuffer`]).
//!
//! The listener measures, for the voice it hears:
//! - the one-way network delay of every packet (sent to delivered);
//! - RFC 3550's interarrival jitter ([`InterarrivalJitter`]);
//! - losses in the network (sequence numbers never received, counted up to the highest
//!   received: a loss at the very end of a call goes unseen, as in RTCP) and late losses
//!   (packets the playout buffer could not play; a packet older than one already
//!   received is counted late);
//! - the burst ratio of the losses (G.107 clause 7.5: the mean observed run of lost
//!   packets over the mean run random loss at the same rate would give, `1/(1 − p)`);
//! - the mouth-to-ear delay of every played packet: playout instant less send instant,
//!   plus the codec's encoder delay;
//!
//! and rates what it heard with the E-model ([`EModel::for_call`]): the mean
//! mouth-to-ear delay, the codec's `Ie` and `Bpl`, and the loss percentage (network and
//! late) with its burst ratio.

use crate::engine::rng::Stream;
use crate::stats::DelayStats;
use crate::time::SimTime;
use crate::wire::{Packet, PacketKind, Protocol, Role};

use super::{
    mos, satisfaction, Codec, EModel, InterarrivalJitter, Playout, PlayoutBuffer, PlayoutPolicy, TalkSpurts,
};
use crate::app::{AppFigures, Next, Outgoing};

/// RTP's fixed header (RFC 3550 section 5.1), before the codec's payload.
pub const RTP_HEADER_LEN: u32 = 12;

/// What both ends of a call share.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CallSettings {
    /// The codec both ends use.
    pub codec: Codec,
    /// The talkers' on/off model.
    pub spurts: TalkSpurts,
    /// Each listener's playout buffer.
    pub playout: PlayoutPolicy,
    /// When the call ends: nothing is sent at or after it.
    pub stop: SimTime,
}

/// The talking half of an end.
#[derive(Clone, Debug, Default)]
struct Talker {
    started: bool,
    spurt_start: SimTime,
    spurt_end: SimTime,
    next_at: SimTime,
    /// Sequence number of the next packet (sent or dropped at the sender).
    seq: u64,
    sent: u64,
    send_drops: u64,
}

/// The listening half of an end.
#[derive(Clone, Debug)]
struct Listener {
    jitter: InterarrivalJitter,
    playout: PlayoutBuffer,
    received: u64,
    played: u64,
    late: u64,
    last_seq: Option<u64>,
    /// The run of lost packets (network and late) not yet ended by a played one.
    open_run: u64,
    runs: u64,
    run_total: u64,
    network_delay: DelayStats,
    mouth_to_ear: DelayStats,
}

/// One end of a call.
#[derive(Clone, Debug)]
pub struct VoipCall {
    settings: CallSettings,
    /// The end this one talks to.
    to: Role,
    talker: Talker,
    listener: Listener,
}

impl VoipCall {
    /// The end of a call that talks to `to` (the caller talks to the sink end).
    pub fn new(settings: CallSettings, to: Role) -> Self {
        VoipCall {
            settings,
            to,
            talker: Talker::default(),
            listener: Listener {
                jitter: InterarrivalJitter::default(),
                playout: PlayoutBuffer::new(settings.playout),
                received: 0,
                played: 0,
                late: 0,
                last_seq: None,
                open_run: 0,
                runs: 0,
                run_total: 0,
                network_delay: DelayStats::default(),
                mouth_to_ear: DelayStats::default(),
            },
        }
    }

    fn is_caller(&self) -> bool {
        self.to == Role::Sink
    }

    /// A talk spurt starts at `at`.
    fn begin_spurt(&mut self, at: SimTime, rng: &mut Stream) {
        let t = &mut self.talker;
        t.spurt_start = at;
        t.spurt_end = self.settings.spurts.spurt_end(at, rng);
        t.next_at = at;
    }

    /// The packet due at `next_at` was sent or dropped: the next one is due one interval
    /// later, or after a silence if the spurt has ended by then.
    fn advance(&mut self, rng: &mut Stream) {
        let t = &mut self.talker;
        t.seq += 1;
        t.next_at += self.settings.codec.interval;
        if t.next_at >= t.spurt_end {
            let quiet_until = self.settings.spurts.silence_end(t.spurt_end, rng);
            self.begin_spurt(quiet_until, rng);
        }
    }

    // Out of line: a call sends a packet every 20 ms, and the endpoint dispatch it sits
    // in is on every other application's per-packet path (inlined, the call's code moved
    // the compiler's profile-guided choices there: 15 % more mispredicted branches in the
    // 100-flow dumbbell, by valgrind's model).
    #[inline(never)]
    pub(in crate::app) fn poll(&mut self, now: SimTime, buffer_free: bool, rng: &mut Stream) -> Next {
        let stop = self.settings.stop;
        if !self.talker.started {
            self.talker.started = true;
            if self.is_caller() {
                self.begin_spurt(now, rng);
            } else {
                let quiet_until = self.settings.spurts.silence_end(now, rng);
                self.begin_spurt(quiet_until, rng);
            }
        }
        loop {
            if now >= stop {
                return Next::Finished;
            }
            if self.talker.next_at > now {
                // Asleep until the next packet, or the end of the call (the end keeps
                // listening until then).
                return Next::SleepUntil(self.talker.next_at.min(stop));
            }
            if buffer_free {
                return Next::Send;
            }
            self.talker.send_drops += 1;
            self.advance(rng);
        }
    }

    // Out of line, as `poll`.
    #[inline(never)]
    pub(in crate::app) fn take(&mut self, rng: &mut Stream) -> Outgoing {
        let out = Outgoing {
            flow: None,
            to: self.to,
            kind: PacketKind::Data,
            protocol: Protocol::Udp,
            payload: RTP_HEADER_LEN + self.settings.codec.payload,
            seq: self.talker.seq,
            echo: self.talker.spurt_start,
        };
        self.talker.sent += 1;
        self.advance(rng);
        out
    }

    // Out of line, as `poll`.
    #[inline(never)]
    pub(in crate::app) fn on_packet(&mut self, now: SimTime, pkt: &Packet) {
        if pkt.protocol != Protocol::Udp || pkt.kind != PacketKind::Data {
            return;
        }
        let l = &mut self.listener;
        l.received += 1;
        l.network_delay.record(now.saturating_since(pkt.created));
        l.jitter.on_packet(pkt.created, now);
        match l.last_seq {
            Some(last) if pkt.seq <= last => {
                // Overtaken by a later packet: its slot was already given up.
                l.late += 1;
                return;
            }
            Some(last) => l.open_run += pkt.seq - last - 1,
            None => l.open_run += pkt.seq,
        }
        l.last_seq = Some(pkt.seq);
        match l.playout.on_packet(pkt.echo.as_ps(), pkt.created, now) {
            Playout::PlaysAt(at) => {
                l.played += 1;
                l.mouth_to_ear.record(at.saturating_since(pkt.created) + self.settings.codec.encoder_delay);
                if l.open_run > 0 {
                    l.runs += 1;
                    l.run_total += l.open_run;
                    l.open_run = 0;
                }
            }
            Playout::Late => {
                l.late += 1;
                l.open_run += 1;
            }
        }
    }

    /// Packets not sent for want of a transmit buffer.
    pub fn send_drops(&self) -> u64 {
        self.talker.send_drops
    }

    /// What this end heard, rated: `None` if it played nothing.
    pub fn heard(&self) -> Heard {
        let l = &self.listener;
        let expected = l.last_seq.map_or(0, |s| s + 1);
        let network_lost = expected.saturating_sub(l.received);
        let lost = network_lost + l.late;
        let p = if expected > 0 { lost as f64 / expected as f64 } else { 0.0 };
        let (runs, run_total) =
            if l.open_run > 0 { (l.runs + 1, l.run_total + l.open_run) } else { (l.runs, l.run_total) };
        let burst_ratio = if runs > 0 && p < 1.0 { run_total as f64 / runs as f64 * (1.0 - p) } else { 1.0 };
        let rating = (l.played > 0).then(|| {
            let ta_ms = l.mouth_to_ear.summary().mean_s * 1e3;
            let codec = self.settings.codec;
            EModel::for_call(ta_ms, codec.ie, codec.bpl, 100.0 * p, burst_ratio).rate().r
        });
        Heard {
            expected,
            received: l.received,
            network_lost,
            late: l.late,
            loss_percent: 100.0 * p,
            burst_ratio,
            r: rating,
        }
    }

    pub(in crate::app) fn report(&self, out: &mut AppFigures) {
        let keys = if self.is_caller() { &CALLER } else { &CALLEE };
        let heard = self.heard();
        let l = &self.listener;
        out.insert("codec", self.settings.codec.name);
        out.insert(keys.sent, self.talker.sent);
        out.insert(keys.send_drops, self.talker.send_drops);
        out.insert(keys.received, heard.received);
        out.insert(keys.network_lost, heard.network_lost);
        out.insert(keys.late, heard.late);
        out.insert(keys.loss_percent, heard.loss_percent);
        out.insert(keys.burst_ratio, heard.burst_ratio);
        out.insert(keys.jitter_ms, l.jitter.seconds() * 1e3);
        // Summaries of plain numbers always serialize.
        out.insert(
            keys.one_way_delay,
            serde_json::to_value(l.network_delay.summary()).expect("numbers serialize"),
        );
        out.insert(
            keys.mouth_to_ear,
            serde_json::to_value(l.mouth_to_ear.summary()).expect("numbers serialize"),
        );
        out.insert(keys.r_factor, heard.r);
        out.insert(keys.mos, heard.r.map(mos));
        // The call as a whole is as good as its worse direction.
        let worse = match (heard.r, out.get("r_factor").and_then(serde_json::Value::as_f64)) {
            (Some(mine), Some(other)) => Some(mine.min(other)),
            (mine, other) => mine.or(other),
        };
        out.insert("r_factor", worse);
        out.insert("mos", worse.map(mos));
        out.insert("satisfaction", worse.map(satisfaction));
    }
}

/// What one end heard of the other's voice.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Heard {
    /// Packets the talker numbered, up to the highest received.
    pub expected: u64,
    /// Packets that arrived.
    pub received: u64,
    /// Packets lost before they arrived (in the network or at the sender).
    pub network_lost: u64,
    /// Packets that arrived too late to be played.
    pub late: u64,
    /// Network and late losses, percent of `expected`.
    pub loss_percent: f64,
    /// G.107's burst ratio of those losses (1 for random loss).
    pub burst_ratio: f64,
    /// The E-model rating R, if anything was played.
    pub r: Option<f64>,
}

/// The names of one listener's figures.
struct Keys {
    sent: &'static str,
    send_drops: &'static str,
    received: &'static str,
    network_lost: &'static str,
    late: &'static str,
    loss_percent: &'static str,
    burst_ratio: &'static str,
    jitter_ms: &'static str,
    one_way_delay: &'static str,
    mouth_to_ear: &'static str,
    r_factor: &'static str,
    mos: &'static str,
}

/// What the caller sent, and heard of the callee.
const CALLER: Keys = Keys {
    sent: "caller_packets_sent",
    send_drops: "caller_send_drops",
    received: "caller_packets_received",
    network_lost: "caller_network_lost",
    late: "caller_late_lost",
    loss_percent: "caller_loss_percent",
    burst_ratio: "caller_burst_ratio",
    jitter_ms: "caller_jitter_ms",
    one_way_delay: "caller_one_way_delay",
    mouth_to_ear: "caller_mouth_to_ear",
    r_factor: "caller_r_factor",
    mos: "caller_mos",
};

/// What the callee sent, and heard of the caller.
const CALLEE: Keys = Keys {
    sent: "callee_packets_sent",
    send_drops: "callee_send_drops",
    received: "callee_packets_received",
    network_lost: "callee_network_lost",
    late: "callee_late_lost",
    loss_percent: "callee_loss_percent",
    burst_ratio: "callee_burst_ratio",
    jitter_ms: "callee_jitter_ms",
    one_way_delay: "callee_one_way_delay",
    mouth_to_ear: "callee_mouth_to_ear",
    r_factor: "callee_r_factor",
    mos: "callee_mos",
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::voip::codec::G711;
    use crate::engine::rng;
    use crate::ids::{FlowId, NodeId};
    use crate::time::Duration;

    fn settings(stop_ms: u64) -> CallSettings {
        CallSettings {
            codec: G711,
            spurts: TalkSpurts::default(),
            playout: PlayoutPolicy::Fixed { depth: Duration::from_ms(40) },
            stop: SimTime::ZERO + Duration::from_ms(stop_ms),
        }
    }

    fn voice(out: &Outgoing, created: SimTime) -> Packet {
        Packet {
            kind: out.kind,
            protocol: out.protocol,
            to: out.to,
            flow: Some(FlowId::new(0)),
            src: NodeId(0),
            dst: NodeId(1),
            seq: out.seq,
            frame_len: 0,
            payload: out.payload,
            created,
            echo: out.echo,
        }
    }

    /// Runs a caller alone for `ms`, handing every packet to `listener` after `transit`
    /// (or dropping it when `lose(seq)`); returns the packets sent.
    fn talk(ms: u64, transit: Duration, lose: impl Fn(u64) -> bool, listener: &mut VoipCall) -> u64 {
        let mut caller = VoipCall::new(settings(ms), Role::Sink);
        let mut rng = rng::stream(3, "call");
        let mut now = SimTime::ZERO;
        let mut sent = 0;
        loop {
            match caller.poll(now, true, &mut rng) {
                Next::Send => {
                    let out = caller.take(&mut rng);
                    sent += 1;
                    assert_eq!(out.payload, 172);
                    if !lose(out.seq) {
                        listener.on_packet(now + transit, &voice(&out, now));
                    }
                }
                Next::SleepUntil(t) => now = t,
                Next::Finished => return sent,
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn a_call_over_a_clean_path_rates_as_the_e_model_defaults_less_its_delay() {
        let mut callee = VoipCall::new(settings(60_000), Role::Source);
        let sent = talk(60_000, Duration::from_ms(5), |_| false, &mut callee);
        // About 39 % of 60 s in spurts, a packet each 20 ms.
        assert!((700..=1700).contains(&sent), "{sent}");
        let heard = callee.heard();
        assert_eq!((heard.received, heard.network_lost, heard.late), (sent, 0, 0));
        // Mouth to ear: 5 ms transit + 40 ms buffer + 20 ms encoding = 65 ms, below the
        // 100 ms where delay starts to count: R is that of G.107's defaults with T = 65 ms.
        let expected = EModel::for_call(65.0, 0.0, 25.1, 0.0, 1.0).rate().r;
        assert!((heard.r.unwrap() - expected).abs() < 1e-9, "{heard:?}");
        assert!(heard.r.unwrap() > 90.0);
    }

    #[test]
    fn every_tenth_packet_lost_is_10_percent_random_loss() {
        let mut callee = VoipCall::new(settings(60_000), Role::Source);
        talk(60_000, Duration::from_ms(5), |seq| seq % 10 == 9, &mut callee);
        let heard = callee.heard();
        assert!((heard.loss_percent - 10.0).abs() < 0.2, "{heard:?}");
        // Single losses: runs of 1, so the burst ratio is 1 − p = 0.9 (smoother than random).
        assert!((heard.burst_ratio - (1.0 - heard.loss_percent / 100.0)).abs() < 1e-9, "{heard:?}");
        let expected = EModel::for_call(65.0, 0.0, 25.1, heard.loss_percent, heard.burst_ratio).rate().r;
        assert!((heard.r.unwrap() - expected).abs() < 1e-9);
    }

    #[test]
    fn losses_in_runs_of_four_have_a_burst_ratio_above_one() {
        let mut callee = VoipCall::new(settings(60_000), Role::Source);
        talk(60_000, Duration::from_ms(5), |seq| seq % 40 >= 36, &mut callee);
        let heard = callee.heard();
        // p = 10 %, mean run 4: BurstR = 4 · 0.9 = 3.6.
        assert!((heard.burst_ratio - 3.6).abs() < 0.1, "{heard:?}");
    }

    #[test]
    fn a_packet_later_than_the_buffer_allows_is_a_late_loss() {
        let mut callee = VoipCall::new(settings(60_000), Role::Source);
        let first = Packet {
            seq: 0,
            echo: SimTime::ZERO,
            ..voice(
                &Outgoing {
                    flow: None,
                    to: Role::Source,
                    kind: PacketKind::Data,
                    protocol: Protocol::Udp,
                    payload: 172,
                    seq: 0,
                    echo: SimTime::ZERO,
                },
                SimTime::ZERO,
            )
        };
        callee.on_packet(SimTime::ZERO + Duration::from_ms(1), &first);
        // Sent 20 ms later, 50 ms in transit: due at 20 + 41 = 61 ms, arrives at 70 ms.
        let second = Packet { seq: 1, created: SimTime::ZERO + Duration::from_ms(20), ..first };
        callee.on_packet(SimTime::ZERO + Duration::from_ms(70), &second);
        let heard = callee.heard();
        assert_eq!((heard.received, heard.late, heard.network_lost), (2, 1, 0));
        assert!((heard.loss_percent - 50.0).abs() < 1e-9);
    }
}

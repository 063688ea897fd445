//! Links as objects: a channel joining ports, its two directions, and the state that
//! spans both (an outage darkens the whole link).
//!
//! The device (the port) owns the queue and the decision to send; the link owns the rate,
//! the propagation delay and the frames on the cable. Starting a frame of L bytes at t
//! gives two instants:
//!
//! * the wire is free again after the preamble/SFD, the frame and the inter-frame gap:
//!   `t + (8 + L + 12)·8 / rate`;
//! * the receiver has the frame's last bit (store-and-forward can begin) after the
//!   preamble/SFD and the frame have been sent and have propagated:
//!   `t + (8 + L)·8 / rate + delay`.
//!
//! Frames on the cable wait in a ring per direction, in arrival order, and only the
//! head's arrival is an event (the direction's arrival [`Timer`]): a direction keeps one
//! pending event however many frames it carries (htsim's pipe), so the event list does
//! not grow with the bandwidth-delay product. Each transmission has a [`TxId`], so that a
//! channel can abort it (an outage now, a collision on a shared bus later); an aborted
//! frame leaves the cable at once, and the arrival event moves to the new head.

use std::collections::VecDeque;

use crate::engine::{Generation, Timer};
use crate::ids::PortId;
use crate::stats::TimeWeighted;
use crate::time::{BitRate, Bytes, Duration, SimTime, PS_PER_SEC};
use crate::wire::ethernet::{INTER_FRAME_GAP, PREAMBLE_SFD};
use crate::wire::PacketRef;

use super::outage::OutageSchedule;

/// What joins a link's ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    /// A full-duplex point-to-point link: each direction is its own medium.
    PointToPoint,
    /// A half-duplex shared medium: every port sends on one medium, whose access the
    /// link's medium mechanism arbitrates (a CSMA/CD segment, `mechanisms/csma/`, kept
    /// beside the links in `AttachedState`). Its ports are the medium's stations, from
    /// `ends[0]` on; the link's directions only give its rate.
    Shared,
}

/// The identity of one transmission on one link direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TxId(pub u32);

/// When a transmission ends and when its frame is received.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxTiming {
    /// The frame's last bit leaves the transmitter.
    pub last_bit: SimTime,
    /// The transmitter may start the next frame (after the inter-frame gap).
    pub wire_free: SimTime,
    /// The receiver holds the whole frame.
    pub received: SimTime,
}

/// A frame on the cable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct OnCable {
    arrival: SimTime,
    pkt: PacketRef,
    tx: TxId,
}

/// One direction of a link: rate, delay and the frames on the cable.
#[derive(Debug)]
pub struct Direction {
    rate: BitRate,
    /// Picoseconds per byte when the rate divides 8·10^12 bit·ps/s exactly (every common
    /// Ethernet rate does): serialization is then one multiplication, and equal to
    /// [`BitRate::time_to_send`], which is used otherwise.
    ps_per_byte: Option<u64>,
    delay: Duration,
    cable: VecDeque<OnCable>,
    /// The arrival event of the head of the cable.
    arrival: Timer,
    next_tx: u32,
    rate_level: TimeWeighted,
    /// A rate change counted in `rate_level` from a later instant: (instant, bit/s).
    pending_level: Option<(SimTime, u64)>,
    rate_changes: u64,
}

/// A frame just put on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sent {
    /// Its timing.
    pub timing: TxTiming,
    /// Its transmission id.
    pub tx: TxId,
    /// An arrival event the caller must queue: (instant, generation of the direction's
    /// arrival timer). `None` when the event already queued will serve.
    pub arrival_event: Option<(SimTime, Generation)>,
}

/// What the arrival event of a direction found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrived {
    /// The frame that arrived.
    pub pkt: PacketRef,
    /// The next arrival event the caller must queue, if one is needed.
    pub next_event: Option<(SimTime, Generation)>,
}

impl Direction {
    /// A direction with `rate` and propagation `delay`.
    pub fn new(rate: BitRate, delay: Duration) -> Self {
        let mut rate_level = TimeWeighted::default();
        rate_level.set(SimTime::ZERO, rate.as_bps());
        Direction {
            rate,
            ps_per_byte: exact_ps_per_byte(rate),
            delay,
            cable: VecDeque::with_capacity(16),
            arrival: Timer::default(),
            next_tx: 0,
            rate_level,
            pending_level: None,
            rate_changes: 0,
        }
    }

    /// Time to put `bytes` on the wire at the current rate (rounded up, as
    /// [`BitRate::time_to_send`] states).
    #[inline]
    fn to_send(&self, bytes: Bytes) -> Duration {
        match self.ps_per_byte.and_then(|p| bytes.get().checked_mul(p)) {
            Some(ps) => Duration(ps),
            None => self.rate.time_to_send(bytes),
        }
    }

    /// The current signalling rate.
    pub fn rate(&self) -> BitRate {
        self.rate
    }

    /// The propagation delay.
    pub fn delay(&self) -> Duration {
        self.delay
    }

    /// The timing of a frame of `frame_len` bytes whose preamble starts at `start`.
    #[inline]
    pub fn timing(&self, start: SimTime, frame_len: Bytes) -> TxTiming {
        let to_last_bit = self.to_send(PREAMBLE_SFD + frame_len);
        let with_gap = self.to_send(PREAMBLE_SFD + frame_len + INTER_FRAME_GAP);
        let last_bit = start + to_last_bit;
        TxTiming { last_bit, wire_free: start + with_gap, received: last_bit + self.delay }
    }

    /// Puts `pkt`, a frame of `frame_len` bytes, on the wire at `now`.
    // One caller (a port starting a frame), on every frame's path: left to `#[inline]`,
    // the compiler stopped inlining it as the handlers grew (3% of `fan-in-poisson`).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub fn send(&mut self, now: SimTime, pkt: PacketRef, frame_len: Bytes) -> Sent {
        let timing = self.timing(now, frame_len);
        let tx = TxId(self.next_tx);
        self.next_tx = self.next_tx.wrapping_add(1);
        // Frames leave one at a time at one rate and delay, so they arrive in order.
        debug_assert!(self.cable.back().is_none_or(|c| c.arrival <= timing.received));
        self.cable.push_back(OnCable { arrival: timing.received, pkt, tx });
        let arrival_event = self.arm_head();
        Sent { timing, tx, arrival_event }
    }

    /// Arms the arrival timer for the head of the cable (or cancels it, if empty).
    fn arm_head(&mut self) -> Option<(SimTime, Generation)> {
        if let Some(head) = self.cable.front() {
            self.arrival.arm(head.arrival).map(|g| (head.arrival, g))
        } else {
            self.arrival.cancel();
            None
        }
    }

    /// The arrival timer, for the caller to ask whether an arrival event is live.
    pub fn arrival_timer(&mut self) -> &mut Timer {
        &mut self.arrival
    }

    /// Aborts transmission `tx`: its frame leaves the cable and will not arrive. Returns
    /// the frame, if it was still on the cable, and an arrival event to queue if the head
    /// changed.
    pub fn abort(&mut self, tx: TxId) -> (Option<PacketRef>, Option<(SimTime, Generation)>) {
        // The transmission aborted is the latest one (a transmitter sends one frame at a
        // time), so it is found from the back.
        let Some(i) = self.cable.iter().rposition(|c| c.tx == tx) else {
            return (None, None);
        };
        let gone = self.cable.remove(i).map(|c| c.pkt);
        let event = if i == 0 { self.arm_head() } else { None };
        (gone, event)
    }

    /// Takes the frame at the head of the cable, which arrives at `now` (the caller has
    /// checked with the arrival timer that the event is live).
    pub fn arrive(&mut self, now: SimTime) -> Arrived {
        // The arrival timer fires only for the head, at its instant.
        let head = self.cable.pop_front().expect("an arrival event with an empty cable");
        debug_assert_eq!(head.arrival, now);
        Arrived { pkt: head.pkt, next_event: self.arm_head() }
    }

    /// Frames on the cable.
    pub fn on_cable(&self) -> usize {
        self.cable.len()
    }

    /// Changes the signalling rate at `now`; frames already on the wire keep their timing.
    pub fn set_rate(&mut self, now: SimTime, rate: BitRate) {
        self.set_rate_from(now, now, rate);
    }

    /// Changes the signalling rate at `now` for frames started from now on, counting it in
    /// the mean rate from `effective` (the end of a rate switch's dark time; no frame
    /// starts before it).
    pub fn set_rate_from(&mut self, now: SimTime, effective: SimTime, rate: BitRate) {
        assert!(rate.as_bps() > 0, "a link rate must be positive");
        self.settle_level(now);
        if rate != self.rate {
            self.rate = rate;
            self.ps_per_byte = exact_ps_per_byte(rate);
            self.rate_changes += 1;
            self.pending_level = Some((effective, rate.as_bps()));
            self.settle_level(now);
        }
    }

    fn settle_level(&mut self, now: SimTime) {
        if let Some((at, bps)) = self.pending_level.filter(|&(at, _)| at <= now) {
            self.rate_level.set(at, bps);
            self.pending_level = None;
        }
    }

    /// Rate changes so far.
    pub fn rate_changes(&self) -> u64 {
        self.rate_changes
    }

    /// Time-weighted mean rate over `[0, end]`, bit/s.
    pub fn mean_rate_bps(&self, end: SimTime) -> f64 {
        let mut level = self.rate_level;
        if let Some((at, bps)) = self.pending_level.filter(|&(at, _)| at <= end) {
            level.set(at, bps);
        }
        level.mean_until(end)
    }
}

/// Picoseconds per byte at `rate`, if a whole number.
fn exact_ps_per_byte(rate: BitRate) -> Option<u64> {
    let bit_ps = 8 * PS_PER_SEC;
    (bit_ps % rate.as_bps() == 0).then(|| bit_ps / rate.as_bps())
}

/// A link: its channel, the ports at its ends, and its two directions.
#[derive(Debug)]
pub struct Link {
    /// What joins the ports.
    pub channel: Channel,
    /// The ports at its ends; `ends[e]` transmits on `dirs[e]`.
    pub ends: [PortId; 2],
    /// The two directions.
    pub dirs: [Direction; 2],
    /// Scheduled outages (both directions dark).
    pub outages: OutageSchedule,
    /// Frame loss, if the link loses frames (boxed: most links do not).
    pub loss: Option<Box<super::LossModel>>,
    /// The timer of a policy that may change the link's rate (a link-rate switching
    /// policy's, `mechanisms/rate/`): the link may go dark at its deadline
    /// ([`Link::goes_dark_at`]). Disarmed on a link without one.
    pub policy_timer: Timer,
    /// Capacity redrawn at random over time, if it varies.
    pub capacity: Option<Box<super::CapacityProcess>>,
}

impl Link {
    /// A point-to-point link between `ends`, each direction with `rate` and `delay`.
    pub fn point_to_point(
        ends: [PortId; 2],
        rate: BitRate,
        delay: Duration,
        outages: OutageSchedule,
    ) -> Self {
        Link {
            channel: Channel::PointToPoint,
            ends,
            dirs: [Direction::new(rate, delay), Direction::new(rate, delay)],
            outages,
            loss: None,
            policy_timer: Timer::default(),
            capacity: None,
        }
    }

    /// A shared medium at `rate`: its stations' ports are `first` onwards.
    pub fn shared(first: PortId, rate: BitRate) -> Self {
        Link {
            channel: Channel::Shared,
            ends: [first, first],
            dirs: [Direction::new(rate, Duration::ZERO), Direction::new(rate, Duration::ZERO)],
            outages: OutageSchedule::default(),
            loss: None,
            policy_timer: Timer::default(),
            capacity: None,
        }
    }

    /// Whether this link is a shared medium (its stations' access arbitrated by a link
    /// mechanism) rather than point-to-point.
    pub fn is_shared(&self) -> bool {
        self.channel == Channel::Shared
    }

    /// The end of this link that `port` is (0 or 1).
    pub fn end_of(&self, port: PortId) -> usize {
        usize::from(self.ends[1] == port)
    }

    /// Whether the link may go dark at the instant `now` by an event that has not run yet
    /// (an outage due now, a rate policy's timer due now). A frame must not start then:
    /// the link is dark from that instant whatever the order of the events at it; the
    /// event itself lets waiting frames start if it does not darken the link.
    pub fn goes_dark_at(&self, now: SimTime) -> bool {
        self.outages.next_start() == Some(now) || self.policy_timer.is_due_at(now)
    }

    /// Changes the rate of both directions at `now`.
    pub fn set_rate(&mut self, now: SimTime, rate: BitRate) {
        for d in &mut self.dirs {
            d.set_rate(now, rate);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maximum_frame_at_one_gigabit() {
        let l = Direction::new(BitRate::gbps(1), Duration::from_ns(500));
        let t = l.timing(SimTime(0), Bytes(1518));
        // (1518 + 20) bytes · 8 ns = 12304 ns of wire time.
        assert_eq!(t.wire_free, SimTime(Duration::from_ns(12_304).as_ps()));
        // Last bit after (1518 + 8) · 8 ns = 12208 ns, plus 500 ns of propagation.
        assert_eq!(t.received, SimTime(Duration::from_ns(12_208 + 500).as_ps()));
    }

    #[test]
    fn the_multiplication_shortcut_equals_the_division_at_any_rate() {
        for bps in [
            1,
            3,
            7,
            1_000,
            10_000_000,
            100_000_000,
            1_000_000_000,
            2_500_000_000,
            40_000_000_000,
            999_999_937,
        ] {
            let d = Direction::new(BitRate::bps(bps), Duration::ZERO);
            for len in [0u64, 1, 64, 1518, 9018, 1 << 40] {
                assert_eq!(
                    d.to_send(Bytes(len)),
                    BitRate::bps(bps).time_to_send(Bytes(len)),
                    "{bps} b/s, {len} B"
                );
            }
        }
    }

    #[test]
    fn only_the_head_of_the_cable_needs_an_event() {
        let mut d = Direction::new(BitRate::gbps(10), Duration::from_ms(1));
        let a = d.send(SimTime(0), PacketRef(0), Bytes(64));
        let b = d.send(a.timing.wire_free, PacketRef(1), Bytes(64));
        let (at, g) = a.arrival_event.expect("the first frame's arrival is an event");
        assert_eq!((at, b.arrival_event), (a.timing.received, None));
        assert_eq!(d.on_cable(), 2);
        assert_eq!(d.arrival_timer().expire(at, g), crate::engine::Expiry::Fire);
        let first = d.arrive(a.timing.received);
        assert_eq!(first.pkt, PacketRef(0));
        let (at, g) = first.next_event.expect("the second frame's arrival becomes the event");
        assert_eq!(at, b.timing.received);
        assert_eq!(d.arrival_timer().expire(at, g), crate::engine::Expiry::Fire);
        assert_eq!(d.arrive(b.timing.received), Arrived { pkt: PacketRef(1), next_event: None });
    }

    #[test]
    fn an_aborted_frame_leaves_the_cable_and_a_shorter_one_after_it_arrives_first() {
        let mut d = Direction::new(BitRate::gbps(1), Duration::ZERO);
        let big = d.send(SimTime(0), PacketRef(7), Bytes(1518));
        let (old_at, old_g) = big.arrival_event.unwrap();
        assert_eq!(d.abort(big.tx), (Some(PacketRef(7)), None));
        assert_eq!(d.abort(big.tx), (None, None), "aborted once");
        // A short frame sent after the abort arrives before the aborted one would have.
        let small = d.send(SimTime(2_000_000), PacketRef(8), Bytes(64));
        let (at, g) = small.arrival_event.expect("an earlier arrival needs its own event");
        assert!(at < old_at);
        assert_eq!(d.arrival_timer().expire(at, g), crate::engine::Expiry::Fire);
        assert_eq!(d.arrive(at).pkt, PacketRef(8));
        assert_eq!(d.arrival_timer().expire(old_at, old_g), crate::engine::Expiry::Stale);
    }

    #[test]
    fn the_mean_rate_weights_each_rate_by_its_time() {
        let mut d = Direction::new(BitRate::gbps(10), Duration::ZERO);
        d.set_rate(SimTime(300), BitRate::gbps(1));
        d.set_rate(SimTime(300), BitRate::gbps(1));
        assert_eq!(d.rate_changes(), 1, "setting the same rate is no change");
        let mean = d.mean_rate_bps(SimTime(1000));
        assert!((mean - (0.3 * 10e9 + 0.7 * 1e9)).abs() < 1.0, "{mean}");
    }
}

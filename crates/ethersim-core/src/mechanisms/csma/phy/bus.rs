//! A shared-medium segment (classic half-duplex Ethernet): its stations, the MAC state of
//! each, and the frames on their way to their receivers. The timing rules are
//! `medium.rs`'s; the network drives the state machine below with one timer per
//! station (`sim/mac.rs`). The segment is kept beside the links
//! (`AttachedState::segments`); its link is a `Channel::Shared`.
//!
//! A station's MAC holds one frame at a time, from the moment its port hands it over
//! until the frame is sent or dropped (IEEE 802.3 clause 4.2.3.2):
//!
//! ```text
//!   Idle ──frame──▶ Deferring ──medium free──▶ Transmitting ──last bit──▶ Idle (sent)
//!                    ▲   │ gap's last part            │ collision
//!                    │   ▼                            ▼
//!                    │  Committed ──gap ends──▶ Transmitting
//!                    └──── Backoff ◀──jam ends── Jamming ──16th collision──▶ Idle (dropped)
//! ```
//!
//! Frames sent whole reach their receiver (the station the destination is behind) after
//! the propagation delay between the two; they wait in one list per segment, in arrival
//! order, with one pending event for the head (as a link direction's cable does).

use std::collections::VecDeque;

use crate::engine::rng::Stream;
use crate::engine::{Generation, Timer};
use crate::ids::{NodeId, PortId};
use crate::phy::FrameClass;
use crate::stats::Moments;
use crate::time::{Duration, SimTime};
use crate::wire::{ethernet, PacketRef};

use crate::mechanisms::csma::phy::medium::{
    backoff_slots, Deference, Medium, ATTEMPT_LIMIT, PREAMBLE_BITS, SLOT_BITS,
};

/// Where a station's MAC is (see the module notes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MacState {
    /// No frame.
    Idle,
    /// Holding a frame, waiting for the medium (carrier, or the inter-frame gap).
    Deferring,
    /// In the gap's last part: it transmits when the gap ends, whatever it senses.
    Committed,
    /// Sending the frame.
    Transmitting,
    /// Sending the jam after a collision.
    Jamming,
    /// Waiting out a backoff.
    Backoff,
}

/// The frame a station's MAC holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeldFrame {
    /// The packet.
    pub pkt: PacketRef,
    /// Its length on the wire (header to FCS, padded to the minimum), bytes.
    pub len: u32,
    /// Data or MAC control.
    pub class: FrameClass,
    /// The destination node (the receiver is the station it is behind).
    pub dst: NodeId,
    /// When the MAC took it: the start of its first attempt (deference included).
    pub since: SimTime,
    /// Collisions it has suffered.
    pub collisions: u32,
}

/// One station's counters, over the measurement window when the scenario has one
/// (frames count when they are sent or dropped), otherwise over the whole run.
#[derive(Clone, Debug, Default)]
pub struct StationStats {
    /// Frames sent whole.
    pub frames_sent: u64,
    /// Their bytes (header to FCS).
    pub bytes_sent: u64,
    /// Collisions suffered by the frames counted (sent or dropped).
    pub collisions: u64,
    /// Frames dropped after 16 collisions (excessive collisions).
    pub drops: u64,
    /// Transmission delay of the frames sent: from the MAC taking the frame to the last
    /// bit of its successful attempt, seconds.
    pub delay: Moments,
    /// The delay less the collision-free time of the frame (preamble and frame at the
    /// segment's rate), seconds.
    pub excess_delay: Moments,
}

/// One station of a segment.
#[derive(Debug)]
pub struct Station {
    /// The node.
    pub node: NodeId,
    /// Its port on the segment.
    pub port: PortId,
    /// Its position, metres.
    pub position_m: f64,
    /// Its MAC's state.
    pub state: MacState,
    /// The frame its MAC holds.
    pub frame: Option<HeldFrame>,
    /// The MAC's next step.
    pub timer: Timer,
    /// The start of its current transmission.
    pub tx_start: SimTime,
    /// The end of its current transmission (last bit), as started.
    pub tx_end: SimTime,
    /// The earliest collision it will detect in its current transmission (`NEVER`: none).
    pub collision_at: SimTime,
    /// Counters.
    pub stats: StationStats,
}

/// A frame sent whole, on its way to its receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// When its last bit reaches the receiver.
    pub at: SimTime,
    /// The packet.
    pub pkt: PacketRef,
    /// The receiving station's port.
    pub port: PortId,
}

/// What became of a frame handed to its receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handover {
    /// It heads the deliveries: queue their arrival event (instant, generation).
    Event(SimTime, Generation),
    /// It waits behind another delivery, whose event serves.
    Queued,
    /// No station of the segment leads to its destination.
    NoReceiver,
}

/// What a station's MAC does next, for the network to carry out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MacStep {
    /// Nothing now (a timer is armed for the next step).
    Wait(SimTime),
    /// The frame was sent whole at this instant (its last bit).
    Sent(HeldFrame),
    /// The frame was dropped after its 16th collision.
    Dropped(HeldFrame),
}

/// A shared-medium segment.
#[derive(Debug)]
pub struct Bus {
    /// Its name (results name its ports `node->name`).
    pub name: String,
    /// The medium and its geometry.
    pub medium: Medium,
    /// The stations, by station index; station `i` has port `first_port + i`.
    pub stations: Vec<Station>,
    /// The first station's port (a segment's ports are consecutive).
    pub first_port: PortId,
    /// Per destination node (by id), the station it is behind, if any.
    pub receivers: Vec<Option<u16>>,
    /// Frames on their way to their receivers, in arrival order.
    deliveries: VecDeque<Delivery>,
    /// The arrival event of the head of `deliveries`.
    pub delivery_timer: Timer,
    /// Backoff draws (stream `csma/<name>`).
    rng: Stream,
    /// Statistics count only what happens in this interval (the measurement window).
    pub counted: (SimTime, SimTime),
    /// Scratch space for the collisions a transmission causes.
    detections: Vec<(usize, SimTime)>,
}

impl Bus {
    /// A segment named `name` on `medium`, with stations at `(node, position)` whose
    /// ports are `first_port` onwards; `receivers` maps each destination node to the
    /// station it is behind.
    pub fn new(
        name: String,
        medium: Medium,
        stations: &[(NodeId, f64)],
        first_port: PortId,
        receivers: Vec<Option<u16>>,
        rng: Stream,
    ) -> Self {
        let stations = stations
            .iter()
            .enumerate()
            .map(|(i, &(node, position_m))| Station {
                node,
                port: PortId(first_port.0 + i as u32),
                position_m,
                state: MacState::Idle,
                frame: None,
                timer: Timer::default(),
                tx_start: SimTime::ZERO,
                tx_end: SimTime::ZERO,
                collision_at: SimTime::NEVER,
                stats: StationStats::default(),
            })
            .collect();
        Bus {
            name,
            medium,
            stations,
            first_port,
            receivers,
            deliveries: VecDeque::with_capacity(16),
            delivery_timer: Timer::default(),
            rng,
            counted: (SimTime::ZERO, SimTime::NEVER),
            detections: Vec::with_capacity(16),
        }
    }

    /// The station index of `port` (one of this segment's).
    pub fn station_of(&self, port: PortId) -> usize {
        (port.0 - self.first_port.0) as usize
    }

    fn counts(&self, t: SimTime) -> bool {
        self.counted.0 <= t && t < self.counted.1
    }

    /// Station `i`'s MAC takes `frame` at `now` and starts deferring.
    pub fn take(&mut self, i: usize, now: SimTime, frame: HeldFrame) -> MacStep {
        let padded = frame.len.max(ethernet::MIN_FRAME as u32);
        let st = &mut self.stations[i];
        debug_assert_eq!(st.state, MacState::Idle);
        st.frame = Some(HeldFrame { len: padded, since: now, collisions: 0, ..frame });
        st.state = MacState::Deferring;
        self.defer(i, now)
    }

    /// Station `i`'s timer fired at `now`: its next step.
    pub fn step(&mut self, i: usize, now: SimTime) -> MacStep {
        match self.stations[i].state {
            MacState::Deferring => self.defer(i, now),
            MacState::Committed => self.transmit(i, now),
            MacState::Transmitting if self.stations[i].collision_at <= now => self.jam(i, now),
            MacState::Transmitting => self.sent(i, now),
            MacState::Jamming => self.after_jam(i, now),
            MacState::Backoff => {
                self.stations[i].state = MacState::Deferring;
                self.defer(i, now)
            }
            // A timer is armed only while a frame is held.
            MacState::Idle => MacStep::Wait(SimTime::NEVER),
        }
    }

    /// 1-persistent deference (4.2.3.2.1): transmit when the medium is free and the gap
    /// has passed; otherwise wait for the moment to ask again.
    fn defer(&mut self, i: usize, now: SimTime) -> MacStep {
        match self.medium.defer(i, now) {
            Deference::Busy { until } => MacStep::Wait(until),
            Deference::Gap { part1_end } => MacStep::Wait(part1_end),
            Deference::Transmit { at } if at == now => self.transmit(i, now),
            Deference::Transmit { at } => {
                self.stations[i].state = MacState::Committed;
                MacStep::Wait(at)
            }
        }
    }

    /// Station `i` starts sending its frame at `now`. Stations that will detect the
    /// collision this causes learn when; the caller re-arms their timers (see
    /// [`Bus::detected`]).
    fn transmit(&mut self, i: usize, now: SimTime) -> MacStep {
        let Some(frame) = self.stations[i].frame else { return MacStep::Wait(SimTime::NEVER) };
        let bits = PREAMBLE_BITS + 8 * u64::from(frame.len);
        self.medium.prune(now);
        let mut detections = std::mem::take(&mut self.detections);
        self.medium.start(i, now, bits, &mut detections);
        let st = &mut self.stations[i];
        st.state = MacState::Transmitting;
        st.tx_start = now;
        st.tx_end = now + self.medium.bits(bits);
        st.collision_at = SimTime::NEVER;
        for &(k, at) in &detections {
            let s = &mut self.stations[k];
            if s.state == MacState::Transmitting && at < s.collision_at {
                s.collision_at = at;
            }
        }
        self.detections = detections;
        let st = &self.stations[i];
        MacStep::Wait(st.collision_at.min(st.tx_end))
    }

    /// After station `i` started a transmission: calls `arm(k, timer, at)` for every
    /// other station `k` that will now detect a collision at `at`, earlier than its timer
    /// was set for.
    pub fn arm_detected(&mut self, i: usize, mut arm: impl FnMut(usize, &mut Timer, SimTime)) {
        for d in 0..self.detections.len() {
            let (k, _) = self.detections[d];
            let s = &mut self.stations[k];
            // A station that stopped sending (it is jamming) has its own next step.
            if k != i
                && s.state == MacState::Transmitting
                && s.timer.deadline().is_some_and(|d| s.collision_at < d)
            {
                arm(k, &mut s.timer, s.collision_at);
            }
        }
    }

    /// Station `i` detected a collision at `now`: it sends the jam (after its preamble).
    fn jam(&mut self, i: usize, now: SimTime) -> MacStep {
        let end = self.medium.jam(i, now);
        let st = &mut self.stations[i];
        st.state = MacState::Jamming;
        st.collision_at = SimTime::NEVER;
        if let Some(f) = st.frame.as_mut() {
            f.collisions += 1;
        }
        MacStep::Wait(end)
    }

    /// After station `i`'s jam (ending at `jam_end`) cut its carrier short: calls
    /// `arm(k, timer, at)` for every deferring station `k` whose timer is set later than
    /// `at`, the instant the carrier's new end reaches it.
    pub fn arm_shortened(
        &mut self,
        i: usize,
        jam_end: SimTime,
        mut arm: impl FnMut(usize, &mut Timer, SimTime),
    ) {
        for k in 0..self.stations.len() {
            let at = jam_end + self.medium.geometry.delay(i, k);
            let s = &mut self.stations[k];
            if k != i && s.state == MacState::Deferring && s.timer.deadline().is_some_and(|d| at < d) {
                arm(k, &mut s.timer, at);
            }
        }
    }

    /// Station `i`'s jam ended at `now`: back off (4.2.3.2.5), or drop the frame after
    /// the 16th collision.
    fn after_jam(&mut self, i: usize, now: SimTime) -> MacStep {
        let counts = self.counts(now);
        let st = &mut self.stations[i];
        let Some(frame) = st.frame else { return MacStep::Wait(SimTime::NEVER) };
        if frame.collisions >= ATTEMPT_LIMIT {
            st.state = MacState::Idle;
            st.frame = None;
            if counts {
                st.stats.drops += 1;
                st.stats.collisions += u64::from(frame.collisions);
            }
            return MacStep::Dropped(frame);
        }
        st.state = MacState::Backoff;
        let slots = backoff_slots(frame.collisions, &mut self.rng);
        MacStep::Wait(now + self.medium.bits(slots * SLOT_BITS))
    }

    /// Station `i`'s frame went out whole: its last bit left at `now`. Its delivery is
    /// queued for the receiver.
    fn sent(&mut self, i: usize, now: SimTime) -> MacStep {
        let counts = self.counts(now);
        let bit = self.medium.bits(1);
        let st = &mut self.stations[i];
        let Some(frame) = st.frame.take() else { return MacStep::Wait(SimTime::NEVER) };
        st.state = MacState::Idle;
        if counts {
            let s = &mut st.stats;
            s.frames_sent += 1;
            s.bytes_sent += u64::from(frame.len);
            s.collisions += u64::from(frame.collisions);
            let delay = now - frame.since;
            let ideal = Duration(bit.as_ps() * (PREAMBLE_BITS + 8 * u64::from(frame.len)));
            s.delay.add(delay.as_secs_f64());
            s.excess_delay.add(Duration(delay.as_ps().saturating_sub(ideal.as_ps())).as_secs_f64());
        }
        MacStep::Sent(frame)
    }

    /// Queues the delivery of `frame`, sent whole by station `i` with its last bit at
    /// `now`, to the station its destination is behind.
    pub fn deliver(&mut self, i: usize, now: SimTime, frame: &HeldFrame) -> Handover {
        let Some(r) = self.receivers.get(frame.dst.index()).copied().flatten() else {
            return Handover::NoReceiver;
        };
        let r = usize::from(r);
        let at = now + self.medium.geometry.delay(i, r);
        let d = Delivery { at, pkt: frame.pkt, port: self.stations[r].port };
        // Arrivals are almost always in order; a frame overtaking another (geometry can
        // let a near receiver hear a later frame first) is inserted in its place.
        let place = self.deliveries.iter().rposition(|x| x.at <= at).map_or(0, |p| p + 1);
        self.deliveries.insert(place, d);
        if place > 0 {
            return Handover::Queued; // the head's event serves
        }
        match self.delivery_timer.arm(at) {
            Some(generation) => Handover::Event(at, generation),
            None => Handover::Queued,
        }
    }

    /// Takes the delivery at the head of the list (its event fired at `now`) and returns
    /// it with the arrival event to queue for the next, if any.
    pub fn arrive(&mut self, now: SimTime) -> (Delivery, Option<(SimTime, u32)>) {
        let head = self.deliveries.pop_front().expect("a delivery event with no delivery");
        debug_assert_eq!(head.at, now);
        let next = self.deliveries.front().map(|n| n.at);
        if next.is_none() {
            self.delivery_timer.cancel();
        }
        (head, next.and_then(|at| self.delivery_timer.arm(at).map(|g| (at, g))))
    }
}

//! A drop-tail FIFO with limits in bytes and/or frames.
//!
//! A frame counts toward the buffer from the moment it is queued until its last bit has
//! left the port, as it occupies a switch's packet memory until then: a buffer of S
//! bytes holds S bytes, counting the frame being transmitted. (The inter-frame gap that
//! follows holds no memory.) The frame being sent is released lazily: the queue learns
//! its last-bit instant when it starts and settles it at the next operation, recording
//! the level change at that instant, so the release costs no event.
//!
//! Simulators differ on what a queue limit admits, and a queue "of N packets" means
//! different buffers in each; [`QueueLimits::counts_in_service`] says which convention a
//! limit follows. Counting the frame on the wire (the default) is ns-2's `DropTail`: its
//! `enque` drops when `q_->length() + 1 >= qlim_`, and the packet being sent has left
//! `q_`, so at most `qlim_` packets are in the system. Not counting it is ns-3's
//! `PointToPointNetDevice` with a `DropTailQueue` of `MaxSize` N: the packet being sent
//! has been dequeued, and N more may wait.

use std::collections::VecDeque;

use crate::stats::{TimeWeighted, TimeWeightedPair};
use crate::time::SimTime;
use crate::wire::PacketRef;

/// How much a queue may hold; a frame that would exceed either limit is dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueLimits {
    /// Most bytes (frame lengths) held at once, if limited.
    pub bytes: Option<u64>,
    /// Most frames held at once, if limited.
    pub frames: Option<u32>,
    /// Whether the frame being sent counts toward the limits until its last bit leaves
    /// (true: a limit is the switch's packet memory, and ns-2's convention) or only the
    /// frames waiting behind it do (false: ns-3's). Occupancy statistics always count it.
    pub counts_in_service: bool,
}

impl Default for QueueLimits {
    /// No limit, counting the frame being sent.
    fn default() -> Self {
        QueueLimits { bytes: None, frames: None, counts_in_service: true }
    }
}

/// A frame in a queue: its packet and its length (kept here so that accounting needs no
/// look-up in the packet pool).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Queued {
    /// The packet.
    pub pkt: PacketRef,
    /// Its frame length, bytes.
    pub len: u32,
}

/// The frame being transmitted, held until its last bit leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Leaving {
    len: u32,
    last_bit: SimTime,
}

/// A first-in first-out queue that drops arrivals when full (drop-tail), with its
/// occupancy statistics.
#[derive(Debug)]
pub struct DropTailQueue {
    waiting: VecDeque<Queued>,
    leaving: Option<Leaving>,
    /// Bytes held: waiting frames and the leaving one.
    held_bytes: u64,
    /// Frames held: waiting frames and the leaving one.
    held_frames: u32,
    limits: QueueLimits,
    /// Bytes held (first) and frames held (second) over time.
    levels: TimeWeightedPair,
}

impl DropTailQueue {
    /// An empty queue. Storage for the frame limit (or a modest default) is reserved
    /// up front, so steady-state operation does not allocate.
    pub fn new(limits: QueueLimits) -> Self {
        let reserve = limits.frames.map_or(64, |f| f.min(1 << 16) as usize);
        DropTailQueue {
            waiting: VecDeque::with_capacity(reserve),
            leaving: None,
            held_bytes: 0,
            held_frames: 0,
            limits,
            levels: TimeWeightedPair::default(),
        }
    }

    /// Releases the leaving frame if its last bit has left by `now`.
    fn settle(&mut self, now: SimTime) {
        if let Some(l) = self.leaving.filter(|l| l.last_bit <= now) {
            self.leaving = None;
            self.release(l.last_bit, l.len);
        }
    }

    fn release(&mut self, at: SimTime, len: u32) {
        self.held_bytes -= u64::from(len);
        self.held_frames -= 1;
        self.record(at);
    }

    /// Whether a frame of `len` bytes fits under both limits at `now`, counting the frame
    /// being sent or not as the limits say.
    pub fn fits(&self, now: SimTime, len: u32) -> bool {
        let (bytes, frames) = if self.limits.counts_in_service {
            self.held_at(now)
        } else {
            (self.waiting_bytes(), self.waiting.len() as u32)
        };
        let bytes_ok = self.limits.bytes.is_none_or(|b| bytes + u64::from(len) <= b);
        let frames_ok = self.limits.frames.is_none_or(|f| frames < f);
        bytes_ok && frames_ok
    }

    /// Appends a frame if it fits; returns its packet back if it must be dropped.
    pub fn enqueue(&mut self, now: SimTime, frame: Queued) -> Result<(), PacketRef> {
        self.settle(now);
        if !self.fits(now, frame.len) {
            return Err(frame.pkt);
        }
        self.held_bytes += u64::from(frame.len);
        self.held_frames += 1;
        self.waiting.push_back(frame);
        self.record(now);
        Ok(())
    }

    /// The head frame, if any waits.
    pub fn head(&self) -> Option<Queued> {
        self.waiting.front().copied()
    }

    /// The head frame starts transmission at `now`; it stays in the buffer until its last
    /// bit leaves at `last_bit`.
    ///
    /// # Panics
    /// If no frame waits, or the previous frame is still leaving (one transmission at a time).
    // On every frame's path (a port starting a frame); a segment's MAC taking a frame calls
    // it too, and with two callers the compiler stopped inlining it.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub fn start_sending(&mut self, now: SimTime, last_bit: SimTime) -> Queued {
        self.settle(now);
        assert!(self.leaving.is_none(), "a frame starts while the previous one is still leaving");
        let frame = self.waiting.pop_front().expect("start_sending on an empty queue");
        self.leaving = Some(Leaving { len: frame.len, last_bit });
        frame
    }

    /// The leaving frame was cut off at `now` (its transmission aborted): it leaves the
    /// buffer at once.
    pub fn abort_leaving(&mut self, now: SimTime) {
        self.settle(now);
        if let Some(l) = self.leaving.take() {
            self.release(now, l.len);
        }
    }

    fn record(&mut self, now: SimTime) {
        self.levels.set(now, self.held_bytes, u64::from(self.held_frames));
    }

    /// Bytes and frames held at `now`, counting the leaving frame until its last bit.
    pub fn held_at(&self, now: SimTime) -> (u64, u32) {
        match self.leaving {
            Some(l) if l.last_bit <= now => (self.held_bytes - u64::from(l.len), self.held_frames - 1),
            _ => (self.held_bytes, self.held_frames),
        }
    }

    /// Frames waiting to be sent (not counting the one leaving).
    pub fn len(&self) -> usize {
        self.waiting.len()
    }
    /// Whether no frame waits.
    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }
    /// Bytes of the frames waiting (not counting the one leaving).
    pub fn waiting_bytes(&self) -> u64 {
        self.held_bytes - self.leaving.map_or(0, |l| u64::from(l.len))
    }
    /// The limits.
    pub fn limits(&self) -> QueueLimits {
        self.limits
    }

    /// Buffer occupancy in bytes over `[0, end]`, with the leaving frame settled.
    pub fn bytes_level(&self, end: SimTime) -> TimeWeighted {
        self.level_at(end, self.levels.first(), |l| u64::from(l.len))
    }
    /// Buffer occupancy in frames over `[0, end]`, with the leaving frame settled.
    pub fn frames_level(&self, end: SimTime) -> TimeWeighted {
        self.level_at(end, self.levels.second(), |_| 1)
    }

    fn level_at(
        &self,
        end: SimTime,
        mut level: TimeWeighted,
        size: impl Fn(&Leaving) -> u64,
    ) -> TimeWeighted {
        if let Some(l) = self.leaving.filter(|l| l.last_bit <= end) {
            level.set(l.last_bit, level.level() - size(&l));
        }
        level
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn frame(n: u32, len: u32) -> Queued {
        Queued { pkt: PacketRef(n), len }
    }

    fn wire_bytes_now(on_wire: Option<(u32, u64)>) -> u64 {
        on_wire.map_or(0, |(l, _)| u64::from(l))
    }

    #[test]
    fn a_limit_of_n_frames_holds_n_in_all_or_n_waiting_behind_the_one_sent() {
        // ns-2's DropTail with qlim_ 3 holds 3 packets in all; ns-3's queue of MaxSize 3
        // holds 3 behind the one being sent.
        for (counts_in_service, admitted, waiting) in [(true, 3, 2), (false, 4, 3)] {
            let mut q = DropTailQueue::new(QueueLimits {
                frames: Some(3),
                counts_in_service,
                ..QueueLimits::default()
            });
            q.enqueue(SimTime(0), frame(0, 64)).unwrap();
            q.start_sending(SimTime(0), SimTime(1000));
            let taken = (1..10).filter(|&n| q.enqueue(SimTime(1), frame(n, 64)).is_ok()).count() + 1;
            assert_eq!(taken, admitted, "counts_in_service {counts_in_service}");
            assert_eq!(q.held_at(SimTime(1000)).1, waiting, "once the frame on the wire has left");
        }
    }

    #[test]
    fn byte_limit_drops_the_frame_that_would_overflow() {
        let mut q = DropTailQueue::new(QueueLimits { bytes: Some(3000), ..QueueLimits::default() });
        assert!(q.enqueue(SimTime(0), frame(0, 1500)).is_ok());
        assert!(q.enqueue(SimTime(0), frame(1, 1500)).is_ok());
        assert!(q.enqueue(SimTime(0), frame(2, 64)).is_err());
    }

    #[test]
    fn the_frame_being_sent_holds_its_bytes_until_its_last_bit_leaves() {
        let mut q = DropTailQueue::new(QueueLimits { bytes: Some(3000), ..QueueLimits::default() });
        q.enqueue(SimTime(0), frame(0, 1500)).unwrap();
        q.enqueue(SimTime(0), frame(1, 1500)).unwrap();
        q.start_sending(SimTime(0), SimTime(100));
        assert!(q.enqueue(SimTime(99), frame(2, 1500)).is_err(), "still full one ps before the last bit");
        assert!(q.enqueue(SimTime(100), frame(3, 1500)).is_ok(), "room at the last bit");
        let level = q.bytes_level(SimTime(200));
        assert_eq!(level.max_until(SimTime(200)), 3000);
        // 3000 B over [0, 200): the release at 100 and the arrival at 100 cancel out.
        assert!((level.mean_until(SimTime(200)) - 3000.0).abs() < 1e-9);
    }

    #[test]
    fn an_aborted_frame_leaves_the_buffer_at_once() {
        let mut q = DropTailQueue::new(QueueLimits { frames: Some(1), ..QueueLimits::default() });
        q.enqueue(SimTime(0), frame(0, 64)).unwrap();
        q.start_sending(SimTime(0), SimTime(100));
        q.abort_leaving(SimTime(40));
        assert!(q.enqueue(SimTime(40), frame(1, 64)).is_ok());
    }

    proptest! {
        /// Under any sequence of arrivals, transmissions and time steps: the limits hold at
        /// every instant counting the frame on the wire (or, with `counts_in_service` off,
        /// the frames waiting behind it), bytes are the sum of held frames, and order is
        /// FIFO.
        #[test]
        fn limits_and_fifo_hold_under_either_convention(
            ops in proptest::collection::vec((0u8..3, 64u32..1518, 0u64..3000), 0..400),
            byte_limit in 1518u64..20_000, frame_limit in 1u32..20, counts_in_service: bool)
        {
            let limits = QueueLimits { bytes: Some(byte_limit), frames: Some(frame_limit), counts_in_service };
            let mut q = DropTailQueue::new(limits);
            let mut model: VecDeque<(u32, u32)> = VecDeque::new();
            let mut on_wire: Option<(u32, u64)> = None; // (len, last bit)
            let mut now = 0u64;
            for (i, (op, len, dt)) in ops.into_iter().enumerate() {
                now += dt;
                let t = SimTime(now);
                if on_wire.is_some_and(|(_, lb)| lb <= now) {
                    on_wire = None;
                }
                let wire_bytes = on_wire.map_or(0, |(l, _)| u64::from(l));
                let held_bytes = model.iter().map(|&(_, l)| u64::from(l)).sum::<u64>() + wire_bytes;
                let held_frames = model.len() as u32 + u32::from(on_wire.is_some());
                let waiting_bytes = model.iter().map(|&(_, l)| u64::from(l)).sum::<u64>();
                let (counted_bytes, counted_frames) =
                    if counts_in_service { (held_bytes, held_frames) } else { (waiting_bytes, model.len() as u32) };
                match op {
                    0 | 1 => {
                        let fits = counted_bytes + u64::from(len) <= byte_limit && counted_frames < frame_limit;
                        prop_assert_eq!(q.enqueue(t, frame(i as u32, len)).is_ok(), fits);
                        if fits { model.push_back((i as u32, len)); }
                    }
                    _ => {
                        if on_wire.is_none() {
                            if let Some((n, l)) = model.pop_front() {
                                let last_bit = now + u64::from(l) * 8;
                                prop_assert_eq!(q.start_sending(t, SimTime(last_bit)).pkt, PacketRef(n));
                                on_wire = Some((l, last_bit));
                            }
                        }
                    }
                }
                let (b, f) = q.held_at(t);
                let in_service = if counts_in_service { (0, 0) } else { (wire_bytes_now(on_wire), u32::from(on_wire.is_some())) };
                prop_assert!(b <= byte_limit + in_service.0 && f <= frame_limit + in_service.1);
                let wire_bytes = on_wire.map_or(0, |(l, _)| u64::from(l));
                prop_assert_eq!(b, model.iter().map(|&(_, l)| u64::from(l)).sum::<u64>() + wire_bytes);
                let in_service_allowance = if counts_in_service { 0 } else { 1518 };
                prop_assert!(q.bytes_level(t).max_until(t) <= byte_limit + in_service_allowance);
            }
        }
    }
}

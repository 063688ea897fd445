//! A drop-tail FIFO with limits in bytes and/or frames.

use std::collections::VecDeque;

use crate::stats::TimeWeighted;
use crate::time::SimTime;
use crate::wire::Packet;

/// How much a queue may hold; a frame that would exceed either limit is dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueLimits {
    /// Most bytes (frame lengths) held at once, if limited.
    pub bytes: Option<u64>,
    /// Most frames held at once, if limited.
    pub frames: Option<u32>,
}

/// A first-in first-out queue that drops arrivals when full (drop-tail), with its
/// occupancy statistics.
#[derive(Debug)]
pub struct DropTailQueue {
    frames: VecDeque<Packet>,
    bytes: u64,
    limits: QueueLimits,
    bytes_level: TimeWeighted,
    frames_level: TimeWeighted,
}

impl DropTailQueue {
    /// An empty queue. Storage for the frame limit (or a modest default) is reserved
    /// up front, so steady-state operation does not allocate.
    pub fn new(limits: QueueLimits) -> Self {
        let reserve = limits.frames.map_or(64, |f| f.min(1 << 16) as usize);
        DropTailQueue {
            frames: VecDeque::with_capacity(reserve),
            bytes: 0,
            limits,
            bytes_level: TimeWeighted::default(),
            frames_level: TimeWeighted::default(),
        }
    }

    /// Whether `pkt` fits under both limits.
    pub fn fits(&self, pkt: &Packet) -> bool {
        let bytes_ok = self.limits.bytes.is_none_or(|b| self.bytes + u64::from(pkt.frame_len) <= b);
        let frames_ok = self.limits.frames.is_none_or(|f| self.frames.len() < f as usize);
        bytes_ok && frames_ok
    }

    /// Appends `pkt` if it fits; returns it back if it must be dropped.
    pub fn enqueue(&mut self, now: SimTime, pkt: Packet) -> Result<(), Packet> {
        if !self.fits(&pkt) {
            return Err(pkt);
        }
        self.bytes += u64::from(pkt.frame_len);
        self.frames.push_back(pkt);
        self.record(now);
        Ok(())
    }

    /// Removes the head frame.
    pub fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        let pkt = self.frames.pop_front()?;
        self.bytes -= u64::from(pkt.frame_len);
        self.record(now);
        Some(pkt)
    }

    fn record(&mut self, now: SimTime) {
        self.bytes_level.set(now, self.bytes);
        self.frames_level.set(now, self.frames.len() as u64);
    }

    /// Frames held.
    pub fn len(&self) -> usize {
        self.frames.len()
    }
    /// Whether the queue is empty.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }
    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    /// Occupancy in bytes over time.
    pub fn bytes_level(&self) -> &TimeWeighted {
        &self.bytes_level
    }
    /// Occupancy in frames over time.
    pub fn frames_level(&self) -> &TimeWeighted {
        &self.frames_level
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{FlowId, NodeId};
    use crate::wire::PacketKind;
    use proptest::prelude::*;

    fn pkt(len: u32) -> Packet {
        Packet {
            kind: PacketKind::Udp,
            flow: FlowId(0),
            src: NodeId(0),
            dst: NodeId(1),
            seq: 0,
            frame_len: len,
            payload: 0,
            created: SimTime(0),
        }
    }

    #[test]
    fn byte_limit_drops_the_frame_that_would_overflow() {
        let mut q = DropTailQueue::new(QueueLimits { bytes: Some(3000), frames: None });
        assert!(q.enqueue(SimTime(0), pkt(1500)).is_ok());
        assert!(q.enqueue(SimTime(0), pkt(1500)).is_ok());
        assert!(q.enqueue(SimTime(0), pkt(64)).is_err());
    }

    proptest! {
        /// Under any sequence of arrivals and departures: the limits hold, bytes are the
        /// sum of held frames, and order is FIFO.
        #[test]
        fn limits_and_fifo_hold(ops in proptest::collection::vec((any::<bool>(), 64u32..1518), 0..400),
                                byte_limit in 1518u64..20_000, frame_limit in 1u32..20) {
            let mut q = DropTailQueue::new(QueueLimits { bytes: Some(byte_limit), frames: Some(frame_limit) });
            let mut model: VecDeque<(u64, u32)> = VecDeque::new();
            for (i, (arrive, len)) in ops.into_iter().enumerate() {
                let t = SimTime(i as u64);
                if arrive {
                    let mut p = pkt(len);
                    p.seq = i as u64;
                    let fits = model.iter().map(|&(_, l)| u64::from(l)).sum::<u64>() + u64::from(len) <= byte_limit
                        && model.len() < frame_limit as usize;
                    prop_assert_eq!(q.enqueue(t, p).is_ok(), fits);
                    if fits { model.push_back((i as u64, len)); }
                } else {
                    prop_assert_eq!(q.dequeue(t).map(|p| p.seq), model.pop_front().map(|(s, _)| s));
                }
                prop_assert!(q.bytes() <= byte_limit && q.len() <= frame_limit as usize);
                prop_assert_eq!(q.bytes(), model.iter().map(|&(_, l)| u64::from(l)).sum::<u64>());
            }
        }
    }
}

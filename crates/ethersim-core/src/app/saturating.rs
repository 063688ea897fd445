//! A saturating source: it always has a frame ready, so it hands its host a frame
//! whenever the host has a free transmit buffer, and the host, its NIC or the network
//! sets the pace. Capacity studies load a network this way (every station of the
//! CSMA/CD capacity study did).
//!
//! Frame lengths are fixed, a bimodal mix of a short and a long length in a fixed ratio
//! (each block of `shorts + longs` frames holds exactly that many of each, in a random
//! order, so the ratio holds over every block and the order carries no pattern), or drawn
//! from a list of lengths with integer weights.

use rand::Rng;

use crate::engine::rng::Stream;
use crate::time::SimTime;
use crate::wire::{PacketKind, Protocol, Role};

use super::{Next, Outgoing};

/// How a saturating source picks each frame's length (as UDP payload bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameLengths {
    /// Every frame the same.
    Fixed(u32),
    /// `shorts` short frames and `longs` long ones in every block, in random order.
    Mix {
        /// Payload of a short frame.
        short: u32,
        /// Payload of a long frame.
        long: u32,
        /// Short frames per block.
        shorts: u32,
        /// Long frames per block.
        longs: u32,
    },
    /// Drawn independently: `payloads[i]` with probability `weights[i] / sum`.
    Weighted {
        /// The payloads.
        payloads: Vec<u32>,
        /// Running sums of the integer weights (the last is the total).
        cumulative: Vec<u64>,
    },
}

impl FrameLengths {
    /// A weighted list (`weights` positive integers, one per payload).
    pub fn weighted(payloads: Vec<u32>, weights: &[u64]) -> Self {
        let cumulative = weights
            .iter()
            .scan(0u64, |sum, &w| {
                *sum += w;
                Some(*sum)
            })
            .collect();
        FrameLengths::Weighted { payloads, cumulative }
    }
}

/// A source that always has a frame to send.
#[derive(Clone, Debug)]
pub struct SaturatingSource {
    /// Frame lengths.
    pub lengths: FrameLengths,
    /// No frame at or after this instant.
    pub stop: Option<SimTime>,
    /// At most this many frames.
    pub count: Option<u64>,
    generated: u64,
    /// The current block of a mix (payloads, in sending order) and the next one's index.
    block: Vec<u32>,
    next_in_block: usize,
}

impl SaturatingSource {
    /// A source of `lengths`, within `stop` and `count`.
    pub fn new(lengths: FrameLengths, stop: Option<SimTime>, count: Option<u64>) -> Self {
        SaturatingSource { lengths, stop, count, generated: 0, block: Vec::new(), next_in_block: 0 }
    }

    pub(super) fn poll(&mut self, now: SimTime, buffer_free: bool) -> Next {
        if self.count.is_some_and(|c| self.generated >= c) || self.stop.is_some_and(|s| now >= s) {
            Next::Finished
        } else if buffer_free {
            Next::Send
        } else {
            Next::WaitForBuffer
        }
    }

    /// The next frame's payload.
    fn next_payload(&mut self, rng: &mut Stream) -> u32 {
        match &self.lengths {
            FrameLengths::Fixed(p) => *p,
            FrameLengths::Mix { short, long, shorts, longs } => {
                if self.next_in_block == self.block.len() {
                    self.block.clear();
                    self.block.extend(std::iter::repeat_n(*short, *shorts as usize));
                    self.block.extend(std::iter::repeat_n(*long, *longs as usize));
                    // Fisher–Yates: every order of the block equally likely.
                    for i in (1..self.block.len()).rev() {
                        let j = rng.random_range(0..=i);
                        self.block.swap(i, j);
                    }
                    self.next_in_block = 0;
                }
                self.next_in_block += 1;
                self.block[self.next_in_block - 1]
            }
            FrameLengths::Weighted { payloads, cumulative } => {
                let total = *cumulative.last().expect("a weighted list is not empty");
                let r = rng.random_range(0..total);
                payloads[cumulative.partition_point(|&c| c <= r)]
            }
        }
    }

    pub(super) fn take(&mut self, rng: &mut Stream) -> Outgoing {
        let seq = self.generated;
        self.generated += 1;
        Outgoing {
            flow: None,
            to: Role::Sink,
            kind: PacketKind::Data,
            protocol: Protocol::Udp,
            payload: self.next_payload(rng),
            seq,
            echo: SimTime::NEVER,
        }
    }

    /// Frames handed to the host so far.
    pub fn generated(&self) -> u64 {
        self.generated
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng;

    fn payloads(lengths: FrameLengths, n: usize) -> Vec<u32> {
        let mut s = SaturatingSource::new(lengths, None, None);
        let mut r = rng::stream(1, "test");
        (0..n).map(|_| s.take(&mut r).payload).collect()
    }

    #[test]
    fn it_always_has_a_frame_until_its_count() {
        let mut s = SaturatingSource::new(FrameLengths::Fixed(100), None, Some(2));
        let mut r = rng::stream(1, "test");
        assert_eq!(s.poll(SimTime(0), true), Next::Send);
        assert_eq!(s.poll(SimTime(0), false), Next::WaitForBuffer);
        s.take(&mut r);
        s.take(&mut r);
        assert_eq!(s.poll(SimTime(0), true), Next::Finished);
    }

    #[test]
    fn a_mix_keeps_its_ratio_in_every_block_in_varied_orders() {
        let mix = FrameLengths::Mix { short: 18, long: 1472, shorts: 7, longs: 1 };
        let p = payloads(mix, 8 * 200);
        let mut orders = std::collections::HashSet::new();
        for block in p.chunks(8) {
            assert_eq!(block.iter().filter(|&&x| x == 1472).count(), 1, "{block:?}");
            orders.insert(block.iter().position(|&x| x == 1472));
        }
        assert_eq!(orders.len(), 8, "the long frame takes every place in its block");
    }

    #[test]
    fn weighted_lengths_follow_their_weights() {
        // Weights 1:3 over 40,000 draws: 10,000 expected of the first (sd 87).
        let p = payloads(FrameLengths::weighted(vec![100, 200], &[1, 3]), 40_000);
        let first = p.iter().filter(|&&x| x == 100).count();
        assert!(first.abs_diff(10_000) < 4 * 87, "{first}");
        assert!(p.iter().all(|&x| x == 100 || x == 200));
    }
}

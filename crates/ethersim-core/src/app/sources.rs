//! Open-loop packet sources: constant rate and Poisson.
//!
//! A source generates packets at its own instants whatever the network does. A packet
//! generated while the host has no free transmit buffer is lost at the sender and
//! counted (`send_drops`). A source stops at its stop time or after its packet count.
//! The same clock drives the ping client's requests.

use crate::engine::rng::{self, Stream};
use crate::time::{Duration, SimTime};
use crate::wire::{PacketKind, Protocol, Role};

use super::{Next, Outgoing};

/// When packets are generated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrivals {
    /// Every `interval`, starting at the source's start.
    Constant {
        /// Time between packets.
        interval: Duration,
    },
    /// Exponential gaps of mean `mean_interval` (a Poisson process), the first one
    /// after an exponential gap too.
    Poisson {
        /// Mean time between packets.
        mean_interval: Duration,
    },
}

/// A constant-rate or Poisson packet source.
#[derive(Clone, Copy, Debug)]
pub struct PacketSource {
    /// The arrival process.
    pub arrivals: Arrivals,
    /// No packet at or after this instant.
    pub stop: Option<SimTime>,
    /// At most this many packets generated (sent or dropped at the sender).
    pub count: Option<u64>,
    /// Payload per packet.
    pub payload: u32,
    generated: u64,
    send_drops: u64,
    next_at: Option<SimTime>,
}

impl PacketSource {
    /// A source with the given arrivals, limits and payload.
    pub fn new(arrivals: Arrivals, stop: Option<SimTime>, count: Option<u64>, payload: u32) -> Self {
        PacketSource { arrivals, stop, count, payload, generated: 0, send_drops: 0, next_at: None }
    }

    fn gap(&self, rng: &mut Stream) -> Duration {
        match self.arrivals {
            Arrivals::Constant { interval } => interval,
            Arrivals::Poisson { mean_interval } => rng::exponential(rng, mean_interval),
        }
    }

    fn exhausted(&self, at: SimTime) -> bool {
        self.count.is_some_and(|c| self.generated >= c) || self.stop.is_some_and(|s| at >= s)
    }

    pub(super) fn poll(&mut self, now: SimTime, buffer_free: bool, rng: &mut Stream) -> Next {
        let next_at = if let Some(t) = self.next_at {
            t
        } else {
            // A constant-rate source sends at its start; a Poisson one after a first gap.
            let first = if let Arrivals::Poisson { .. } = self.arrivals { now + self.gap(rng) } else { now };
            *self.next_at.insert(first)
        };
        if self.exhausted(next_at) {
            return Next::Finished;
        }
        if now < next_at {
            return Next::SleepUntil(next_at);
        }
        if buffer_free {
            return Next::Send;
        }
        // Lost at the sender: the host had no buffer when the packet was generated.
        self.send_drops += 1;
        self.advance(rng);
        let t = self.next_at.unwrap_or(now);
        if self.exhausted(t) {
            Next::Finished
        } else {
            Next::SleepUntil(t)
        }
    }

    /// Counts the packet due now as generated and draws the next instant; returns its
    /// sequence number.
    pub(super) fn advance(&mut self, rng: &mut Stream) -> u64 {
        let seq = self.generated;
        self.generated += 1;
        let gap = self.gap(rng);
        if let Some(t) = self.next_at.as_mut() {
            *t += gap;
        }
        seq
    }

    pub(super) fn take(&mut self, rng: &mut Stream) -> Outgoing {
        let seq = self.advance(rng);
        Outgoing {
            flow: None,
            to: Role::Sink,
            kind: PacketKind::Data,
            protocol: Protocol::Udp,
            payload: self.payload,
            seq,
            echo: SimTime::NEVER,
        }
    }

    /// Packets generated so far (sent or lost at the sender).
    pub fn generated(&self) -> u64 {
        self.generated
    }

    /// Packets lost at the sender for want of a transmit buffer.
    pub fn send_drops(&self) -> u64 {
        self.send_drops
    }

    /// `constant_rate` or `poisson`.
    pub fn kind_name(&self) -> &'static str {
        match self.arrivals {
            Arrivals::Constant { .. } => "constant_rate",
            Arrivals::Poisson { .. } => "poisson",
        }
    }
}

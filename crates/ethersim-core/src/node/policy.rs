//! Queue policies: mechanisms that watch a port's queue and hold or release its
//! transmitter (frame coalescing, Low Power Idle timeouts, adaptive-rate thresholds).
//!
//! A policy sees three moments of its port, and answers each with a [`PolicyAction`]
//! applied to the port's transmit gate through the [`Closer::POLICY`](crate::phy::Closer)
//! slot (which holds data frames, never MAC control):
//!
//! * a data frame joined the queue ([`QueuePolicy::on_enqueue`]);
//! * a data frame started its transmission ([`QueuePolicy::on_dequeue`]);
//! * the transmitter went idle with nothing waiting ([`QueuePolicy::on_empty`]).
//!
//! Policies are plain state machines with time passed in: unit-testable without a
//! network. Built-in policies join [`PortPolicy`] as variants (static dispatch on the hot
//! path); [`PortPolicy::Custom`] takes any implementation of the trait.

use std::fmt;

pub use crate::phy::QueueView;
use crate::time::SimTime;

/// What a policy wants done with the port's transmitter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyAction {
    /// Nothing changes.
    Keep,
    /// Hold data frames until this instant ([`SimTime::NEVER`]: until released).
    Hold(SimTime),
    /// Let data frames go.
    Release,
}

/// A policy watching one port's queue.
pub trait QueuePolicy: fmt::Debug + Send {
    /// A data frame joined the queue; `queue` is the queue after it.
    fn on_enqueue(&mut self, now: SimTime, queue: QueueView) -> PolicyAction;
    /// A data frame started its transmission; `queue` is what still waits.
    fn on_dequeue(&mut self, now: SimTime, queue: QueueView) -> PolicyAction;
    /// The transmitter finished a frame and nothing waits.
    fn on_empty(&mut self, now: SimTime) -> PolicyAction;
}

/// The policy attached to a port.
#[derive(Debug)]
pub enum PortPolicy {
    /// Any implementation of [`QueuePolicy`] (dynamic dispatch: for user extensions and tests).
    Custom(Box<dyn QueuePolicy>),
}

impl PortPolicy {
    /// Dispatches [`QueuePolicy::on_enqueue`].
    pub fn on_enqueue(&mut self, now: SimTime, queue: QueueView) -> PolicyAction {
        match self {
            PortPolicy::Custom(p) => p.on_enqueue(now, queue),
        }
    }
    /// Dispatches [`QueuePolicy::on_dequeue`].
    pub fn on_dequeue(&mut self, now: SimTime, queue: QueueView) -> PolicyAction {
        match self {
            PortPolicy::Custom(p) => p.on_dequeue(now, queue),
        }
    }
    /// Dispatches [`QueuePolicy::on_empty`].
    pub fn on_empty(&mut self, now: SimTime) -> PolicyAction {
        match self {
            PortPolicy::Custom(p) => p.on_empty(now),
        }
    }
}

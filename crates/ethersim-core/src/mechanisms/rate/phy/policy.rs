//! What a rate policy is: the view of its link it decides on ([`LinkView`]) and the
//! moments it is asked at ([`RatePolicy`]). The built-in policies are in `switching.rs`
//! and `practra.rs`.

use std::fmt;

use crate::phy::QueueView;
use crate::time::SimTime;

/// What a rate policy sees of its link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkView {
    /// The index of the current rate in the link's rates (slowest first).
    pub rate_index: usize,
    /// How many rates the link has.
    pub rates: usize,
    /// The data frames waiting at each end's output (not counting a frame on the wire).
    pub queues: [QueueView; 2],
    /// Bytes of the data frames that have arrived at each end's output so far, queued or
    /// dropped (the offered load, for policies that predict the arrival rate; counted
    /// only for those, `RatePolicyKind::counts_arrivals`).
    pub offered: [u64; 2],
}

/// A policy choosing a link's rate. Rates are named by their index in the link's rates,
/// slowest first. Plain state machines with time passed in: unit-testable alone.
pub trait RatePolicy: fmt::Debug + Send {
    /// A moment of one of the link's queues: the rate wanted, if it differs.
    fn on_queue(&mut self, now: SimTime, link: LinkView) -> Option<usize>;
    /// The policy's timer fired at `now`: the rate wanted, if it differs.
    fn on_timer(&mut self, now: SimTime, link: LinkView) -> Option<usize>;
    /// When the policy next needs its timer, if ever (asked after every call).
    fn next_timer(&self) -> Option<SimTime>;
}

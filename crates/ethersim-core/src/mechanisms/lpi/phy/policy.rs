//! When a Low Power Idle PHY sleeps and wakes: the policies (sleep at once when idle,
//! after an idle timeout, or coalesce frames and wake for them together) behind one
//! trait, and the enum a scenario chooses from.

use crate::time::{Duration, SimTime};
use std::fmt;

/// When a policy wants something done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// Now.
    Now,
    /// At this instant (a timer), unless something changes first.
    At(SimTime),
    /// Not by itself.
    Never,
}

/// A policy deciding when an LPI PHY sleeps and when it wakes: a plain state machine,
/// unit-testable without a network.
pub trait LpiPolicy: fmt::Debug + Send {
    /// The transmitter(s) went idle with nothing waiting: when to go to sleep.
    fn on_idle(&mut self, now: SimTime) -> When;
    /// A frame joined a queue while the PHY is not Active (`waiting` frames wait now):
    /// when to wake.
    fn on_arrival(&mut self, now: SimTime, waiting: usize) -> When;
    /// The PHY woke (frames flow again).
    fn on_wake(&mut self) {}
}

/// Sleep as soon as the transmitter is idle; wake for the first frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Immediate;

impl LpiPolicy for Immediate {
    fn on_idle(&mut self, _now: SimTime) -> When {
        When::Now
    }
    fn on_arrival(&mut self, _now: SimTime, _waiting: usize) -> When {
        When::Now
    }
}

/// Sleep after the transmitter has been idle for `timeout`; wake for the first frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdleTimeout {
    /// The idle time before sleeping.
    pub timeout: Duration,
}

impl LpiPolicy for IdleTimeout {
    fn on_idle(&mut self, now: SimTime) -> When {
        if self.timeout == Duration::ZERO {
            When::Now
        } else {
            When::At(now + self.timeout)
        }
    }
    fn on_arrival(&mut self, _now: SimTime, _waiting: usize) -> When {
        When::Now
    }
}

/// Frame coalescing: sleep as soon as idle; while asleep, hold frames until `frames`
/// wait or `timer` has passed since the first of them, then wake and send the burst.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Coalescing {
    /// Frames that wake the PHY at once.
    pub frames: usize,
    /// The longest the first held frame waits before the PHY starts waking.
    pub timer: Duration,
    first: Option<SimTime>,
}

impl Coalescing {
    /// Wake for `frames` frames, or `timer` after the first.
    pub fn new(frames: usize, timer: Duration) -> Self {
        Coalescing { frames, timer, first: None }
    }
}

impl LpiPolicy for Coalescing {
    fn on_idle(&mut self, _now: SimTime) -> When {
        When::Now
    }
    fn on_arrival(&mut self, now: SimTime, waiting: usize) -> When {
        let first = *self.first.get_or_insert(now);
        if waiting >= self.frames {
            When::Now
        } else {
            When::At(first + self.timer)
        }
    }
    fn on_wake(&mut self) {
        self.first = None;
    }
}

/// The policy of an LPI PHY (built-in policies dispatch statically).
#[derive(Debug)]
pub enum LpiPolicyKind {
    /// Sleep when idle.
    Immediate(Immediate),
    /// Sleep after an idle timeout.
    Timeout(IdleTimeout),
    /// Sleep when idle, wake for a burst.
    Coalescing(Coalescing),
    /// Any other policy.
    Custom(Box<dyn LpiPolicy>),
}

impl LpiPolicyKind {
    /// Dispatches [`LpiPolicy::on_idle`] (statically for the built-in policies).
    pub fn on_idle(&mut self, now: SimTime) -> When {
        match self {
            LpiPolicyKind::Immediate(p) => p.on_idle(now),
            LpiPolicyKind::Timeout(p) => p.on_idle(now),
            LpiPolicyKind::Coalescing(p) => p.on_idle(now),
            LpiPolicyKind::Custom(p) => p.on_idle(now),
        }
    }
    /// Dispatches [`LpiPolicy::on_arrival`]; `waiting` counts the frames waiting, asked
    /// only by the policies that look at it (counting walks the PHY's ports, and the
    /// policies that wake for any frame are on every wake's path).
    #[inline]
    pub fn on_arrival(&mut self, now: SimTime, waiting: impl FnOnce() -> usize) -> When {
        match self {
            LpiPolicyKind::Immediate(p) => p.on_arrival(now, 0),
            LpiPolicyKind::Timeout(p) => p.on_arrival(now, 0),
            LpiPolicyKind::Coalescing(p) => p.on_arrival(now, waiting()),
            LpiPolicyKind::Custom(p) => p.on_arrival(now, waiting()),
        }
    }
    /// Dispatches [`LpiPolicy::on_wake`].
    pub fn on_wake(&mut self) {
        match self {
            LpiPolicyKind::Immediate(p) => p.on_wake(),
            LpiPolicyKind::Timeout(p) => p.on_wake(),
            LpiPolicyKind::Coalescing(p) => p.on_wake(),
            LpiPolicyKind::Custom(p) => p.on_wake(),
        }
    }
}

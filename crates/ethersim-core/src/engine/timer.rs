//! Cancellable timers with one queued event each, by generation number.
//!
//! A model that may cancel or move a deadline (a TCP retransmission timer, an LPI idle
//! timeout, a PAUSE timer, a port's gate) keeps a [`Timer`]. The timer remembers its
//! deadline and the instant of the one event it has in the future event list:
//!
//! * arming it for a deadline at or after that event's instant queues nothing: when the
//!   event pops, it sees the later deadline and queues itself once more, for it. So a
//!   TCP sender that pushes its retransmission deadline forward on every ACK keeps one
//!   entry in the queue, however many ACKs arrive;
//! * arming it for an earlier deadline queues a new event with a new generation; the old
//!   event becomes stale and is skipped when it pops;
//! * cancelling only forgets the deadline; the queued event pops and does nothing. A
//!   cancelled timer never fires.
//!
//! Ties stay deterministic but follow from this: a timer pushed later is queued for its
//! new instant when its earlier event pops, so among events at that instant it runs after
//! those queued before that moment and before those queued after it (not in the order of
//! the calls that armed it). `a_timer_pushed_later_joins_its_instant_when_its_old_event_pops`
//! in `engine/mod.rs` pins the rule.
//!
//! [`Scheduler::arm`](super::Scheduler::arm) and
//! [`Scheduler::timer_fires`](super::Scheduler::timer_fires) do the queueing.

use crate::time::SimTime;

/// A timer's generation: the identity of one queued event of the timer.
pub type Generation = u32;

/// One cancellable timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timer {
    generation: Generation,
    /// When the timer should fire (`NEVER`: disarmed).
    deadline: SimTime,
    /// Instant of the live queued event (`NEVER`: none queued).
    queued: SimTime,
}

impl Default for Timer {
    fn default() -> Self {
        Timer { generation: 0, deadline: SimTime::NEVER, queued: SimTime::NEVER }
    }
}

/// What an event of a timer means when it pops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expiry {
    /// The timer fires now.
    Fire,
    /// Stale (superseded or cancelled): ignore it.
    Stale,
    /// The deadline moved later: queue the event again at this instant with this generation.
    Later(SimTime, Generation),
}

impl Timer {
    /// Arms (or re-arms) the timer to fire at `at`. Returns the generation of an event the
    /// caller must queue at `at`, or `None` if the event already queued (at or before
    /// `at`) will serve.
    pub fn arm(&mut self, at: SimTime) -> Option<Generation> {
        self.deadline = at;
        if self.queued <= at {
            return None;
        }
        self.generation = self.generation.wrapping_add(1);
        self.queued = at;
        Some(self.generation)
    }

    /// Cancels the timer: it will not fire until armed again.
    pub fn cancel(&mut self) {
        self.deadline = SimTime::NEVER;
    }

    /// Whether the timer is armed.
    pub fn is_armed(&self) -> bool {
        !self.deadline.is_never()
    }

    /// Whether the timer is armed to fire at `at` (one comparison: a disarmed timer's
    /// deadline is `NEVER`, which no instant of a run equals).
    #[inline]
    pub fn is_due_at(&self, at: SimTime) -> bool {
        self.deadline == at
    }

    /// The deadline, if armed.
    pub fn deadline(&self) -> Option<SimTime> {
        self.is_armed().then_some(self.deadline)
    }

    /// An event of this timer carrying `generation` popped at `now`.
    pub fn expire(&mut self, now: SimTime, generation: Generation) -> Expiry {
        if generation != self.generation || self.queued.is_never() {
            return Expiry::Stale;
        }
        self.queued = SimTime::NEVER;
        if self.deadline > now {
            if self.deadline.is_never() {
                return Expiry::Stale;
            }
            self.generation = self.generation.wrapping_add(1);
            self.queued = self.deadline;
            return Expiry::Later(self.deadline, self.generation);
        }
        self.deadline = SimTime::NEVER;
        Expiry::Fire
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancelled_timer_never_fires() {
        let mut t = Timer::default();
        let g = t.arm(SimTime(10)).unwrap();
        t.cancel();
        assert_eq!(t.expire(SimTime(10), g), Expiry::Stale);
        assert!(!t.is_armed());
    }

    #[test]
    fn an_earlier_deadline_makes_the_queued_event_stale() {
        let mut t = Timer::default();
        let g1 = t.arm(SimTime(100)).unwrap();
        let g2 = t.arm(SimTime(50)).unwrap();
        assert_eq!(t.expire(SimTime(50), g2), Expiry::Fire);
        assert_eq!(t.expire(SimTime(100), g1), Expiry::Stale);
    }

    #[test]
    fn a_later_deadline_reuses_the_queued_event() {
        let mut t = Timer::default();
        let g = t.arm(SimTime(100)).unwrap();
        assert_eq!(t.arm(SimTime(150)), None);
        assert_eq!(t.arm(SimTime(300)), None);
        let Expiry::Later(at, g2) = t.expire(SimTime(100), g) else { panic!("should move later") };
        assert_eq!(at, SimTime(300));
        assert_eq!(t.expire(SimTime(300), g2), Expiry::Fire);
        assert_eq!(t.expire(SimTime(300), g2), Expiry::Stale, "fires once");
    }

    #[test]
    fn rearming_after_a_cancel_reuses_the_queued_event() {
        let mut t = Timer::default();
        let g = t.arm(SimTime(100)).unwrap();
        t.cancel();
        assert_eq!(t.arm(SimTime(200)), None);
        assert!(matches!(t.expire(SimTime(100), g), Expiry::Later(SimTime(200), _)));
    }

    #[test]
    fn a_deadline_equal_to_now_fires() {
        let mut t = Timer::default();
        let g = t.arm(SimTime(0)).unwrap();
        assert_eq!(t.expire(SimTime(0), g), Expiry::Fire);
    }
}

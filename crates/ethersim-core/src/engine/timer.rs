//! Cancellable timers by generation number.
//!
//! A model that may cancel or reschedule a timer (a TCP retransmission timer, an LPI
//! idle timeout, a PAUSE timer) keeps a [`Timer`]. Arming it bumps the generation and
//! returns the value to put in the scheduled event; when the event pops, the model asks
//! [`Timer::fires`] and a stale event (armed before a cancel or a re-arm) is skipped.
//! Cancelling costs nothing in the queue and a cancelled event never runs.

/// A timer's generation: the identity of one arming.
pub type Generation = u32;

/// One cancellable timer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timer {
    generation: Generation,
    armed: bool,
}

impl Timer {
    /// Arms (or re-arms) the timer; the returned generation goes into the scheduled event.
    /// Any event from an earlier arming becomes stale.
    pub fn arm(&mut self) -> Generation {
        self.generation = self.generation.wrapping_add(1);
        self.armed = true;
        self.generation
    }

    /// Cancels the timer: its pending event, if any, will not fire.
    pub fn cancel(&mut self) {
        self.armed = false;
    }

    /// Whether the timer is armed.
    pub fn is_armed(&self) -> bool {
        self.armed
    }

    /// Called when an event carrying `generation` pops: true (and disarms) if it is the
    /// live arming, false if the event is stale and must be ignored.
    pub fn fires(&mut self, generation: Generation) -> bool {
        if self.armed && generation == self.generation {
            self.armed = false;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancelled_timer_never_fires() {
        let mut t = Timer::default();
        let g = t.arm();
        t.cancel();
        assert!(!t.fires(g));
    }

    #[test]
    fn rearming_makes_the_earlier_event_stale() {
        let mut t = Timer::default();
        let g1 = t.arm();
        let g2 = t.arm();
        assert!(!t.fires(g1));
        assert!(t.fires(g2));
        assert!(!t.fires(g2), "fires once");
    }
}

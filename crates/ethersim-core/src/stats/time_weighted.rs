//! Time-weighted average and maximum of a piecewise-constant level (a queue length, say).
//!
//! The maximum counts only levels held for a positive span of time: a frame that joins
//! an idle port's queue and leaves it at the same instant to go on the wire was never
//! waiting, and does not make the port's largest queue one frame.

use crate::time::SimTime;

/// Tracks the integral of a level over time, in exact integer arithmetic.
#[derive(Clone, Copy, Debug, Default)]
pub struct TimeWeighted {
    level: u64,
    since: SimTime,
    integral: u128,
    max: u64,
}

impl TimeWeighted {
    /// Records that the level changes to `level` at `now`.
    pub fn set(&mut self, now: SimTime, level: u64) {
        let held = now.saturating_since(self.since).as_ps();
        if held > 0 {
            self.max = self.max.max(self.level);
        }
        self.integral += u128::from(self.level) * u128::from(held);
        self.since = now;
        self.level = level;
    }

    /// The current level.
    pub fn level(&self) -> u64 {
        self.level
    }

    /// The largest level held for a positive span of time within `[0, end]`.
    pub fn max_until(&self, end: SimTime) -> u64 {
        if end > self.since {
            self.max.max(self.level)
        } else {
            self.max
        }
    }

    /// The mean level over `[0, end]`.
    pub fn mean_until(&self, end: SimTime) -> f64 {
        if end.as_ps() == 0 {
            return self.level as f64;
        }
        let tail = u128::from(self.level) * u128::from(end.saturating_since(self.since).as_ps());
        (self.integral + tail) as f64 / end.as_ps() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_is_the_area_over_the_span() {
        let mut q = TimeWeighted::default();
        q.set(SimTime(10), 4); // 0 for [0,10), 4 for [10,30), 1 for [30,40]
        q.set(SimTime(30), 1);
        assert!((q.mean_until(SimTime(40)) - (4.0 * 20.0 + 10.0) / 40.0).abs() < 1e-12);
        assert_eq!(q.max_until(SimTime(40)), 4);
    }

    #[test]
    fn a_level_held_for_no_time_is_not_a_maximum() {
        let mut q = TimeWeighted::default();
        q.set(SimTime(10), 9); // up and straight back down at the same instant
        q.set(SimTime(10), 2);
        assert_eq!(q.max_until(SimTime(10)), 0);
        assert_eq!(q.max_until(SimTime(11)), 2);
    }
}

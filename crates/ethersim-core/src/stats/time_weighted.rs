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
        self.held_then_set(now, held, level);
    }

    /// Counts the current level as held for the `held` picoseconds up to `now` (the span
    /// since the last change, measured by the caller), then records `level` from `now`.
    #[inline]
    fn held_then_set(&mut self, now: SimTime, held: u64, level: u64) {
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

/// Two levels that always change at the same instants (a queue's bytes and frames),
/// tracked on one clock: each change measures the span held once for both. Each level
/// reads back as the [`TimeWeighted`] it would have been on its own.
// On every frame's path twice per queue (joining and leaving): two separate trackers
// measured 3-6% of a TCP transfer's samples; measuring the span once saves 1% of its
// instructions.
#[derive(Clone, Copy, Debug, Default)]
pub struct TimeWeightedPair {
    first: TimeWeighted,
    second: TimeWeighted,
}

impl TimeWeightedPair {
    /// Records that the levels change to `first` and `second` at `now`.
    #[inline]
    pub fn set(&mut self, now: SimTime, first: u64, second: u64) {
        // Both changed together at every earlier change, so they share `since`.
        let held = now.saturating_since(self.first.since).as_ps();
        self.first.held_then_set(now, held, first);
        self.second.held_then_set(now, held, second);
    }

    /// The first level, as a tracker of its own.
    pub fn first(&self) -> TimeWeighted {
        self.first
    }

    /// The second level, as a tracker of its own.
    pub fn second(&self) -> TimeWeighted {
        self.second
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

    #[test]
    fn a_pair_reads_back_as_two_trackers_set_at_the_same_instants() {
        let (mut a, mut b, mut pair) =
            (TimeWeighted::default(), TimeWeighted::default(), TimeWeightedPair::default());
        // Level changes with repeated instants (a level held for no time) and a long hold.
        let steps = [
            (0, 3, 1),
            (5, 9, 2),
            (5, 4, 1),
            (12, 0, 0),
            (1_000_000_000_007, 1514, 1),
            (1_000_000_000_007, 0, 0),
        ];
        for (t, x, y) in steps {
            a.set(SimTime(t), x);
            b.set(SimTime(t), y);
            pair.set(SimTime(t), x, y);
        }
        for end in [SimTime(5), SimTime(12), SimTime(2_000_000_000_000)] {
            for (alone, read) in [(a, pair.first()), (b, pair.second())] {
                assert_eq!(alone.max_until(end), read.max_until(end));
                assert_eq!(alone.mean_until(end).to_bits(), read.mean_until(end).to_bits());
                assert_eq!(alone.level(), read.level());
            }
        }
        assert_eq!(pair.first().max_until(SimTime(13)), 4, "9 was held for no time");
        // 3 for [0, 5), 9 for no time, 4 for [5, 12): an area of 43 over 12 ps.
        let mut early = TimeWeightedPair::default();
        for (t, x, y) in &steps[..4] {
            early.set(SimTime(*t), *x, *y);
        }
        assert_eq!(early.first().mean_until(SimTime(12)).to_bits(), (43.0_f64 / 12.0).to_bits());
    }
}

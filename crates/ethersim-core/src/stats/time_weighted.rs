//! Time-weighted average of a piecewise-constant level (a queue length, say).

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
        self.integral += u128::from(self.level) * u128::from(now.saturating_since(self.since).as_ps());
        self.since = now;
        self.level = level;
        self.max = self.max.max(level);
    }

    /// The current level.
    pub fn level(&self) -> u64 {
        self.level
    }

    /// The largest level seen.
    pub fn max(&self) -> u64 {
        self.max
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
        assert_eq!(q.max(), 4);
    }
}

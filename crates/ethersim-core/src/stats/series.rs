//! A quantity over time as change points, bounded in memory.

use crate::time::SimTime;

/// Which changes a series keeps: at most `max_points`, within the window `[from, until)`.
/// Before the window only the level at its start is kept (one point at `from`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeriesLimits {
    /// Most points kept; later changes are counted, not kept.
    pub max_points: usize,
    /// The window's start.
    pub from: SimTime,
    /// The window's end (changes at or after it are not kept).
    pub until: SimTime,
}

impl SeriesLimits {
    /// At most `max_points` over the whole run.
    pub fn points(max_points: usize) -> Self {
        SeriesLimits { max_points, from: SimTime::ZERO, until: SimTime::NEVER }
    }
}

/// One quantity over time, as change points: the level from each instant on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Series {
    /// (instant, level) at each change, the first at 0.
    pub points: Vec<(SimTime, u64)>,
    /// Changes not kept because the point limit was reached.
    pub dropped_points: u64,
}

impl Series {
    /// A series whose level is `level` from the start of its window (`from`).
    pub fn starting_at(level: u64, limits: SeriesLimits) -> Self {
        Series { points: vec![(limits.from, level)], dropped_points: 0 }
    }

    /// The level is `v` from `at` on (`at` no earlier than the last change), kept as
    /// `limits` say; changes beyond the point limit are counted in `dropped_points`.
    pub fn push(&mut self, limits: SeriesLimits, at: SimTime, v: u64) {
        if at >= limits.until {
            return;
        }
        if at < limits.from {
            // Every change so far was before the window: one point holds the level.
            self.points.clear();
            self.points.push((limits.from, v));
            return;
        }
        let full = self.points.len() >= limits.max_points;
        match self.points.last_mut() {
            Some(last) if last.1 == v => {}
            Some(last) if last.0 == at => last.1 = v,
            _ if full => self.dropped_points += 1,
            _ => self.points.push((at, v)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_keeps_the_level_at_its_start_and_nothing_after_it() {
        let limits = SeriesLimits { max_points: 10, from: SimTime(100), until: SimTime(200) };
        let mut s = Series::starting_at(0, limits);
        s.push(limits, SimTime(10), 5);
        s.push(limits, SimTime(50), 7);
        s.push(limits, SimTime(100), 8);
        s.push(limits, SimTime(150), 9);
        s.push(limits, SimTime(200), 1);
        assert_eq!(s.points, vec![(SimTime(100), 8), (SimTime(150), 9)]);
        let mut empty = Series::default();
        empty.push(limits, SimTime(10), 3);
        assert_eq!(empty.points, vec![(SimTime(100), 3)]);
    }
}

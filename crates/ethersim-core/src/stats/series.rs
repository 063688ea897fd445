//! A quantity over time as change points, bounded in memory.

use crate::time::SimTime;

/// One quantity over time, as change points: the level from each instant on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Series {
    /// (instant, level) at each change, the first at 0.
    pub points: Vec<(SimTime, u64)>,
    /// Changes not kept because the point limit was reached.
    pub dropped_points: u64,
}

impl Series {
    /// A series whose level is `level` from instant 0.
    pub fn starting_at(level: u64) -> Self {
        Series { points: vec![(SimTime::ZERO, level)], dropped_points: 0 }
    }

    /// The level is `v` from `at` on (`at` no earlier than the last change); at most
    /// `max` points are kept, later changes are counted in `dropped_points`.
    pub fn push(&mut self, max: usize, at: SimTime, v: u64) {
        let full = self.points.len() >= max;
        match self.points.last_mut() {
            Some(last) if last.1 == v => {}
            Some(last) if last.0 == at => last.1 = v,
            _ if full => self.dropped_points += 1,
            _ => self.points.push((at, v)),
        }
    }
}

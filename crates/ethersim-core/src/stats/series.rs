//! A quantity over time as change points, bounded in memory.

use crate::time::{Duration, SimTime};

/// Which changes a series keeps: at most `max_points`, within the window `[from, until)`.
/// Before the window only the level at its start is kept (one point at `from`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeriesLimits {
    /// Most points kept; past it the series is decimated (see [`Series`]).
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

    /// The limits that cover both `self` and `other`: the union of their windows and the
    /// larger point limit (a series kept once for several series that asked for it, each
    /// of which then takes its own window, [`Series::within`]).
    #[must_use]
    pub fn covering(self, other: SeriesLimits) -> SeriesLimits {
        SeriesLimits {
            max_points: self.max_points.max(other.max_points),
            from: self.from.min(other.from),
            until: self.until.max(other.until),
        }
    }
}

/// The fewest points a series may be limited to: past its limit a series keeps three
/// points a bucket, and halving the resolution must leave room.
pub const MIN_POINTS: usize = 12;

/// One quantity over time, as change points: the level from each instant on.
///
/// Within its point limit a series keeps every change. Past it, it is decimated rather
/// than cut: time is divided into buckets from the series' first instant, and each bucket
/// keeps its lowest, highest and last level, in time order, so that an extreme (a pause,
/// a queue peak) still shows and the level at each bucket's end is exact. The first
/// bucket width makes the kept points about half the limit; whenever the limit is
/// reached again the width doubles and the kept points are merged again.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Series {
    /// (instant, level) at each kept change, the first at the window's start.
    pub points: Vec<(SimTime, u64)>,
    /// Changes merged into buckets, not kept as points (0 while the limit holds).
    pub dropped_points: u64,
    /// The bucket width once decimated; zero while every change is kept.
    pub bucket: Duration,
    /// Points that entered the series (its starting level and each change since), kept
    /// or merged.
    entered: u64,
    /// The bucket being filled.
    current: Bucket,
}

/// The bucket a decimated series is filling: which it is, where its points start in
/// `points`, and its lowest, highest and last (instant, level).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Bucket {
    index: u64,
    start: usize,
    low: (SimTime, u64),
    high: (SimTime, u64),
    last: (SimTime, u64),
}

impl Bucket {
    fn new(index: u64, start: usize, p: (SimTime, u64)) -> Self {
        Bucket { index, start, low: p, high: p, last: p }
    }

    fn add(&mut self, p: (SimTime, u64)) {
        if p.1 < self.low.1 {
            self.low = p;
        }
        if p.1 > self.high.1 {
            self.high = p;
        }
        self.last = p;
    }

    /// The bucket's kept points, in time order, each once.
    fn write(&self, points: &mut Vec<(SimTime, u64)>) {
        let mut kept = [self.low, self.high, self.last];
        kept.sort_by_key(|p| p.0);
        for p in kept {
            let own = points.len() > self.start;
            match points.last_mut() {
                // The same instant twice (a level set again at once): the later holds.
                Some(prev) if prev.0 == p.0 && own => prev.1 = p.1,
                // No change of level: nothing to keep.
                Some(prev) if prev.1 == p.1 => {}
                _ => points.push(p),
            }
        }
    }
}

impl Series {
    /// A series whose level is `level` from the start of its window (`from`).
    pub fn starting_at(level: u64, limits: SeriesLimits) -> Self {
        Series { points: vec![(limits.from, level)], entered: 1, ..Series::default() }
    }

    /// This series seen through the window of `limits`: its level at `limits.from`, then
    /// its changes inside the window (a series kept once for several windows, each of
    /// which takes its own view).
    #[must_use]
    pub fn within(&self, limits: SeriesLimits) -> Series {
        let mut s = self.clone();
        let level = s.points.iter().take_while(|p| p.0 <= limits.from).last().map_or(0, |p| p.1);
        s.points.retain(|p| p.0 > limits.from && p.0 < limits.until);
        s.points.insert(0, (limits.from, level));
        s
    }

    /// The level is `v` from `at` on (`at` no earlier than the last change), kept as
    /// `limits` say: every change within the point limit, then decimated (see [`Series`]).
    pub fn push(&mut self, limits: SeriesLimits, at: SimTime, v: u64) {
        if at >= limits.until {
            return;
        }
        if at < limits.from {
            // Every change so far was before the window: one point holds the level.
            self.points.clear();
            self.points.push((limits.from, v));
            self.entered = 1;
            return;
        }
        if self.bucket.0 > 0 {
            self.push_decimated(limits, at, v);
            return;
        }
        match self.points.last_mut() {
            Some(last) if last.1 == v => return,
            Some(last) if last.0 == at => {
                last.1 = v;
                return;
            }
            _ => {}
        }
        self.entered += 1;
        if self.points.len() < limits.max_points || limits.max_points < MIN_POINTS {
            if self.points.len() < limits.max_points {
                self.points.push((at, v));
            } else {
                // A limit too small to decimate (the scenario refuses it; direct use).
                self.dropped_points += 1;
            }
            return;
        }
        // The limit is reached: from here on, buckets.
        let origin = self.points[0].0;
        let span = (at - origin).0.max(1);
        let buckets = (limits.max_points / 6) as u64;
        self.regroup(Duration(span.div_ceil(buckets).max(1)));
        self.entered -= 1;
        self.push_decimated(limits, at, v);
    }

    fn push_decimated(&mut self, limits: SeriesLimits, at: SimTime, v: u64) {
        if self.current.last.1 == v {
            return;
        }
        self.entered += 1;
        let origin = self.points[0].0;
        let mut index = (at - origin).0 / self.bucket.0;
        if index != self.current.index {
            while self.points.len() + 3 > limits.max_points {
                self.regroup(Duration(self.bucket.0.saturating_mul(2)));
                index = (at - origin).0 / self.bucket.0;
            }
        }
        if index == self.current.index {
            self.current.add((at, v));
        } else {
            self.current = Bucket::new(index, self.points.len(), (at, v));
        }
        self.points.truncate(self.current.start);
        self.current.write(&mut self.points);
        self.dropped_points = self.entered - self.points.len() as u64;
    }

    /// Merges the kept points into buckets of `width` (each its lowest, highest and last
    /// level) and makes the last of them the bucket being filled.
    fn regroup(&mut self, width: Duration) {
        let origin = self.points[0].0;
        let old = std::mem::take(&mut self.points);
        let mut current: Option<Bucket> = None;
        for p in old {
            let index = (p.0 - origin).0 / width.0;
            match current.as_mut() {
                Some(b) if b.index == index => b.add(p),
                _ => {
                    if let Some(b) = current {
                        b.write(&mut self.points);
                    }
                    current = Some(Bucket::new(index, self.points.len(), p));
                }
            }
        }
        let last = current.expect("a series keeps its first point");
        last.write(&mut self.points);
        self.current = last;
        self.bucket = width;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The level of a step series (change points) at `t`.
    fn level_at(points: &[(SimTime, u64)], t: SimTime) -> u64 {
        points.iter().take_while(|p| p.0 <= t).last().map_or(0, |p| p.1)
    }

    #[test]
    fn covering_limits_hold_both_windows_and_the_larger_point_limit() {
        let a = SeriesLimits { max_points: 20, from: SimTime(10), until: SimTime(50) };
        let b = SeriesLimits { max_points: 100, from: SimTime(30), until: SimTime(90) };
        let c = a.covering(b);
        assert_eq!((c.max_points, c.from, c.until), (100, SimTime(10), SimTime(90)));
        assert_eq!(c, b.covering(a), "the order of the two does not matter");
    }

    proptest! {
        /// A series kept over the whole run and seen through a window is the series a
        /// subscriber of that window alone would have kept (no decimation): its level at
        /// every instant of the window, and no point outside it.
        #[test]
        fn a_window_of_a_whole_series_is_the_windowed_series(
            changes in proptest::collection::vec((1u64..1_000, 0u64..4), 0..40),
            from in 0u64..20_000,
            len in 1u64..20_000,
        ) {
            let (from, until) = (SimTime(from), SimTime(from + len));
            let whole_limits = SeriesLimits::points(1_000);
            let window_limits = SeriesLimits { max_points: 1_000, from, until };
            let (mut whole, mut windowed) =
                (Series::starting_at(0, whole_limits), Series::starting_at(0, window_limits));
            let mut t = 0;
            for (step, v) in changes {
                t += step;
                whole.push(whole_limits, SimTime(t), v);
                windowed.push(window_limits, SimTime(t), v);
            }
            let seen = whole.within(window_limits);
            prop_assert!(seen.points.iter().all(|p| p.0 >= from && p.0 < until));
            for probe in (from.0..until.0).step_by(97) {
                prop_assert_eq!(level_at(&seen.points, SimTime(probe)), level_at(&windowed.points, SimTime(probe)));
            }
        }
    }

    #[test]
    fn past_its_limit_a_series_keeps_a_pause_and_the_level_at_the_end() {
        // A queue at 100 for 10 s with one 1-ms pause to 0 at 7 s, changing every 10 us
        // between 100 and 101: a million changes into 1,000 points.
        let limits = SeriesLimits::points(1000);
        let mut s = Series::starting_at(100, limits);
        let mut t = 0u64;
        let (mut changes, mut prev) = (0u64, 100u64);
        while t < 10_000_000_000_000 {
            t += 10_000_000;
            let v = if (7_000_000_000_000..7_001_000_000_000).contains(&t) {
                0
            } else {
                100 + (t / 10_000_000) % 2
            };
            s.push(limits, SimTime(t), v);
            changes += u64::from(v != prev);
            prev = v;
        }
        assert!(s.points.len() <= 1000 && s.points.len() > 100, "{} points", s.points.len());
        assert!(s.bucket.0 > 0);
        assert_eq!(s.dropped_points + s.points.len() as u64, changes + 1, "every change kept or merged");
        assert!(s.points.iter().any(|p| p.1 == 0), "the pause shows");
        let pause = s.points.iter().find(|p| p.1 == 0).unwrap().0;
        assert!(pause.0.abs_diff(7_000_000_000_000) <= s.bucket.0, "where it was, within a bucket");
        assert_eq!(s.points.last().unwrap().1, level_at(&s.points, SimTime(t)));
        assert!(s.points.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 != w[1].1));
    }

    proptest! {
        /// Any step series: within the limit every change is kept; past it, at most the
        /// limit is kept, in time order, with the true lowest and highest level, the true
        /// last level, and every change accounted for.
        #[test]
        fn decimation_keeps_extremes_order_and_the_last_level(
            steps in proptest::collection::vec((1u64..1_000_000, 0u64..50), 1..3000),
            max_points in MIN_POINTS..200,
        ) {
            let limits = SeriesLimits::points(max_points);
            let mut s = Series::starting_at(25, limits);
            let mut full = vec![(SimTime(0), 25u64)];
            let mut t = 0;
            for (dt, v) in steps {
                t += dt;
                s.push(limits, SimTime(t), v);
                if full.last().unwrap().1 != v {
                    full.push((SimTime(t), v));
                }
            }
            prop_assert!(s.points.len() <= max_points);
            prop_assert!(s.points.windows(2).all(|w| w[0].0 < w[1].0));
            prop_assert_eq!(s.dropped_points + s.points.len() as u64, full.len() as u64);
            if full.len() <= max_points {
                prop_assert_eq!(&s.points, &full);
            } else {
                let kept = |f: fn(&mut dyn Iterator<Item = u64>) -> Option<u64>, p: &[(SimTime, u64)]| f(&mut p.iter().map(|x| x.1));
                prop_assert_eq!(kept(|i| i.min(), &s.points), kept(|i| i.min(), &full));
                prop_assert_eq!(kept(|i| i.max(), &s.points), kept(|i| i.max(), &full));
                prop_assert_eq!(s.points.last().unwrap().1, full.last().unwrap().1);
                // Each kept level was the true level at its instant.
                for p in &s.points {
                    prop_assert_eq!(level_at(&full, p.0), p.1);
                }
            }
        }
    }

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

//! Idle intervals of a transmitter: how long its wire stayed silent between one
//! transmission and the next.
//!
//! These are the gaps an Energy Efficient Ethernet PHY could sleep in (802.3az decides on
//! exactly these silences), and the distribution the EEE performance model for parallel
//! applications averages its penalty over. A gap runs from the end of a frame's
//! inter-frame gap (the earliest the next frame could have started) to the start of the
//! next transmission; back-to-back frames leave none. The first transmission of a run has
//! no gap before it.
//!
//! Gaps are kept exactly as a count, a total and a maximum, and as an HDR histogram
//! with two significant digits (bins within 1% of their value), made on the first gap so
//! that a port that never idles costs nothing.

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::time::{Duration, SimTime};

/// Smallest gap the histogram tells from zero: 1 ns.
const LOWEST_PS: u64 = 1_000;
/// Largest gap the histogram covers when first made (1 ms); it grows on demand.
const INITIAL_HIGHEST_PS: u64 = 1_000_000_000;
/// Significant digits of the histogram's bins.
const SIGNIFICANT_DIGITS: u8 = 2;

/// The idle intervals of one transmitter.
#[derive(Clone, Debug)]
pub struct IdleIntervals {
    /// When the wire last became free; [`SimTime::NEVER`] before the first transmission.
    free_since: SimTime,
    count: u64,
    total_ps: u128,
    max: Duration,
    histogram: Option<Box<Histogram<u64>>>,
}

/// What a run reports of a transmitter's idle intervals, in seconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct IdleSummary {
    /// Whether the port recorded its idle intervals (the other figures are 0 if not).
    pub recorded: bool,
    /// Number of gaps.
    pub count: u64,
    /// Their total, s.
    pub total_s: f64,
    /// Their mean, s.
    pub mean_s: f64,
    /// The longest, s.
    pub max_s: f64,
}

/// One bin of the idle-interval histogram: gaps in [`lower_s`, `upper_s`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct IdleBin {
    /// Lower edge, s.
    pub lower_s: f64,
    /// Upper edge, s.
    pub upper_s: f64,
    /// Gaps in the bin.
    pub count: u64,
}

impl Default for IdleIntervals {
    fn default() -> Self {
        IdleIntervals {
            free_since: SimTime::NEVER,
            count: 0,
            total_ps: 0,
            max: Duration::ZERO,
            histogram: None,
        }
    }
}

impl IdleIntervals {
    /// The wire became free at `at`.
    #[inline]
    pub fn free_from(&mut self, at: SimTime) {
        self.free_since = at;
    }

    /// A transmission starts at `now`: the silence since the wire became free is a gap.
    #[inline]
    pub fn busy_from(&mut self, now: SimTime) {
        if now > self.free_since {
            self.record(now - self.free_since);
        }
    }

    /// Records one gap (a zero gap is none). Kept out of line: the frame path that calls
    /// it stays small for the ports that record nothing.
    #[inline(never)]
    pub fn record(&mut self, gap: Duration) {
        if gap == Duration::ZERO {
            return;
        }
        self.count += 1;
        self.total_ps += u128::from(gap.as_ps());
        self.max = self.max.max(gap);
        let h = self.histogram.get_or_insert_with(|| {
            let mut h = Histogram::new_with_bounds(LOWEST_PS, INITIAL_HIGHEST_PS, SIGNIFICANT_DIGITS)
                .expect("valid histogram bounds");
            h.auto(true);
            Box::new(h)
        });
        // Gaps below the lowest discernible value land in the first bin; auto-resize
        // takes any larger value, so recording cannot fail.
        h.record(gap.as_ps().max(LOWEST_PS)).expect("an auto-resizing histogram takes any value");
    }

    /// The number of gaps recorded.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The report of the gaps so far.
    pub fn summary(&self) -> IdleSummary {
        let count = self.count;
        IdleSummary {
            recorded: true,
            count,
            total_s: self.total_ps as f64 * 1e-12,
            mean_s: if count == 0 { 0.0 } else { self.total_ps as f64 / count as f64 * 1e-12 },
            max_s: self.max.as_secs_f64(),
        }
    }

    /// Their distribution: the bins holding gaps, by lower edge.
    pub fn bins(&self) -> Vec<IdleBin> {
        let Some(h) = self.histogram.as_deref() else { return Vec::new() };
        h.iter_recorded()
            .map(|v| {
                let top = v.value_iterated_to();
                IdleBin {
                    lower_s: h.lowest_equivalent(top) as f64 * 1e-12,
                    upper_s: h.next_non_equivalent(top) as f64 * 1e-12,
                    count: v.count_at_value(),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_are_counted_exactly_and_binned_within_one_percent() {
        let mut idle = IdleIntervals::default();
        idle.record(Duration::ZERO);
        for us in [10, 10, 250, 4000] {
            idle.record(Duration::from_us(us));
        }
        let s = idle.summary();
        assert_eq!(s.count, 4);
        assert!((s.total_s - 4270e-6).abs() < 1e-15);
        assert!((s.max_s - 4e-3).abs() < 1e-15);
        let bins = idle.bins();
        assert_eq!(bins.iter().map(|b| b.count).sum::<u64>(), 4);
        for (bin, us) in bins.iter().zip([10.0, 250.0, 4000.0]) {
            let v = us * 1e-6;
            assert!(bin.lower_s <= v && v < bin.upper_s, "{v} outside {bin:?}");
            assert!((bin.upper_s - bin.lower_s) / v <= 0.01, "{bin:?} wider than 1%");
        }
        assert_eq!(bins[0].count, 2);
    }

    #[test]
    fn a_port_that_never_idles_reports_nothing() {
        let idle = IdleIntervals::default();
        let s = idle.summary();
        assert_eq!((s.count, s.mean_s, idle.bins().len()), (0, 0.0, 0));
    }
}

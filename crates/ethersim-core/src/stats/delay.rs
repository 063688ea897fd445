//! Packet delay statistics: exact mean and standard deviation, and percentiles from an
//! HDR histogram with three significant digits (relative error below 0.1%), which
//! holds a bounded amount of memory however many samples it sees.
//!
//! The histogram is made on the first sample, so a flow that has carried nothing costs a
//! few dozen bytes (ten thousand idle flows fit in well under a megabyte). It starts
//! sized for delays up to about a millisecond (about 100 KB) and grows, by whole
//! powers of two, only when a larger delay appears. Percentiles resolve 1 ns; the mean,
//! deviation, minimum and maximum are exact to the picosecond.

use hdrhistogram::Histogram;
use serde::Serialize;

use super::moments::Moments;
use crate::time::Duration;

/// Smallest delay the histogram tells from zero: 1 ns.
const LOWEST_PS: u64 = 1_000;
/// Largest delay the histogram covers when first made (1 ms); it grows beyond on demand.
const INITIAL_HIGHEST_PS: u64 = 1_000_000_000;

/// Delay samples of one flow (or of several merged).
#[derive(Clone, Debug)]
pub struct DelayStats {
    moments: Moments,
    min: Duration,
    max: Duration,
    histogram: Option<Box<Histogram<u64>>>,
}

impl Default for DelayStats {
    fn default() -> Self {
        DelayStats {
            moments: Moments::default(),
            min: Duration(u64::MAX),
            max: Duration::ZERO,
            histogram: None,
        }
    }
}

/// What a run reports of a set of delays, in seconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DelaySummary {
    /// Number of samples.
    pub count: u64,
    /// Mean delay, s.
    pub mean_s: f64,
    /// Standard deviation, s.
    pub std_s: f64,
    /// Smallest delay, s.
    pub min_s: f64,
    /// Median, s.
    pub p50_s: f64,
    /// 90th percentile, s.
    pub p90_s: f64,
    /// 99th percentile, s.
    pub p99_s: f64,
    /// Largest delay, s.
    pub max_s: f64,
}

fn new_histogram() -> Histogram<u64> {
    // Bounds are constants within hdrhistogram's documented valid range.
    let mut h = Histogram::new_with_bounds(LOWEST_PS, INITIAL_HIGHEST_PS, 3).expect("valid histogram bounds");
    h.auto(true);
    h
}

impl DelayStats {
    /// Adds one delay sample.
    pub fn record(&mut self, d: Duration) {
        self.moments.add(d.as_secs_f64());
        self.min = self.min.min(d);
        self.max = self.max.max(d);
        let h = self.histogram.get_or_insert_with(|| Box::new(new_histogram()));
        // An auto-resizing histogram grows to take the value; were it ever to refuse (a
        // value beyond what it can index), the largest trackable value is counted instead.
        if h.record(d.as_ps()).is_err() {
            h.saturating_record(d.as_ps());
        }
    }

    /// Merges another set of samples into this one.
    pub fn merge(&mut self, other: &DelayStats) {
        self.moments.merge(&other.moments);
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        if let Some(o) = &other.histogram {
            // An auto-resizing histogram takes another's samples whatever its range.
            self.histogram
                .get_or_insert_with(|| Box::new(new_histogram()))
                .add(o.as_ref())
                .expect("auto-resizing add");
        }
    }

    /// Number of samples.
    pub fn count(&self) -> u64 {
        self.moments.count()
    }

    /// The smallest sample, exact (`None` with no samples).
    pub fn min(&self) -> Option<Duration> {
        (self.count() > 0).then_some(self.min)
    }

    /// The largest sample, exact (`None` with no samples).
    pub fn max(&self) -> Option<Duration> {
        (self.count() > 0).then_some(self.max)
    }

    /// Mean, deviation and percentiles in seconds.
    pub fn summary(&self) -> DelaySummary {
        let (Some(h), m) = (&self.histogram, &self.moments) else {
            return DelaySummary::default();
        };
        // A histogram bucket reports its highest equivalent value, which may lie a little
        // beyond the exact extremes; every true percentile lies within them.
        let (min_s, max_s) = (self.min.as_secs_f64(), self.max.as_secs_f64());
        let q = |p: f64| (h.value_at_quantile(p) as f64 * 1e-12).clamp(min_s, max_s);
        DelaySummary {
            count: m.count(),
            mean_s: m.mean(),
            std_s: m.std_dev(),
            min_s,
            p50_s: q(0.5),
            p90_s: q(0.9),
            p99_s: q(0.99),
            max_s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_a_uniform_ramp() {
        let mut d = DelayStats::default();
        for us in 1..=1000 {
            d.record(Duration::from_us(us));
        }
        let s = d.summary();
        assert!((s.p50_s - 500e-6).abs() / 500e-6 < 1e-3, "{s:?}");
        assert!((s.p99_s - 990e-6).abs() / 990e-6 < 1e-3, "{s:?}");
        assert!((s.mean_s - 500.5e-6).abs() < 1e-12);
    }

    #[test]
    fn an_empty_set_costs_no_histogram_and_a_large_delay_grows_one() {
        let mut d = DelayStats::default();
        assert!(d.histogram.is_none());
        assert_eq!(d.summary(), DelaySummary::default());
        d.record(Duration::from_secs(10));
        d.record(Duration::from_us(5));
        let s = d.summary();
        assert!((s.max_s - 10.0).abs() < 1e-12);
        assert!((s.p99_s - 10.0).abs() / 10.0 < 1e-3, "{s:?}");
    }

    #[test]
    fn delays_of_thousands_of_seconds_keep_ordered_percentiles() {
        let mut d = DelayStats::default();
        for s in [2000, 3000, 5000] {
            d.record(Duration::from_secs(s));
        }
        let s = d.summary();
        assert!(s.min_s <= s.p50_s && s.p50_s <= s.p90_s && s.p99_s <= s.max_s, "{s:?}");
        assert!((s.p50_s - 3000.0).abs() / 3000.0 < 1e-3, "{s:?}");
        assert!((s.max_s - 5000.0).abs() < 1e-9);
    }

    #[test]
    fn merging_into_an_empty_set_keeps_every_sample() {
        let mut a = DelayStats::default();
        let mut b = DelayStats::default();
        for us in 1..=100 {
            b.record(Duration::from_us(us));
        }
        a.merge(&b);
        a.merge(&DelayStats::default());
        assert_eq!(a.summary(), b.summary());
    }
}

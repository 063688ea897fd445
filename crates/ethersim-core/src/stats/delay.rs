//! Packet delay statistics: exact count, mean, standard deviation, minimum and maximum,
//! and percentiles from a [`LogHistogram`] whose counters never pass 8 KiB.
//!
//! Nothing is allocated before the first sample, so a flow that has carried nothing
//! costs about a hundred bytes. A flow whose delays span less than four powers of two
//! above 262 ns (a TCP flow behind a queue of a few hundred microseconds) holds counters
//! for that span alone, a few hundred bytes to 8 KiB, and its percentiles are within
//! 0.1 % of the exact ones; a wider span halves the resolution once per doubling of the
//! span (0.2 % up to 8 powers of two, 0.4 % up to 16; see
//! [`log_histogram`](super::log_histogram)). Below 262 ns percentiles resolve 0.26 ns;
//! the mean, deviation, minimum and maximum are exact to the picosecond.

use serde::Serialize;

use super::moments::Moments;
use super::LogHistogram;
use crate::time::Duration;

/// Delay samples of one flow (or of several merged).
#[derive(Clone, Debug, Default)]
pub struct DelayStats {
    moments: Moments,
    histogram: LogHistogram,
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

impl DelayStats {
    /// Adds one delay sample.
    #[inline]
    pub fn record(&mut self, d: Duration) {
        self.moments.add(d.as_secs_f64());
        self.histogram.record(d.as_ps());
    }

    /// Merges another set of samples into this one.
    pub fn merge(&mut self, other: &DelayStats) {
        self.moments.merge(&other.moments);
        self.histogram.merge(&other.histogram);
    }

    /// Number of samples.
    pub fn count(&self) -> u64 {
        self.moments.count()
    }

    /// The smallest sample, exact (`None` with no samples).
    pub fn min(&self) -> Option<Duration> {
        self.histogram.min().map(Duration)
    }

    /// The largest sample, exact (`None` with no samples).
    pub fn max(&self) -> Option<Duration> {
        self.histogram.max().map(Duration)
    }

    /// The worst relative error of the percentiles of these samples, for delays above
    /// 262.144 ns (below, this fraction of 262.144 ns bounds the absolute error): 2^−10
    /// (0.098 %) unless their range made the histogram halve its resolution.
    pub fn percentile_error(&self) -> f64 {
        self.histogram.relative_error()
    }

    /// Bytes the percentile counters hold on the heap (at most 8 KiB).
    pub fn heap_bytes(&self) -> usize {
        self.histogram.heap_bytes()
    }

    /// Mean, deviation and percentiles in seconds.
    pub fn summary(&self) -> DelaySummary {
        let (Some(min), Some(max)) = (self.histogram.min(), self.histogram.max()) else {
            return DelaySummary::default();
        };
        let h = &self.histogram;
        // Never `None`: the histogram holds samples.
        let q = |p: f64| h.value_at_quantile(p).map_or(0.0, |ps| Duration(ps).as_secs_f64());
        DelaySummary {
            count: self.moments.count(),
            mean_s: self.moments.mean(),
            std_s: self.moments.std_dev(),
            min_s: Duration(min).as_secs_f64(),
            p50_s: q(0.5),
            p90_s: q(0.9),
            p99_s: q(0.99),
            max_s: Duration(max).as_secs_f64(),
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
        // Ten powers of two: the histogram halved its resolution twice.
        let e = d.percentile_error();
        assert!((e - 2f64.powi(-8)).abs() < 1e-15, "{e}");
        assert!((s.p50_s - 500e-6).abs() / 500e-6 <= e, "{s:?}");
        assert!((s.p90_s - 900e-6).abs() / 900e-6 <= e, "{s:?}");
        assert!((s.p99_s - 990e-6).abs() / 990e-6 <= e, "{s:?}");
        assert!((s.mean_s - 500.5e-6).abs() < 1e-12);
    }

    #[test]
    fn an_empty_set_costs_no_histogram_and_a_large_delay_grows_one() {
        let mut d = DelayStats::default();
        assert_eq!(d.heap_bytes(), 0);
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

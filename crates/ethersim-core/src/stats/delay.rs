//! Packet delay statistics: exact mean and standard deviation, and percentiles from an
//! HDR histogram with three significant digits (relative error below 0.1%), which
//! holds a fixed amount of memory however many samples it sees.

use hdrhistogram::Histogram;
use serde::Serialize;

use super::moments::Moments;
use crate::time::Duration;

/// Largest delay the histogram resolves (1000 s); larger samples count as this value.
const HIGHEST_PS: u64 = 1_000_000_000_000_000;

/// Delay samples of one flow (or of several merged).
#[derive(Clone, Debug)]
pub struct DelayStats {
    moments: Moments,
    histogram: Histogram<u64>,
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
    /// 99th percentile, s.
    pub p99_s: f64,
    /// Largest delay, s.
    pub max_s: f64,
}

impl Default for DelayStats {
    fn default() -> Self {
        DelayStats {
            moments: Moments::default(),
            // Bounds are constants within hdrhistogram's documented valid range.
            histogram: Histogram::new_with_bounds(1, HIGHEST_PS, 3).expect("valid histogram bounds"),
        }
    }
}

impl DelayStats {
    /// Adds one delay sample.
    pub fn record(&mut self, d: Duration) {
        self.moments.add(d.as_secs_f64());
        self.histogram.saturating_record(d.as_ps().max(1));
    }

    /// Merges another set of samples into this one.
    pub fn merge(&mut self, other: &DelayStats) {
        self.moments.merge(&other.moments);
        // Both histograms have identical bounds, so adding cannot fail.
        self.histogram.add(&other.histogram).expect("same histogram bounds");
    }

    /// Mean, deviation and percentiles in seconds.
    pub fn summary(&self) -> DelaySummary {
        let q = |p: f64| self.histogram.value_at_quantile(p) as f64 * 1e-12;
        let m = &self.moments;
        if m.count() == 0 {
            return DelaySummary::default();
        }
        DelaySummary {
            count: m.count(),
            mean_s: m.mean(),
            std_s: m.std_dev(),
            min_s: m.min(),
            p50_s: q(0.5),
            p99_s: q(0.99),
            max_s: m.max(),
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
}

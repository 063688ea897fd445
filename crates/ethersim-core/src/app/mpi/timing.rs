//! The time between one rank's successive calls, in constant memory: exact mean and
//! standard deviation, and the means of up to [`BATCHES`] equal consecutive batches (for
//! a batch-means confidence interval), however many calls a program makes.

use crate::stats::Moments;
use crate::time::SimTime;

/// Batches the times are grouped into.
pub const BATCHES: u64 = 20;

/// Times between the ends of successive calls of one rank.
#[derive(Clone, Debug)]
pub struct CallTiming {
    last_end: Option<SimTime>,
    moments: Moments,
    /// Times per batch: the times a program has are known in advance (its calls less one).
    batch: u64,
    batches: u64,
    seen: u64,
    sum: f64,
    means: Vec<f64>,
}

impl CallTiming {
    /// Timing for a program of `calls` calls.
    pub fn new(calls: u64) -> Self {
        let times = calls.saturating_sub(1);
        let batch = times.div_ceil(BATCHES).max(1);
        CallTiming {
            last_end: None,
            moments: Moments::default(),
            batch,
            batches: times / batch,
            seen: 0,
            sum: 0.0,
            means: Vec::with_capacity(BATCHES as usize),
        }
    }

    /// A call ended at `now`.
    pub fn call_ended(&mut self, now: SimTime) {
        if let Some(last) = self.last_end.replace(now) {
            let t = (now - last).as_secs_f64();
            self.moments.add(t);
            // Times beyond the last whole batch are left out of the batches (not the mean).
            if (self.means.len() as u64) < self.batches {
                self.sum += t;
                self.seen += 1;
                if self.seen == self.batch {
                    self.means.push(self.sum / self.batch as f64);
                    (self.sum, self.seen) = (0.0, 0);
                }
            }
        }
    }

    /// Times measured so far.
    pub fn count(&self) -> u64 {
        self.moments.count()
    }

    /// Their mean, s (`None` before two calls have ended).
    pub fn mean_s(&self) -> Option<f64> {
        (self.count() > 0).then(|| self.moments.mean())
    }

    /// Their standard deviation, s.
    pub fn std_s(&self) -> Option<f64> {
        (self.count() > 0).then(|| self.moments.std_dev())
    }

    /// The means of the whole batches so far, s.
    pub fn batch_means_s(&self) -> &[f64] {
        &self.means
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_group_consecutive_times_and_the_mean_takes_them_all() {
        // 45 calls: 44 times, batches of 3 (ceil(44 / 20)), 14 whole batches.
        let mut t = CallTiming::new(45);
        for k in 0..45u64 {
            t.call_ended(SimTime(k * k * 1_000_000));
        }
        assert_eq!(t.count(), 44);
        let times: Vec<f64> = (1..45u64).map(|k| ((k * k - (k - 1) * (k - 1)) as f64) * 1e-6).collect();
        let mean = times.iter().sum::<f64>() / 44.0;
        assert!((t.mean_s().expect("times") - mean).abs() < 1e-15);
        assert_eq!(t.batch_means_s().len(), 14);
        let first = (times[0] + times[1] + times[2]) / 3.0;
        assert!((t.batch_means_s()[0] - first).abs() < 1e-15);
    }

    #[test]
    fn fewer_than_twenty_times_make_one_batch_each() {
        let mut t = CallTiming::new(4);
        for k in [0, 10, 30, 60] {
            t.call_ended(SimTime(k));
        }
        assert_eq!(t.batch_means_s(), &[10e-12, 20e-12, 30e-12]);
        assert!(CallTiming::new(1).mean_s().is_none());
    }
}

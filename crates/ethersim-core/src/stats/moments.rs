//! Streaming mean and variance (Welford's algorithm: numerically stable in one pass).
//!
//! No extremes: every user keeps its own exact ones where it reports them (a flow's
//! delays in their histogram, in integer picoseconds), and a comparison per sample on
//! every delivered packet's path is work nobody reads.

/// Count, mean and variance of a stream of samples.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Moments {
    n: u64,
    mean: f64,
    m2: f64,
}

impl Moments {
    /// Adds one sample.
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }

    /// Merges another stream's moments into this one (Chan et al. parallel update).
    pub fn merge(&mut self, o: &Moments) {
        if o.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = *o;
            return;
        }
        let n = self.n + o.n;
        let d = o.mean - self.mean;
        self.m2 += o.m2 + d * d * (self.n as f64) * (o.n as f64) / n as f64;
        self.mean += d * o.n as f64 / n as f64;
        self.n = n;
    }

    /// Number of samples.
    pub fn count(&self) -> u64 {
        self.n
    }
    /// Sample mean (0 with no samples).
    pub fn mean(&self) -> f64 {
        self.mean
    }
    /// Sample standard deviation (n − 1 denominator; 0 with fewer than two samples).
    pub fn std_dev(&self) -> f64 {
        if self.n < 2 {
            0.0
        } else {
            (self.m2 / (self.n - 1) as f64).sqrt()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_two_pass_formulas() {
        let xs = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        let mut m = Moments::default();
        for &x in &xs {
            m.add(x);
        }
        assert!((m.mean() - 5.0).abs() < 1e-12);
        // Sum of squared deviations is 32; sample variance 32/7.
        assert!((m.std_dev() - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn merging_equals_one_stream() {
        let xs: Vec<f64> = (0..100).map(|i| f64::from(i * i % 17)).collect();
        let (mut all, mut a, mut b) = (Moments::default(), Moments::default(), Moments::default());
        for (i, &x) in xs.iter().enumerate() {
            all.add(x);
            if i < 37 {
                a.add(x);
            } else {
                b.add(x);
            }
        }
        a.merge(&b);
        assert_eq!(a.count(), all.count());
        assert!((a.mean() - all.mean()).abs() < 1e-12);
        assert!((a.std_dev() - all.std_dev()).abs() < 1e-12);
    }
}

//! Host timing variability: how much longer than asked a host's software takes.
//!
//! A real host is not a clock. A thread that sleeps wakes late: Linux lets a timer of a
//! normal (not real-time) thread fire up to its *timer slack* after the instant asked
//! for, and never early (`PR_SET_TIMERSLACK(2const)`: the slack of `init`, which every
//! process inherits unless it changes it, is 50,000 ns), and the scheduler adds its
//! wake-up latency. Its software takes varying time too: a call that polls for progress,
//! an interrupt or a daemon that runs in between (operating-system noise: a Linux tuned
//! against it still shows noise "in the single-digit µs order", de Oliveira, Casini and
//! Cucinotta, IEEE Trans. Computers 72(1), 2023). docs/mpi.md gives suggested values and
//! their sources.
//!
//! A [`Variability`] is a distribution of such extra times, a plain enum sampled on the
//! picosecond grid from a named random stream. Floats live only inside the sampler; what
//! a model sees is a [`Duration`]. [`HostTiming`] says what a host adds to what.

use rand::Rng;

use crate::engine::rng::{self, Stream};
use crate::time::Duration;

/// A distribution of non-negative extra times.
#[derive(Clone, Debug, PartialEq)]
pub enum Variability {
    /// `offset + Exp(mean)`: a fixed part and an exponential tail (a timer that always
    /// fires its slack late, then a wake-up latency). `mean` zero makes it the constant
    /// `offset`.
    Exponential {
        /// The fixed part.
        offset: Duration,
        /// The mean of the exponential part.
        mean: Duration,
    },
    /// Lognormal: `ln X ~ N(mu, sigma²)`, `X` in picoseconds. Made from its mean and
    /// standard deviation by [`Variability::lognormal`].
    Lognormal {
        /// Mean of `ln X` (X in ps).
        mu: f64,
        /// Standard deviation of `ln X`.
        sigma: f64,
    },
    /// A table of the cumulative distribution function, linear between its points.
    Empirical(Empirical),
}

impl Variability {
    /// The lognormal distribution of mean `mean` (> 0) and standard deviation `std`:
    /// `sigma² = ln(1 + std²/mean²)`, `mu = ln(mean) − sigma²/2`.
    pub fn lognormal(mean: Duration, std: Duration) -> Self {
        let (m, s) = (mean.as_ps() as f64, std.as_ps() as f64);
        let var_log = libm::log1p((s / m) * (s / m));
        Variability::Lognormal { mu: libm::log(m) - var_log / 2.0, sigma: libm::sqrt(var_log) }
    }

    /// One draw from `rng`, rounded to the nearest picosecond.
    ///
    /// Each draw takes a fixed count of the stream's numbers (exponential and empirical
    /// one, lognormal two), whatever it returns. The logarithms, roots and cosines are the
    /// pure-Rust `libm` ones, so a stream gives the same times on every machine.
    #[inline]
    pub fn sample(&self, rng: &mut Stream) -> Duration {
        match self {
            Variability::Exponential { offset, mean } => *offset + rng::exponential(rng, *mean),
            Variability::Lognormal { mu, sigma } => {
                // Box–Muller: 1 − U lies in (0, 1], so the logarithm is finite.
                let (u1, u2): (f64, f64) = (rng.random(), rng.random());
                let z = libm::sqrt(-2.0 * libm::log1p(-u1)) * libm::cos(std::f64::consts::TAU * u2);
                // Saturates (far beyond any time a scenario allows) rather than wraps.
                Duration(libm::exp(mu + sigma * z).round() as u64)
            }
            Variability::Empirical(table) => table.quantile(rng.random()),
        }
    }

    /// The mean, ps (of the continuous distribution, before rounding to whole ps).
    pub fn mean_ps(&self) -> f64 {
        match self {
            Variability::Exponential { offset, mean } => offset.as_ps() as f64 + mean.as_ps() as f64,
            Variability::Lognormal { mu, sigma } => libm::exp(mu + sigma * sigma / 2.0),
            Variability::Empirical(table) => table.mean_ps(),
        }
    }

    /// The variance, ps².
    pub fn variance_ps2(&self) -> f64 {
        match self {
            Variability::Exponential { mean, .. } => {
                // A square as one multiplication: Rust leaves `powi`'s precision to the
                // platform, and results must be the same on every machine.
                let m = mean.as_ps() as f64;
                m * m
            }
            Variability::Lognormal { mu, sigma } => {
                libm::expm1(sigma * sigma) * libm::exp(2.0 * mu + sigma * sigma)
            }
            Variability::Empirical(table) => table.variance_ps2(),
        }
    }

    /// The cumulative distribution function at `x` ps: the probability of a draw at or
    /// below `x`.
    pub fn cdf(&self, x: f64) -> f64 {
        match self {
            Variability::Exponential { offset, mean } => {
                let over = x - offset.as_ps() as f64;
                match (over < 0.0, mean.as_ps()) {
                    (true, _) => 0.0,
                    (false, 0) => 1.0,
                    (false, m) => -libm::expm1(-over / m as f64),
                }
            }
            Variability::Lognormal { mu, sigma } => {
                if x <= 0.0 {
                    0.0
                } else if *sigma == 0.0 {
                    f64::from(u8::from(x >= libm::exp(*mu)))
                } else {
                    0.5 * libm::erfc(-(libm::log(x) - mu) / (sigma * std::f64::consts::SQRT_2))
                }
            }
            Variability::Empirical(table) => table.cdf(x),
        }
    }
}

/// A distribution given by points of its cumulative distribution function, `(value, p)`:
/// a fraction `p` of draws are at or below `value`. Between two points the function is
/// linear (the draws spread evenly between the two values); two points at one value make
/// a step there (that value is drawn with the difference of their `p`). Drawn by
/// inversion: a uniform `U` in [0, 1) lands between two points and is interpolated
/// between their values.
#[derive(Clone, Debug, PartialEq)]
pub struct Empirical {
    /// Values, ps, in order (non-decreasing).
    values: Box<[f64]>,
    /// The CDF at each, strictly rising from 0 to 1.
    p: Box<[f64]>,
}

/// Why a table of CDF points is refused: the point (index) and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmpiricalError {
    /// The offending point, if one is to blame (else the table as a whole).
    pub point: Option<usize>,
    /// Whether it is the point's probability (else its value) that is wrong.
    pub in_p: bool,
    /// What was wrong and what is expected.
    pub message: String,
}

impl Empirical {
    /// The table of `points` `(value, p)`: at least two, `p` finite and rising strictly
    /// from exactly 0 at the first to exactly 1 at the last, values never falling.
    pub fn new(points: &[(Duration, f64)]) -> Result<Self, EmpiricalError> {
        let at = |k: usize, in_p: bool, message: String| EmpiricalError { point: Some(k), in_p, message };
        if points.len() < 2 {
            return Err(EmpiricalError {
                point: None,
                in_p: false,
                message: format!(
                    "{} point(s); expected at least 2 (the first at p = 0, the last at p = 1)",
                    points.len()
                ),
            });
        }
        let last = points.len() - 1;
        for (k, &(value, p)) in points.iter().enumerate() {
            if !p.is_finite() || !(0.0..=1.0).contains(&p) {
                return Err(at(k, true, format!("{p}; expected a probability from 0 to 1")));
            }
            if k == 0 && p != 0.0 {
                return Err(at(
                    k,
                    true,
                    format!("{p}; the first point must have p = 0 (the smallest value)"),
                ));
            }
            if k == last && p < 1.0 {
                return Err(at(k, true, format!("{p}; the last point must have p = 1 (the largest value)")));
            }
            if k > 0 {
                let (before, p_before) = points[k - 1];
                if p <= p_before {
                    return Err(at(
                        k,
                        true,
                        format!(
                            "{p} after {p_before}; p must rise strictly from point to point (a step of \
                             zero probability says nothing: leave the point out)"
                        ),
                    ));
                }
                if value < before {
                    return Err(at(
                        k,
                        false,
                        format!("{value} after {before}; values must not fall from point to point"),
                    ));
                }
            }
        }
        Ok(Empirical {
            values: points.iter().map(|&(v, _)| v.as_ps() as f64).collect(),
            p: points.iter().map(|&(_, p)| p).collect(),
        })
    }

    /// The value at probability `u` in [0, 1), rounded to the nearest picosecond.
    #[inline]
    fn quantile(&self, u: f64) -> Duration {
        // p[0] = 0 <= u < 1 = p[last]: the segment k has p[k] <= u < p[k + 1].
        let k = self.p.partition_point(|&p| p <= u).clamp(1, self.p.len() - 1) - 1;
        let (p0, p1) = (self.p[k], self.p[k + 1]);
        let (v0, v1) = (self.values[k], self.values[k + 1]);
        Duration((v0 + (u - p0) / (p1 - p0) * (v1 - v0)).round() as u64)
    }

    /// The segments: probability, lower and upper value.
    fn segments(&self) -> impl Iterator<Item = (f64, f64, f64)> + '_ {
        self.p.windows(2).zip(self.values.windows(2)).map(|(p, v)| (p[1] - p[0], v[0], v[1]))
    }

    fn mean_ps(&self) -> f64 {
        self.segments().map(|(w, a, b)| w * (a + b) / 2.0).sum()
    }

    fn variance_ps2(&self) -> f64 {
        // A mixture of uniforms on [a, b]: E[X²] = Σ w (a² + ab + b²) / 3.
        let second: f64 = self.segments().map(|(w, a, b)| w * (a * a + a * b + b * b) / 3.0).sum();
        let mean = self.mean_ps();
        second - mean * mean
    }

    fn cdf(&self, x: f64) -> f64 {
        let n = self.values.len();
        // The last point at or below x (a step takes its upper p).
        let k = self.values.partition_point(|&v| v <= x);
        if k == 0 {
            return 0.0;
        }
        if k == n {
            return 1.0;
        }
        let (v0, v1) = (self.values[k - 1], self.values[k]);
        let (p0, p1) = (self.p[k - 1], self.p[k]);
        p0 + (x - v0) / (v1 - v0) * (p1 - p0)
    }
}

/// What a host's software adds to the times it is asked for. Either may be absent: then
/// that time is exact.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostTiming {
    /// Added to every sleep (a timer's lateness: timer slack and wake-up latency).
    pub sleep_overshoot: Option<Variability>,
    /// Added to every MPI call's software overhead (progress polling, operating-system
    /// noise).
    pub call_overhead: Option<Variability>,
}

#[cfg(test)]
mod tests {
    use super::*;

    const DRAWS: usize = 200_000;

    /// Draws `DRAWS` times, sorted, in ps.
    fn draws(v: &Variability, name: &str) -> Vec<f64> {
        let mut rng = rng::stream(11, name);
        let mut xs: Vec<f64> = (0..DRAWS).map(|_| v.sample(&mut rng).as_ps() as f64).collect();
        xs.sort_by(f64::total_cmp);
        xs
    }

    /// The sample's mean and variance against the closed forms: the mean within 5
    /// standard errors (sqrt(var / n)); the variance within 5 standard errors of the
    /// sample variance, sqrt((mu4 − var²) / n), with the fourth central moment mu4 taken
    /// from the sample itself.
    #[track_caller]
    fn assert_moments(v: &Variability, xs: &[f64]) {
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        let mu4 = xs.iter().map(|x| (x - mean).powi(4)).sum::<f64>() / n;
        let (want_mean, want_var) = (v.mean_ps(), v.variance_ps2());
        let se_mean = (want_var / n).sqrt().max(1.0);
        assert!((mean - want_mean).abs() < 5.0 * se_mean, "mean {mean} vs {want_mean} (se {se_mean})");
        let se_var = ((mu4 - var * var).max(0.0) / n).sqrt().max(1.0);
        assert!((var - want_var).abs() < 5.0 * se_var, "variance {var} vs {want_var} (se {se_var})");
    }

    /// The Kolmogorov–Smirnov statistic of the sorted sample `xs` against `v`'s CDF,
    /// below its critical value at alpha = 0.001: c(alpha) / sqrt(n) with
    /// c = sqrt(−ln(alpha / 2) / 2) = 1.9495 (the asymptotic Kolmogorov distribution).
    /// Draws are whole picoseconds; the CDF is read at x + 0.5 ps, so the rounding of a
    /// continuous draw does not count against it (it moves the CDF by less than the
    /// density times 0.5 ps, far below the critical value at these scales).
    #[track_caller]
    fn assert_ks(v: &Variability, xs: &[f64]) {
        let (d, critical) = ks(v, xs);
        assert!(d < critical, "KS statistic {d} >= critical {critical}");
    }

    /// The statistic and its critical value (see [`assert_ks`]).
    fn ks(v: &Variability, xs: &[f64]) -> (f64, f64) {
        let n = xs.len() as f64;
        let d = xs
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                // D+ and D−: the empirical CDF above the true one just after the draw, and
                // the true one above the empirical just before it.
                let above = (i + 1) as f64 / n - v.cdf(x + 0.5);
                let below = v.cdf(x - 0.5) - i as f64 / n;
                above.max(below)
            })
            .fold(0.0, f64::max);
        (d, (-(0.001f64 / 2.0).ln() / 2.0).sqrt() / n.sqrt())
    }

    #[test]
    fn constant_plus_exponential_matches_its_moments_and_cdf() {
        let v = Variability::Exponential { offset: Duration::from_us(5), mean: Duration::from_us(50) };
        let xs = draws(&v, "exp");
        assert!(xs[0] >= 5e6, "never below the offset");
        assert_moments(&v, &xs);
        assert_ks(&v, &xs);
    }

    #[test]
    fn the_ks_test_tells_distributions_of_equal_mean_and_variance_apart() {
        // A control of the test itself: the draws of 5 us + Exp(50 us) against the
        // lognormal of the same mean and standard deviation (55 us, 50 us) are refused.
        let exp = Variability::Exponential { offset: Duration::from_us(5), mean: Duration::from_us(50) };
        let lognormal = Variability::lognormal(Duration::from_us(55), Duration::from_us(50));
        assert!((lognormal.mean_ps() - exp.mean_ps()).abs() < 1e-3);
        assert!((lognormal.variance_ps2() / exp.variance_ps2() - 1.0).abs() < 1e-9);
        let (d, critical) = ks(&lognormal, &draws(&exp, "exp"));
        assert!(d > 5.0 * critical, "KS statistic {d} against critical {critical}");
    }

    #[test]
    fn an_exponential_of_zero_mean_is_its_offset() {
        let v = Variability::Exponential { offset: Duration::from_us(7), mean: Duration::ZERO };
        let mut rng = rng::stream(1, "c");
        assert!((0..100).all(|_| v.sample(&mut rng) == Duration::from_us(7)));
        assert_eq!((v.mean_ps(), v.variance_ps2()), (7e6, 0.0));
    }

    #[test]
    fn lognormal_from_mean_and_std_matches_its_moments_and_cdf() {
        let v = Variability::lognormal(Duration::from_us(2), Duration::from_us(1));
        // The parameters reproduce the mean and standard deviation asked for.
        assert!((v.mean_ps() / 2e6 - 1.0).abs() < 1e-12);
        assert!((v.variance_ps2().sqrt() / 1e6 - 1.0).abs() < 1e-12);
        let xs = draws(&v, "lognormal");
        assert_moments(&v, &xs);
        assert_ks(&v, &xs);
    }

    #[test]
    fn a_heavy_tailed_lognormal_still_matches_its_cdf() {
        // std three times the mean: sigma² = ln 10.
        let v = Variability::lognormal(Duration::from_us(10), Duration::from_us(30));
        let xs = draws(&v, "heavy");
        assert_ks(&v, &xs);
        // The variance of so skewed a sample converges slowly: only its mean is checked.
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        assert!((mean / 1e7 - 1.0).abs() < 5.0 * 3.0 / (xs.len() as f64).sqrt(), "mean {mean}");
    }

    #[test]
    fn empirical_table_matches_its_moments_and_cdf() {
        // 30 % exactly at 10 us (a step), then even to 20 us by p = 0.8, then to 100 us.
        let points = [
            (Duration::from_us(10), 0.0),
            (Duration::from_us(10), 0.3),
            (Duration::from_us(20), 0.8),
            (Duration::from_us(100), 1.0),
        ];
        let v = Variability::Empirical(Empirical::new(&points).expect("valid"));
        // Closed form: 0.3 × 10 + 0.5 × 15 + 0.2 × 60 = 22.5 us.
        assert!((v.mean_ps() - 22.5e6).abs() < 1e-3);
        let xs = draws(&v, "table");
        assert!(xs[0] >= 10e6 && xs[xs.len() - 1] <= 100e6);
        assert_moments(&v, &xs);
        assert_ks(&v, &xs);
    }

    #[test]
    fn an_empirical_table_of_two_points_is_uniform() {
        let v = Variability::Empirical(
            Empirical::new(&[(Duration::ZERO, 0.0), (Duration::from_us(50), 1.0)]).expect("valid"),
        );
        assert!((v.mean_ps() - 25e6).abs() < 1e-6);
        assert!((v.variance_ps2() - 50e6f64.powi(2) / 12.0).abs() < 1.0);
        let xs = draws(&v, "uniform");
        assert_moments(&v, &xs);
        assert_ks(&v, &xs);
    }

    #[test]
    fn bad_tables_name_the_point_and_what_is_wrong() {
        // The points, then the point and field blamed, and a word of the message.
        type Case<'a> = (&'a [(Duration, f64)], Option<usize>, bool, &'a str);
        let us = Duration::from_us;
        let cases: [Case; 7] = [
            (&[(us(1), 0.0)], None, false, "at least 2"),
            (&[(us(1), 0.1), (us(2), 1.0)], Some(0), true, "first point"),
            (&[(us(1), 0.0), (us(2), 0.9)], Some(1), true, "last point"),
            (&[(us(1), 0.0), (us(2), f64::NAN), (us(3), 1.0)], Some(1), true, "probability"),
            (&[(us(1), 0.0), (us(2), -0.5), (us(3), 1.0)], Some(1), true, "probability"),
            (&[(us(1), 0.0), (us(2), 0.5), (us(3), 0.5), (us(4), 1.0)], Some(2), true, "rise strictly"),
            (&[(us(5), 0.0), (us(2), 0.5), (us(9), 1.0)], Some(1), false, "must not fall"),
        ];
        for (points, point, in_p, want) in cases {
            let e = Empirical::new(points).expect_err(want);
            assert_eq!((e.point, e.in_p), (point, in_p), "{}", e.message);
            assert!(e.message.contains(want), "{}", e.message);
        }
    }

    #[test]
    fn the_same_stream_gives_the_same_draws() {
        let v = Variability::lognormal(Duration::from_us(3), Duration::from_us(2));
        let (mut a, mut b) = (rng::stream(5, "x"), rng::stream(5, "x"));
        let one: Vec<Duration> = (0..64).map(|_| v.sample(&mut a)).collect();
        let two: Vec<Duration> = (0..64).map(|_| v.sample(&mut b)).collect();
        assert_eq!(one, two);
    }
}

//! What a web page is made of: a main object (the HTML) and embedded objects (images,
//! scripts, style sheets), their number and sizes drawn from a published model or given.
//!
//! The model by default is the HTTP traffic model of 3GPP2 C.R1002-0 v1.0 ("cdma2000
//! Evaluation Methodology", 2004), from its table of HTTP traffic model parameters,
//! which ns-3's `ThreeGppHttpClient` also follows:
//!
//! | quantity | law | parameters |
//! |---|---|---|
//! | main object size | truncated lognormal | σ 1.37, μ 8.37; min 100 B, max 2 MB (mean 10,710 B) |
//! | embedded object size | truncated lognormal | σ 2.36, μ 6.17; min 50 B, max 2 MB (mean 7,758 B) |
//! | embedded objects per page | truncated Pareto | α 1.1, k 2, m 55, less k (mean 5.64, max 53) |
//! | reading time | exponential | mean 30 s |
//! | parsing time | exponential | mean 0.13 s |
//!
//! The reading and parsing times belong to the client ([`super::WebClient`]). How this
//! module reads the table, where it is silent:
//! * a truncated lognormal size is drawn again until it falls in `[min, max]`, and
//!   rounded to whole bytes (as ns-3 does);
//! * the truncated Pareto is the table's own definition: the Pareto value is capped at
//!   `m` (its mass beyond `m` sits at `m`), `k` is subtracted, and the integer part is
//!   the number of objects. The table's mean of 5.64 is that of the continuous value;
//!   the integer part's mean is about 0.5 less ([`Pages::embedded_count_cdf`] gives its
//!   law exactly).
//!
//! Every draw uses `libm`'s functions, so a stream gives the same pages on every machine.

use rand::Rng;

use crate::engine::rng::Stream;

/// A truncated lognormal law of object sizes, bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SizeLaw {
    /// μ of the underlying normal (of ln bytes).
    pub mu: f64,
    /// σ of the underlying normal.
    pub sigma: f64,
    /// Smallest size, bytes.
    pub min: u32,
    /// Largest size, bytes.
    pub max: u32,
}

impl SizeLaw {
    /// 3GPP2 C.R1002-0's main object.
    pub const MAIN_3GPP2: SizeLaw = SizeLaw { mu: 8.37, sigma: 1.37, min: 100, max: 2_000_000 };
    /// 3GPP2 C.R1002-0's embedded object.
    pub const EMBEDDED_3GPP2: SizeLaw = SizeLaw { mu: 6.17, sigma: 2.36, min: 50, max: 2_000_000 };

    /// One size: lognormal draws until one rounds into `[min, max]`.
    pub fn draw(&self, rng: &mut Stream) -> u32 {
        loop {
            let x = libm::exp(self.mu + self.sigma * standard_normal(rng));
            let bytes = libm::round(x);
            if bytes >= f64::from(self.min) && bytes <= f64::from(self.max) {
                return bytes as u32;
            }
        }
    }

    /// The share of the untruncated law the bounds keep (what one draw succeeds with).
    pub fn mass(&self) -> f64 {
        let untruncated =
            |x: f64| 0.5 * libm::erfc(-(libm::log(x) - self.mu) / (self.sigma * core::f64::consts::SQRT_2));
        untruncated(f64::from(self.max) + 0.5) - untruncated(f64::from(self.min) - 0.5)
    }

    /// The law's distribution function at `bytes` (after truncation and rounding to the
    /// nearest byte): the reference a test of the draws compares them with.
    pub fn cdf(&self, bytes: f64) -> f64 {
        let untruncated =
            |x: f64| 0.5 * libm::erfc(-(libm::log(x) - self.mu) / (self.sigma * core::f64::consts::SQRT_2));
        // A size b is drawn for x in [b − ½, b + ½).
        let lo = untruncated(f64::from(self.min) - 0.5);
        let hi = untruncated(f64::from(self.max) + 0.5);
        let at = bytes.clamp(f64::from(self.min) - 0.5, f64::from(self.max) + 0.5);
        ((untruncated(libm::floor(at) + 0.5) - lo) / (hi - lo)).clamp(0.0, 1.0)
    }
}

/// A truncated Pareto law of the number of embedded objects (3GPP2 C.R1002-0's
/// definition: capped at `m`, then less `k`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CountLaw {
    /// Shape α.
    pub alpha: f64,
    /// Scale k (the smallest value).
    pub k: f64,
    /// The cap m.
    pub m: f64,
}

impl CountLaw {
    /// 3GPP2 C.R1002-0's embedded objects per page.
    pub const EMBEDDED_3GPP2: CountLaw = CountLaw { alpha: 1.1, k: 2.0, m: 55.0 };

    /// One count: the integer part of min(Pareto(α, k), m) − k, by inversion.
    pub fn draw(&self, rng: &mut Stream) -> u32 {
        let u: f64 = rng.random();
        // 1 − u is in (0, 1]: the Pareto value k·(1 − u)^(−1/α) is at least k.
        let x = self.k * libm::pow(1.0 - u, -1.0 / self.alpha);
        libm::floor(x.min(self.m) - self.k) as u32
    }

    /// The largest count it gives.
    pub fn max(&self) -> u32 {
        libm::floor(self.m - self.k) as u32
    }

    /// P(count ≤ n).
    pub fn cdf(&self, n: u32) -> f64 {
        if n >= self.max() {
            return 1.0;
        }
        // count ≤ n ⟺ x < k + n + 1.
        1.0 - libm::pow(self.k / (self.k + f64::from(n) + 1.0), self.alpha)
    }
}

/// How a client's pages are made.
#[derive(Clone, Debug, PartialEq)]
pub enum Pages {
    /// Sizes and counts from laws.
    Drawn {
        /// The main object's size.
        main: SizeLaw,
        /// Each embedded object's size.
        embedded: SizeLaw,
        /// How many embedded objects a page has.
        count: CountLaw,
    },
    /// Every page the same: a main object and these embedded objects, bytes.
    Fixed {
        /// The main object, bytes.
        main: u32,
        /// The embedded objects, bytes, in the order they are requested.
        embedded: Vec<u32>,
    },
}

impl Pages {
    /// 3GPP2 C.R1002-0's model.
    pub const THREE_GPP2: Pages = Pages::Drawn {
        main: SizeLaw::MAIN_3GPP2,
        embedded: SizeLaw::EMBEDDED_3GPP2,
        count: CountLaw::EMBEDDED_3GPP2,
    };

    /// The next page: its main object's size, and its embedded objects' sizes into
    /// `embedded` (cleared first; reused from page to page).
    pub fn draw(&self, rng: &mut Stream, embedded: &mut Vec<u32>) -> u32 {
        embedded.clear();
        match self {
            Pages::Drawn { main, embedded: law, count } => {
                let main = main.draw(rng);
                let n = count.draw(rng);
                embedded.extend((0..n).map(|_| law.draw(rng)));
                main
            }
            Pages::Fixed { main, embedded: sizes } => {
                embedded.extend_from_slice(sizes);
                *main
            }
        }
    }

    /// The law of the number of embedded objects, P(count ≤ n) (drawn pages only).
    pub fn embedded_count_cdf(&self, n: u32) -> Option<f64> {
        match self {
            Pages::Drawn { count, .. } => Some(count.cdf(n)),
            Pages::Fixed { .. } => None,
        }
    }
}

/// A standard normal deviate by the Box–Muller transform (one of each pair is used, so
/// that a draw consumes a fixed two uniforms).
fn standard_normal(rng: &mut Stream) -> f64 {
    let u1: f64 = rng.random();
    let u2: f64 = rng.random();
    // 1 − u1 is in (0, 1]: its logarithm is finite.
    libm::sqrt(-2.0 * libm::log(1.0 - u1)) * libm::cos(core::f64::consts::TAU * u2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng;

    /// The Kolmogorov–Smirnov statistic of integer `sample` against `cdf`, taken at
    /// every distinct value (for a discrete law the statistic compares the step
    /// functions at their jumps).
    fn ks_discrete(sample: &mut [u32], cdf: impl Fn(u32) -> f64) -> f64 {
        sample.sort_unstable();
        let n = sample.len() as f64;
        let mut d: f64 = 0.0;
        let mut i = 0;
        while i < sample.len() {
            let v = sample[i];
            while i < sample.len() && sample[i] == v {
                i += 1;
            }
            d = d.max((i as f64 / n - cdf(v)).abs());
        }
        d
    }

    #[test]
    fn object_sizes_follow_their_truncated_lognormal_laws() {
        let n: u32 = 20_000;
        for (law, name) in [(SizeLaw::MAIN_3GPP2, "main"), (SizeLaw::EMBEDDED_3GPP2, "embedded")] {
            let mut r = rng::stream(11, name);
            let mut sample: Vec<u32> = (0..n).map(|_| law.draw(&mut r)).collect();
            assert!(sample.iter().all(|&b| b >= law.min && b <= law.max));
            // The log of the sizes: mean near μ (the truncation moves it a little), and
            // the law itself by KS at 1 %: D below 1.63/√n.
            let d = ks_discrete(&mut sample, |b| law.cdf(f64::from(b)));
            assert!(d < 1.63 / f64::from(n).sqrt(), "{name}: D = {d}");
        }
        // A wrong law is rejected: the main objects are not of the embedded law.
        let mut r = rng::stream(11, "main");
        let mut sample: Vec<u32> = (0..n).map(|_| SizeLaw::MAIN_3GPP2.draw(&mut r)).collect();
        let d = ks_discrete(&mut sample, |b| SizeLaw::EMBEDDED_3GPP2.cdf(f64::from(b)));
        assert!(d > 1.63 / f64::from(n).sqrt(), "D = {d}");
    }

    #[test]
    fn the_number_of_embedded_objects_follows_the_truncated_pareto() {
        let law = CountLaw::EMBEDDED_3GPP2;
        assert_eq!(law.max(), 53, "the table's maximum");
        // The continuous capped value's mean, less k, is the table's 5.64:
        // k + ∫_k^m (k/x)^α dx − k.
        let (alpha, scale, cap) = (law.alpha, law.k, law.m);
        let mean = libm::pow(scale, alpha) * (libm::pow(cap, 1.0 - alpha) - libm::pow(scale, 1.0 - alpha))
            / (1.0 - alpha);
        assert!((mean - 5.64).abs() < 0.005, "{mean}");
        let n: u32 = 20_000;
        let mut r = rng::stream(12, "count");
        let mut sample: Vec<u32> = (0..n).map(|_| law.draw(&mut r)).collect();
        assert!(sample.iter().all(|&c| c <= 53));
        // The integer part's exact mean, Σ P(count > j), against the sample's, within
        // 4 standard errors.
        let exact: f64 = (0..53).map(|j| 1.0 - law.cdf(j)).sum();
        let xs: Vec<f64> = sample.iter().map(|&c| f64::from(c)).collect();
        let mean_s = xs.iter().sum::<f64>() / f64::from(n);
        let var = xs.iter().map(|x| (x - mean_s) * (x - mean_s)).sum::<f64>() / (f64::from(n) - 1.0);
        assert!((mean_s - exact).abs() < 4.0 * (var / f64::from(n)).sqrt(), "{mean_s} against {exact}");
        let d = ks_discrete(&mut sample, |c| law.cdf(c));
        assert!(d < 1.63 / f64::from(n).sqrt(), "D = {d}");
    }

    #[test]
    fn fixed_pages_are_what_they_say() {
        let pages = Pages::Fixed { main: 1000, embedded: vec![10, 20] };
        let mut r = rng::stream(1, "p");
        let mut emb = vec![99];
        assert_eq!(pages.draw(&mut r, &mut emb), 1000);
        assert_eq!(emb, [10, 20]);
        assert_eq!(pages.embedded_count_cdf(0), None);
    }

    #[test]
    fn the_normal_deviates_have_mean_zero_and_unit_variance() {
        let mut r = rng::stream(3, "normal");
        let n: u32 = 100_000;
        let xs: Vec<f64> = (0..n).map(|_| standard_normal(&mut r)).collect();
        let mean = xs.iter().sum::<f64>() / f64::from(n);
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / f64::from(n);
        assert!(mean.abs() < 4.0 / f64::from(n).sqrt(), "{mean}");
        assert!((var - 1.0).abs() < 0.02, "{var}");
    }
}

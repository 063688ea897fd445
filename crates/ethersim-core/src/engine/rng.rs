//! Seeded, named random-number streams.
//!
//! Every component draws from its own stream, derived from the run's seed and a stable
//! name such as `"app[3].arrivals"`. Adding a component therefore never shifts the
//! numbers another component sees, and a stream's numbers depend only on (seed, name).
//! The derivation uses FNV-1a over the name (stable across platforms and Rust versions,
//! unlike `std`'s hasher) mixed with the seed through SplitMix64.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::time::Duration;

/// The generator type behind every stream: small, fast, and reproducible everywhere.
pub type Stream = Pcg64Mcg;

/// FNV-1a, 64-bit: a fixed, documented hash of the stream name.
fn fnv1a(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64 finalizer: spreads the bits of a 64-bit value.
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The stream called `name` for the run seeded with `seed`.
pub fn stream(seed: u64, name: &str) -> Stream {
    let hi = splitmix64(seed ^ fnv1a(name));
    let lo = splitmix64(hi ^ seed.rotate_left(32));
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&hi.to_le_bytes());
    bytes[8..].copy_from_slice(&lo.to_le_bytes());
    Stream::from_seed(bytes)
}

/// An exponentially distributed duration of mean `mean`, on the picosecond grid.
///
/// Drawn by inversion, `−mean · ln(1 − U)` with `U` uniform in `[0, 1)`, using the
/// pure-Rust `libm` logarithm rather than the platform's, so that the same stream gives
/// the same durations on every machine (platform `ln` may differ in the last bit).
pub fn exponential(rng: &mut Stream, mean: Duration) -> Duration {
    let u: f64 = rng.random();
    let x = -libm::log1p(-u);
    Duration((x * mean.as_ps() as f64).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn same_seed_and_name_give_the_same_numbers() {
        let a: Vec<u64> = stream(7, "app[0]").random_iter().take(8).collect();
        let b: Vec<u64> = stream(7, "app[0]").random_iter().take(8).collect();
        assert_eq!(a, b);
    }

    #[test]
    fn names_and_seeds_separate_streams() {
        let x: u64 = stream(7, "app[0]").random();
        assert_ne!(x, stream(7, "app[1]").random::<u64>());
        assert_ne!(x, stream(8, "app[0]").random::<u64>());
    }

    #[test]
    fn exponential_has_the_requested_mean_and_variance() {
        let mut rng = stream(1, "exp");
        let mean = Duration::from_us(10);
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|_| exponential(&mut rng, mean).as_ps() as f64).collect();
        let m = xs.iter().sum::<f64>() / f64::from(n);
        let var = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / f64::from(n - 1);
        // Standard error of the mean is mean/sqrt(n) = 0.22% of the mean; allow 5 of them.
        assert!((m / 1e7 - 1.0).abs() < 0.011, "mean {m}");
        // An exponential's standard deviation equals its mean.
        assert!((var.sqrt() / 1e7 - 1.0).abs() < 0.02, "std {}", var.sqrt());
    }

    #[test]
    fn fnv1a_matches_the_published_test_vector() {
        // FNV-1a 64 of "a" from the reference test suite (draft-eastlake-fnv).
        assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
    }
}

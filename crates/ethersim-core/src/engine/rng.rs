//! Seeded, named random-number streams.
//!
//! Every component draws from its own stream, derived from the run's seed and a stable
//! name such as `"app[3].arrivals"`. Adding a component therefore never shifts the
//! numbers another component sees, and a stream's numbers depend only on (seed, name).
//! The derivation uses FNV-1a over the name (stable across platforms and Rust versions,
//! unlike `std`'s hasher) mixed with the seed through SplitMix64.

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

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
    fn fnv1a_matches_the_published_test_vector() {
        // FNV-1a 64 of "a" from the reference test suite (draft-eastlake-fnv).
        assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
    }
}

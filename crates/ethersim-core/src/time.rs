//! The units every model speaks: simulated time, durations, bit rates and byte counts.
//!
//! Time is an integer count of picoseconds (`u64`, about 213 days of simulated time).
//! Picoseconds make one bit at 1, 10, 25, 40 and 100 Gb/s an exact integer (1000, 100,
//! 40, 25, 10 ps), so serialization times at the common Ethernet speeds are exact and
//! runs are bit-identical on every machine. Where a division is not exact (an unusual
//! rate), the result is rounded **up** to the next picosecond, so a frame never leaves
//! the wire earlier than physics allows; the rule is applied in exactly one place,
//! [`BitRate::time_to_send`].
//!
//! Two instants are special and distinct. [`SimTime::END`] is the last instant the clock
//! holds: adding a duration that would go beyond it saturates there, so an instant that
//! overflowed is recognisable (the scheduler stops with a clock-overflow error rather
//! than running it). [`SimTime::NEVER`] lies beyond even that and means "no such
//! instant": a deadline that is not set, a gate closed until someone opens it. Adding to
//! `NEVER` stays `NEVER`; it is never scheduled. Subtracting a later instant from an
//! earlier one is a bug, caught in every build (it never wraps).

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Picoseconds per second.
pub const PS_PER_SEC: u64 = 1_000_000_000_000;

/// An instant of simulated time, in picoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

/// A span of simulated time, in picoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration(pub u64);

/// A data rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BitRate(pub u64);

/// A size in bytes (octets).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bytes(pub u64);

impl SimTime {
    /// The start of every run.
    pub const ZERO: SimTime = SimTime(0);
    /// The last instant the clock holds; arithmetic that would go beyond saturates here.
    pub const END: SimTime = SimTime(u64::MAX - 1);
    /// No instant at all: an unset deadline. Later than every instant, including [`SimTime::END`].
    pub const NEVER: SimTime = SimTime(u64::MAX);

    /// Picoseconds since the start of the run.
    pub const fn as_ps(self) -> u64 {
        self.0
    }

    /// Seconds since the start of the run, for reporting only.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_SEC as f64
    }

    /// The span from `earlier` to `self`; zero if `earlier` is later.
    pub fn saturating_since(self, earlier: SimTime) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }

    /// The span from `earlier` to `self`, or `None` if `earlier` is later.
    pub fn checked_since(self, earlier: SimTime) -> Option<Duration> {
        self.0.checked_sub(earlier.0).map(Duration)
    }

    /// Whether this is [`SimTime::NEVER`].
    pub const fn is_never(self) -> bool {
        self.0 == u64::MAX
    }
}

impl Duration {
    /// No time at all.
    pub const ZERO: Duration = Duration(0);

    /// A duration of `ps` picoseconds.
    pub const fn from_ps(ps: u64) -> Self {
        Duration(ps)
    }
    /// A duration of `ns` nanoseconds.
    pub const fn from_ns(ns: u64) -> Self {
        Duration(ns * 1_000)
    }
    /// A duration of `us` microseconds.
    pub const fn from_us(us: u64) -> Self {
        Duration(us * 1_000_000)
    }
    /// A duration of `ms` milliseconds.
    pub const fn from_ms(ms: u64) -> Self {
        Duration(ms * 1_000_000_000)
    }
    /// A duration of `s` seconds.
    pub const fn from_secs(s: u64) -> Self {
        Duration(s * PS_PER_SEC)
    }
    /// Picoseconds in this span.
    pub const fn as_ps(self) -> u64 {
        self.0
    }
    /// Seconds in this span, for statistics and reporting only.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_SEC as f64
    }
}

impl BitRate {
    /// A rate of `bps` bits per second.
    pub const fn bps(bps: u64) -> Self {
        BitRate(bps)
    }
    /// A rate of `mbps` megabits (10^6 bit) per second.
    pub const fn mbps(mbps: u64) -> Self {
        BitRate(mbps * 1_000_000)
    }
    /// A rate of `gbps` gigabits (10^9 bit) per second.
    pub const fn gbps(gbps: u64) -> Self {
        BitRate(gbps * 1_000_000_000)
    }
    /// Bits per second.
    pub const fn as_bps(self) -> u64 {
        self.0
    }

    /// Time to put `size` on a wire at this rate, rounded up to the next picosecond.
    ///
    /// Exact whenever `8 · size · 10^12` is a multiple of the rate, which holds for
    /// every byte count at 1, 10, 25, 40, 100 Mb/s and Gb/s.
    ///
    /// # Panics
    /// If the rate is zero (scenario validation rejects zero rates).
    pub fn time_to_send(self, size: Bytes) -> Duration {
        assert!(self.0 > 0, "time_to_send at a zero rate");
        let bits = u128::from(size.0) * 8;
        let ps = (bits * u128::from(PS_PER_SEC)).div_ceil(u128::from(self.0));
        Duration(u64::try_from(ps).unwrap_or(u64::MAX))
    }

    /// Bytes carried at this rate in `span`, rounded down (whole bytes only).
    pub fn bytes_in(self, span: Duration) -> Bytes {
        let bits = u128::from(self.0) * u128::from(span.0) / u128::from(PS_PER_SEC);
        Bytes(u64::try_from(bits / 8).unwrap_or(u64::MAX))
    }
}

impl Bytes {
    /// `n` bytes.
    pub const fn new(n: u64) -> Self {
        Bytes(n)
    }
    /// The number of bytes.
    pub const fn get(self) -> u64 {
        self.0
    }
    /// The number of bits.
    pub const fn bits(self) -> u64 {
        self.0 * 8
    }
}

impl Add<Duration> for SimTime {
    type Output = SimTime;
    /// The instant `d` after `self`: saturates at [`SimTime::END`]; `NEVER` stays `NEVER`.
    fn add(self, d: Duration) -> SimTime {
        if self.is_never() {
            return self;
        }
        SimTime(self.0.saturating_add(d.0).min(SimTime::END.0))
    }
}

impl AddAssign<Duration> for SimTime {
    fn add_assign(&mut self, d: Duration) {
        *self = *self + d;
    }
}

impl Sub for SimTime {
    type Output = Duration;
    /// The span between two instants.
    ///
    /// # Panics
    /// In every build, if `rhs` is later than `self`: time never runs backwards, so this
    /// is a bug in the caller. Use [`SimTime::checked_since`] or
    /// [`SimTime::saturating_since`] where either order is possible.
    fn sub(self, rhs: SimTime) -> Duration {
        self.checked_since(rhs).unwrap_or_else(|| panic!("time subtraction {self} - {rhs} would be negative"))
    }
}

impl Add for Duration {
    type Output = Duration;
    fn add(self, d: Duration) -> Duration {
        Duration(self.0.saturating_add(d.0))
    }
}

impl Add for Bytes {
    type Output = Bytes;
    fn add(self, b: Bytes) -> Bytes {
        Bytes(self.0 + b.0)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_never() {
            return write!(f, "never");
        }
        write!(f, "{}", Duration(self.0))
    }
}

impl fmt::Display for Duration {
    /// Prints in the largest unit that keeps the value exact (`"10 ms"`, `"12304 ns"`),
    /// so a printed duration parses back to the same picoseconds.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [(u64, &str); 5] =
            [(PS_PER_SEC, "s"), (1_000_000_000, "ms"), (1_000_000, "us"), (1_000, "ns"), (1, "ps")];
        if self.0 == 0 {
            return write!(f, "0 s");
        }
        for (scale, unit) in UNITS {
            if self.0 % scale == 0 {
                return write!(f, "{} {unit}", self.0 / scale);
            }
        }
        unreachable!("every integer is a multiple of 1 ps")
    }
}

impl fmt::Display for BitRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [(u64, &str); 4] =
            [(1_000_000_000_000, "Tb/s"), (1_000_000_000, "Gb/s"), (1_000_000, "Mb/s"), (1_000, "kb/s")];
        for (scale, unit) in UNITS {
            if self.0 >= scale && self.0 % scale == 0 {
                return write!(f, "{} {unit}", self.0 / scale);
            }
        }
        write!(f, "{} b/s", self.0)
    }
}

impl fmt::Display for Bytes {
    /// Prints in the largest unit that keeps the value exact (`"1 MiB"`, `"500 MB"`,
    /// `"1500 B"`), so a printed size parses back to the same bytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [(u64, &str); 8] = [
            (1 << 40, "TiB"),
            (1_000_000_000_000, "TB"),
            (1 << 30, "GiB"),
            (1_000_000_000, "GB"),
            (1 << 20, "MiB"),
            (1_000_000, "MB"),
            (1 << 10, "KiB"),
            (1_000, "kB"),
        ];
        for (scale, unit) in UNITS {
            if self.0 >= scale && self.0 % scale == 0 {
                return write!(f, "{} {unit}", self.0 / scale);
            }
        }
        write!(f, "{} B", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_frame_at_one_gigabit_is_exact() {
        // 1518 B + 8 B preamble/SFD + 12 B gap = 1538 B = 12304 bits = 12304 ns at 1 Gb/s.
        let t = BitRate::gbps(1).time_to_send(Bytes(1538));
        assert_eq!(t, Duration::from_ns(12_304));
    }

    #[test]
    fn inexact_division_rounds_up() {
        // 1 bit at 3 b/s = 333_333_333_333.33 ps -> rounded up.
        let t = BitRate::bps(3).time_to_send(Bytes(1));
        assert_eq!(t.as_ps(), (8 * PS_PER_SEC).div_ceil(3));
    }

    #[test]
    fn bytes_in_inverts_time_to_send_on_exact_rates() {
        let r = BitRate::mbps(100);
        assert_eq!(r.bytes_in(r.time_to_send(Bytes(1500))), Bytes(1500));
    }

    #[test]
    fn overflow_saturates_at_end_and_never_stays_never() {
        assert_eq!(SimTime(u64::MAX - 5) + Duration(100), SimTime::END);
        assert_eq!(SimTime::END + Duration(1), SimTime::END);
        assert_eq!(SimTime::NEVER + Duration(1), SimTime::NEVER);
        assert!(SimTime::END < SimTime::NEVER);
        assert_eq!(SimTime::NEVER.to_string(), "never");
    }

    #[test]
    #[should_panic(expected = "would be negative")]
    fn subtracting_a_later_instant_panics_instead_of_wrapping() {
        let _ = SimTime(5) - SimTime(6);
    }

    #[test]
    fn checked_since_refuses_negative_spans() {
        assert_eq!(SimTime(7).checked_since(SimTime(5)), Some(Duration(2)));
        assert_eq!(SimTime(5).checked_since(SimTime(7)), None);
    }

    #[test]
    fn display_uses_the_largest_exact_unit() {
        assert_eq!(Duration::from_ms(10).to_string(), "10 ms");
        assert_eq!(Duration::from_ns(12_304).to_string(), "12304 ns");
        assert_eq!(BitRate::gbps(1).to_string(), "1 Gb/s");
        assert_eq!(BitRate::bps(1500).to_string(), "1500 b/s");
        assert_eq!(Bytes(1 << 20).to_string(), "1 MiB");
        assert_eq!(Bytes(500_000_000).to_string(), "500 MB");
        assert_eq!(Bytes(1500).to_string(), "1500 B");
    }
}

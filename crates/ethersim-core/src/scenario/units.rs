//! Quantities with units, as scenario files write them: `"10 ms"`, `"1 Gb/s"`, `"1500 B"`.
//!
//! SI prefixes are decimal (1 MB = 10^6 B, 1 Mb/s = 10^6 bit/s) and binary prefixes are
//! binary (1 MiB = 2^20 B). Arithmetic is exact: the number is read as a decimal
//! fraction and scaled in integers. A value that does not land on the engine's grid
//! (whole picoseconds, whole bits per second, whole bytes) is an error rather than a
//! silent rounding.

use std::fmt;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

use crate::time::{BitRate, Bytes, Duration};

/// Time units and their size in picoseconds.
const TIME_UNITS: &[(&str, u128)] = &[
    ("ps", 1),
    ("ns", 1_000),
    ("us", 1_000_000),
    ("µs", 1_000_000),
    ("ms", 1_000_000_000),
    ("s", 1_000_000_000_000),
];

/// Rate units and their size in bit/s.
const RATE_UNITS: &[(&str, u128)] = &[
    ("b/s", 1),
    ("bit/s", 1),
    ("kb/s", 1_000),
    ("kbit/s", 1_000),
    ("Mb/s", 1_000_000),
    ("Mbit/s", 1_000_000),
    ("Gb/s", 1_000_000_000),
    ("Gbit/s", 1_000_000_000),
    ("Tb/s", 1_000_000_000_000),
    ("Tbit/s", 1_000_000_000_000),
];

/// Size units and their size in bytes.
const SIZE_UNITS: &[(&str, u128)] = &[
    ("B", 1),
    ("kB", 1_000),
    ("MB", 1_000_000),
    ("GB", 1_000_000_000),
    ("TB", 1_000_000_000_000),
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
    ("TiB", 1 << 40),
];

/// Largest time a scenario may give: 10^6 s (11.6 days), well inside the engine's clock
/// (about 213 days). A run whose events still go beyond the clock (a long transfer at a
/// very low rate, say) stops at the clock's end with its results (`clock_overflow`),
/// never at a clamped time.
pub const MAX_TIME: Duration = Duration::from_secs(1_000_000);
/// Largest rate a scenario may give: 100 Tb/s.
pub const MAX_RATE: BitRate = BitRate(100_000_000_000_000);
/// Largest size a scenario may give: 1 PB.
pub const MAX_SIZE: Bytes = Bytes(1_000_000_000_000_000);

/// Why a quantity string was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitError(pub String);

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Splits `"1.5 Gb/s"` into an exact decimal `(mantissa, exponent10)` and the unit text.
fn split_number(text: &str) -> Result<((u128, i32), &str), UnitError> {
    let t = text.trim();
    let end = t
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_digit() || c == '.' || c == '_' || c == '-' || c == '+'))
        .map_or(t.len(), |(i, _)| i);
    // Allow an exponent ("1e9") only when followed by a digit or sign, so "1 e" stays a unit.
    let (mut num_end, rest) = (end, &t[end..]);
    let mut exp10: i32 = 0;
    if let Some(after) = rest.strip_prefix(['e', 'E']) {
        let exp_len = after
            .char_indices()
            .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && (c == '-' || c == '+'))))
            .map_or(after.len(), |(i, _)| i);
        if exp_len > 0 && after[..exp_len].chars().any(|c| c.is_ascii_digit()) {
            exp10 = after[..exp_len].parse().map_err(|_| UnitError(format!("bad exponent in {text:?}")))?;
            num_end = end + 1 + exp_len;
        }
    }
    let number = &t[..end];
    let unit = t[num_end..].trim();
    if number.starts_with('-') {
        return Err(UnitError(format!("{text:?} is negative; expected a non-negative quantity")));
    }
    let number = number.trim_start_matches('+').replace('_', "");
    let (int_part, frac_part) = number.split_once('.').unwrap_or((&number, ""));
    if int_part.is_empty() && frac_part.is_empty() {
        return Err(UnitError(format!("{text:?} does not start with a number")));
    }
    if !int_part.chars().chain(frac_part.chars()).all(|c| c.is_ascii_digit()) {
        return Err(UnitError(format!("{text:?} is not a number followed by a unit")));
    }
    let digits = format!("{int_part}{frac_part}");
    let mantissa: u128 = digits.parse().map_err(|_| UnitError(format!("{text:?} is too large")))?;
    // Digits after the point lower the exponent; any exponent beyond ±60 cannot give a
    // representable value (u64 tops out near 1.8e19) and is refused before it can overflow.
    let exp10 = i32::try_from(frac_part.len()).ok().and_then(|f| exp10.checked_sub(f));
    match exp10 {
        Some(e) if (-60..=60).contains(&e) => Ok(((mantissa, e), unit)),
        _ => Err(UnitError(format!("{text:?} has an exponent out of range"))),
    }
}

/// Parses `text` against a unit table and returns the value in the table's base unit.
fn parse_scaled(
    text: &str,
    units: &[(&str, u128)],
    what: &str,
    grid: &str,
    max: &dyn fmt::Display,
) -> Result<u64, UnitError> {
    let ((mantissa, exp10), unit) = split_number(text)?;
    let names = || units.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ");
    if unit.is_empty() {
        return Err(UnitError(format!(
            "{text:?} has no unit; expected a {what} such as \"{}\" (units: {})",
            example(units),
            names()
        )));
    }
    let Some(&(_, scale)) = units.iter().find(|(n, _)| *n == unit) else {
        return Err(UnitError(format!(
            "unknown {what} unit {unit:?} in {text:?}; expected one of: {}",
            names()
        )));
    };
    // One message for every value past the limit, whether or not it overflows on the way.
    let too_large = || larger(text, max);
    let mut value = mantissa.checked_mul(scale).ok_or_else(too_large)?;
    if exp10 >= 0 {
        let p = 10u128.checked_pow(exp10.unsigned_abs()).ok_or_else(too_large)?;
        value = value.checked_mul(p).ok_or_else(too_large)?;
    } else {
        // 10^k for k > 38 exceeds u128, and then only a zero value divides exactly.
        let exact = match 10u128.checked_pow(exp10.unsigned_abs()) {
            Some(p) if value % p == 0 => Some(value / p),
            None if value == 0 => Some(0),
            _ => None,
        };
        value = exact.ok_or_else(|| {
            UnitError(format!("{text:?} is not a whole number of {grid}; the engine does not round"))
        })?;
    }
    u64::try_from(value).map_err(|_| too_large())
}

fn example(units: &[(&str, u128)]) -> &'static str {
    match units.first().map(|(n, _)| *n) {
        Some("ps") => "10 ms",
        Some("b/s") => "1 Gb/s",
        _ => "1500 B",
    }
}

fn larger(text: &str, max: &dyn fmt::Display) -> UnitError {
    UnitError(format!("{text:?} is larger than the largest accepted, {max}"))
}

fn at_most<T: PartialOrd + fmt::Display>(text: &str, value: T, max: &T) -> Result<T, UnitError> {
    if value > *max {
        Err(larger(text, max))
    } else {
        Ok(value)
    }
}

/// Parses a time span such as `"10 ms"`, `"2.5 us"` or `"12304 ns"` (at most [`MAX_TIME`]).
pub fn parse_duration(text: &str) -> Result<Duration, UnitError> {
    let d = parse_scaled(text, TIME_UNITS, "time", "picoseconds", &MAX_TIME).map(Duration)?;
    at_most(text, d, &MAX_TIME)
}

/// Parses a data rate such as `"1 Gb/s"` or `"2.5 Mbit/s"` (at most [`MAX_RATE`]).
pub fn parse_rate(text: &str) -> Result<BitRate, UnitError> {
    let r = parse_scaled(text, RATE_UNITS, "rate", "bits per second", &MAX_RATE).map(BitRate)?;
    at_most(text, r, &MAX_RATE)
}

/// Parses a size such as `"1500 B"`, `"500 MB"` or `"64 KiB"` (at most [`MAX_SIZE`]).
pub fn parse_size(text: &str) -> Result<Bytes, UnitError> {
    let b = parse_scaled(text, SIZE_UNITS, "size", "bytes", &MAX_SIZE).map(Bytes)?;
    at_most(text, b, &MAX_SIZE)
}

macro_rules! quantity {
    ($(#[$doc:meta])* $name:ident, $inner:ty, $parse:ident, $pattern:literal, $example:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $name(pub $inner);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl de::Visitor<'_> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        write!(f, "a string with a unit, such as {:?}", $example)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$name, E> {
                        $parse(s).map($name).map_err(E::custom)
                    }
                }
                d.deserialize_str(V)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(&self.0)
            }
        }

        impl JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!({
                    "type": "string",
                    "pattern": $pattern,
                    "examples": [$example],
                })
            }
        }
    };
}

quantity!(
    /// A time span in a scenario file: `"10 ms"`, `"96 ns"` (units ps, ns, us, µs, ms, s).
    DurationSpec, Duration, parse_duration,
    r"^\s*\+?[0-9_.]+([eE][-+]?[0-9]+)?\s*(ps|ns|us|µs|ms|s)\s*$", "10 ms"
);
quantity!(
    /// A data rate in a scenario file: `"1 Gb/s"` (b/s, kb/s, Mb/s, Gb/s, Tb/s; also `bit/s` forms).
    RateSpec, BitRate, parse_rate,
    r"^\s*\+?[0-9_.]+([eE][-+]?[0-9]+)?\s*[kMGT]?(b|bit)/s\s*$", "1 Gb/s"
);
quantity!(
    /// A size in a scenario file: `"1500 B"`, `"500 MB"`, `"64 KiB"` (SI decimal, IEC binary).
    SizeSpec, Bytes, parse_size,
    r"^\s*\+?[0-9_.]+([eE][-+]?[0-9]+)?\s*([kMGT]B|[KMGT]iB|B)\s*$", "1500 B"
);

/// A byte count in a scenario file: a size with a unit (`"96 B"`, `"64 KiB"`) or a bare
/// whole number of bytes (`96`, as capture tools write a snap length).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteCountSpec(pub Bytes);

impl<'de> Deserialize<'de> for ByteCountSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = ByteCountSpec;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a whole number of bytes, or a size with a unit such as \"96 B\"")
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<ByteCountSpec, E> {
                at_most(&n.to_string(), Bytes(n), &MAX_SIZE).map(ByteCountSpec).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<ByteCountSpec, E> {
                u64::try_from(n)
                    .map_err(|_| E::custom(format!("{n} is negative; expected a number of bytes")))
                    .and_then(|n| self.visit_u64(n))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<ByteCountSpec, E> {
                parse_size(s).map(ByteCountSpec).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for ByteCountSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0.get())
    }
}

impl JsonSchema for ByteCountSpec {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ByteCountSpec".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [
                { "type": "integer", "minimum": 0 },
                {
                    "type": "string",
                    "pattern": r"^\s*\+?[0-9_.]+([eE][-+]?[0-9]+)?\s*([kMGT]B|[KMGT]iB|B)\s*$",
                },
            ],
            "examples": [96, "96 B"],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn si_prefixes_are_decimal_and_binary_prefixes_binary() {
        assert_eq!(parse_size("500 MB").unwrap(), Bytes(500_000_000));
        assert_eq!(parse_size("1 MiB").unwrap(), Bytes(1 << 20));
        assert_eq!(parse_rate("1 Gb/s").unwrap(), BitRate(1_000_000_000));
        assert_eq!(parse_rate("2.5 Mbit/s").unwrap(), BitRate(2_500_000));
    }

    #[test]
    fn fractions_and_exponents_are_exact() {
        assert_eq!(parse_duration("0.5 ms").unwrap(), Duration::from_us(500));
        assert_eq!(parse_duration("1e-3 s").unwrap(), Duration::from_ms(1));
        assert_eq!(parse_duration("2.88 us").unwrap(), Duration::from_ns(2_880));
        assert_eq!(parse_rate("1e9 b/s").unwrap(), BitRate::gbps(1));
    }

    #[test]
    fn values_off_the_grid_are_refused() {
        let e = parse_duration("0.1 ps").unwrap_err();
        assert!(e.0.contains("whole number of picoseconds"), "{e}");
        assert!(parse_size("1.5 B").unwrap_err().0.contains("whole number of bytes"));
    }

    #[test]
    fn bad_units_name_the_expected_ones() {
        let e = parse_rate("1 GB").unwrap_err();
        assert!(e.0.contains("unknown rate unit \"GB\""), "{e}");
        assert!(e.0.contains("Gb/s"), "{e}");
        assert!(parse_size("1500").unwrap_err().0.contains("has no unit"));
        assert!(parse_rate("-1 Gb/s").unwrap_err().0.contains("negative"));
        assert!(parse_duration("fast").unwrap_err().0.contains("does not start with a number"));
    }

    #[test]
    fn extreme_exponents_and_values_are_refused_not_wrapped() {
        assert!(parse_duration("1.0e-2147483648 s").unwrap_err().0.contains("exponent out of range"));
        assert!(parse_duration("1e2147483647 s").unwrap_err().0.contains("exponent out of range"));
        assert!(parse_duration("18446744 s").unwrap_err().0.contains("larger than the largest accepted"));
        assert!(parse_rate("1 Pb/s").is_err());
        assert!(parse_rate("101 Tb/s").unwrap_err().0.contains("100 Tb/s"));
        assert!(parse_size("2000 TB").unwrap_err().0.contains("larger than"));
        assert_eq!(parse_duration("1000000 s").unwrap(), MAX_TIME);
        // A huge mantissa with a very negative exponent is a tiny fraction, not 1 ps.
        let tiny = parse_duration("340282366920938463463374607431768211455e-60 ps").unwrap_err();
        assert!(tiny.0.contains("whole number of picoseconds"), "{tiny}");
        assert_eq!(parse_duration("0e-50 s").unwrap(), Duration::ZERO);
    }

    proptest! {
        #[test]
        fn printed_durations_parse_back_exactly(ps in 0u64..=MAX_TIME.as_ps()) {
            let d = Duration(ps);
            prop_assert_eq!(parse_duration(&d.to_string()).unwrap(), d);
        }

        #[test]
        fn printed_rates_parse_back_exactly(bps in 1u64..=MAX_RATE.as_bps()) {
            let r = BitRate(bps);
            prop_assert_eq!(parse_rate(&r.to_string()).unwrap(), r);
        }

        #[test]
        fn printed_sizes_parse_back_exactly(n in 0u64..=MAX_SIZE.get()) {
            prop_assert_eq!(parse_size(&Bytes(n).to_string()).unwrap(), Bytes(n));
        }

        #[test]
        fn integer_bytes_with_any_prefix_scale_exactly(n in 0u64..900, i in 0usize..SIZE_UNITS.len()) {
            let (unit, scale) = SIZE_UNITS[i];
            let got = parse_size(&format!("{n} {unit}")).unwrap();
            prop_assert_eq!(u128::from(got.0), u128::from(n) * scale);
        }

        #[test]
        fn any_number_and_exponent_never_panics(m in "[0-9]{0,30}(\\.[0-9]{0,30})?", e in -100i64..100, unit in "(s|ms|B|MB|Gb/s)") {
            let text = format!("{m}e{e} {unit}");
            let _ = parse_duration(&text);
            let _ = parse_rate(&text);
            let _ = parse_size(&text);
        }

        #[test]
        fn arbitrary_text_never_panics(s in "\\PC{0,24}") {
            let _ = parse_duration(&s);
            let _ = parse_rate(&s);
            let _ = parse_size(&s);
        }
    }
}

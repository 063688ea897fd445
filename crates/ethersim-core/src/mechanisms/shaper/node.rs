//! A token-bucket shaper on a port's output: data frames leave at a long-run rate of at
//! most `rate`, with bursts of up to `burst` at the link's own rate.
//!
//! The bucket holds credit, earned at `rate` up to `burst` and spent by each data
//! frame's length (the Ethernet frame, header to FCS, as queued) as the frame starts. A
//! frame may start while the credit is not negative; a frame that takes it below zero
//! closes the port's gate (`closers::SHAPER`) until the credit has grown back to zero.
//! This is the rule of IEEE 802.1Q's credit-based shaper (clause 8.6.8.2: transmission
//! is allowed while credit is zero or positive, and a frame may take it negative) with
//! a cap of `burst` in place of the idle slope's reset, and the rule token-bucket
//! hardware shapers follow. So from a full bucket a saturated port sends
//! ⌊burst / L⌋ + 1 frames of L bits back to back, then one every L / rate; over any
//! interval of length T it sends at most burst + rate·T + one frame. MAC control frames
//! (PAUSE) pass unshaped and cost nothing.
//!
//! Credit is an exact integer in bit·(10⁻¹² s)/s units (bits × 10¹²): `rate` b/s over
//! `t` ps earns rate·t of them, so no rounding accumulates.

use serde::Serialize;

use crate::ids::PortId;
use crate::stats::record::RecordView;
use crate::time::{BitRate, Bytes, Duration, SimTime};

/// Units of credit per bit (credit is bits × 10¹², see the module's documentation).
const PER_BIT: i128 = 1_000_000_000_000;

/// A port's token bucket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenBucket {
    rate: BitRate,
    burst: Bytes,
    /// Credit at `settled`, bits × 10¹² (may be negative after a frame).
    credit: i128,
    settled: SimTime,
    holds: u64,
    held: Duration,
    /// The end of the latest hold (to leave out its part past the end of a run).
    held_until: SimTime,
}

impl TokenBucket {
    /// A full bucket of `burst` filling at `rate` (both positive).
    pub fn new(rate: BitRate, burst: Bytes) -> Self {
        assert!(rate.0 > 0 && burst.0 > 0, "a shaper's rate and burst are positive");
        TokenBucket {
            rate,
            burst,
            credit: Self::cap(burst),
            settled: SimTime::ZERO,
            holds: 0,
            held: Duration::ZERO,
            held_until: SimTime::ZERO,
        }
    }

    fn cap(burst: Bytes) -> i128 {
        i128::from(burst.0) * 8 * PER_BIT
    }

    /// The credit earned up to `now`, at most the bucket's size.
    fn settle(&mut self, now: SimTime) {
        let earned = i128::from(self.rate.0) * i128::from(now.0 - self.settled.0);
        self.credit = (self.credit + earned).min(Self::cap(self.burst));
        self.settled = now;
    }

    /// A data frame of `len` bytes started at `now`: its length is spent. Returns the
    /// instant the credit is back at zero when it went below (the port holds its next
    /// data frame until then), or `None`.
    pub fn on_frame_start(&mut self, now: SimTime, len: u32) -> Option<SimTime> {
        self.settle(now);
        self.credit -= i128::from(len) * 8 * PER_BIT;
        if self.credit >= 0 {
            return None;
        }
        // Whole picoseconds, rounded up: the credit is zero or more when the gate opens.
        let rate = i128::from(self.rate.0);
        let wait = (-self.credit + rate - 1) / rate;
        let until = SimTime(now.0 + u64::try_from(wait).unwrap_or(u64::MAX));
        self.holds += 1;
        self.held = self.held + Duration(until.0 - now.0);
        self.held_until = until;
        Some(until)
    }

    /// The shaper's columns of its port's results, for a run that ended at `end`.
    pub fn report(&self, end: SimTime) -> ShaperPortReport {
        let past_end = self.held_until.0.saturating_sub(end.0);
        ShaperPortReport {
            shaped: true,
            shaper_rate_bps: self.rate.0,
            shaper_burst_bytes: self.burst.0,
            shaper_holds: self.holds,
            shaper_held_s: Duration(self.held.0 - past_end).as_secs_f64(),
        }
    }
}

/// A shaped port's columns of the `ports` table (absent for a port without a shaper).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ShaperPortReport {
    /// Whether a token-bucket shaper shapes this port's data frames.
    pub shaped: bool,
    /// Its long-run rate, bits per second.
    pub shaper_rate_bps: u64,
    /// Its bucket, bytes: the burst it lets go at the link's rate.
    pub shaper_burst_bytes: u64,
    /// Times a frame took the credit below zero, so the next waited.
    pub shaper_holds: u64,
    /// Time the shaper held the port's data frames, seconds (within the run).
    pub shaper_held_s: f64,
}

impl ShaperPortReport {
    /// How the terminal and the report show it.
    pub const VIEW: RecordView = RecordView {
        table: "ports",
        title: "shaper (token bucket)",
        shown_when: &["shaped"],
        columns: &[
            ("shaper_rate_bps", "rate"),
            ("shaper_burst_bytes", "burst"),
            ("shaper_holds", "holds"),
            ("shaper_held_s", "held"),
        ],
    };
}

/// The token buckets of a network's shaped ports, by port: kept beside the ports, not
/// in them, so that a port without a shaper (nearly all) carries nothing of it.
#[derive(Clone, Debug, Default)]
pub struct Shapers {
    /// (port, bucket), in port order.
    by_port: Vec<(PortId, TokenBucket)>,
}

impl Shapers {
    /// Shapes `port` with `bucket` (replacing a bucket it had).
    pub fn insert(&mut self, port: PortId, bucket: TokenBucket) {
        match self.by_port.binary_search_by_key(&port, |(p, _)| *p) {
            Ok(i) => self.by_port[i].1 = bucket,
            Err(i) => self.by_port.insert(i, (port, bucket)),
        }
    }

    /// `port`'s bucket, if it is shaped.
    pub fn get(&self, port: PortId) -> Option<&TokenBucket> {
        self.by_port.binary_search_by_key(&port, |(p, _)| *p).ok().map(|i| &self.by_port[i].1)
    }

    /// `port`'s bucket, if it is shaped, to spend from.
    pub fn get_mut(&mut self, port: PortId) -> Option<&mut TokenBucket> {
        self.by_port.binary_search_by_key(&port, |(p, _)| *p).ok().map(|i| &mut self.by_port[i].1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MBPS_100: BitRate = BitRate(100_000_000);

    #[test]
    fn a_full_bucket_lets_burst_over_length_plus_one_frames_go_at_once() {
        // 3,000 B of bucket and 1,000-B frames: the 1st, 2nd and 3rd leave credit 0 or
        // more; the 4th takes it to −1,000 B and holds the 5th.
        let mut b = TokenBucket::new(MBPS_100, Bytes(3_000));
        for _ in 0..3 {
            assert_eq!(b.on_frame_start(SimTime::ZERO, 1_000), None);
        }
        let until = b.on_frame_start(SimTime::ZERO, 1_000).expect("the 4th goes below zero");
        // 8,000 bits at 100 Mb/s: 80 us.
        assert_eq!(until, SimTime(80_000_000));
        assert_eq!(b.report(SimTime(1_000_000_000)).shaper_holds, 1);
    }

    #[test]
    fn a_saturated_port_sends_burst_plus_rate_times_time() {
        // Frames start whenever the gate opens: at most burst + rate·T + one frame in T.
        let (len, burst) = (1_500_u32, Bytes(15_000));
        let mut b = TokenBucket::new(MBPS_100, burst);
        let (mut now, mut sent) = (SimTime::ZERO, 0_u64);
        let horizon = SimTime(Duration::from_ms(100).as_ps());
        while now < horizon {
            sent += u64::from(len);
            if let Some(until) = b.on_frame_start(now, len) {
                now = until;
            }
        }
        let allowed = burst.0 + 100_000_000 / 8 / 10 + u64::from(len);
        assert!(sent <= allowed && sent + 2 * u64::from(len) >= allowed, "{sent} vs {allowed}");
    }

    #[test]
    fn idle_time_refills_the_bucket_to_its_size_and_no_further() {
        let mut b = TokenBucket::new(MBPS_100, Bytes(2_000));
        assert!(b.on_frame_start(SimTime::ZERO, 1_500).is_none());
        assert!(b.on_frame_start(SimTime::ZERO, 1_500).is_some(), "−1,000 B");
        // An hour later the bucket is full again (2,000 B), not an hour's worth.
        let later = SimTime(Duration::from_secs(3_600).as_ps());
        assert!(b.on_frame_start(later, 1_500).is_none());
        assert!(b.on_frame_start(later, 1_500).is_some());
    }

    #[test]
    fn the_time_held_leaves_out_a_hold_past_the_end_of_the_run() {
        let mut b = TokenBucket::new(MBPS_100, Bytes(1_000));
        let until = b.on_frame_start(SimTime::ZERO, 2_000).expect("held"); // −1,000 B: 80 us
        assert_eq!(until, SimTime(80_000_000));
        let r = b.report(SimTime(50_000_000));
        assert!((r.shaper_held_s - 50e-6).abs() < 1e-15, "{}", r.shaper_held_s);
    }

    #[test]
    fn the_table_finds_each_shaped_port_and_no_other() {
        let mut t = Shapers::default();
        let bucket = |burst| TokenBucket::new(MBPS_100, Bytes(burst));
        t.insert(PortId(7), bucket(1_000));
        t.insert(PortId(2), bucket(2_000));
        t.insert(PortId(7), bucket(3_000)); // replaces port 7's
        assert_eq!(t.get(PortId(2)).map(|b| b.report(SimTime::ZERO).shaper_burst_bytes), Some(2_000));
        assert_eq!(t.get(PortId(7)).map(|b| b.report(SimTime::ZERO).shaper_burst_bytes), Some(3_000));
        assert!(t.get(PortId(3)).is_none() && t.get_mut(PortId(0)).is_none());
    }
}

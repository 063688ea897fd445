//! Classic shared-medium Ethernet (IEEE 802.3 clause 4, half duplex): the timing rules
//! of CSMA/CD on a segment with real geometry, as pure functions of the transmissions
//! under way. [`super::bus`] holds a segment's stations and their MAC state; the network
//! drives them with events (`sim/mac.rs`).
//!
//! Every station hears every other after the signal's propagation delay d(i, j)
//! ([`Geometry`]): station j senses transmission k over (s_k + d(k, j), e_k + d(k, j)),
//! where [s_k, e_k) is the transmission at its source. A signal arriving at exactly the
//! instant a station decides is not yet sensed, so two stations that decide at one
//! instant both transmit and collide, as two real ones would.
//!
//! The rules (clause 4.2.3.2; constants 4.4.2, in bit times at the segment's rate):
//! - **Deference**: a station waits until it senses no carrier, then the inter-frame gap
//!   (96 bits) counted from the moment carrier (or its own transmission) ended. Carrier
//!   arriving in the first two thirds of the gap (64 bits) makes it wait again; in the
//!   last third it is ignored and the station transmits.
//! - **Collision**: a station detects one when another's signal reaches it while it
//!   transmits; it finishes its preamble (64 bits), then sends a 32-bit jam and stops.
//! - **Backoff**: after its n-th collision a station waits r slot times (512 bits), r
//!   uniform in [0, 2^min(n, 10) − 1], from the end of its jam, then defers again; after
//!   16 attempts the frame is dropped (excessive collisions).

use rand::Rng;

use crate::engine::rng::Stream;
use crate::time::{BitRate, Bytes, Duration, SimTime};

/// Slot time, bits (4.4.2: 512 bit times at 10 Mb/s).
pub const SLOT_BITS: u64 = 512;
/// Inter-frame gap, bits (4.4.2: interFrameSpacing, 96 bit times).
pub const IFG_BITS: u64 = 96;
/// The part of the gap in which carrier restarts the wait (4.2.3.2.1: up to two thirds).
pub const IFG_PART1_BITS: u64 = 64;
/// Jam, bits (4.4.2: jamSize).
pub const JAM_BITS: u64 = 32;
/// Preamble and start-of-frame delimiter, bits: finished before a jam (4.2.3.2.4).
pub const PREAMBLE_BITS: u64 = 64;
/// Attempts before a frame is dropped (4.4.2: attemptLimit).
pub const ATTEMPT_LIMIT: u32 = 16;
/// Collisions after which the backoff range stops growing (4.4.2: backoffLimit).
pub const BACKOFF_LIMIT: u32 = 10;

/// Signal propagation between the stations of a segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// `delay[i][j]`: from station i's transmitter to station j's receiver.
    delay: Vec<Vec<Duration>>,
    /// The largest of them.
    max: Duration,
}

/// The speed of light in vacuum, m/s.
const C_M_PER_S: f64 = 299_792_458.0;

impl Geometry {
    /// Stations at `positions` (metres along a coaxial cable) with signals at
    /// `velocity` × c; a signal crossing a repeater at `(position, delay)` is delayed by
    /// it, and each station's transceiver adds `tap` at both ends. Delays are rounded to
    /// the picosecond.
    pub fn bus(positions: &[f64], velocity: f64, repeaters: &[(f64, Duration)], tap: Duration) -> Self {
        let n = positions.len();
        let mut delay = vec![vec![Duration::ZERO; n]; n];
        let mut max = Duration::ZERO;
        for (i, &xi) in positions.iter().enumerate() {
            for (j, &xj) in positions.iter().enumerate() {
                if i == j {
                    continue;
                }
                let (lo, hi) = if xi < xj { (xi, xj) } else { (xj, xi) };
                // Saturating: the scenario's bounds keep every delay far below u64's range.
                let flight = ((hi - lo) / (velocity * C_M_PER_S) * 1e12).round() as u64;
                let crossed = repeaters
                    .iter()
                    .filter(|(x, _)| lo < *x && *x < hi)
                    .fold(0u64, |sum, (_, d)| sum.saturating_add(d.as_ps()));
                let d =
                    Duration(flight.saturating_add(crossed).saturating_add(tap.as_ps().saturating_mul(2)));
                delay[i][j] = d;
                max = max.max(d);
            }
        }
        Geometry { delay, max }
    }

    /// From station `i` to station `j`.
    pub fn delay(&self, i: usize, j: usize) -> Duration {
        self.delay[i][j]
    }

    /// Stations on the segment.
    pub fn stations(&self) -> usize {
        self.delay.len()
    }
}

/// One transmission on the segment, as its source sends it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transmission {
    /// The station sending.
    pub station: usize,
    /// Its first bit leaves.
    pub start: SimTime,
    /// Its last bit (of frame or jam) leaves.
    pub end: SimTime,
}

/// What a station does after deciding to send at an instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deference {
    /// Carrier is sensed: wait for it to end (ask again then).
    Busy {
        /// When the carrier sensed so far ends.
        until: SimTime,
    },
    /// The gap is running: ask again ([`Medium::defer`]) at the end of its first part.
    /// Carrier that arrived in it is then sensed (the station waits again) or has already
    /// ended (a new gap counts from its end); otherwise the station transmits at the end
    /// of the gap whatever arrives in its last part.
    Gap {
        /// The end of the gap's first part.
        part1_end: SimTime,
    },
    /// Transmit at this instant (now, or the end of the gap: carrier in its last part is
    /// ignored).
    Transmit {
        /// When.
        at: SimTime,
    },
}

/// A segment's medium: the transmissions that any station may still hear.
#[derive(Clone, Debug)]
pub struct Medium {
    /// Its geometry.
    pub geometry: Geometry,
    /// Bit time at its rate.
    bit: Duration,
    /// Transmissions whose signal may still be somewhere on the cable, oldest first.
    log: Vec<Transmission>,
    /// Scratch space for what one station has heard ([`Medium::defer`]).
    heard: Vec<Heard>,
}

/// A carrier as one station heard it, or one of its own transmissions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Heard {
    from: SimTime,
    to: SimTime,
    own: bool,
}

impl Medium {
    /// A segment of `geometry` at `rate` (10 Mb/s for classic Ethernet).
    pub fn new(geometry: Geometry, rate: BitRate) -> Self {
        let bit = rate.time_to_send(Bytes(1)).as_ps() / 8;
        Medium { geometry, bit: Duration(bit), log: Vec::new(), heard: Vec::new() }
    }

    /// `bits` bit times at the segment's rate.
    pub fn bits(&self, bits: u64) -> Duration {
        Duration(self.bit.as_ps() * bits)
    }

    /// The transmissions in the log.
    pub fn transmissions(&self) -> &[Transmission] {
        &self.log
    }

    /// Whether station `j` senses another station's carrier at `t`.
    pub fn senses(&self, j: usize, t: SimTime) -> bool {
        self.log.iter().any(|k| {
            let d = self.geometry.delay(k.station, j);
            k.station != j && k.start + d < t && t < k.end + d
        })
    }

    /// Station `j` wants to send at `t` (a frame became ready, a backoff ended, a wait
    /// ended, the first part of a gap ended): what it does. This is the deference process
    /// of 4.2.8 run over what `j` has heard by `t` (carriers that arrived strictly before
    /// `t`, and its own transmissions):
    ///
    /// - while carrier is sensed (or it transmits), it defers;
    /// - then the gap: after a busy spell that held its own transmission, 96 bits with
    ///   carrier ignored; otherwise carrier arriving in the first 64 bits restarts the gap
    ///   after it ends, and carrier arriving in the last 32 is ignored;
    /// - at the gap's end deferring stops, and a station with a frame sends it, whatever
    ///   it then senses; carrier still on starts the next spell of deference.
    pub fn defer(&mut self, j: usize, t: SimTime) -> Deference {
        let mut heard = std::mem::take(&mut self.heard);
        heard.clear();
        for k in &self.log {
            let (from, to, own) = if k.station == j {
                (k.start, k.end, true)
            } else {
                let d = self.geometry.delay(k.station, j);
                (k.start + d, k.end + d, false)
            };
            if from < t {
                heard.push(Heard { from, to, own });
            }
        }
        heard.sort_unstable_by_key(|h| h.from);
        let answer = self.deference(&heard, t);
        self.heard = heard;
        answer
    }

    /// The deference process over `heard` (sorted by arrival), asked at `t`.
    fn deference(&self, heard: &[Heard], t: SimTime) -> Deference {
        let (part1, gap) = (self.bits(IFG_PART1_BITS), self.bits(IFG_BITS));
        let mut i = 0;
        // The last instant deferring stopped (the end of a gap).
        let mut released = SimTime::ZERO;
        while i < heard.len() {
            if heard[i].to <= released {
                i += 1; // arrived and ended in the ignored part of a gap
                continue;
            }
            // A spell of deference: from the first carrier heard after the release (one
            // that arrived in the last part of the gap starts it at the release).
            if heard[i].from.max(released) >= t {
                break;
            }
            let (mut end, mut own) = (heard[i].to, heard[i].own);
            i += 1;
            loop {
                while i < heard.len() && heard[i].from < end {
                    end = end.max(heard[i].to);
                    own |= heard[i].own;
                    i += 1;
                }
                if end > t {
                    return Deference::Busy { until: end };
                }
                // Carrier arriving in the gap's first part (not after the station's own
                // transmission) restarts the gap once it ends.
                if !own && i < heard.len() && heard[i].from < end + part1 {
                    end = heard[i].to;
                    own |= heard[i].own;
                    i += 1;
                    continue;
                }
                break;
            }
            let (part1_end, gap_end) = (end + part1, end + gap);
            if !own && t < part1_end {
                return Deference::Gap { part1_end };
            }
            if t < gap_end {
                return Deference::Transmit { at: gap_end };
            }
            released = gap_end;
        }
        Deference::Transmit { at: t }
    }

    /// Station `i` starts a transmission of `bits` (preamble, frame) at `start`. Writes
    /// into `detections` (cleared first) the collisions it causes: for each station that
    /// will detect one, the instant it does (station `i` itself at most once, at its
    /// earliest). Detections computed here stay valid as jams shorten transmissions: a
    /// station detects another at the other's first bit reaching it, which no jam moves
    /// (a station that stopped sending by then ignores it).
    pub fn start(&mut self, i: usize, start: SimTime, bits: u64, detections: &mut Vec<(usize, SimTime)>) {
        let end = start + self.bits(bits);
        detections.clear();
        let mut first_at_i: Option<SimTime> = None;
        for k in &self.log {
            if k.station == i {
                continue;
            }
            // i hears k from k.start + d(k,i) to k.end + d(k,i); it detects a collision
            // while it sends if k's signal is there.
            let (from, to) =
                (k.start + self.geometry.delay(k.station, i), k.end + self.geometry.delay(k.station, i));
            let at = from.max(start);
            if at < to && at < end {
                first_at_i = Some(first_at_i.map_or(at, |f| f.min(at)));
            }
            // k hears i from start + d(i,k); it detects it if it is still sending then.
            let heard = start + self.geometry.delay(i, k.station);
            if heard < k.end && heard >= k.start {
                detections.push((k.station, heard));
            }
        }
        if let Some(at) = first_at_i {
            detections.push((i, at));
        }
        self.log.push(Transmission { station: i, start, end });
    }

    /// Station `i` detected a collision at `at`: it finishes its preamble, sends the
    /// 32-bit jam and stops. Returns the end of its jam (its transmission's new end).
    pub fn jam(&mut self, i: usize, at: SimTime) -> SimTime {
        let (bit64, jam) = (self.bits(PREAMBLE_BITS), self.bits(JAM_BITS));
        let Some(tx) = self.log.iter_mut().rev().find(|k| k.station == i) else { return at };
        // The jam is sent whole, even past the frame's own end (a collision detected in
        // its last 32 bits).
        tx.end = at.max(tx.start + bit64) + jam;
        tx.end
    }

    /// Forgets transmissions no station can hear any more at `now`.
    pub fn prune(&mut self, now: SimTime) {
        let reach = self.geometry.max + self.bits(IFG_BITS);
        self.log.retain(|k| k.end + reach > now);
    }
}

/// The backoff after a station's `n`-th collision of a frame (n ≥ 1): r slot times, r
/// uniform in [0, 2^min(n, 10) − 1] (4.2.3.2.5). Returns r.
pub fn backoff_slots(n: u32, rng: &mut Stream) -> u64 {
    let k = n.min(BACKOFF_LIMIT);
    rng.random_range(0..(1u64 << k))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng;

    const US: u64 = 1_000_000;

    /// Starts a transmission and returns the detections it causes.
    fn start(m: &mut Medium, i: usize, at: SimTime, bits: u64) -> Vec<(usize, SimTime)> {
        let mut out = Vec::new();
        m.start(i, at, bits, &mut out);
        out
    }

    /// Two stations `metres` apart at 0.77 c, 10 Mb/s (a bit is 100 ns).
    fn pair(metres: f64) -> Medium {
        Medium::new(Geometry::bus(&[0.0, metres], 0.77, &[], Duration::ZERO), BitRate::mbps(10))
    }

    #[test]
    fn the_delay_is_distance_over_speed_plus_repeaters() {
        let g = Geometry::bus(&[0.0, 500.0, 1000.0], 0.77, &[(250.0, Duration::from_us(1))], Duration::ZERO);
        // 500 m at 0.77 c (230,840,192.66 m/s): 2,166,001 ps.
        assert_eq!(g.delay(1, 2), Duration(2_166_001));
        assert_eq!(g.delay(0, 1), Duration(2_166_001 + 1_000_000), "crossing the repeater");
        assert_eq!(g.delay(2, 0), g.delay(0, 2));
    }

    #[test]
    fn two_stations_collide_if_and_only_if_the_second_starts_within_the_propagation_time() {
        let d = pair(200.0).geometry.delay(0, 1); // 866 ns
        for (offset, collide) in [(d.as_ps() - 1, true), (d.as_ps(), true), (d.as_ps() + 1, false)] {
            let mut m = pair(200.0);
            start(&mut m, 0, SimTime(0), 8 * 72);
            // Station 1 decides at `offset`: it senses 0's carrier only after it arrived.
            let t = SimTime(offset);
            let sensed = m.senses(1, t);
            assert_eq!(sensed, !collide, "offset {offset}");
            if !sensed {
                let hits = start(&mut m, 1, t, 8 * 72);
                assert_eq!(hits.len(), 2, "both detect: {hits:?}");
                assert!(hits.contains(&(1, SimTime(d.as_ps()))), "1 hears 0 as 0's first bit arrives");
                assert!(hits.contains(&(0, SimTime(offset + d.as_ps()))), "0 hears 1 after d");
            }
        }
    }

    #[test]
    fn a_jam_follows_the_preamble_and_lasts_32_bits() {
        let mut m = pair(100.0);
        start(&mut m, 0, SimTime(0), 8 * 72);
        start(&mut m, 1, SimTime(0), 8 * 72);
        let d = m.geometry.delay(0, 1);
        // Detected at d (433 ns, within the preamble): jam from 6.4 us to 9.6 us.
        assert_eq!(m.jam(0, SimTime(0) + d), SimTime(9_600_000));
        // Detected after the preamble: jam for 3.2 us from then.
        let mut late = pair(100.0);
        start(&mut late, 0, SimTime(0), 8 * 72);
        assert_eq!(late.jam(0, SimTime(10 * US)), SimTime(13_200_000));
    }

    #[test]
    fn deference_waits_for_the_carrier_then_the_gap() {
        let mut m = pair(0.0);
        start(&mut m, 0, SimTime(0), 8 * 72); // 57.6 us on the cable
        assert_eq!(m.defer(1, SimTime(10 * US)), Deference::Busy { until: SimTime(57_600_000) });
        // At the end of the carrier: the gap's first part runs to +6.4 us.
        assert_eq!(m.defer(1, SimTime(57_600_000)), Deference::Gap { part1_end: SimTime(64_000_000) });
        // Quiet through part 1: transmit at the end of the gap, 9.6 us after the carrier.
        assert_eq!(m.defer(1, SimTime(64_000_000)), Deference::Transmit { at: SimTime(67_200_000) });
        // A station that decides after the gap transmits at once.
        assert_eq!(m.defer(1, SimTime(70 * US)), Deference::Transmit { at: SimTime(70 * US) });
    }

    #[test]
    fn carrier_in_the_gaps_first_part_restarts_it_and_in_its_last_part_is_ignored() {
        // Station 1 ends at 57.6 us; station 0, in the same place, would wait the gap to
        // 67.2 us. Another station (2, same place) starts at 60 us, in part 1 of 0's gap.
        let mut m =
            Medium::new(Geometry::bus(&[0.0, 0.0, 0.0], 0.77, &[], Duration::ZERO), BitRate::mbps(10));
        start(&mut m, 1, SimTime(0), 8 * 72);
        start(&mut m, 2, SimTime(60 * US), 8 * 72);
        assert_eq!(m.defer(0, SimTime(64 * US)), Deference::Busy { until: SimTime(117_600_000) });
        // Station 2 starting at 65 us, in the last part, does not stop station 0.
        let mut late =
            Medium::new(Geometry::bus(&[0.0, 0.0, 0.0], 0.77, &[], Duration::ZERO), BitRate::mbps(10));
        start(&mut late, 1, SimTime(0), 8 * 72);
        assert_eq!(late.defer(0, SimTime(57_600_000)), Deference::Gap { part1_end: SimTime(64 * US) });
        assert_eq!(late.defer(0, SimTime(64 * US)), Deference::Transmit { at: SimTime(67_200_000) });
        start(&mut late, 2, SimTime(65 * US), 8 * 72);
        let hits = start(&mut late, 0, SimTime(67_200_000), 8 * 72);
        assert!(hits.contains(&(0, SimTime(67_200_000))), "station 0 collides at once: {hits:?}");
    }

    #[test]
    fn a_carrier_that_comes_and_goes_in_the_gaps_first_part_starts_a_new_gap() {
        let mut m =
            Medium::new(Geometry::bus(&[0.0, 0.0, 0.0], 0.77, &[], Duration::ZERO), BitRate::mbps(10));
        start(&mut m, 1, SimTime(0), 8 * 72); // quiet from 57.6 us
        start(&mut m, 2, SimTime(58 * US), 8); // a fragment, 58 to 58.8 us
        assert_eq!(m.defer(0, SimTime(64 * US)), Deference::Gap { part1_end: SimTime(65_200_000) });
        assert_eq!(m.defer(0, SimTime(65_200_000)), Deference::Transmit { at: SimTime(68_400_000) });
    }

    /// Three stations in one place, 10 Mb/s.
    fn three() -> Medium {
        Medium::new(Geometry::bus(&[0.0, 0.0, 0.0], 0.77, &[], Duration::ZERO), BitRate::mbps(10))
    }

    #[test]
    fn a_station_ready_in_the_gaps_last_part_sends_at_its_end_whatever_arrived_there() {
        // Station 1 ends at 57.6 us; station 2 starts at 66 us, in the last third of the
        // gap (64 to 67.2 us). Station 0, ready at 66.5 us, sends at 67.2 us (4.2.8: the
        // gap's last part ignores carrier; deferring stops at its end).
        let mut m = three();
        start(&mut m, 1, SimTime(0), 8 * 72);
        start(&mut m, 2, SimTime(66 * US), 8 * 72);
        assert_eq!(m.defer(0, SimTime(66_500_000)), Deference::Transmit { at: SimTime(67_200_000) });
        // Ready after the gap's end, it finds station 2's carrier and waits for it.
        assert_eq!(m.defer(0, SimTime(68 * US)), Deference::Busy { until: SimTime(123_600_000) });
        // A fragment that arrived and ended in the last part is ignored as well.
        let mut frag = three();
        start(&mut frag, 1, SimTime(0), 8 * 72);
        start(&mut frag, 2, SimTime(65 * US), 8);
        assert_eq!(frag.defer(0, SimTime(66_500_000)), Deference::Transmit { at: SimTime(67_200_000) });
    }

    #[test]
    fn after_its_own_frame_a_station_times_a_plain_gap() {
        // Station 0 sends until 57.6 us; station 1 starts at 60 us, in what would be the
        // first part of a gap. After its own transmission a station times the whole gap
        // without watching carrier (4.2.8, wasTransmitting): it sends at 67.2 us.
        let mut m = three();
        start(&mut m, 0, SimTime(0), 8 * 72);
        start(&mut m, 1, SimTime(60 * US), 8 * 72);
        assert_eq!(m.defer(0, SimTime(61 * US)), Deference::Transmit { at: SimTime(67_200_000) });
        // Station 2, which heard station 0, restarts its gap for station 1's carrier.
        assert_eq!(m.defer(2, SimTime(61 * US)), Deference::Busy { until: SimTime(117_600_000) });
    }

    #[test]
    fn a_jam_detected_in_a_frames_last_bits_is_sent_whole() {
        let mut m = pair(0.0);
        start(&mut m, 0, SimTime(0), 8 * 72); // ends at 57.6 us
        assert_eq!(m.jam(0, SimTime(57 * US)), SimTime(60_200_000), "32 bits from 57 us");
    }

    #[test]
    fn backoff_draws_are_uniform_over_their_range() {
        // Chi-square over the 2^k values after the k-th collision, 4,000 draws per value;
        // the 0.999 quantile of chi-square with 1023 degrees of freedom is about 1168.
        let mut r = rng::stream(7, "backoff");
        for (n, cells) in [(1u32, 2u64), (3, 8), (10, 1024), (15, 1024)] {
            let draws = 4_000 * cells;
            let mut counts = vec![0u64; cells as usize];
            for _ in 0..draws {
                counts[backoff_slots(n, &mut r) as usize] += 1;
            }
            let expected = 4_000.0;
            let chi2: f64 = counts.iter().map(|&c| (c as f64 - expected).powi(2) / expected).sum();
            let limit = match cells {
                2 => 10.83,
                8 => 24.32,
                _ => 1168.0,
            };
            assert!(chi2 < limit, "after collision {n}: chi-square {chi2:.1} over {cells} values");
        }
    }
}

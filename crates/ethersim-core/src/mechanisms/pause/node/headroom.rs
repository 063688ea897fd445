//! How much of an output buffer threshold PAUSE must keep above its high-water mark: the
//! bytes that may still arrive into the output once the mark is reached, before every
//! link partner feeding it has stopped (IEEE 802.3 Annex 31B).
//!
//! # One input
//!
//! Let the output reach the mark at t₀, and look at one input: its partner sends towards
//! the switch at `r` (the fastest that direction may run), the switch towards the partner
//! at `r'` (the slowest), the link's one-way delay is `d` and its largest frame `M` bytes
//! (from the MTU). Everything below is a worst case, each step from the standard or
//! from what this simulator's switch does:
//!
//! 1. The XOFF is queued when the input's first frame into the congested output arrives
//!    at or after t₀ (`ThresholdPause::on_arrival`). That frame is at most `M`; every
//!    later frame of the partner left it after that frame's last bit did, one `d` before.
//! 2. The XOFF goes ahead of queued data but waits for the frame on the wire of the
//!    switch→partner direction and its gap, `M + 20` bytes at `r'`, and for the
//!    transmitter to be free at all: `B`, the longest the switch's side can be kept from
//!    starting a frame while the partner may still send (an asymmetric EEE PHY finishing
//!    its sleep and waking, Ts + Tw; a direction that changes rate alone, dark for its
//!    switching time). It then takes its own 84 bytes of line time at `r'`, and crosses
//!    the link in `d`.
//! 3. The partner, once the PAUSE is received, "shall not begin to transmit a (data) frame
//!    more than `q` pause_quanta after" it (Annex 31B.3.7, Timing considerations for
//!    PAUSE operation; `q` by speed in [`response_quanta`]): `q · 512` bit times, `64 q`
//!    bytes at its own rate, then a frame begun just inside that time, `M + 20`. (This
//!    simulator's MAC begins none: the frame on the wire finishes, Annex 31B's WAIT FOR
//!    TRANSMISSION COMPLETION, so `q` is slack the model never uses.)
//! 4. Its bits on the wire then still arrive, `d` later.
//!
//! The partner's bytes sent from one `d` before the XOFF was queued until it stops are
//! all that can arrive after the first frame, so one input contributes at most
//!
//! ```text
//! C = M + (M + 20 + 84)·ρ + ⌈r·(2d + B)/8⌉ + 64·q(r) + (M + 20)   bytes,
//! ```
//!
//! with ρ = r / r' — during step 2 the partner sends at its rate while the switch's
//! frame and XOFF go at the switch's — or ρ = 1 when both directions always carry frames
//! at one rate (a link of fixed rate, or one whose PHYs change rate together: a change
//! waits for the frames on the wire and darkens both directions, so no instant has the
//! two at different rates). Frames are counted with their 20 bytes of preamble and gap
//! where their line time matters, which only overstates what the buffer holds.
//!
//! # An output
//!
//! Every input may send into one congested output, and all of them may be in step 2 at
//! once, so the output needs the sum of its inputs' `C` ([`headroom`]). The output's own
//! drain is not counted: the partner downstream may have paused it (the case of a host
//! pausing the switch), and then it drains nothing. Inputs on a CSMA/CD segment are not
//! paused (PAUSE is for full-duplex links) and bound nothing; a partner that ignores
//! PAUSE, or a pause shorter than the partner's response, likewise defeats any headroom.

use crate::mechanisms::pause::wire;
use crate::time::{BitRate, Bytes, Duration, PS_PER_SEC};
use crate::wire::ethernet;

/// The slowest and the fastest rate a link direction may carry frames at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateRange {
    /// The slowest rate.
    pub slowest: BitRate,
    /// The fastest rate.
    pub fastest: BitRate,
}

impl RateRange {
    /// A direction that keeps one rate.
    pub const fn fixed(rate: BitRate) -> Self {
        RateRange { slowest: rate, fastest: rate }
    }
}

/// One input of a switch as threshold PAUSE sees it: the full-duplex link to the partner
/// it pauses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PauseInput {
    /// Rates of the partner→switch direction, which carries the frames to stop.
    pub inbound: RateRange,
    /// Rates of the switch→partner direction, which carries the XOFF.
    pub outbound: RateRange,
    /// Whether both directions always carry frames at one rate.
    pub lockstep: bool,
    /// One-way propagation delay.
    pub delay: Duration,
    /// The largest frame the link carries (its MTU's), bytes.
    pub max_frame: Bytes,
    /// The longest the switch's transmitter may be kept from starting the XOFF while the
    /// partner can still send (step 2 of the module's derivation).
    pub blocked: Duration,
}

impl PauseInput {
    /// The most bytes this input can put into one output after the output reaches its
    /// high-water mark (`C` in the module's derivation).
    pub fn worst_arrivals(&self) -> Bytes {
        let m = self.max_frame.get();
        let line = m + ethernet::WIRE_OVERHEAD.get();
        let r = self.inbound.fastest;
        // Step 2: the switch's frame on the wire and its XOFF, at the switch's rate.
        let xoff = line + u64::from(wire::PAUSE_FRAME_LEN) + ethernet::WIRE_OVERHEAD.get();
        let during_xoff =
            if self.lockstep { xoff } else { scale_up(xoff, r.as_bps(), self.outbound.slowest.as_bps()) };
        let in_flight =
            bytes_up(r, self.delay.as_ps().saturating_mul(2).saturating_add(self.blocked.as_ps()));
        let response = response_quanta(r) * wire::QUANTUM_BITS / 8;
        Bytes(m + during_xoff + in_flight + response + line)
    }
}

/// The headroom one output needs: what all the inputs that feed it can still send.
pub fn headroom<'a>(inputs: impl IntoIterator<Item = &'a PauseInput>) -> Bytes {
    Bytes(inputs.into_iter().map(|i| i.worst_arrivals().get()).sum())
}

/// The most pause_quanta after receiving a PAUSE within which a MAC at `rate` may still
/// begin a data frame (IEEE 802.3 Annex 31B.3.7): 1 up to 100 Mb/s, 2 at 1 Gb/s, 67 at
/// 10 Gb/s, 80 at 25, 118 at 40, 147 at 50, 394 at 100, 453 at 200 and 905 at 400 Gb/s.
/// A rate between two speeds takes the faster speed's bound (a 900 Mb/s link is a
/// gigabit MAC's), and one beyond 400 Gb/s the 400 Gb/s bound.
pub fn response_quanta(rate: BitRate) -> u64 {
    const GBPS: u64 = 1_000_000_000;
    const TABLE: [(u64, u64); 9] = [
        (GBPS / 10, 1),
        (GBPS, 2),
        (10 * GBPS, 67),
        (25 * GBPS, 80),
        (40 * GBPS, 118),
        (50 * GBPS, 147),
        (100 * GBPS, 394),
        (200 * GBPS, 453),
        (400 * GBPS, 905),
    ];
    TABLE.iter().find(|&&(speed, _)| rate.as_bps() <= speed).map_or(905, |&(_, q)| q)
}

/// ⌈bytes · num / den⌉.
fn scale_up(bytes: u64, num: u64, den: u64) -> u64 {
    let v = (u128::from(bytes) * u128::from(num)).div_ceil(u128::from(den.max(1)));
    u64::try_from(v).unwrap_or(u64::MAX)
}

/// Bytes put on the wire at `rate` in `ps` picoseconds, rounded up.
fn bytes_up(rate: BitRate, ps: u64) -> u64 {
    let bits = (u128::from(rate.as_bps()) * u128::from(ps)).div_ceil(u128::from(PS_PER_SEC));
    u64::try_from(bits.div_ceil(8)).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed_link(rate: BitRate, delay: Duration) -> PauseInput {
        PauseInput {
            inbound: RateRange::fixed(rate),
            outbound: RateRange::fixed(rate),
            lockstep: true,
            delay,
            max_frame: Bytes(1518),
            blocked: Duration::ZERO,
        }
    }

    #[test]
    fn a_gigabit_link_needs_three_frames_a_pause_its_round_trip_and_its_response() {
        // 1518 (the frame that reaches the mark) + 1538 + 84 (the switch's frame and its
        // XOFF) + 2·500 ns at 1 Gb/s (125) + 2 quanta (128) + 1538 (the partner's last).
        let c = fixed_link(BitRate::gbps(1), Duration::from_ns(500)).worst_arrivals();
        assert_eq!(c, Bytes(1518 + 1538 + 84 + 125 + 128 + 1538));
    }

    #[test]
    fn a_partner_faster_than_the_switch_sends_while_the_xoff_waits_behind_a_slow_frame() {
        // 10 Gb/s towards the switch, 100 Mb/s back (one direction scaled, dark 1 us at a
        // change), 2 us of delay, jumbo frames (MTU 9000: 9018 B):
        //   the frame that reaches the mark           9018
        //   (9018 + 20 + 84) B at 100 Mb/s = 729.76 us, at 10 Gb/s: 9122 · 100 = 912200
        //   2 · 2 us + 1 us = 5 us at 10 Gb/s          6250
        //   67 quanta at 10 Gb/s: 67 · 64              4288
        //   the partner's last frame                   9038
        let input = PauseInput {
            inbound: RateRange::fixed(BitRate::gbps(10)),
            outbound: RateRange { slowest: BitRate::mbps(100), fastest: BitRate::gbps(10) },
            lockstep: false,
            delay: Duration::from_us(2),
            max_frame: Bytes(9018),
            blocked: Duration::from_us(1),
        };
        assert_eq!(input.worst_arrivals(), Bytes(9018 + 912_200 + 6250 + 4288 + 9038));
        // The same link with both directions at 10 Gb/s waits behind a fast frame.
        let even = PauseInput { outbound: RateRange::fixed(BitRate::gbps(10)), lockstep: true, ..input };
        assert_eq!(even.worst_arrivals(), Bytes(9018 + 9122 + 6250 + 4288 + 9038));
    }

    #[test]
    fn rates_off_the_standard_speeds_round_up_and_partial_bits_count() {
        // 900 Mb/s: a gigabit MAC's 2 quanta; 1 us at 900 Mb/s is 900 bits, 112.5 B → 113.
        let c = fixed_link(BitRate::mbps(900), Duration::from_ns(500)).worst_arrivals();
        assert_eq!(c, Bytes(1518 + 1622 + 113 + 128 + 1538));
        assert_eq!(response_quanta(BitRate::mbps(10)), 1);
        assert_eq!(response_quanta(BitRate::mbps(2500)), 67);
        assert_eq!(response_quanta(BitRate::gbps(800)), 905);
    }

    #[test]
    fn an_output_needs_the_sum_of_its_inputs() {
        let a = fixed_link(BitRate::gbps(1), Duration::ZERO);
        let b = fixed_link(BitRate::gbps(10), Duration::from_us(1));
        let sum = a.worst_arrivals().get() + b.worst_arrivals().get();
        assert_eq!(headroom([&a, &b]), Bytes(sum));
        assert_eq!(headroom(std::iter::empty()), Bytes(0));
    }
}

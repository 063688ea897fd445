//! CUBIC (RFC 9438): after a congestion event the window follows a cubic function of the
//! time since the congestion avoidance stage began, concave up to the window at which
//! the loss happened and convex beyond it, never slower than an AIMD flow that gets
//! Reno's average window (the Reno-friendly region).
//!
//! **Units.** The RFC counts windows in segments of SMSS bytes and time in seconds
//! (section 4.1); the connection counts bytes and integer picoseconds. Windows here are
//! bytes: W segments are W·SMSS bytes, so C = 0.4 segment/s³ acts as 0.4·SMSS bytes/s³
//! and `segments_acked` is the bytes acknowledged over SMSS. Time stays integer: the
//! epoch's start is a [`SimTime`], K a [`Duration`] (rounded down to the nanosecond), and
//! `t − K` becomes seconds only where the cubic is evaluated.
//!
//! **Determinism.** W_cubic(t) and W_est are evaluated in `f64` with +, −, × and ÷ alone,
//! which IEEE 754 rounds correctly, so every platform computes the same bits. K needs a
//! cube root, and `f64::cbrt` calls the platform's libm, which need not be correctly
//! rounded (implementations differ in the last place): K comes from an exact integer
//! cube root instead ([`icbrt`], the floor of the root, in nanoseconds).
//!
//! **Increase per ACK.** Sections 4.4 and 4.5 add (target − cwnd)/cwnd "for each received
//! new ACK". Here the increase is scaled by the segments the ACK acknowledges
//! (`segments_acked`, as the RFC's own W_est of section 4.3 and Linux's `tcp_cubic` do),
//! so that one window of acknowledged data brings cwnd to `target`, the value section
//! 4.2 means it to reach after one RTT, whether the receiver ACKs every segment or every
//! second one.
//!
//! **Left out.** HyStart++ (section 4.10 says SHOULD; the RFC 5681 slow start it allows
//! instead is what NewReno runs here, so the two algorithms differ only in congestion
//! avoidance and in their response to a congestion event); the application-limited rules
//! of section 5.8 (as for NewReno, congestion window validation, RFC 7661, is not
//! modelled); the reduction on ECN-Echo (section 4.6; no ECN here); undoing spurious
//! congestion events (section 4.9). Loss recovery is NewReno's or RFC 6675's, which
//! CUBIC leaves as it is (section 4.2, first paragraph).

use super::newreno::{deflate, exit_window, recovery_window, slow_start};
use super::{CongestionControl, INITIAL_SSTHRESH};
use crate::time::{Duration, SimTime};

/// C, segments per s³ (section 4.1.1).
pub const C: f64 = 0.4;
/// beta_cubic, the multiplicative decrease factor (section 4.1.1). The window arithmetic
/// uses it as the ratio 7/10, so that ssthresh is exact in bytes.
pub const BETA: f64 = 0.7;
/// alpha_cubic = 3·(1 − beta_cubic)/(1 + beta_cubic) = 0.9/1.7 = 9/17, the additive
/// increase in segments per RTT of the Reno-friendly estimate (section 4.3).
pub const ALPHA: f64 = 9.0 / 17.0;

/// `x · num / den`, rounded down, without overflow.
fn scale(x: u64, num: u64, den: u64) -> u64 {
    (u128::from(x) * u128::from(num) / u128::from(den)) as u64
}

/// The integer cube root: the largest r with r³ ≤ n. Exact on every platform, unlike
/// `f64::cbrt` (see the module's notes).
pub fn icbrt(n: u128) -> u128 {
    // The root of any u128 is below 2^43: fix its bits from the top, keeping each one
    // whose cube stays within n.
    let mut r: u128 = 0;
    for bit in (0..43).rev() {
        let c = r | (1 << bit);
        if c.checked_mul(c).and_then(|s| s.checked_mul(c)).is_some_and(|cube| cube <= n) {
            r = c;
        }
    }
    r
}

/// K of section 4.2, Figure 2, for W_max − cwnd_epoch = `diff` bytes:
/// cubic_root(diff/(C·SMSS)) seconds, rounded down to the nanosecond.
pub fn k_for(diff: u64, smss: u64) -> Duration {
    // K³ = diff / (0.4·SMSS) s³ = 5·diff / (2·SMSS) s³. In ns³ (10^27 to the s³) while
    // that fits in a u128 (diff up to 68 GB), in µs³ beyond.
    let five_diff = u128::from(diff) * 5;
    let den = 2 * u128::from(smss.max(1));
    match five_diff.checked_mul(10u128.pow(27)) {
        Some(n) => Duration(icbrt(n / den) as u64 * 1_000),
        None => Duration(icbrt(five_diff * 10u128.pow(18) / den) as u64 * 1_000_000),
    }
}

/// The congestion avoidance stage under way: its curve and its Reno-friendly estimate.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Epoch {
    /// epoch_start: the instant of the stage's first ACK.
    start: SimTime,
    /// K: when the curve reaches W_max, from `start`.
    k: Duration,
    /// cwnd_epoch, bytes.
    cwnd: u64,
    /// W_est, bytes (section 4.3).
    w_est: f64,
}

/// CUBIC (RFC 9438), with RFC 5681 slow start and NewReno's or RFC 6675's recovery.
// cwnd and ssthresh first, in C layout, as in NewReno (see there).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cubic {
    cwnd: u64,
    ssthresh: u64,
    /// Growth not yet in `cwnd`, a fraction of a byte: near the plateau an ACK adds less
    /// than a byte, and dropping it would flatten the curve.
    carry: f64,
    /// W_max, bytes. 0 until the first congestion event and after a timeout: the next
    /// stage then starts its curve on its plateau (W_max = cwnd_epoch, K = 0; sections
    /// 4.8 and 4.10).
    w_max: u64,
    /// cwnd_prior: the window when ssthresh was last set, bytes (section 4.1.2).
    cwnd_prior: u64,
    /// The smoothed RTT of the latest sample: the RTT of the target (section 4.2).
    srtt: Duration,
    epoch: Option<Epoch>,
    /// Fast convergence (section 4.7): SHOULD be implemented; on, as in Linux
    /// (`fast_convergence`) and ns-3 (`TcpCubic::FastConvergence`).
    fast_convergence: bool,
}

impl Cubic {
    /// A CUBIC window starting at `initial_window` bytes, with fast convergence.
    pub fn new(initial_window: u64) -> Self {
        Cubic {
            cwnd: initial_window,
            ssthresh: INITIAL_SSTHRESH,
            carry: 0.0,
            w_max: 0,
            cwnd_prior: 0,
            srtt: Duration::ZERO,
            epoch: None,
            fast_convergence: true,
        }
    }

    /// The same with fast convergence on or off (section 4.7: it SHOULD be off where a
    /// single CUBIC flow runs with no other traffic).
    #[must_use]
    pub fn with_fast_convergence(self, on: bool) -> Self {
        Cubic { fast_convergence: on, ..self }
    }

    /// W_max, bytes (0: not defined yet, see the field).
    pub fn w_max(&self) -> u64 {
        self.w_max
    }

    /// cwnd_prior, bytes.
    pub fn cwnd_prior(&self) -> u64 {
        self.cwnd_prior
    }

    /// The start of the congestion avoidance stage under way, if one is.
    pub fn epoch_start(&self) -> Option<SimTime> {
        self.epoch.map(|e| e.start)
    }

    /// K of the stage under way.
    pub fn k(&self) -> Option<Duration> {
        self.epoch.map(|e| e.k)
    }

    /// cwnd_epoch of the stage under way, bytes.
    pub fn cwnd_epoch(&self) -> Option<u64> {
        self.epoch.map(|e| e.cwnd)
    }

    /// W_est of the stage under way, bytes.
    pub fn w_est(&self) -> Option<f64> {
        self.epoch.map(|e| e.w_est)
    }

    /// W_cubic(t) of the stage under way, bytes, `t` after its start.
    pub fn w_cubic(&self, t: Duration, smss: u64) -> Option<f64> {
        self.epoch.map(|e| self.curve(&e, t, smss))
    }

    /// Section 4.2, Figure 1: W_cubic(t) = C·(t − K)³ + W_max, in bytes.
    fn curve(&self, e: &Epoch, t: Duration, smss: u64) -> f64 {
        let dt = (i128::from(t.0) - i128::from(e.k.0)) as f64 / 1e12;
        C * smss as f64 * dt * dt * dt + self.w_max as f64
    }

    /// The first ACK of a congestion avoidance stage (section 4.2): cwnd_epoch, K from
    /// Figure 2, W_est = cwnd_epoch (section 4.3).
    fn start_epoch(&mut self, now: SimTime, smss: u64) -> Epoch {
        let k = if self.w_max > self.cwnd {
            k_for(self.w_max - self.cwnd, smss)
        } else {
            // No W_max (sections 4.8 and 4.10: after a timeout, or a first slow start
            // that ended without loss), or one at or below the window: the curve starts
            // on its plateau, W_max = cwnd_epoch and K = 0, as Linux's `bictcp_update`
            // does, rather than from the negative K Figure 2 would give.
            self.w_max = self.cwnd;
            Duration::ZERO
        };
        let e = Epoch { start: now, k, cwnd: self.cwnd, w_est: self.cwnd as f64 };
        self.epoch = Some(e);
        e
    }

    /// Congestion avoidance on a new ACK of `acked` bytes (sections 4.2 to 4.5).
    fn congestion_avoidance(&mut self, now: SimTime, acked: u64, smss: u64) {
        let mut e = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(now, smss),
        };
        let t = now - e.start;
        let cwnd = self.window();
        let acked = acked as f64;
        // Section 4.3, Figure 4: W_est += alpha_cubic · segments_acked / cwnd (in
        // segments), alpha_cubic becoming 1 once W_est has reached cwnd_prior.
        let alpha = if e.w_est >= self.cwnd_prior as f64 { 1.0 } else { ALPHA };
        e.w_est += alpha * smss as f64 * acked / cwnd;
        self.epoch = Some(e);
        if self.curve(&e, t, smss) < e.w_est {
            // The Reno-friendly region: cwnd SHOULD be W_est (section 4.3), and an ACK
            // never shrinks it (cwnd may lie a little above the curve at t, which it
            // chases one RTT ahead).
            self.raise_to(e.w_est);
        } else {
            // The concave (cwnd < W_max, section 4.4) and convex (section 4.5) regions:
            // target = W_cubic(t + RTT) within [cwnd, 1.5·cwnd] (section 4.2, Figure 3),
            // cwnd += (target − cwnd)/cwnd per segment acknowledged.
            let target = self.curve(&e, t + self.srtt, smss).max(cwnd).min(1.5 * cwnd);
            self.grow((target - cwnd) * acked / cwnd);
        }
    }

    /// The window with its fraction of a byte.
    fn window(&self) -> f64 {
        self.cwnd as f64 + self.carry
    }

    fn set_window(&mut self, w: f64) {
        self.cwnd = w as u64;
        self.carry = w - self.cwnd as f64;
    }

    fn grow(&mut self, bytes: f64) {
        self.set_window(self.window() + bytes);
    }

    fn raise_to(&mut self, w: f64) {
        if w > self.window() {
            self.set_window(w);
        }
    }

    /// ssthresh after a congestion event (section 4.6, Figure 5): flight_size ·
    /// beta_cubic, at least two segments.
    fn reduced(flight: u64, smss: u64) -> u64 {
        scale(flight, 7, 10).max(2 * smss)
    }
}

impl CongestionControl for Cubic {
    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn set_initial_window(&mut self, bytes: u64) {
        self.cwnd = bytes;
    }

    fn on_rtt_sample(&mut self, _now: SimTime, _sample: Duration, srtt: Duration) {
        self.srtt = srtt;
    }

    fn on_ack(&mut self, now: SimTime, acked: u64, smss: u64) {
        if self.cwnd < self.ssthresh {
            // Section 4.10: slow start, here RFC 5681's.
            self.cwnd = slow_start(self.cwnd, acked, smss);
        } else {
            self.congestion_avoidance(now, acked, smss);
        }
    }

    fn on_enter_recovery(&mut self, _now: SimTime, flight: u64, smss: u64, sack: bool) {
        // Section 4.7, Figure 6: a window below the last W_max means the flow's share
        // shrank; with fast convergence it releases more by aiming lower.
        self.w_max = if self.fast_convergence && self.cwnd < self.w_max {
            scale(self.cwnd, 17, 20) // cwnd · (1 + beta_cubic) / 2
        } else {
            self.cwnd
        };
        // Section 4.6, Figure 5, reduction on loss; cwnd = ssthresh ≥ 2 SMSS, then the
        // recovery's own inflation (RFC 5681 section 3.2 step 3 without SACK).
        self.cwnd_prior = self.cwnd;
        self.ssthresh = Self::reduced(flight, smss);
        self.cwnd = recovery_window(self.ssthresh, smss, sack);
        self.carry = 0.0;
        self.epoch = None;
    }

    fn on_dupack_in_recovery(&mut self, _now: SimTime, smss: u64) {
        // RFC 5681 section 3.2 step 4.
        self.cwnd += smss;
    }

    fn on_partial_ack(&mut self, _now: SimTime, acked: u64, smss: u64) {
        self.cwnd = deflate(self.cwnd, acked, smss);
    }

    fn on_exit_recovery(&mut self, _now: SimTime, flight: u64, smss: u64) {
        // The next ACK starts the congestion avoidance stage, so time in recovery is
        // not on the curve.
        self.cwnd = exit_window(self.ssthresh, flight, smss);
        self.carry = 0.0;
    }

    fn on_timeout(&mut self, _now: SimTime, flight: u64, smss: u64, first: bool) {
        // Section 4.8: cwnd as Reno (RFC 5681 section 3.1, the loss window), ssthresh
        // with beta_cubic as in section 4.6, set on the first expiry for a segment only
        // (RFC 5681 equation (4) is held on repeats). The first stage after it starts
        // its curve on its plateau (W_max = cwnd_epoch, K = 0, W_est = cwnd_epoch).
        if first {
            self.cwnd_prior = self.cwnd;
            self.ssthresh = Self::reduced(flight, smss);
        }
        self.cwnd = smss;
        self.carry = 0.0;
        self.w_max = 0;
        self.epoch = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SMSS, bytes.
    const S: u64 = 1000;

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + Duration::from_ms(ms)
    }

    /// RFC 9438's equations in segments and seconds, as printed (the oracle may use
    /// `f64::cbrt`: a last-place difference cannot fail these tests).
    fn k_rfc(w_max: f64, cwnd_epoch: f64) -> f64 {
        ((w_max - cwnd_epoch) / C).cbrt()
    }
    fn w_cubic_rfc(t: f64, k: f64, w_max: f64) -> f64 {
        C * (t - k).powi(3) + w_max
    }

    /// A flow that had `w` segments of window and of flight at a loss and recovered with
    /// SACK: W_max = w, cwnd = ssthresh = 0.7·w.
    fn after_loss(w: u64) -> Cubic {
        let mut c = Cubic::new(w * S);
        c.on_enter_recovery(at(0), w * S, S, true);
        c.on_exit_recovery(at(0), w * S, S);
        c
    }

    #[track_caller]
    fn assert_near(got: f64, want: f64, tol: f64, what: &str) {
        assert!((got - want).abs() <= tol, "{what}: {got} against {want} (± {tol})");
    }

    #[test]
    fn the_integer_cube_root_is_the_floor_of_the_root() {
        let mut cases = vec![0u128, 1, 7, 8, 26, 27, 28, 999, 1000, 1001, u128::MAX];
        let mut n = 2u128;
        while n < u128::MAX / 3 {
            cases.extend([n - 1, n, n + 1]);
            n = n * 3 + 1;
        }
        for r in [12_345u128, 4_217_163_326, 6_981_463_658_331] {
            cases.extend([r * r * r - 1, r * r * r]);
        }
        for n in cases {
            let r = icbrt(n);
            assert!(r * r * r <= n, "{n}: {r}³ > n");
            assert!((r + 1).checked_pow(3).is_none_or(|c| c > n), "{n}: {} is a root too", r + 1);
        }
        assert_eq!(icbrt(u128::MAX), 6_981_463_658_331, "⌊2^(128/3)⌋");
    }

    #[test]
    fn k_is_the_cube_root_of_the_window_lost_over_c() {
        // Figure 2 with cwnd_epoch = beta·W_max: K = cubic_root(W_max·(1 − beta)/C).
        let mut c = after_loss(100);
        assert_eq!((c.w_max(), c.cwnd(), c.ssthresh()), (100 * S, 70 * S, 70 * S));
        c.on_ack(at(10), S, S);
        let k = c.k().expect("a stage begun").0 as f64 / 1e12;
        assert_near(k, (100.0 * (1.0 - BETA) / C).cbrt(), 1e-9, "K (s) for W_max 100");
        assert_near(k, k_rfc(100.0, 70.0), 1e-9, "K (s)");
        assert_eq!(c.epoch_start(), Some(at(10)), "the stage starts at its first ACK");
        // Other windows and segment sizes, and past 68 GB (the coarser µs grid).
        for (diff, smss) in [(1u64, 1460u64), (30 * 1460, 1460), (123_456_789, 536), (100_000_000_000, 1460)]
        {
            let k = k_for(diff, smss).0 as f64 / 1e12;
            let tol = if diff > 60_000_000_000 { 1e-6 } else { 1e-9 };
            assert_near(k, (diff as f64 / smss as f64 / C).cbrt(), tol, "K (s)");
        }
    }

    #[test]
    fn the_window_function_is_the_rfcs_cubic() {
        let mut c = after_loss(100);
        c.on_ack(at(0), S, S);
        let k = k_rfc(100.0, 70.0);
        for t_ms in [0, 100, 1000, 2500, 4217, 6000, 8434, 10_000, 20_000] {
            let t = Duration::from_ms(t_ms);
            let got = c.w_cubic(t, S).expect("a stage") / S as f64;
            let want = w_cubic_rfc(t_ms as f64 / 1e3, k, 100.0);
            assert_near(got, want, 1e-6, &format!("W_cubic({t_ms} ms), segments"));
        }
        // Its landmarks: cwnd_epoch at 0, the plateau W_max at K, symmetric about it.
        let w = |t: f64| c.w_cubic(Duration((t * 1e12) as u64), S).unwrap() / S as f64;
        assert_near(w(0.0), 70.0, 1e-6, "W_cubic(0) = cwnd_epoch");
        assert_near(w(k), 100.0, 1e-6, "W_cubic(K) = W_max");
        assert_near(w(2.0 * k), 130.0, 1e-6, "W_cubic(2K) = 2·W_max − cwnd_epoch");
    }

    #[test]
    fn a_window_per_round_trip_follows_the_curve_one_rtt_ahead_through_both_regions() {
        // One ACK for the whole window each RTT: section 4.2's target is reached in one
        // step, so after the ACK at t, cwnd = W_cubic(t + RTT), concave below W_max and
        // convex above it. With W_max = 1000 segments (K = 9.09 s) and RTT 100 ms, the
        // curve stays above W_est (700 + 0.53 segment per RTT) throughout.
        let rtt = Duration::from_ms(100);
        let mut c = after_loss(1000);
        c.on_rtt_sample(at(0), rtt, rtt);
        let k = k_rfc(1000.0, 700.0);
        // The stage's first ACK (a small one): W_est has just grown past W_cubic(0) =
        // cwnd_epoch, so it alone is in the Reno-friendly region.
        c.on_ack(at(1000), S, S);
        let (mut concave, mut convex) = (0, 0);
        for n in 1..200u64 {
            let now = at(1000 + 100 * n);
            let cwnd = c.cwnd();
            c.on_ack(now, cwnd, S);
            let want = w_cubic_rfc((n + 1) as f64 * 0.1, k, 1000.0);
            assert_near(c.cwnd() as f64 / S as f64, want, 1e-3, &format!("cwnd after ACK {n}, segments"));
            assert!(c.w_cubic(now - at(1000), S).unwrap() > c.w_est().unwrap(), "not Reno-friendly");
            if c.cwnd() < c.w_max() {
                concave += 1;
            } else {
                convex += 1;
            }
        }
        assert!(concave > 80 && convex > 80, "{concave} ACKs concave, {convex} convex");
    }

    #[test]
    fn the_target_is_clamped_to_one_and_a_half_windows() {
        // An RTT so long that W_cubic(t + RTT) is far above the window: the target is
        // at most 1.5·cwnd (section 4.2, Figure 3), so a window of ACKs adds half of it.
        // (The stage's first ACK, at t = 0, is Reno-friendly: see above.)
        let mut c = after_loss(10_000);
        let rtt = Duration::from_secs(60);
        c.on_rtt_sample(at(0), rtt, rtt);
        c.on_ack(at(0), S, S);
        let cwnd = c.cwnd();
        c.on_ack(at(10), cwnd, S);
        assert!(c.w_cubic(Duration::from_secs(60), S).unwrap() > 2.0 * cwnd as f64);
        assert_eq!(c.cwnd(), cwnd + cwnd / 2);
    }

    #[test]
    fn short_round_trips_are_in_the_reno_friendly_region() {
        // W_max 20, cwnd_epoch 14, RTT 10 ms: K = 2.47 s, so the curve barely moves
        // while W_est gains alpha_cubic = 9/17 segment per RTT until it reaches
        // cwnd_prior (20 segments), then one (section 4.3). cwnd is W_est.
        let rtt = Duration::from_ms(10);
        let mut c = after_loss(20);
        c.on_rtt_sample(at(0), rtt, rtt);
        assert_eq!(c.cwnd_prior(), 20 * S);
        let k = k_rfc(20.0, 14.0);
        // W_est after m ACKs of one window each: 14 + (9/17)·m while below 20 before the
        // ACK, which holds for m ≤ 12 (14 + 11·9/17 = 19.8), then one more per ACK.
        let w_est = |m: u64| 14.0 + ALPHA * m.min(12) as f64 + m.saturating_sub(12) as f64;
        for m in 1..=50u64 {
            let now = at(10 * m);
            let cwnd = c.cwnd();
            c.on_ack(now, cwnd, S);
            let t = (10 * m - 10) as f64 / 1e3;
            assert!(w_cubic_rfc(t, k, 20.0) < w_est(m), "ACK {m} in the Reno-friendly region");
            // (Within 0.01 segment: each ACK here covers the whole bytes of cwnd, not its
            // fraction of a byte.)
            assert_near(c.cwnd() as f64 / S as f64, w_est(m), 0.01, &format!("cwnd after ACK {m}"));
        }
        // The curve alone would be at 17 segments after half a second; W_est is at 58.
        assert_near(w_cubic_rfc(0.49, k, 20.0), 16.9, 0.1, "W_cubic(0.49 s)");
    }

    #[test]
    fn a_loss_reduces_by_beta_from_the_flight() {
        // Section 4.6, Figure 5: ssthresh = flight_size·0.7, at least 2 segments;
        // cwnd = ssthresh, plus RFC 5681's three segments without SACK.
        let mut c = Cubic::new(100 * S);
        c.on_enter_recovery(at(0), 90 * S, S, false);
        assert_eq!((c.ssthresh(), c.cwnd()), (63 * S, 66 * S), "ssthresh = 0.7·flight");
        assert_eq!((c.w_max(), c.cwnd_prior()), (100 * S, 100 * S), "both the window before");
        c.on_dupack_in_recovery(at(1), S);
        c.on_partial_ack(at(2), 3 * S, S);
        assert_eq!(c.cwnd(), 65 * S, "recovery as RFC 5681/6582");
        c.on_exit_recovery(at(3), 80 * S, S);
        assert_eq!(c.cwnd(), 63 * S);
        let mut sack = Cubic::new(100 * S);
        sack.on_enter_recovery(at(0), 12_345, S, true);
        assert_eq!((sack.ssthresh(), sack.cwnd()), (8641, 8641), "⌊12345·0.7⌋");
        sack.on_enter_recovery(at(0), 2 * S, S, true);
        assert_eq!(sack.ssthresh(), 2 * S, "at least two segments");
    }

    #[test]
    fn time_in_recovery_is_not_on_the_curve() {
        let mut c = Cubic::new(100 * S);
        c.on_enter_recovery(at(0), 100 * S, S, true);
        assert_eq!(c.epoch_start(), None, "no stage while recovering");
        c.on_exit_recovery(at(1000), 70 * S, S);
        c.on_ack(at(1500), S, S);
        assert_eq!((c.epoch_start(), c.cwnd_epoch()), (Some(at(1500)), Some(70 * S)));
    }

    #[test]
    fn fast_convergence_aims_lower_when_the_window_shrank() {
        // Section 4.7, Figure 6: a loss below the last W_max sets W_max = cwnd·(1 +
        // beta)/2; without fast convergence W_max = cwnd.
        for on in [true, false] {
            let mut c = Cubic::new(100 * S).with_fast_convergence(on);
            c.on_enter_recovery(at(0), 100 * S, S, true);
            c.on_exit_recovery(at(0), 100 * S, S);
            let rtt = Duration::from_ms(100);
            c.on_rtt_sample(at(0), rtt, rtt);
            let mut now = at(0);
            while c.cwnd() < 80 * S {
                let cwnd = c.cwnd();
                c.on_ack(now, cwnd, S);
                now += rtt;
            }
            let w = c.cwnd();
            assert!(w < 100 * S);
            c.on_enter_recovery(now, w, S, true);
            let want = if on { w * 17 / 20 } else { w };
            assert_eq!(c.w_max(), want, "fast convergence {on}");
            assert_eq!((c.cwnd_prior(), c.ssthresh()), (w, w * 7 / 10));
            // The next curve climbs to that W_max: K = cubic_root((W_max − cwnd_epoch)/C).
            c.on_exit_recovery(now, w, S);
            c.on_ack(now, S, S);
            let k = c.k().unwrap().0 as f64 / 1e12;
            assert_near(k, k_rfc(want as f64 / S as f64, (w * 7 / 10) as f64 / S as f64), 1e-9, "K");
        }
        // A window at or above W_max leaves W_max at the window.
        let mut c = Cubic::new(100 * S);
        c.on_enter_recovery(at(0), 100 * S, S, true);
        c.set_initial_window(120 * S);
        c.on_enter_recovery(at(1), 120 * S, S, true);
        assert_eq!(c.w_max(), 120 * S);
    }

    #[test]
    fn a_timeout_restarts_in_slow_start_and_the_next_curve_starts_on_its_plateau() {
        // Section 4.8: cwnd to one segment, ssthresh = 0.7·flight (held on a repeated
        // expiry); the next stage has K = 0 and W_max = cwnd_epoch, so it grows as
        // cwnd_epoch + C·t³, with W_est starting at cwnd_epoch.
        let mut c = after_loss(100);
        c.on_timeout(at(100), 100 * S, S, true);
        assert_eq!((c.cwnd(), c.ssthresh(), c.w_max(), c.epoch_start()), (S, 70 * S, 0, None));
        c.on_timeout(at(300), 50 * S, S, false);
        assert_eq!(c.ssthresh(), 70 * S, "held on a repeat");
        let mut now = at(1000);
        while c.cwnd() < c.ssthresh() {
            c.on_ack(now, 2 * S, S);
            assert_eq!(c.epoch_start(), None, "slow start: at most one SMSS per ACK");
            now += Duration::from_ms(1);
        }
        assert_eq!(c.cwnd(), 70 * S, "RFC 5681 slow start, one SMSS per ACK");
        let start = now;
        c.on_ack(start, S, S);
        assert_eq!((c.k(), c.w_max(), c.cwnd_epoch()), (Some(Duration::ZERO), 70 * S, Some(70 * S)));
        let w2 = c.w_cubic(Duration::from_secs(2), S).unwrap() / S as f64;
        assert_near(w2, 70.0 + C * 8.0, 1e-9, "W_cubic(2 s) = cwnd_epoch + C·2³");
        // W_est starts at cwnd_epoch, which is cwnd_prior (the window at the timeout), so
        // it grows at alpha_cubic = 1: by SMSS·segments_acked/cwnd.
        assert_eq!(c.cwnd_prior(), 70 * S);
        assert_near(c.w_est().unwrap(), 70.0 * S as f64 + S as f64 / 70.0, 1e-9, "W_est from cwnd_epoch");
    }
}

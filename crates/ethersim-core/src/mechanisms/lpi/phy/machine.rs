//! Energy Efficient Ethernet (IEEE 802.3az, clause 78): Low Power Idle.
//!
//! A transmitter with nothing to send may put its PHY to sleep: **Sleep** for Ts, then
//! **Quiet**, interrupted every Tq by a **Refresh** of Tr that keeps the receiver
//! trained; a frame to send **Wakes** it, which takes Tw before the frame may start. A
//! frame that arrives during Sleep either aborts it (the wake starts at once) or waits
//! for it to finish (a device setting). Frames wait in their queue while the PHY is not
//! Active; LPI itself loses nothing.
//!
//! One [`Lpi`] is one such PHY state: a link direction, or both directions of a link in
//! the symmetric mode that 1000BASE-T requires (it sleeps and wakes both together).
//! Only the decisions cost events (a sleep timer, a wake): the end of Sleep and of Wake
//! are settled when next looked at, and refresh cycles are accounted in closed form, so a
//! PHY that sleeps for seconds costs nothing while it does.
//!
//! When to sleep and when to wake is a policy's (`LpiPolicy`, `policy.rs`): sleep as soon as the
//! transmitter is idle, after an idle timeout, or sleep at once and hold arriving frames
//! until N have gathered or a timer runs out (frame coalescing).

use crate::engine::Timer;
use crate::mechanisms::lpi::phy::policy::LpiPolicyKind;
use crate::stats::{Series, SeriesLimits};
use crate::time::{Duration, SimTime};

/// The states of a PHY with Low Power Idle. Refresh is part of Quiet's accounting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LpiState {
    /// Carrying frames (or idle, awake).
    Active = 0,
    /// Going to sleep (Ts).
    Sleep = 1,
    /// Asleep (with periodic refreshes).
    Quiet = 2,
    /// Waking (Tw).
    Wake = 3,
}

impl LpiState {
    /// Its name in results.
    pub const fn name(self) -> &'static str {
        match self {
            LpiState::Active => "active",
            LpiState::Sleep => "sleep",
            LpiState::Quiet => "quiet",
            LpiState::Wake => "wake",
        }
    }
}

/// Where time goes, in the order results list it.
pub const ACCOUNTS: [&str; 5] = ["active", "sleep", "quiet", "refresh", "wake"];

/// The timing and power of an LPI PHY.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LpiProfile {
    /// Time to go to sleep.
    pub ts: Duration,
    /// Time to wake (the agreed one: see [`LpiProfile::agree`]).
    pub tw: Duration,
    /// Quiet time between refreshes.
    pub tq: Duration,
    /// Length of a refresh.
    pub tr: Duration,
    /// Power while Active, W.
    pub active_w: f64,
    /// Power while Quiet, as a fraction of Active power (Sleep, Wake and Refresh draw
    /// Active power).
    pub quiet_fraction: f64,
}

impl LpiProfile {
    /// 100BASE-TX: Ts 200 us, Tw 30 us, Tq 20 ms, Tr 200 us (IEEE 802.3az-2010 Table
    /// 78-4, as tabulated by Reviriego et al., "Performance evaluation of Energy
    /// Efficient Ethernet", IEEE Commun. Letters 13(9), 2009). 0.1 W Active: an
    /// order-of-magnitude PHY figure, not from the standard; set yours.
    pub fn base_100_tx() -> Self {
        Self::new(200_000_000, 30_000_000, 20_000_000_000, 200_000_000, 0.1)
    }
    /// 1000BASE-T: Ts 182 us, Tw 16 us (the project specification's default; the
    /// standard's Tw_sys_tx is 16.5 us), Tq 20 ms, Tr 198 us (Table 78-4, as above).
    /// 0.5 W Active (an order-of-magnitude figure; set yours).
    pub fn base_1000_t() -> Self {
        Self::new(182_000_000, 16_000_000, 20_000_000_000, 198_000_000, 0.5)
    }
    /// 10GBASE-T: Ts 2.88 us, Tw 4.48 us, Tq 39.68 us, Tr 1.28 us (Table 78-4, as above).
    /// 4 W Active (an order-of-magnitude figure; set yours).
    pub fn base_10g_t() -> Self {
        Self::new(2_880_000, 4_480_000, 39_680_000, 1_280_000, 4.0)
    }

    const fn new(ts: u64, tw: u64, tq: u64, tr: u64, active_w: f64) -> Self {
        LpiProfile {
            ts: Duration(ts),
            tw: Duration(tw),
            tq: Duration(tq),
            tr: Duration(tr),
            active_w,
            quiet_fraction: 0.1,
        }
    }

    /// The wake time a link uses: each end waits the larger of its own Tw and what its
    /// partner asks for (802.3az's data-link-layer negotiation, clause 78.4), so the
    /// longer of the two ends' wake times.
    #[must_use]
    pub fn agree(mut self, tw_ends: [Duration; 2]) -> Self {
        self.tw = tw_ends[0].max(tw_ends[1]);
        self
    }

    /// Power in each account of [`ACCOUNTS`], W.
    pub fn powers(&self) -> [f64; 5] {
        let a = self.active_w;
        [a, a, a * self.quiet_fraction, a, a]
    }
}

/// What an LPI PHY did: time in each account of [`ACCOUNTS`], sleeps and wakes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LpiTotals {
    /// Time per account (active, sleep, quiet, refresh, wake).
    pub time: [Duration; 5],
    /// Sleeps begun.
    pub sleeps: u64,
    /// Wakes begun.
    pub wakes: u64,
}

/// The LPI state of one PHY (a link direction, or a link in the symmetric mode).
#[derive(Debug)]
pub struct Lpi {
    /// Timing and power.
    pub profile: LpiProfile,
    /// Whether a frame arriving during Sleep aborts it (otherwise it waits for Sleep to end).
    pub abort_sleep: bool,
    state: LpiState,
    /// The state began at this instant.
    since: SimTime,
    /// Sleep or Wake ends at this instant.
    until: SimTime,
    totals: LpiTotals,
    /// The state over time (`LpiState as u64`), when asked for.
    series: Option<Box<(Series, SeriesLimits)>>,
}

impl Lpi {
    /// An Active PHY with `profile`.
    pub fn new(profile: LpiProfile, abort_sleep: bool) -> Self {
        Lpi {
            profile,
            abort_sleep,
            state: LpiState::Active,
            since: SimTime::ZERO,
            until: SimTime::ZERO,
            totals: LpiTotals::default(),
            series: None,
        }
    }

    /// Keeps the state over time as change points within `limits` (asked again, as the
    /// symmetric mode's two ports may, it keeps the union of the windows).
    pub fn record_series(&mut self, limits: SeriesLimits) {
        let limits = self.series.as_deref().map_or(limits, |(_, l)| l.covering(limits));
        self.series = Some(Box::new((Series::starting_at(LpiState::Active as u64, limits), limits)));
    }

    /// The state over time, if kept: change points at or before `end`.
    pub fn series(&self, end: SimTime) -> Option<Series> {
        let (s, limits) = self.series.as_deref()?;
        let mut s = s.clone();
        s.points.retain(|p| p.0 <= end);
        // The end of a Sleep or a Wake is recorded when the PHY is next looked at: add the
        // one that passed by `end` but was not looked at.
        let next = match self.state {
            LpiState::Sleep => Some(LpiState::Quiet),
            LpiState::Wake => Some(LpiState::Active),
            _ => None,
        };
        if let Some(state) = next.filter(|_| self.until <= end && self.since <= end) {
            s.push(*limits, self.until, state as u64);
        }
        Some(s)
    }

    #[inline]
    fn enter(&mut self, state: LpiState, at: SimTime) {
        self.state = state;
        self.since = at;
        if self.series.is_some() {
            self.record(state, at);
        }
    }

    // Out of the state machine's inlined path: most runs keep no series.
    #[cold]
    #[inline(never)]
    fn record(&mut self, state: LpiState, at: SimTime) {
        if let Some((s, limits)) = self.series.as_deref_mut() {
            s.push(*limits, at, state as u64);
        }
    }

    /// The state at `now`, with the ends of Sleep and Wake that passed applied.
    #[inline]
    pub fn state(&mut self, now: SimTime) -> LpiState {
        self.settle(now);
        self.state
    }

    /// Applies the ends of Sleep (→ Quiet) and Wake (→ Active) that passed by `now`.
    // On every sleep's and wake's path: a call cost more than its body.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn settle(&mut self, now: SimTime) {
        match self.state {
            LpiState::Sleep if self.until <= now => {
                self.add(1, self.until.saturating_since(self.since));
                self.enter(LpiState::Quiet, self.until);
            }
            LpiState::Wake if self.until <= now => {
                self.add(4, self.until.saturating_since(self.since));
                self.enter(LpiState::Active, self.until);
            }
            _ => {}
        }
    }

    fn add(&mut self, account: usize, d: Duration) {
        self.totals.time[account] = self.totals.time[account] + d;
    }

    /// Quiet time `d` split into (quiet, refresh): the PHY is quiet for Tq, refreshes
    /// for Tr, and so on, from the start of Quiet (closed form, no event per refresh).
    #[inline]
    pub fn split_quiet(&self, d: Duration) -> (Duration, Duration) {
        if d <= self.profile.tq {
            // Woken before the first refresh (the common case under load): no division.
            return (d, Duration::ZERO);
        }
        let cycle = self.profile.tq.as_ps() + self.profile.tr.as_ps();
        if cycle == 0 {
            return (d, Duration::ZERO);
        }
        let (n, rest) = (d.as_ps() / cycle, d.as_ps() % cycle);
        let refresh = n * self.profile.tr.as_ps() + rest.saturating_sub(self.profile.tq.as_ps());
        (Duration(d.as_ps() - refresh), Duration(refresh))
    }

    fn add_quiet(&mut self, from: SimTime, to: SimTime) {
        let (quiet, refresh) = self.split_quiet(to.saturating_since(from));
        self.add(2, quiet);
        self.add(3, refresh);
    }

    /// Goes to sleep at `now` (from Active). Returns when Sleep ends.
    #[inline]
    pub fn sleep(&mut self, now: SimTime) -> SimTime {
        self.settle(now);
        debug_assert_eq!(self.state, LpiState::Active);
        self.add(0, now.saturating_since(self.since));
        self.enter(LpiState::Sleep, now);
        self.until = now + self.profile.ts;
        self.totals.sleeps += 1;
        self.until
    }

    /// Wakes for a frame at `now`: returns when the PHY is Active again (frames may start
    /// then). Already Active: `now`; already waking: the end of that wake.
    #[inline]
    pub fn wake(&mut self, now: SimTime) -> SimTime {
        self.settle(now);
        let start = match self.state {
            LpiState::Active => return now,
            LpiState::Wake => return self.until,
            LpiState::Sleep if self.abort_sleep => {
                self.add(1, now.saturating_since(self.since));
                now
            }
            LpiState::Sleep => {
                // The sleep runs to its end, then the wake begins.
                self.add(1, self.until.saturating_since(self.since));
                self.until
            }
            LpiState::Quiet => {
                self.add_quiet(self.since, now);
                now
            }
        };
        self.enter(LpiState::Wake, start);
        self.until = start + self.profile.tw;
        self.totals.wakes += 1;
        self.until
    }

    /// What the PHY did within `[0, end]`, counting the state it is in up to `end`.
    pub fn totals(&self, end: SimTime) -> LpiTotals {
        let mut copy = Lpi { totals: self.totals, series: None, ..*self };
        copy.settle(end);
        if copy.state == LpiState::Wake && copy.since > end {
            // A frame waits out the sleep, and the run ends first: the sleep was booked to
            // its end and the wake counted when the frame came; neither happened by `end`.
            let beyond = copy.since.saturating_since(end);
            copy.totals.time[1] = Duration(copy.totals.time[1].as_ps().saturating_sub(beyond.as_ps()));
            copy.totals.wakes -= 1;
            return copy.totals;
        }
        match copy.state {
            LpiState::Active => copy.add(0, end.saturating_since(copy.since)),
            LpiState::Sleep => copy.add(1, end.min(copy.until).saturating_since(copy.since)),
            LpiState::Quiet => copy.add_quiet(copy.since, end.max(copy.since)),
            LpiState::Wake => copy.add(4, end.min(copy.until).saturating_since(copy.since)),
        }
        copy.totals
    }

    /// Energy used within `[0, end]` by a PHY with this profile's powers, J.
    pub fn energy_j(&self, end: SimTime) -> f64 {
        self.energy_with(end, self.profile.active_w, self.profile.quiet_fraction)
    }

    /// Energy used within `[0, end]` by a PHY of Active power `active_w` that draws
    /// `quiet_fraction` of it while Quiet (and Active power otherwise), J.
    pub fn energy_with(&self, end: SimTime, active_w: f64, quiet_fraction: f64) -> f64 {
        let powers = LpiProfile { active_w, quiet_fraction, ..self.profile }.powers();
        let t = self.totals(end);
        t.time.iter().zip(powers).map(|(d, w)| d.as_secs_f64() * w).sum()
    }
}

/// What an LPI PHY's timer is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pending {
    /// Nothing.
    None,
    /// Ask the policy whether to sleep (the link is idle at the start of the run).
    Idle,
    /// Sleep (the idle timeout).
    Sleep,
    /// Wake (coalescing's timer).
    Wake,
}

/// One LPI PHY of a link, with its policy and timer.
#[derive(Debug)]
pub struct LpiUnit {
    /// The PHY's state and accounting.
    pub lpi: Lpi,
    /// Its policy.
    pub policy: LpiPolicyKind,
    /// The policy's timer.
    pub timer: Timer,
    /// What the timer is for.
    pub pending: Pending,
}

impl LpiUnit {
    /// The PHY goes to sleep at `now`: any pending decision is dropped.
    #[inline]
    pub fn begin_sleep(&mut self, now: SimTime) {
        self.pending = Pending::None;
        self.timer.cancel();
        self.lpi.sleep(now);
    }

    /// The PHY wakes at `now` (the policy learns it): returns when it is Active again.
    #[inline]
    pub fn begin_wake(&mut self, now: SimTime) -> SimTime {
        self.pending = Pending::None;
        self.timer.cancel();
        let active_at = self.lpi.wake(now);
        self.policy.on_wake();
        active_at
    }
}

/// Energy Efficient Ethernet on a link: one PHY per direction, or one for both (the
/// symmetric mode).
#[derive(Debug)]
pub struct LinkEee {
    /// The PHYs: `[direction 0, direction 1]`, or one for both directions.
    pub units: Vec<LpiUnit>,
    /// Per direction: (Active power in W, Quiet's fraction of it). The symmetric mode's
    /// one state machine serves both directions, each with its own PHY's power.
    pub power: [(f64, f64); 2],
}

impl LinkEee {
    /// The PHY of direction `dir` (transmitted by `ends[dir]`).
    pub fn unit_of(&self, dir: usize) -> usize {
        if self.units.len() == 1 {
            0
        } else {
            dir
        }
    }

    /// The directions a PHY covers.
    pub fn dirs_of(&self, unit: usize) -> &'static [usize] {
        if self.units.len() == 1 {
            &[0, 1]
        } else if unit == 0 {
            &[0]
        } else {
            &[1]
        }
    }

    /// Whether both directions share one PHY.
    pub fn symmetric(&self) -> bool {
        self.units.len() == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanisms::lpi::phy::policy::{Coalescing, IdleTimeout, Immediate, LpiPolicy, When};

    const US: u64 = 1_000_000;

    fn phy(abort: bool) -> Lpi {
        Lpi::new(LpiProfile::base_1000_t(), abort)
    }

    #[test]
    fn a_frame_after_a_long_idle_waits_exactly_tw() {
        let mut p = phy(false);
        assert_eq!(p.sleep(SimTime(100 * US)), SimTime(282 * US));
        assert_eq!(p.state(SimTime(500 * US)), LpiState::Quiet);
        assert_eq!(p.wake(SimTime(500 * US)), SimTime(516 * US));
        assert_eq!(p.state(SimTime(516 * US)), LpiState::Active);
    }

    #[test]
    fn a_frame_during_sleep_waits_for_it_or_aborts_it() {
        let mut waits = phy(false);
        waits.sleep(SimTime(0));
        assert_eq!(waits.wake(SimTime(50 * US)), SimTime((182 + 16) * US), "rest of Ts, then Tw");
        let mut aborts = phy(true);
        aborts.sleep(SimTime(0));
        assert_eq!(aborts.wake(SimTime(50 * US)), SimTime((50 + 16) * US), "Tw alone");
    }

    #[test]
    fn refreshes_are_counted_in_closed_form() {
        let p = phy(false);
        // 20 ms quiet, 198 us refresh: 50 ms of Quiet is two cycles (40.396 ms) and
        // 9.604 ms more of quiet.
        let (quiet, refresh) = p.split_quiet(Duration::from_ms(50));
        assert_eq!(refresh, Duration::from_us(2 * 198));
        assert_eq!(quiet + refresh, Duration::from_ms(50));
        // Ending inside a refresh counts its part.
        let (_, r) = p.split_quiet(Duration::from_us(20_000 + 50));
        assert_eq!(r, Duration::from_us(50));
    }

    #[test]
    fn time_in_every_state_adds_up_and_energy_follows_the_powers() {
        let mut p = phy(false);
        p.sleep(SimTime(1000 * US)); // Active 1 ms, Sleep 182 us
        p.wake(SimTime(10_000 * US)); // Quiet from 1.182 ms to 10 ms, Wake 16 us
        let end = SimTime(20_000 * US);
        let t = p.totals(end);
        assert_eq!(t.time[0], Duration::from_us(1000 + (20_000 - 10_016)));
        assert_eq!(t.time[1], Duration::from_us(182));
        assert_eq!(t.time[2] + t.time[3], Duration::from_us(10_000 - 1182));
        assert_eq!(t.time[4], Duration::from_us(16));
        assert_eq!(t.time.iter().fold(Duration::ZERO, |a, &d| a + d), Duration::from_ms(20));
        let quiet_s = t.time[2].as_secs_f64();
        let expected = 0.5 * (0.02 - quiet_s) + 0.05 * quiet_s;
        assert!((p.energy_j(end) - expected).abs() < 1e-12);
        assert_eq!((t.sleeps, t.wakes), (1, 1));
    }

    #[test]
    fn the_policies_decide_as_stated() {
        let t = SimTime(1000);
        assert_eq!(Immediate.on_idle(t), When::Now);
        let mut timeout = IdleTimeout { timeout: Duration(500) };
        assert_eq!(timeout.on_idle(t), When::At(SimTime(1500)));
        assert_eq!(timeout.on_arrival(t, 1), When::Now);
        let mut c = Coalescing::new(3, Duration(100));
        assert_eq!(c.on_arrival(SimTime(10), 1), When::At(SimTime(110)));
        assert_eq!(c.on_arrival(SimTime(50), 2), When::At(SimTime(110)), "timed from the first");
        assert_eq!(c.on_arrival(SimTime(60), 3), When::Now);
        c.on_wake();
        assert_eq!(c.on_arrival(SimTime(500), 1), When::At(SimTime(600)));
    }

    #[test]
    fn the_wake_time_is_the_longer_of_the_two_ends() {
        let p = LpiProfile::base_1000_t().agree([Duration::from_us(16), Duration::from_us(60)]);
        assert_eq!(p.tw, Duration::from_us(60));
    }
}

//! Link-rate switching (Rapid PHY Selection, Adaptive Link Rate): a link with a set of
//! rates that changes rate at the request of a policy, and is dark in both directions
//! while its PHYs retrain.
//!
//! A switch is graceful, as a MAC-level handshake makes it (ALR's, RPS's): from the
//! request no new frame starts on either direction; the frames on the wire finish at the
//! old rate; the link is dark from the last of their last bits for the switching time,
//! then carries frames at the new rate. Frames that wait meanwhile wait in their ports'
//! queues, where a full buffer drops as always (the loss the burst-loss model predicts).
//! A policy is not consulted while a switch is under way.
//!
//! Policies implement [`RatePolicy`]: they see the link's two output queues at each of
//! their moments (a frame queued, a frame started, a port gone idle) and may keep a
//! timer. Built in: a fixed schedule ([`ScheduledRates`]), the ALR dual-threshold
//! buffer policy ([`AlrPolicy`]), practRA ([`PractRa`]) and none at all (a fixed rate,
//! the run a capacity-scaling run is paired with); [`RatePolicyKind::Custom`] takes any
//! other.
//!
//! Capacity scaling uses the same mechanism on one direction: a router output port whose
//! service rate changes ([`RateSwitching::scaled_end`]), with the other direction left
//! alone. Two changes may be kept a minimum interval apart (practRA's mRCI); a change a
//! policy asks for sooner is asked again when the interval is over. A power model
//! ([`PowerModel`]) gives the port's energy over the run.

use crate::mechanisms::rate::phy::policy::{LinkView, RatePolicy};
use crate::mechanisms::rate::phy::practra::PractRa;
use crate::mechanisms::rate::phy::records::{RateLinkReport, RatePortReport};
use crate::phy::{PowerModel, QueueView};
use crate::time::{BitRate, Duration, SimTime};

/// A fixed schedule: at each instant, switch to a rate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduledRates {
    /// (instant, rate index), in time order.
    entries: Vec<(SimTime, usize)>,
    next: usize,
}

impl ScheduledRates {
    /// A schedule of `entries`, sorted by instant (the scenario layer checks it).
    pub fn new(entries: Vec<(SimTime, usize)>) -> Self {
        debug_assert!(entries.windows(2).all(|w| w[0].0 <= w[1].0));
        ScheduledRates { entries, next: 0 }
    }
}

impl RatePolicy for ScheduledRates {
    fn on_queue(&mut self, _now: SimTime, _link: LinkView) -> Option<usize> {
        None
    }

    fn on_timer(&mut self, now: SimTime, link: LinkView) -> Option<usize> {
        // Entries due by now apply in order; the last of them wins.
        let mut wanted = None;
        while let Some(&(at, rate)) = self.entries.get(self.next).filter(|(at, _)| *at <= now) {
            let _ = at;
            wanted = Some(rate);
            self.next += 1;
        }
        wanted.filter(|&r| r != link.rate_index)
    }

    fn next_timer(&self) -> Option<SimTime> {
        self.entries.get(self.next).map(|e| e.0)
    }
}

/// The Adaptive Link Rate dual-threshold buffer policy (Gunaratne, Christensen, Nordman
/// and Suen, IEEE Trans. Computers 57(4), 2008): when either end's output queue reaches
/// the high threshold the link goes to its fastest rate; when both ends' queues are at
/// or below the low threshold it goes to its slowest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlrPolicy {
    /// Queue bytes at or above which the link goes fast.
    pub high: u64,
    /// Queue bytes at or below which (at both ends) the link goes slow.
    pub low: u64,
}

impl RatePolicy for AlrPolicy {
    fn on_queue(&mut self, _now: SimTime, link: LinkView) -> Option<usize> {
        let fastest = link.rates - 1;
        let wanted = if link.queues.iter().any(|q| q.bytes >= self.high) {
            fastest
        } else if link.queues.iter().all(|q| q.bytes <= self.low) {
            0
        } else {
            return None;
        };
        (wanted != link.rate_index).then_some(wanted)
    }

    fn on_timer(&mut self, _now: SimTime, _link: LinkView) -> Option<usize> {
        None
    }

    fn next_timer(&self) -> Option<SimTime> {
        None
    }
}

/// The policy of a link (built-in policies dispatch statically).
#[derive(Debug)]
pub enum RatePolicyKind {
    /// A fixed schedule.
    Schedule(ScheduledRates),
    /// ALR dual thresholds.
    Alr(AlrPolicy),
    /// practRA (capacity scaling); boxed, so that the enum's tag stays as cheap to read
    /// for the other policies on their per-frame path.
    PractRa(Box<PractRa>),
    /// No policy: the link keeps its rate (the mechanism's accounting, power included,
    /// without its changes).
    Fixed,
    /// Any other policy.
    Custom(Box<dyn RatePolicy>),
}

impl RatePolicyKind {
    fn on_queue(&mut self, now: SimTime, link: LinkView) -> Option<usize> {
        match self {
            RatePolicyKind::Schedule(p) => p.on_queue(now, link),
            RatePolicyKind::Alr(p) => p.on_queue(now, link),
            RatePolicyKind::PractRa(p) => p.on_queue(now, link),
            RatePolicyKind::Fixed => None,
            RatePolicyKind::Custom(p) => p.on_queue(now, link),
        }
    }

    fn on_timer(&mut self, now: SimTime, link: LinkView) -> Option<usize> {
        match self {
            RatePolicyKind::Schedule(p) => p.on_timer(now, link),
            RatePolicyKind::Alr(p) => p.on_timer(now, link),
            RatePolicyKind::PractRa(p) => p.on_timer(now, link),
            RatePolicyKind::Fixed => None,
            RatePolicyKind::Custom(p) => p.on_timer(now, link),
        }
    }

    fn next_timer(&self) -> Option<SimTime> {
        match self {
            RatePolicyKind::Schedule(p) => p.next_timer(),
            RatePolicyKind::Alr(p) => p.next_timer(),
            RatePolicyKind::PractRa(p) => p.next_timer(),
            RatePolicyKind::Fixed => None,
            RatePolicyKind::Custom(p) => p.next_timer(),
        }
    }

    /// Whether the policy predicts from the bytes offered to the queues (practRA, and any
    /// custom policy): they are counted only then.
    pub fn counts_arrivals(&self) -> bool {
        matches!(self, RatePolicyKind::PractRa(_) | RatePolicyKind::Custom(_))
    }

    /// Whether the policy looks at queues at all (a schedule and a fixed rate do not).
    pub fn watches_queues(&self) -> bool {
        !matches!(self, RatePolicyKind::Schedule(_) | RatePolicyKind::Fixed)
    }
}

/// A switch just begun: the link is dark over `[dark_from, dark_until)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateSwitch {
    /// The new rate.
    pub rate: BitRate,
    /// The link goes dark (after the frames on the wire).
    pub dark_from: SimTime,
    /// It carries frames again, at the new rate.
    pub dark_until: SimTime,
}

/// A link's rates, its policy, and what it did.
#[derive(Debug)]
pub struct RateSwitching {
    rates: Vec<BitRate>,
    switch_time: Duration,
    /// The policy.
    pub policy: RatePolicyKind,
    current: usize,
    /// Carrying at `current` since this instant (the end of the last switch).
    since: SimTime,
    /// The stretch at the previous rate that the last switch ended: (rate index, from,
    /// until). Its end may lie after the request (frames on the wire finish first), so
    /// it is added to `time_at` only once it is certainly over (at the next switch).
    before_switch: Option<(usize, SimTime, SimTime)>,
    dark_until: SimTime,
    time_at: Vec<Duration>,
    switches: u64,
    dark: Duration,
    /// The only direction whose rate changes, by the end that transmits on it (`None`:
    /// both, the whole link).
    scaled_end: Option<usize>,
    /// The least time from one change's request to the next's.
    min_interval: Duration,
    /// The instant of the last change's request.
    last_change: Option<SimTime>,
    /// A change asked for within `min_interval` of the last, asked again at this instant:
    /// (instant, the rate asked for).
    retry: Option<(SimTime, usize)>,
    /// Watts at each rate, if the link has a power model.
    watts: Option<Vec<f64>>,
    /// Energy of the changes begun, each dark time at the higher of its two rates' power, J.
    dark_energy_j: f64,
    last_dark_w: f64,
    /// Bytes of the data frames each end's output queue accepted (counted only when the
    /// policy counts arrivals).
    accepted: [u64; 2],
    /// Whether the policy counts arrivals (read on every queue moment: a field, not a
    /// match on the policy).
    counts_arrivals: bool,
}

impl RateSwitching {
    /// A link with `rates` (slowest first, distinct), starting at `rates[initial]`, dark
    /// for `switch_time` at each change.
    pub fn new(rates: Vec<BitRate>, initial: usize, switch_time: Duration, policy: RatePolicyKind) -> Self {
        debug_assert!(rates.windows(2).all(|w| w[0] < w[1]) && initial < rates.len());
        let n = rates.len();
        let counts_arrivals = policy.counts_arrivals();
        RateSwitching {
            counts_arrivals,
            rates,
            switch_time,
            policy,
            current: initial,
            since: SimTime::ZERO,
            before_switch: None,
            dark_until: SimTime::ZERO,
            time_at: vec![Duration::ZERO; n],
            switches: 0,
            dark: Duration::ZERO,
            scaled_end: None,
            min_interval: Duration::ZERO,
            last_change: None,
            retry: None,
            watts: None,
            dark_energy_j: 0.0,
            last_dark_w: 0.0,
            accepted: [0, 0],
        }
    }

    /// Changes only the direction `end` transmits on (a router's output port).
    #[must_use]
    pub fn scaling_one_direction(mut self, end: usize) -> Self {
        self.scaled_end = Some(end);
        self
    }

    /// Keeps the requests of two changes at least `interval` apart.
    #[must_use]
    pub fn with_min_interval(mut self, interval: Duration) -> Self {
        self.min_interval = interval;
        self
    }

    /// Accounts the energy of the scaled ports by `model`.
    #[must_use]
    pub fn with_power(mut self, model: &PowerModel) -> Self {
        self.watts = Some(model.watts(&self.rates));
        self
    }

    /// The direction that changes rate alone, if only one does.
    pub fn scaled_end(&self) -> Option<usize> {
        self.scaled_end
    }

    /// Whether the direction transmitted by `end` changes rate.
    pub fn scales(&self, end: usize) -> bool {
        self.scaled_end.is_none_or(|e| e == end)
    }

    /// When a change may next be requested (the minimum interval after the last).
    pub fn earliest_change(&self) -> SimTime {
        self.last_change.map_or(SimTime::ZERO, |t| t + self.min_interval)
    }

    /// Notes that a change to `target` asked for at `now` must wait for the minimum
    /// interval; returns when it is asked again.
    pub fn defer(&mut self, target: usize) -> SimTime {
        let at = self.earliest_change();
        self.retry = Some((at, target));
        at
    }

    /// The deferred change due by `now`, if one is (taken: it is asked once).
    pub fn take_retry(&mut self, now: SimTime) -> Option<usize> {
        let (at, target) = self.retry.filter(|&(at, _)| at <= now)?;
        let _ = at;
        self.retry = None;
        Some(target)
    }

    /// When the link next needs its timer: the policy's, or a deferred change's.
    #[inline]
    pub fn next_wake(&mut self) -> Option<SimTime> {
        let policy = self.policy.next_timer();
        match self.retry {
            None => policy,
            Some((at, _)) => Some(policy.map_or(at, |p| p.min(at))),
        }
    }

    /// The index of the current rate (the one being switched to, during a switch).
    pub fn rate_index(&self) -> usize {
        self.current
    }

    /// Whether a switch is under way at `now` (requested and not yet over).
    pub fn is_switching(&self, now: SimTime) -> bool {
        now < self.dark_until
    }

    /// When the switch under way ends.
    pub fn dark_until(&self) -> SimTime {
        self.dark_until
    }

    /// The view a policy gets, with the ends' `queues`.
    /// `dropped` is the bytes each end's queue dropped so far: with those it accepted,
    /// the bytes offered to it.
    pub fn view(&self, queues: [QueueView; 2], dropped: [u64; 2]) -> LinkView {
        let offered = [self.accepted[0] + dropped[0], self.accepted[1] + dropped[1]];
        LinkView { rate_index: self.current, rates: self.rates.len(), queues, offered }
    }

    /// Whether the policy predicts from the bytes offered to the queues.
    #[inline]
    pub fn counts_arrivals(&self) -> bool {
        self.counts_arrivals
    }

    /// A data frame of `len` bytes joined the queue of `end`.
    pub fn count_accepted(&mut self, end: usize, len: u32) {
        self.accepted[end] += u64::from(len);
    }

    /// Asks the policy about a queue moment; returns the rate index it wants, if any.
    pub fn consult_queue(&mut self, now: SimTime, view: LinkView) -> Option<usize> {
        self.policy.on_queue(now, view)
    }

    /// Asks the policy about its timer firing.
    pub fn consult_timer(&mut self, now: SimTime, view: LinkView) -> Option<usize> {
        self.policy.on_timer(now, view)
    }

    /// When the policy next needs its timer.
    pub fn next_timer(&mut self) -> Option<SimTime> {
        self.policy.next_timer()
    }

    /// Begins a switch to `rates[target]` requested at `now`, when the last frame on the
    /// wire has its last bit at `wire_clear` (or `now`).
    pub fn begin(&mut self, now: SimTime, target: usize, wire_clear: SimTime) -> RateSwitch {
        debug_assert!(!self.is_switching(now) && target != self.current);
        let dark_from = wire_clear.max(now);
        let dark_until = dark_from + self.switch_time;
        if let Some((i, from, until)) = self.before_switch.take() {
            self.time_at[i] = self.time_at[i] + until.saturating_since(from);
        }
        self.before_switch = Some((self.current, self.since, dark_from));
        if let Some(w) = &self.watts {
            self.last_dark_w = w[self.current].max(w[target]);
            self.dark_energy_j += self.last_dark_w * self.switch_time.as_secs_f64();
        }
        self.current = target;
        self.since = dark_until;
        self.dark_until = dark_until;
        self.switches += 1;
        self.dark = self.dark + self.switch_time;
        self.last_change = Some(now);
        self.retry = None;
        RateSwitch { rate: self.rates[target], dark_from, dark_until }
    }

    /// The link's rates, slowest first.
    pub fn rates(&self) -> &[BitRate] {
        &self.rates
    }

    /// Rate switches begun.
    pub fn switches(&self) -> u64 {
        self.switches
    }

    /// Time dark for switching within `[0, end]`.
    pub fn dark_time(&self, end: SimTime) -> Duration {
        // Only the switch under way can extend past `end`.
        let beyond = self.dark_until.saturating_since(end).min(self.switch_time);
        Duration(self.dark.as_ps() - beyond.as_ps())
    }

    /// Time carrying frames at each rate within `[0, end]`, in the order of [`Self::rates`].
    pub fn time_at_rates(&self, end: SimTime) -> Vec<Duration> {
        let mut t = self.time_at.clone();
        if let Some((i, from, until)) = self.before_switch {
            t[i] = t[i] + until.min(end).saturating_since(from);
        }
        t[self.current] = t[self.current] + end.saturating_since(self.since);
        t
    }

    /// Energy of a scaled port within `[0, end]` by the power model, J: each rate's
    /// power over the time carrying frames at it, and each change's dark time at the
    /// higher of its two rates' power. `None` without a power model.
    pub fn energy_j(&self, end: SimTime) -> Option<f64> {
        let w = self.watts.as_ref()?;
        let carrying: f64 = self.time_at_rates(end).iter().zip(w).map(|(t, p)| t.as_secs_f64() * p).sum();
        let beyond = self.dark_until.saturating_since(end).min(self.switch_time);
        Some(carrying + self.dark_energy_j - beyond.as_secs_f64() * self.last_dark_w)
    }

    /// Energy of the same port at its fastest rate throughout `[0, end]`, J.
    pub fn energy_at_fastest_j(&self, end: SimTime) -> Option<f64> {
        self.watts.as_ref().and_then(|w| w.last()).map(|p| p * end.as_secs_f64())
    }

    /// What a port whose rate this link scales reports over `[0, end]`, given the
    /// time-weighted mean rate of its direction.
    pub fn port_report(&self, mean_rate_bps: f64, end: SimTime) -> RatePortReport {
        let percent_below = |value: f64, reference: f64| {
            if reference > 0.0 {
                100.0 * (1.0 - value / reference)
            } else {
                0.0
            }
        };
        let fastest = self.rates().last().map(|r| r.as_bps() as f64);
        let energy = self.energy_j(end);
        let energy_fastest = self.energy_at_fastest_j(end);
        RatePortReport {
            rate_scaled: true,
            service_rate_mean_bps: Some(mean_rate_bps),
            service_rate_reduction_percent: fastest.map(|f| percent_below(mean_rate_bps, f)),
            service_energy_j: energy,
            service_energy_fastest_j: energy_fastest,
            service_energy_saved_percent: energy.zip(energy_fastest).map(|(e, f)| percent_below(e, f)),
        }
    }
}

impl RateSwitching {
    /// What this link reports over `[0, end]`.
    pub fn link_report(&self, end: SimTime) -> RateLinkReport {
        RateLinkReport {
            rate_switches: self.switches(),
            switching_s: self.dark_time(end).as_secs_f64(),
            rates_bps: self.rates().iter().map(|b| b.as_bps()).collect(),
            time_at_rate_s: self.time_at_rates(end).iter().map(|d| d.as_secs_f64()).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(rate_index: usize, a: u64, b: u64) -> LinkView {
        LinkView {
            rate_index,
            rates: 2,
            queues: [QueueView { frames: 0, bytes: a }, QueueView { frames: 0, bytes: b }],
            offered: [0, 0],
        }
    }

    #[test]
    fn alr_goes_fast_at_the_high_threshold_and_slow_at_the_low_one() {
        let mut p = AlrPolicy { high: 30_000, low: 3_000 };
        let t = SimTime::ZERO;
        assert_eq!(p.on_queue(t, view(0, 29_999, 0)), None);
        assert_eq!(p.on_queue(t, view(0, 0, 30_000)), Some(1), "either end's queue");
        assert_eq!(p.on_queue(t, view(1, 30_000, 0)), None, "already fast");
        assert_eq!(p.on_queue(t, view(1, 3_001, 0)), None, "between the thresholds: keep");
        assert_eq!(p.on_queue(t, view(1, 3_000, 3_001)), None, "both ends must be low");
        assert_eq!(p.on_queue(t, view(1, 3_000, 0)), Some(0));
        assert_eq!(p.on_queue(t, view(0, 0, 0)), None, "already slow");
    }

    #[test]
    fn a_schedule_applies_its_entries_at_their_instants() {
        let mut s = ScheduledRates::new(vec![(SimTime(10), 1), (SimTime(20), 0), (SimTime(20), 1)]);
        assert_eq!(s.next_timer(), Some(SimTime(10)));
        assert_eq!(s.on_timer(SimTime(10), view(0, 0, 0)), Some(1));
        assert_eq!(s.next_timer(), Some(SimTime(20)));
        assert_eq!(s.on_timer(SimTime(20), view(1, 0, 0)), None, "the last entry due wins: 1, as now");
        assert_eq!(s.next_timer(), None);
    }

    #[test]
    fn time_at_each_rate_and_dark_time_add_up_to_the_run() {
        let rates = vec![BitRate::gbps(1), BitRate::gbps(10)];
        let mut r =
            RateSwitching::new(rates, 0, Duration(100), RatePolicyKind::Alr(AlrPolicy { high: 1, low: 0 }));
        let sw = r.begin(SimTime(1000), 1, SimTime(1050));
        assert_eq!((sw.dark_from, sw.dark_until, sw.rate), (SimTime(1050), SimTime(1150), BitRate::gbps(10)));
        assert!(r.is_switching(SimTime(1149)) && !r.is_switching(SimTime(1150)));
        assert_eq!(r.dark_time(SimTime(1100)), Duration(50), "clipped to the end");
        let end = SimTime(5000);
        let at = r.time_at_rates(end);
        assert_eq!(at, vec![Duration(1050), Duration(5000 - 1150)]);
        assert_eq!(at.iter().map(|d| d.as_ps()).sum::<u64>() + r.dark_time(end).as_ps(), 5000);
        assert_eq!(r.switches(), 1);
        // A run that ends while the frames on the wire still finish at the old rate.
        assert_eq!(r.time_at_rates(SimTime(1020)), vec![Duration(1020), Duration(0)]);
        assert_eq!(r.dark_time(SimTime(1020)), Duration(0));
    }
}

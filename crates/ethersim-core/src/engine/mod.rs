//! The discrete-event kernel: a clock, a future event list and a loop. It knows nothing
//! of networks; a [`Model`] receives each event and schedules more.
//!
//! What happens at a limit is fixed: `run` with `until = t` executes every event whose
//! time is `<= t` (events *at* `t` run), then sets the clock to `t` if it stopped for the
//! time limit. With an event budget of `n`, exactly `n` events execute.

pub mod queue;
pub mod rng;
pub mod timer;

pub use queue::EventQueue;
pub use timer::{Expiry, Generation, Timer};

use crate::time::{Duration, SimTime};

/// A place in the run's order of events: an instant, then, among events at that
/// instant, the sequence that orders them (its rank, then the insertion order: see
/// [`EventQueue`]). The order of the event being handled is [`Scheduler::order`]; a
/// model that settles at its next look what an event would have done (a transmission's
/// end that is not an event) compares the place that event would have had with it, so
/// that the result is the event's, ties included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventOrder {
    /// The instant.
    pub at: SimTime,
    /// The insertion sequence, among events at `at`.
    pub seq: u64,
}

// Ordered as (at, seq), compared as one 128-bit key as the event list compares its
// entries: a lazy end is settled against the event being handled on every frame's path,
// and the field-by-field comparison a derive gives branches on the instants' equality.
impl Ord for EventOrder {
    #[inline]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

impl PartialOrd for EventOrder {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }

    #[inline]
    fn lt(&self, other: &Self) -> bool {
        self.key() < other.key()
    }

    #[inline]
    fn gt(&self, other: &Self) -> bool {
        self.key() > other.key()
    }
}

impl EventOrder {
    /// The instant in the high 64 bits, the sequence in the low: ordering keys is
    /// ordering places.
    #[inline]
    fn key(&self) -> u128 {
        (u128::from(self.at.0) << 64) | u128::from(self.seq)
    }

    /// After every event at or before `at`: where a run that stopped at `at` for its
    /// time limit stands.
    pub fn after_all_at(at: SimTime) -> Self {
        EventOrder { at, seq: u64::MAX }
    }
}

/// What the kernel asks of a model: handle one event, and say when its work is done.
pub trait Model {
    /// The model's event payload (an enum: dispatch by `match`, not by trait object).
    type Event;

    /// Handles `event` at `sched.now()`; may schedule further events.
    fn handle(&mut self, sched: &mut Scheduler<Self::Event>, event: Self::Event);

    /// Whether the scenario's work is finished, so the run can end before its time limit.
    fn work_done(&self) -> bool;
}

/// The clock and the future event list, as a model sees them.
#[derive(Debug)]
pub struct Scheduler<E> {
    now: SimTime,
    queue: EventQueue<E>,
    executed: u64,
}

impl<E> Default for Scheduler<E> {
    fn default() -> Self {
        Scheduler { now: SimTime::ZERO, queue: EventQueue::with_capacity(1024), executed: 0 }
    }
}

/// When a run stops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunLimits {
    /// Stop after the last event at or before this instant.
    pub until: Option<SimTime>,
    /// Stop after this many events.
    pub max_events: Option<u64>,
}

/// Why a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model reported its work done (or nothing was left to happen).
    WorkDone,
    /// The time limit was reached.
    TimeLimit,
    /// The event budget was spent.
    EventBudget,
    /// The next event lies beyond the clock's range (about 213 days): the scenario's
    /// timeline does not fit in the engine's picoseconds. Nothing past it was run.
    ClockOverflow,
    /// The caller ended the run between two slices (a wall-clock limit such as the
    /// command line's `--max-wall`). The kernel never returns it.
    WallLimit,
}

impl<E> Scheduler<E> {
    /// The current simulated instant.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Events executed so far.
    pub fn events_executed(&self) -> u64 {
        self.executed
    }

    /// Events pending (including stale timer events).
    pub fn pending(&self) -> usize {
        self.queue.len()
    }

    /// Schedules `event` at the absolute instant `at`.
    ///
    /// # Panics
    /// In debug builds, if `at` is in the past (causality is a model invariant) or is
    /// [`SimTime::NEVER`] (an unset deadline is never scheduled).
    #[inline]
    pub fn schedule_at(&mut self, at: SimTime, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        debug_assert!(!at.is_never(), "event scheduled at NEVER");
        self.queue.push(at, event);
    }

    /// The place of the event being handled in the run's order (after a run, of the
    /// last event it ran).
    #[inline]
    pub fn order(&self) -> EventOrder {
        EventOrder { at: self.now, seq: self.queue.popped_seq() }
    }

    /// Reserves a place in the first rank for an event that may never be scheduled (a
    /// transmission's end that is settled without one): the sequence it would have among
    /// first-rank events if scheduled now. [`Scheduler::schedule_first`] queues it there
    /// if it is needed after all.
    #[inline]
    pub fn reserve(&mut self) -> u64 {
        self.queue.reserve()
    }

    /// Schedules `event` at `at` in the first rank, in the place `seq` reserved with
    /// [`Scheduler::reserve`]: it runs before every event scheduled with
    /// [`Scheduler::schedule_at`] at `at` (see [`EventQueue`]).
    ///
    /// # Panics
    /// In debug builds, if that place is not after the event being handled.
    #[inline]
    pub fn schedule_first(&mut self, at: SimTime, seq: u64, event: E) {
        debug_assert!(EventOrder { at, seq } > self.order(), "event scheduled in the past");
        self.queue.push_first(at, seq, event);
    }

    /// Schedules `event` after `delay` from now.
    pub fn schedule_in(&mut self, delay: Duration, event: E) {
        self.queue.push(self.now + delay, event);
    }

    /// Arms `timer` for `at`, queueing `event(generation)` only if the timer has no event
    /// queued at or before `at` (see [`Timer`]).
    #[inline]
    pub fn arm(&mut self, timer: &mut Timer, at: SimTime, event: impl FnOnce(Generation) -> E) {
        if let Some(generation) = timer.arm(at) {
            self.schedule_at(at, event(generation));
        }
    }

    /// An event of `timer` carrying `generation` popped now: true if the timer fires. If
    /// its deadline has moved later, `event(new generation)` is queued for it instead.
    #[inline]
    pub fn timer_fires(
        &mut self,
        timer: &mut Timer,
        generation: Generation,
        event: impl FnOnce(Generation) -> E,
    ) -> bool {
        match timer.expire(self.now, generation) {
            Expiry::Fire => true,
            Expiry::Stale => false,
            Expiry::Later(at, g) => {
                self.schedule_at(at, event(g));
                false
            }
        }
    }

    /// Runs `model` until a limit is reached or its work is done.
    pub fn run<M: Model<Event = E>>(&mut self, model: &mut M, limits: RunLimits) -> StopReason {
        let until = limits.until.unwrap_or(SimTime::NEVER);
        let budget = limits.max_events.unwrap_or(u64::MAX);
        loop {
            if model.work_done() {
                return StopReason::WorkDone;
            }
            if self.executed >= budget {
                return StopReason::EventBudget;
            }
            // Time arithmetic saturates at SimTime::END, so an event there (or at NEVER,
            // which release builds let through) is one whose true instant overflowed: it
            // is never run.
            match self.queue.pop_until(until.min(SimTime(SimTime::END.0 - 1))) {
                queue::Next::Event(at, event) => {
                    self.now = at;
                    self.executed += 1;
                    model.handle(self, event);
                }
                queue::Next::Later(t) if t >= SimTime::END => return StopReason::ClockOverflow,
                queue::Next::Later(_) => {
                    // The clock never runs backwards, even if `until` is in the past.
                    self.now = self.now.max(until);
                    return StopReason::TimeLimit;
                }
                queue::Next::Empty => {
                    if limits.until.is_some() {
                        self.now = self.now.max(until);
                        return StopReason::TimeLimit;
                    }
                    return StopReason::WorkDone;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_order_as_instant_then_sequence() {
        // Values at the edges of both halves of the packed key, every pair compared with
        // the tuple's lexicographic order.
        let values = [0, 1, 2, (1 << 63) - 1, 1 << 63, u64::MAX - 1, u64::MAX];
        let places: Vec<EventOrder> = values
            .iter()
            .flat_map(|&at| values.iter().map(move |&seq| EventOrder { at: SimTime(at), seq }))
            .collect();
        for a in &places {
            for b in &places {
                let expected = (a.at, a.seq).cmp(&(b.at, b.seq));
                assert_eq!(a.cmp(b), expected, "{a:?} against {b:?}");
                assert_eq!(a.partial_cmp(b), Some(expected));
                assert_eq!(a < b, expected.is_lt());
                assert_eq!(a > b, expected.is_gt());
                assert_eq!(a == b, expected.is_eq());
            }
        }
    }

    /// A model that reschedules itself every `period` and records when it ran.
    struct Ticker {
        period: Duration,
        seen: Vec<SimTime>,
        stop_after: usize,
    }

    impl Model for Ticker {
        type Event = ();
        fn handle(&mut self, sched: &mut Scheduler<()>, (): ()) {
            self.seen.push(sched.now());
            sched.schedule_in(self.period, ());
        }
        fn work_done(&self) -> bool {
            self.seen.len() >= self.stop_after
        }
    }

    fn ticker(stop_after: usize) -> (Scheduler<()>, Ticker) {
        let mut s = Scheduler::default();
        s.schedule_at(SimTime::ZERO, ());
        (s, Ticker { period: Duration::from_us(10), seen: Vec::new(), stop_after })
    }

    #[test]
    fn events_at_exactly_the_time_limit_run() {
        let (mut s, mut m) = ticker(usize::MAX);
        let limits = RunLimits { until: Some(SimTime(30_000_000)), max_events: None };
        assert_eq!(s.run(&mut m, limits), StopReason::TimeLimit);
        // Ticks at 0, 10, 20 and 30 us: the one at the limit runs.
        assert_eq!(m.seen.len(), 4);
        assert_eq!(s.now(), SimTime(30_000_000));
    }

    #[test]
    fn an_event_beyond_the_clock_stops_the_run() {
        let (mut s, mut m) = ticker(usize::MAX);
        m.period = Duration(u64::MAX / 3);
        assert_eq!(s.run(&mut m, RunLimits::default()), StopReason::ClockOverflow);
        assert_eq!(m.seen.len(), 3, "0, MAX/3 and 2·MAX/3 run; 3·MAX/3 saturates");
    }

    #[test]
    fn a_limit_in_the_past_does_not_rewind_the_clock() {
        let (mut s, mut m) = ticker(usize::MAX);
        s.run(&mut m, RunLimits { until: Some(SimTime(25_000_000)), max_events: None });
        let seen = m.seen.len();
        s.run(&mut m, RunLimits { until: Some(SimTime(5_000_000)), max_events: None });
        assert_eq!(s.now(), SimTime(25_000_000));
        assert_eq!(m.seen.len(), seen);
    }

    /// A model whose one timer is pushed later a million times, then allowed to fire.
    struct Rearmer {
        timer: Timer,
        fired: Vec<SimTime>,
    }

    impl Model for Rearmer {
        type Event = Generation;
        fn handle(&mut self, sched: &mut Scheduler<Generation>, g: Generation) {
            if sched.timer_fires(&mut self.timer, g, |g| g) {
                self.fired.push(sched.now());
            }
        }
        fn work_done(&self) -> bool {
            false
        }
    }

    #[test]
    fn a_timer_rearmed_a_million_times_later_keeps_one_queue_entry() {
        let mut s = Scheduler::default();
        let mut m = Rearmer { timer: Timer::default(), fired: Vec::new() };
        for k in 1..=1_000_000u64 {
            s.arm(&mut m.timer, SimTime(k * 10), |g| g);
            assert_eq!(s.pending(), 1);
        }
        s.run(&mut m, RunLimits::default());
        assert_eq!(m.fired, vec![SimTime(10_000_000)]);
        // The first queued event popped at 10 ps and queued itself once more: two in all.
        assert_eq!(s.events_executed(), 2);
    }

    /// Events of a model that records which ran at the instant 200.
    #[derive(Clone, Copy, Debug)]
    enum Tie {
        Timer(Generation),
        Other(&'static str),
        PushTimerTo200,
    }

    struct TieModel {
        timer: Timer,
        order: Vec<&'static str>,
    }

    impl Model for TieModel {
        type Event = Tie;
        fn handle(&mut self, s: &mut Scheduler<Tie>, e: Tie) {
            match e {
                Tie::PushTimerTo200 => s.arm(&mut self.timer, SimTime(200), Tie::Timer),
                Tie::Timer(g) => {
                    if s.timer_fires(&mut self.timer, g, Tie::Timer) {
                        self.order.push("timer");
                    }
                }
                Tie::Other(name) => self.order.push(name),
            }
        }
        fn work_done(&self) -> bool {
            false
        }
    }

    /// The timer is armed for 100 at 0 and pushed to 200 at 10; its event for 100 pops at
    /// 100 and queues itself for 200 then. So at 200 it runs after an event queued for 200
    /// at 50 and before one queued at 150.
    #[test]
    fn a_timer_pushed_later_joins_its_instant_when_its_old_event_pops() {
        let mut s = Scheduler::default();
        let mut m = TieModel { timer: Timer::default(), order: Vec::new() };
        s.arm(&mut m.timer, SimTime(100), Tie::Timer);
        s.schedule_at(SimTime(10), Tie::PushTimerTo200);
        s.schedule_at(SimTime(10), Tie::Other("queued at 10"));
        s.run(&mut m, RunLimits { until: Some(SimTime(9)), max_events: None });
        s.schedule_at(SimTime(200), Tie::Other("queued before 100"));
        s.run(&mut m, RunLimits { until: Some(SimTime(150)), max_events: None });
        s.schedule_at(SimTime(200), Tie::Other("queued after 100"));
        s.run(&mut m, RunLimits::default());
        assert_eq!(m.order, vec!["queued at 10", "queued before 100", "timer", "queued after 100"]);
    }

    #[test]
    fn event_budget_executes_exactly_that_many() {
        let (mut s, mut m) = ticker(usize::MAX);
        let limits = RunLimits { until: None, max_events: Some(7) };
        assert_eq!(s.run(&mut m, limits), StopReason::EventBudget);
        assert_eq!(s.events_executed(), 7);
    }

    #[test]
    fn work_done_ends_the_run_early() {
        let (mut s, mut m) = ticker(3);
        let limits = RunLimits { until: Some(SimTime::END), max_events: None };
        assert_eq!(s.run(&mut m, limits), StopReason::WorkDone);
        assert_eq!(m.seen, vec![SimTime(0), SimTime(10_000_000), SimTime(20_000_000)]);
    }
}

//! A built network and how it runs: the event enum, the handlers of each layer's events
//! (`handlers/`), flows, the packet pool, the trace path, and the results a run reports.
//!
//! Assembly is not execution: the scenario layer validates a description and builds a
//! [`Network`]; [`Simulation`] runs it. Nothing here reads a file or a clock.

pub mod attach;
pub mod event;
pub mod flows;
mod handlers;
pub mod network;
pub mod pool;
pub mod results;
pub mod trace;
pub mod window;

pub use attach::{AttachedRecords, AttachedState, RECORD_VIEWS};
pub use event::Event;
pub use flows::Flow;
pub use network::{Network, Node};
pub use pool::PacketPool;
pub use results::{
    FlowResult, HostResult, LinkResult, PortResult, RunSummary, SeriesResult, TcpSeriesResult,
};
pub use trace::{DropReason, PortSeries, Subscriber, Trace, TraceLog, TraceRecord};
pub use window::MeasureWindow;

use crate::engine::{EventOrder, RunLimits, Scheduler, StopReason};
use crate::time::SimTime;

/// A network ready to run, with its limits.
#[derive(Debug)]
pub struct Simulation {
    network: Network,
    scheduler: Scheduler<Event>,
    limits: RunLimits,
    stop: Option<StopReason>,
}

impl Simulation {
    /// Prepares `network` to run within `limits`: schedules each endpoint's start and each
    /// link's first outage.
    pub fn new(mut network: Network, limits: RunLimits) -> Self {
        let mut scheduler = Scheduler::default();
        network.schedule_starts(&mut scheduler);
        Simulation { network, scheduler, limits, stop: None }
    }

    /// Runs to the end (a limit, or the scenario's work done). Like every way of running,
    /// it leaves the network's counters exact at the instant it stops.
    pub fn run(&mut self) -> StopReason {
        let reason = self.scheduler.run(&mut self.network, self.limits);
        self.settle(reason);
        self.stop = Some(reason);
        reason
    }

    /// Settles the transmissions that ended without an event by where a run that
    /// stopped for `reason` stands: past every event at its instant if it reached its
    /// time limit (every event at or before it ran), otherwise just after the last event
    /// it ran (a run cut short by its event budget may stop within an instant, and a
    /// transmission ending at that instant after the last event has not ended yet).
    fn settle(&mut self, reason: StopReason) {
        let order = if reason == StopReason::TimeLimit {
            EventOrder::after_all_at(self.scheduler.now())
        } else {
            self.scheduler.order()
        };
        self.network.settle(order);
    }

    /// Runs at most `events` more events (fewer if the run ends first). Returns why the
    /// run ended, or `None` if it has more to do. Running in slices gives exactly the
    /// result of one [`Simulation::run`]: the events run are the same.
    pub fn run_slice(&mut self, events: u64) -> Option<StopReason> {
        let budget = self.limits.max_events.unwrap_or(u64::MAX);
        let next = self.scheduler.events_executed().saturating_add(events.max(1)).min(budget);
        let reason =
            self.scheduler.run(&mut self.network, RunLimits { max_events: Some(next), ..self.limits });
        self.settle(reason);
        self.stop = Some(reason);
        (reason != StopReason::EventBudget || next == budget).then_some(reason)
    }

    /// Runs every event at or before `t` (or less, if a limit of the scenario comes
    /// first), then stops with the clock at `t`. Can be called again with a later `t`
    /// to continue; the result is the same as one run to the later instant.
    pub fn run_until(&mut self, t: SimTime) -> StopReason {
        let until = self.limits.until.map_or(t, |u| u.min(t));
        let limits = RunLimits { until: Some(until), ..self.limits };
        let reason = self.scheduler.run(&mut self.network, limits);
        self.settle(reason);
        self.stop = Some(reason);
        reason
    }

    /// Ends the run here for `reason`, a reason of the caller's (a wall-clock limit)
    /// between two slices: the results report it. The counters are exact at this instant.
    pub fn end(&mut self, reason: StopReason) {
        self.stop = Some(reason);
    }

    /// The network, for inspection.
    pub fn network(&self) -> &Network {
        &self.network
    }

    /// The network, to subscribe to its trace or attach a policy before running.
    pub fn network_mut(&mut self) -> &mut Network {
        &mut self.network
    }

    /// The network and its scheduler together, to act on the network between slices of
    /// a run at the current instant (tests and embedding programs).
    pub fn parts_mut(&mut self) -> (&mut Network, &mut Scheduler<Event>) {
        (&mut self.network, &mut self.scheduler)
    }

    /// The limits the run stops at.
    pub fn limits(&self) -> &RunLimits {
        &self.limits
    }

    /// The scheduler (clock, events executed).
    pub fn scheduler(&self) -> &Scheduler<Event> {
        &self.scheduler
    }

    /// The results so far, as a run reports them.
    pub fn summary(&self, scenario: &str, seed: u64) -> RunSummary {
        results::summarize(
            &self.network,
            scenario,
            seed,
            self.stop,
            self.scheduler.now(),
            self.scheduler.events_executed(),
        )
    }
}

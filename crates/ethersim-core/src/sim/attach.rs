//! The attachment seam: where the network meets the port and link mechanisms (PAUSE,
//! rate switching, Low Power Idle, the CSMA/CD segment, the token-bucket shaper)
//! without naming them anywhere else. These pass through here, each by a `match` (static
//! dispatch):
//!
//! - a port's queue moments ([`Moment`]), shown to the port's attachments in their
//!   order (`node/attach.rs`);
//! - the mechanisms' timers: one event variant, [`Event::Mechanism`], naming the timer
//!   with a [`MechanismTimer`] and its port or link by number;
//! - what starts by itself when the run starts;
//! - a frame a station of a shared medium starts, handed to the medium's MAC;
//! - the state that mechanisms keep beside the ports and links rather than in them
//!   ([`AttachedState`]), their time series, and their records and tables in the results
//!   ([`PortRecords`], [`LinkRecords`], [`AttachedRecords`], [`MechanismTables`],
//!   [`RECORD_VIEWS`]).
//!
//! Each arm calls into the mechanism's own room (`mechanisms/pause/`, `mechanisms/rate/`,
//! `mechanisms/lpi/`, `mechanisms/csma/`, `mechanisms/shaper/`). A new port mechanism is a room of its own plus
//! a variant of [`PortAttachment`] with its moments, an arm here, and (if it has a timer) a
//! variant of [`MechanismTimer`]: the recipe is in docs/architecture.md.

use serde::Serialize;

use crate::engine::{Generation, Scheduler};
use crate::ids::{LinkId, PortId};
use crate::mechanisms::csma::phy::bus::Bus;
use crate::mechanisms::csma::sim::results::{station_results, StationResult};
use crate::mechanisms::lpi::phy::machine::LinkEee;
use crate::mechanisms::lpi::phy::report::LpiPortReport;
use crate::mechanisms::pause::node::state::{PausePortReport, PortPause};
use crate::mechanisms::rate::phy::records::{RateLinkReport, RatePortReport};
use crate::mechanisms::rate::phy::switching::RateSwitching;
use crate::mechanisms::shaper::node::{ShaperPortReport, Shapers};
use crate::node::attach::bits::{CONTROL_QUEUED, DEQUEUED, EMPTY, ENQUEUED, ENQUEUED_HELD, FORWARDED};
use crate::node::{Attachments, Moment};
use crate::phy::{ByLink, FrameClass};
use crate::sim::event::Event;
use crate::sim::network::Network;
use crate::sim::results::window::WindowDelta;
use crate::stats::record::RecordView;
use crate::stats::{Series, SeriesLimits};
use crate::time::{Duration, SimTime};

/// The state of the port and link mechanisms that keep it beside the ports and links,
/// by port or link, so that a port or link without the mechanism carries nothing of it.
#[derive(Debug, Default)]
pub struct AttachedState {
    /// The token buckets of shaped ports (`mechanisms/shaper/`).
    pub shapers: Shapers,
    /// The rate switching of links whose rate a policy changes (`mechanisms/rate/`).
    pub rate_switching: ByLink<RateSwitching>,
    /// 802.3x flow control of every port, by port (`mechanisms/pause/`).
    pub pause: Vec<PortPause>,
    /// The Low Power Idle PHYs of links with Energy Efficient Ethernet
    /// (`mechanisms/lpi/`).
    pub eee: ByLink<LinkEee>,
    /// The shared-medium segments (CSMA/CD, `mechanisms/csma/`): each its stations' MACs.
    pub segments: ByLink<Bus>,
}

impl AttachedState {
    /// The name of the shared medium `link` is, if it is one (a segment's name).
    pub fn medium_name(&self, link: LinkId) -> Option<&str> {
        self.segments.get(link).map(|b| b.name.as_str())
    }

    /// How long the mechanisms of `link` may hold its end `end`'s transmitter while the
    /// partner keeps sending, beyond the frames on the wire: an LPI PHY of one direction
    /// may be going to sleep (unless a frame aborts it) and must wake (802.3az). Threshold
    /// PAUSE allows for it in its headroom.
    pub fn transmitter_hold(&self, link: LinkId, end: usize) -> Duration {
        let Some(eee) = self.eee.get(link).filter(|e| !e.symmetric()) else { return Duration::ZERO };
        let lpi = &eee.units[eee.unit_of(end)].lpi;
        let sleep = if lpi.abort_sleep { Duration::ZERO } else { lpi.profile.ts };
        sleep + lpi.profile.tw
    }

    /// Has the mechanisms of `port` (on `link`'s end `end`) that keep time series of their
    /// own keep them within `limits`: the PAUSE frames the port received, and its link's
    /// LPI PHY's state.
    pub fn record_series(&mut self, port: PortId, link: LinkId, end: usize, limits: SeriesLimits) {
        if let Some(pause) = self.pause.get_mut(port.index()) {
            pause.rx.record_series(limits);
        }
        if let Some(eee) = self.eee.get_mut(link) {
            let u = eee.unit_of(end);
            eee.units[u].lpi.record_series(limits);
        }
    }

    /// The time series the mechanisms of `link` kept for its end `end` up to `end_of_run`,
    /// each with its quantity's name (`lpi_state`): a port's series lists it first.
    pub fn link_series(
        &self,
        link: LinkId,
        end: usize,
        end_of_run: SimTime,
    ) -> Option<(&'static str, Series)> {
        let eee = self.eee.get(link)?;
        eee.units[eee.unit_of(end)].lpi.series(end_of_run).map(|s| ("lpi_state", s))
    }

    /// The time series the mechanisms of `port` kept, each with its quantity's name
    /// (`pause_received`): a port's series lists them after its gate.
    pub fn port_series(&self, port: PortId) -> Option<(&'static str, &Series)> {
        let pause = self.pause.get(port.index())?;
        pause.rx.series().map(|s| ("pause_received", s))
    }
}

/// The columns every port's results carry for its mechanisms (`null` or zero where a
/// mechanism is absent), in their place among the port's columns.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PortRecords {
    /// IEEE 802.3x flow control: whether the port honours PAUSE, PAUSE frames sent and
    /// received, time paused.
    #[serde(flatten)]
    pub pause: PausePortReport,
    /// Low Power Idle: time in each PHY state and energy (`null` without EEE).
    #[serde(flatten)]
    pub lpi: LpiPortReport,
    /// Link-rate switching of this port: its mean service rate and energy (`null` when
    /// its rate is not scaled).
    #[serde(flatten)]
    pub rate: RatePortReport,
}

/// The columns every link's results carry for its mechanisms (zero or empty where a
/// mechanism is absent).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LinkRecords {
    /// Link-rate switching: switches, time dark for them, time at each rate.
    #[serde(flatten)]
    pub rate: RateLinkReport,
}

impl Network {
    /// The mechanisms' columns of `port`'s results for a run that ended at `end`.
    pub fn port_records(&self, port: PortId, end: SimTime) -> PortRecords {
        let p = &self.ports[port.index()];
        let link = &self.links[p.link.index()];
        PortRecords {
            pause: self
                .attached
                .pause
                .get(port.index())
                .map_or_else(PausePortReport::default, |q| q.rx.report(end)),
            lpi: self
                .attached
                .eee
                .get(p.link)
                .map_or_else(LpiPortReport::default, |e| e.port_report(p.end, end)),
            rate: self
                .attached
                .rate_switching
                .get(p.link)
                .filter(|r| r.scales(p.end))
                .map_or_else(RatePortReport::default, |r| {
                    r.port_report(link.dirs[p.end].mean_rate_bps(end), end)
                }),
        }
    }

    /// The mechanisms' columns of `link`'s results for a run that ended at `end`.
    pub fn link_records(&self, link: LinkId, end: SimTime) -> LinkRecords {
        LinkRecords {
            rate: self
                .attached
                .rate_switching
                .get(link)
                .map_or_else(RateLinkReport::default, |r| r.link_report(end)),
        }
    }
}

/// The tables of the run's results that mechanisms report rows of their own in, beside
/// the ports', links' and flows' tables (flattened into the results where they were).
#[derive(Clone, Debug, Default, Serialize)]
pub struct MechanismTables {
    /// Per station of each shared-medium segment (CSMA/CD, `mechanisms/csma/`).
    pub stations: Vec<StationResult>,
}

impl Network {
    /// The mechanisms' tables for a run that ended at `end` (with the measurement
    /// window's figures, if the scenario has one).
    pub(crate) fn mechanism_tables(&self, end: SimTime, window: Option<&WindowDelta>) -> MechanismTables {
        MechanismTables { stations: station_results(self, end, window) }
    }
}

/// The columns of `port`'s results that the mechanisms of [`AttachedState`] report,
/// each present on the ports that have the mechanism only (so no other run's results
/// change when one is added).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AttachedRecords {
    /// A token-bucket shaper's columns (`shaped`, `shaper_*`).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub shaper: Option<ShaperPortReport>,
}

impl AttachedState {
    /// The records of `port` for a run that ended at `end`.
    pub fn records(&self, port: PortId, end: SimTime) -> AttachedRecords {
        AttachedRecords { shaper: self.shapers.get(port).map(|b| b.report(end)) }
    }
}

/// The views of the mechanisms' records in the results tables, in the order the front
/// shows them: adding a mechanism's record is one line here.
pub const RECORD_VIEWS: [RecordView; 4] =
    [PausePortReport::VIEW, LpiPortReport::VIEW, RatePortReport::VIEW, ShaperPortReport::VIEW];

/// The gate closers of the port mechanisms that hold a port's data frames, a slot each
/// ([`Closer::of_mechanism`](crate::phy::Closer::of_mechanism)): the gate names none of them.
pub mod closers {
    use crate::phy::Closer;

    /// PAUSE from the link partner (802.3 Annex 31B, `mechanisms/pause/`).
    pub const PAUSE: Closer = Closer::of_mechanism(0);
    /// A token-bucket shaper whose credit is below zero (`mechanisms/shaper/`).
    pub const SHAPER: Closer = Closer::of_mechanism(1);
}

/// A mechanism attached to a port. The order of the variants is the order in which the
/// mechanisms of one port see a moment; a port knows each by its number (its `kind`,
/// `node/attach.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum PortAttachment {
    /// Threshold PAUSE on a switch output (`mechanisms/pause/`): frames forwarded to it may
    /// pause their input's partner; frames leaving may release it.
    ThresholdPause,
    /// The link's rate policy watching this end's queue (`mechanisms/rate/`).
    RateSwitching,
    /// The link's Low Power Idle PHY (`mechanisms/lpi/`): an idle port may let it sleep, a
    /// frame queued at a sleeping one wakes it.
    LowPowerIdle,
    /// A token-bucket shaper (`mechanisms/shaper/`): each data frame that starts spends
    /// its length, and one that empties the bucket holds the next.
    TokenBucketShaper,
}

impl PortAttachment {
    /// Every kind, in the order the mechanisms of one port see a moment.
    pub const ALL: [PortAttachment; 4] = [
        PortAttachment::ThresholdPause,
        PortAttachment::RateSwitching,
        PortAttachment::LowPowerIdle,
        PortAttachment::TokenBucketShaper,
    ];

    /// Its number on a port ([`Attachments`]).
    #[inline]
    pub const fn kind(self) -> u8 {
        self as u8
    }

    /// The mechanism of number `kind`.
    #[inline]
    pub const fn of_kind(kind: u8) -> Option<PortAttachment> {
        match kind {
            0 => Some(PortAttachment::ThresholdPause),
            1 => Some(PortAttachment::RateSwitching),
            2 => Some(PortAttachment::LowPowerIdle),
            3 => Some(PortAttachment::TokenBucketShaper),
            _ => None,
        }
    }

    /// The moments this mechanism acts on ([`Moment::bit`]s): the others pass it by
    /// without a call.
    #[inline]
    pub const fn watches(self) -> u8 {
        match self {
            // Arrivals are seen with the input they came through (`Forwarded`).
            PortAttachment::ThresholdPause => FORWARDED | DEQUEUED | EMPTY,
            PortAttachment::RateSwitching => ENQUEUED | ENQUEUED_HELD | DEQUEUED | EMPTY,
            // A sleeping PHY wakes for data and control frames alike; an awake or waking
            // one sends a queued frame in its turn and has nothing to do as one starts.
            PortAttachment::LowPowerIdle => ENQUEUED_HELD | EMPTY | CONTROL_QUEUED,
            PortAttachment::TokenBucketShaper => DEQUEUED,
        }
    }

    /// Attaches this mechanism to a port's `attachments`.
    pub fn attach_to(self, attachments: &mut Attachments) {
        attachments.attach(self.kind(), self.watches());
    }
}

/// Which mechanism's timer an [`Event::Mechanism`] is, and which of its units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MechanismTimer {
    /// A switch input re-sends PAUSE while congested outputs hold it (the event's
    /// target is the input port).
    PauseRefresh,
    /// A port's periodic PAUSE generator sends its next frame (target: the port).
    PauseTick,
    /// A link's rate policy timer (target: the link).
    RatePolicy,
    /// A link's capacity is redrawn (target: the link).
    CapacityRedraw,
    /// An LPI PHY's policy timer (target: the link).
    Lpi {
        /// The PHY: a direction, or 0 for both in the symmetric mode.
        unit: u8,
    },
    /// A shared-medium station's MAC takes its next step (target: the segment's link).
    Csma {
        /// The station.
        station: u16,
    },
    /// The frame at the head of a segment's deliveries reaches its receiver (target: the
    /// segment's link).
    BusDelivery,
}

impl MechanismTimer {
    /// The event of this timer for `target` (a port or link number), `generation`.
    #[inline]
    pub fn event(self, target: u32, generation: Generation) -> Event {
        Event::Mechanism { target, timer: self, generation }
    }
}

impl Network {
    /// `port`, a station of a shared medium, may start a frame of `class`: the medium's
    /// MAC takes it (a CSMA/CD segment's, the one shared medium modelled). Returns the
    /// frame's length.
    #[inline]
    pub(in crate::sim) fn medium_takes(
        &mut self,
        sched: &mut Scheduler<Event>,
        port: PortId,
        class: FrameClass,
    ) -> u32 {
        self.bus_take(sched, port, class)
    }

    /// Shows `moment` of `port`'s queue to its attachments, in [`PortAttachment::ALL`]'s
    /// order; each acts on the moments it cares for. A port with none costs one test.
    // On every frame's path. Inlined there is only the test; a port with attachments
    // goes out of line to one function per moment, in which the moment is known, the
    // port's one mechanism (the common case) is reached by one jump and its handling is
    // inlined: such a port pays one call, as with the hook bits this replaced, and a
    // plain port's frame path keeps its size (a dispatch inlined in it cost 1% of
    // `fan-in-poisson`, which has no attachment).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub(in crate::sim) fn show_attachments(
        &mut self,
        sched: &mut Scheduler<Event>,
        port: PortId,
        moment: Moment,
    ) {
        let watched = self.ports[port.index()].attachments.watched();
        self.show_attachments_of(sched, port, watched, moment);
    }

    /// [`Network::show_attachments`] with the moments `port`'s attachments watch
    /// (`Attachments::watched`) read by the caller (they are set when the network is
    /// built): a caller that read them with the port's other flags need not look at the
    /// port again. One byte, so the frame's path keeps it in a register.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub(in crate::sim) fn show_attachments_of(
        &mut self,
        sched: &mut Scheduler<Event>,
        port: PortId,
        watched: u8,
        moment: Moment,
    ) {
        if watched & moment.any_bit() == 0 {
            return;
        }
        let held = matches!(moment, Moment::Enqueued(_)) && self.ports[port.index()].gate.held_until_opened();
        if watched & moment.bit(held) == 0 {
            return;
        }
        match moment {
            Moment::Enqueued(len) => self.attachments_on_enqueued(sched, port, len, held),
            Moment::Dequeued(len) => self.attachments_on_dequeued(sched, port, len),
            Moment::Empty => self.attachments_on_empty(sched, port),
            Moment::ControlQueued => self.attachments_on_control_queued(sched, port),
            Moment::Forwarded { from } => self.attachments_on_forwarded(sched, port, from),
        }
    }

    #[inline(never)]
    fn attachments_on_enqueued(&mut self, sched: &mut Scheduler<Event>, port: PortId, len: u32, held: bool) {
        self.dispatch(sched, port, Moment::Enqueued(len), held);
    }

    #[inline(never)]
    fn attachments_on_dequeued(&mut self, sched: &mut Scheduler<Event>, port: PortId, len: u32) {
        self.dispatch(sched, port, Moment::Dequeued(len), false);
    }

    #[inline(never)]
    fn attachments_on_empty(&mut self, sched: &mut Scheduler<Event>, port: PortId) {
        self.dispatch(sched, port, Moment::Empty, false);
    }

    #[inline(never)]
    fn attachments_on_control_queued(&mut self, sched: &mut Scheduler<Event>, port: PortId) {
        self.dispatch(sched, port, Moment::ControlQueued, false);
    }

    #[inline(never)]
    fn attachments_on_forwarded(&mut self, sched: &mut Scheduler<Event>, port: PortId, from: PortId) {
        self.dispatch(sched, port, Moment::Forwarded { from }, false);
    }

    /// Shows `moment` to `port`'s attachments that act on it (it has some).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn dispatch(&mut self, sched: &mut Scheduler<Event>, port: PortId, moment: Moment, held: bool) {
        // One jump on the port's sole kind (its watch mask is that mechanism's own, so it
        // acts on the moment); `None` (several) to the loop.
        const THRESHOLD: Option<u8> = Some(PortAttachment::ThresholdPause.kind());
        const RATE: Option<u8> = Some(PortAttachment::RateSwitching.kind());
        const LPI: Option<u8> = Some(PortAttachment::LowPowerIdle.kind());
        const SHAPER: Option<u8> = Some(PortAttachment::TokenBucketShaper.kind());
        match self.ports[port.index()].attachments.sole() {
            THRESHOLD => self.threshold_moment(sched, port, moment),
            RATE => self.rate_moment(sched, port, moment),
            LPI => self.lpi_moment(sched, port, moment),
            SHAPER => self.shaper_moment(sched, port, moment),
            _ => self.show_several(sched, port, moment, moment.bit(held)),
        }
    }

    #[inline(never)]
    fn show_several(&mut self, sched: &mut Scheduler<Event>, port: PortId, moment: Moment, bit: u8) {
        let attachments = self.ports[port.index()].attachments;
        for mechanism in attachments.kinds().filter_map(PortAttachment::of_kind) {
            if mechanism.watches() & bit != 0 {
                self.show_one(sched, port, mechanism, moment);
            }
        }
    }

    /// Shows `moment` to one mechanism of `port`, which acts on it or lets it pass.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn show_one(
        &mut self,
        sched: &mut Scheduler<Event>,
        port: PortId,
        mechanism: PortAttachment,
        moment: Moment,
    ) {
        match mechanism {
            PortAttachment::ThresholdPause => self.threshold_moment(sched, port, moment),
            PortAttachment::RateSwitching => self.rate_moment(sched, port, moment),
            PortAttachment::LowPowerIdle => self.lpi_moment(sched, port, moment),
            PortAttachment::TokenBucketShaper => self.shaper_moment(sched, port, moment),
        }
    }

    /// A mechanism's timer fired: a segment's (each station's MAC steps by its timers,
    /// as often as frames) straight to its room, the rarer ones out of line.
    // Only the segment's two arms inlined into the event dispatch: all of them there cost
    // the plain frame path 1% (`fan-in-poisson`), all out of line cost a segment 3%
    // (`csma-24-hosts`).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub(in crate::sim) fn on_mechanism_event(
        &mut self,
        sched: &mut Scheduler<Event>,
        target: u32,
        timer: MechanismTimer,
        generation: Generation,
    ) {
        match timer {
            MechanismTimer::Csma { station } => {
                self.on_csma_timer(sched, LinkId(target), usize::from(station), generation);
            }
            MechanismTimer::BusDelivery => self.on_bus_delivery(sched, LinkId(target), generation),
            _ => self.on_mechanism_timer(sched, target, timer, generation),
        }
    }

    #[inline(never)]
    fn on_mechanism_timer(
        &mut self,
        sched: &mut Scheduler<Event>,
        target: u32,
        timer: MechanismTimer,
        generation: Generation,
    ) {
        match timer {
            MechanismTimer::PauseRefresh => self.on_pause_refresh(sched, PortId(target), generation),
            MechanismTimer::PauseTick => self.on_pause_tick(sched, PortId(target)),
            MechanismTimer::RatePolicy => self.on_rate_timer(sched, LinkId(target), generation),
            MechanismTimer::CapacityRedraw => self.on_capacity_redraw(sched, LinkId(target), generation),
            MechanismTimer::Lpi { unit } => {
                self.on_lpi_timer(sched, LinkId(target), usize::from(unit), generation);
            }
            MechanismTimer::Csma { station } => {
                self.on_csma_timer(sched, LinkId(target), usize::from(station), generation);
            }
            MechanismTimer::BusDelivery => self.on_bus_delivery(sched, LinkId(target), generation),
        }
    }

    /// What the link mechanisms start by themselves, link by link: the rate policy's
    /// first timer, the first capacity redraw. (The order of starts is the order of
    /// events at one instant, which results depend on: see `Network::schedule_starts`.)
    pub(in crate::sim) fn start_link_mechanisms(&mut self, sched: &mut Scheduler<Event>) {
        for i in 0..self.links.len() {
            let link = LinkId(i as u32);
            self.arm_rate_timer(sched, link);
            self.start_capacity(sched, link);
        }
    }

    /// What starts by itself after the measurement window's edges are scheduled: every
    /// periodic PAUSE generator's first frame, then every LPI PHY's first question to its
    /// policy (after every other start at that instant, so a frame or PAUSE due at 0 finds
    /// it awake).
    pub(in crate::sim) fn start_port_mechanisms(&mut self, sched: &mut Scheduler<Event>) {
        self.start_periodic_pause(sched);
        self.start_lpi(sched);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::PortId;

    fn attached(mechanisms: &[PortAttachment]) -> Attachments {
        let mut a = Attachments::default();
        for m in mechanisms {
            m.attach_to(&mut a);
        }
        a
    }

    #[test]
    fn each_kind_is_its_place_in_the_order_and_comes_back_from_it() {
        for (i, m) in PortAttachment::ALL.into_iter().enumerate() {
            assert_eq!(usize::from(m.kind()), i);
            assert_eq!(PortAttachment::of_kind(m.kind()), Some(m));
            assert_eq!(attached(&[m]).sole(), Some(m.kind()));
        }
        assert_eq!(PortAttachment::of_kind(PortAttachment::ALL.len() as u8), None);
        let order: Vec<_> = attached(&[PortAttachment::LowPowerIdle, PortAttachment::ThresholdPause])
            .kinds()
            .filter_map(PortAttachment::of_kind)
            .collect();
        assert_eq!(order, [PortAttachment::ThresholdPause, PortAttachment::LowPowerIdle]);
    }

    #[test]
    fn each_mechanism_watches_the_moments_it_acts_on() {
        use PortAttachment::*;
        let forwarded = Moment::Forwarded { from: PortId(0) }.bit(false);
        let (queued, queued_held) = (Moment::Enqueued(64).bit(false), Moment::Enqueued(64).bit(true));
        let (started, empty, control) =
            (Moment::Dequeued(64).bit(false), Moment::Empty.bit(false), Moment::ControlQueued.bit(false));
        let watches = |m: PortAttachment, bit: u8| m.watches() & bit != 0;
        // Threshold PAUSE: arrivals (with their input) and departures.
        assert!(watches(ThresholdPause, forwarded) && watches(ThresholdPause, started));
        assert!(watches(ThresholdPause, empty) && !watches(ThresholdPause, queued_held));
        // A rate policy: the data queue, held or not; not control frames nor arrivals.
        assert!(watches(RateSwitching, queued) && watches(RateSwitching, queued_held));
        assert!(!watches(RateSwitching, forwarded) && !watches(RateSwitching, control));
        // LPI: a frame queued at a sleeping PHY, control frames, an idle port.
        assert!(!watches(LowPowerIdle, queued) && watches(LowPowerIdle, queued_held));
        assert!(watches(LowPowerIdle, control) && !watches(LowPowerIdle, started));
        // The shaper: a frame started.
        assert!(watches(TokenBucketShaper, started) && !watches(TokenBucketShaper, empty));
        assert!(attached(&[LowPowerIdle]).watch(queued_held) && !attached(&[LowPowerIdle]).watch(queued));
    }
}

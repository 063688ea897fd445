//! The network's side of the registry (see `sim/attach/mod.rs`): a port's moments and the
//! mechanisms' timers handed to their rooms, a station's frame handed to its medium's MAC,
//! and the mechanisms' records and tables read for the results.

use serde::Serialize;

use crate::engine::{Generation, Scheduler};
use crate::ids::{LinkId, PortId};
use crate::mechanisms::csma::sim::results::{station_results, StationResult};
use crate::mechanisms::lpi::phy::report::LpiPortReport;
use crate::mechanisms::pause::node::state::PausePortReport;
use crate::mechanisms::pause::wire::OPCODE_PAUSE;
use crate::mechanisms::rate::phy::records::{RateLinkReport, RatePortReport};
use crate::node::Moment;
use crate::phy::FrameClass;
use crate::sim::event::Event;
use crate::sim::network::Network;
use crate::sim::results::window::WindowDelta;
use crate::time::SimTime;

use super::state::{LinkRecords, MechanismTimer, PortAttachment, PortRecords};

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

impl MechanismTimer {
    /// The event of this timer for `target` (a port or link number), `generation`.
    #[inline]
    pub fn event(self, target: u32, generation: Generation) -> Event {
        Event::Mechanism { target, timer: self, generation }
    }
}

impl Network {
    /// A MAC control frame of `opcode` with its first parameter `parameter` arrived at
    /// `port`: the operation it names acts on it (PAUSE, 802.3 Annex 31B); no other
    /// opcode is modelled, and such a frame is only counted.
    pub(in crate::sim) fn control_operation(
        &mut self,
        sched: &mut Scheduler<Event>,
        port: PortId,
        opcode: u16,
        parameter: u16,
    ) {
        if opcode == OPCODE_PAUSE {
            self.on_pause_frame(sched, port, parameter);
        }
    }

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

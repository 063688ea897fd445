//! What the network and its events name of the mechanisms: their state beside the ports
//! and links, their records, the kinds of port attachment, their timers and gate closers
//! (see `sim/attach/mod.rs`). Nothing here acts on the network.

use serde::Serialize;

use crate::ids::{LinkId, PortId};
use crate::mechanisms::csma::phy::bus::Bus;
use crate::mechanisms::lpi::phy::machine::LinkEee;
use crate::mechanisms::lpi::phy::report::LpiPortReport;
use crate::mechanisms::pause::node::state::{PausePortReport, PortPause};
use crate::mechanisms::rate::phy::records::{RateLinkReport, RatePortReport};
use crate::mechanisms::rate::phy::switching::RateSwitching;
use crate::mechanisms::shaper::node::{ShaperPortReport, Shapers};
use crate::node::attach::bits::{CONTROL_QUEUED, DEQUEUED, EMPTY, ENQUEUED, ENQUEUED_HELD, FORWARDED};
use crate::node::Attachments;
use crate::phy::ByLink;
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

    /// The moments this mechanism acts on ([`Moment::bit`](crate::node::Moment::bit)s): the others pass it by
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

/// Which mechanism's timer an [`Event::Mechanism`](crate::sim::Event::Mechanism) is, and
/// which of its units.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::PortId;
    use crate::node::Moment;

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

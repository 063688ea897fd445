//! A port's attachments: the mechanisms, besides its queue policy, that are shown the
//! moments of its queue (a frame queued, a frame started, the queue empty, a MAC control
//! frame queued, a frame forwarded to it by a switch input).
//!
//! A port holds at most one of each kind, seen in one fixed order. A port with none
//! costs one test on the frame's path; a port with one goes straight to it; each
//! mechanism picks the moments it acts on (`sim/attach.rs` dispatches, statically, to
//! the mechanism's own room). Adding a port mechanism adds a variant here and an arm
//! there.

use crate::ids::PortId;

/// A moment of a port's queue an attachment may act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moment {
    /// A data frame of this length joined the queue.
    Enqueued(u32),
    /// The head data frame, of this length, started on the wire (or went to a
    /// shared medium's MAC).
    Dequeued(u32),
    /// The wire went idle with nothing waiting.
    Empty,
    /// A MAC control frame joined the port's priority slot.
    ControlQueued,
    /// A switch forwarded to this port a frame that arrived through input `from` (after
    /// the frame was queued here and the port had its chance to start it).
    Forwarded {
        /// The input port the frame came through.
        from: PortId,
    },
}

/// A mechanism attached to a port. The order of the variants is the order in which the
/// mechanisms of one port see a moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PortAttachment {
    /// Threshold PAUSE on a switch output (`node/pause.rs`): frames forwarded to it may
    /// pause their input's partner; frames leaving may release it.
    ThresholdPause,
    /// The link's rate policy watching this end's queue (`phy/rate.rs`).
    RateSwitching,
    /// The link's Low Power Idle PHY (`phy/lpi/`): an idle port may let it sleep, a
    /// frame queued at a sleeping one wakes it.
    LowPowerIdle,
    /// A token-bucket shaper (`mechanisms/shaper/`): each data frame that starts spends
    /// its length, and one that empties the bucket holds the next.
    TokenBucketShaper,
}

impl Moment {
    /// The moment's bit in a watch mask (a frame queued at a gate held until a mechanism
    /// opens it, `held`, has one of its own: only a sleeping PHY acts on it).
    #[inline]
    pub const fn bit(self, held: bool) -> u8 {
        match self {
            Moment::Enqueued(_) if held => ENQUEUED_HELD,
            Moment::Enqueued(_) => ENQUEUED,
            Moment::Dequeued(_) => DEQUEUED,
            Moment::Empty => EMPTY,
            Moment::ControlQueued => CONTROL_QUEUED,
            Moment::Forwarded { .. } => FORWARDED,
        }
    }

    /// Every bit this moment may have ([`Moment::bit`] held or not): a mask none of
    /// these is in lets it pass without a look at the gate.
    #[inline]
    pub const fn any_bit(self) -> u8 {
        match self {
            Moment::Enqueued(_) => ENQUEUED | ENQUEUED_HELD,
            _ => self.bit(false),
        }
    }
}

const ENQUEUED: u8 = 1;
const DEQUEUED: u8 = 2;
const EMPTY: u8 = 4;
const CONTROL_QUEUED: u8 = 8;
const FORWARDED: u8 = 16;
const ENQUEUED_HELD: u8 = 32;

impl PortAttachment {
    /// The moments this mechanism acts on ([`Moment::bit`]s): the others pass it by
    /// without a call.
    #[inline]
    const fn watches(self) -> u8 {
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

    /// Every kind, in the order the mechanisms of one port see a moment.
    pub const ALL: [PortAttachment; 4] = [
        PortAttachment::ThresholdPause,
        PortAttachment::RateSwitching,
        PortAttachment::LowPowerIdle,
        PortAttachment::TokenBucketShaper,
    ];

    /// This kind's bit in [`Attachments`].
    #[inline]
    const fn flag(self) -> u8 {
        1 << self as u8
    }
}

/// A port's attachments: at most one of each kind, seen in [`PortAttachment::ALL`]'s
/// order. Three bytes, read on the frame's path with the port's other flags: which kinds
/// are attached, the moments they act on, and the one kind when there is exactly one (most ports that have any),
/// so that the frame's path goes to it without testing the others.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Attachments {
    present: u8,
    watched: u8,
    sole: Option<PortAttachment>,
}

impl Attachments {
    /// Attaches `mechanism` (once: attaching it again changes nothing).
    pub fn attach(&mut self, mechanism: PortAttachment) {
        self.present |= mechanism.flag();
        self.watched |= mechanism.watches();
        self.sole = if self.present.is_power_of_two() { Some(mechanism) } else { None };
    }

    /// Whether `mechanism` is attached.
    #[inline]
    pub const fn has(&self, mechanism: PortAttachment) -> bool {
        self.present & mechanism.flag() != 0
    }

    /// Whether nothing is attached.
    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.present == 0
    }

    /// The [`Moment::bit`]s some attachment acts on (none: nothing is attached).
    #[inline]
    pub const fn watched(&self) -> u8 {
        self.watched
    }

    /// Whether some attachment acts on a moment of this [`Moment::bit`].
    #[inline]
    pub const fn watch(&self, bit: u8) -> bool {
        self.watched & bit != 0
    }

    /// Whether `mechanism`, attached, acts on a moment of this [`Moment::bit`].
    #[inline]
    pub const fn shows(&self, mechanism: PortAttachment, bit: u8) -> bool {
        self.has(mechanism) && mechanism.watches() & bit != 0
    }

    /// The port's one attachment, if it has exactly one.
    #[inline]
    pub const fn sole(&self) -> Option<PortAttachment> {
        self.sole
    }

    /// The attachments, in the order they see a moment.
    pub fn iter(&self) -> impl Iterator<Item = PortAttachment> + '_ {
        PortAttachment::ALL.into_iter().filter(|m| self.has(*m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attachments_keep_one_order_whatever_the_order_they_came_in() {
        let mut a = Attachments::default();
        assert!(a.is_empty() && a.sole().is_none());
        a.attach(PortAttachment::LowPowerIdle);
        assert_eq!(a.sole(), Some(PortAttachment::LowPowerIdle));
        a.attach(PortAttachment::ThresholdPause);
        a.attach(PortAttachment::LowPowerIdle);
        let order: Vec<_> = a.iter().collect();
        assert_eq!(order, [PortAttachment::ThresholdPause, PortAttachment::LowPowerIdle]);
        assert!(a.sole().is_none() && !a.is_empty(), "two kinds: no sole one");
        assert!(a.has(PortAttachment::ThresholdPause) && !a.has(PortAttachment::RateSwitching));
        assert!(a.watch(Moment::ControlQueued.bit(false)), "LPI wakes for control frames");
        assert!(a.watch(Moment::Forwarded { from: PortId(3) }.bit(false)), "threshold PAUSE sees arrivals");
        assert!(!a.watch(Moment::Enqueued(64).bit(false)), "LPI acts on a frame queued only at a held gate");
        assert!(a.watch(Moment::Enqueued(64).bit(true)));
    }

    #[test]
    fn each_mechanism_watches_the_moments_it_acts_on() {
        use PortAttachment::*;
        let forwarded = Moment::Forwarded { from: PortId(0) }.bit(false);
        let (queued, queued_held) = (Moment::Enqueued(64).bit(false), Moment::Enqueued(64).bit(true));
        let all = |m| {
            let mut a = Attachments::default();
            a.attach(m);
            a
        };
        assert!(all(ThresholdPause).shows(ThresholdPause, forwarded));
        assert!(!all(ThresholdPause).shows(ThresholdPause, queued_held));
        assert!(
            all(RateSwitching).shows(RateSwitching, queued)
                && all(RateSwitching).shows(RateSwitching, queued_held)
        );
        assert!(
            !all(RateSwitching).watch(forwarded)
                && !all(RateSwitching).watch(Moment::ControlQueued.bit(false))
        );
        assert!(!all(LowPowerIdle).watch(queued) && all(LowPowerIdle).watch(queued_held));
        assert!(!all(LowPowerIdle).watch(Moment::Dequeued(64).bit(false)));
        assert!(all(TokenBucketShaper).watch(Moment::Dequeued(64).bit(false)));
        assert!(!all(TokenBucketShaper).shows(LowPowerIdle, Moment::Empty.bit(false)), "not attached");
    }

    #[test]
    fn each_kind_has_its_own_flag_in_the_order_of_all() {
        for (i, m) in PortAttachment::ALL.into_iter().enumerate() {
            assert_eq!(m.flag(), 1 << i);
            let mut one = Attachments::default();
            one.attach(m);
            assert_eq!((one.sole(), one.iter().count()), (Some(m), 1));
        }
    }
}

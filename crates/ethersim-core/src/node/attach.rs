//! A port's attachments: the mechanisms, besides its queue policy, that are shown the
//! moments of its queue (a frame queued, a frame started, the queue empty, a MAC control
//! frame queued, a frame forwarded to it by a switch input).
//!
//! A port holds at most one of each kind, seen in one fixed order. It knows the kinds by
//! number only: which mechanism each number is, and which moments it acts on, is the
//! attachment registry's (`sim/attach/`), which dispatches statically to the
//! mechanism's own room. A port with none costs one test on the frame's path; a port
//! with one goes straight to it.

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

/// The moment bits ([`Moment::bit`]), from which the registry makes each kind's watch
/// mask.
pub mod bits {
    /// A data frame queued at a port whose gate is open (or held for a while).
    pub const ENQUEUED: u8 = 1;
    /// A data frame started.
    pub const DEQUEUED: u8 = 2;
    /// The wire went idle with nothing waiting.
    pub const EMPTY: u8 = 4;
    /// A MAC control frame queued.
    pub const CONTROL_QUEUED: u8 = 8;
    /// A frame forwarded to the port by a switch input.
    pub const FORWARDED: u8 = 16;
    /// A data frame queued at a gate held until a mechanism opens it (a sleeping PHY's).
    pub const ENQUEUED_HELD: u8 = 32;
}

use bits::{CONTROL_QUEUED, DEQUEUED, EMPTY, ENQUEUED, ENQUEUED_HELD, FORWARDED};

/// The most kinds of attachment (one bit each in [`Attachments`]).
pub const MAX_KINDS: u8 = 8;

/// No kind (in [`Attachments`]'s `sole`).
const NO_KIND: u8 = u8::MAX;

/// A port's attachments: at most one of each kind (a number below [`MAX_KINDS`]: its
/// place in the order the mechanisms of one port see a moment), with the moments any of
/// them acts on. Three bytes, read on the frame's path with the port's other flags:
/// which kinds are attached, the moments they watch, and the one kind when there is
/// exactly one (most ports that have any), so that the frame's path goes to it without
/// testing the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attachments {
    present: u8,
    watched: u8,
    sole: u8,
}

impl Default for Attachments {
    fn default() -> Self {
        Attachments { present: 0, watched: 0, sole: NO_KIND }
    }
}

impl Attachments {
    /// Attaches a mechanism of `kind` that acts on the moments of the bits `watches`
    /// (once: attaching it again changes nothing).
    pub fn attach(&mut self, kind: u8, watches: u8) {
        assert!(kind < MAX_KINDS, "attachment kind {kind} is not below {MAX_KINDS}");
        self.present |= 1 << kind;
        self.watched |= watches;
        self.sole = if self.present.is_power_of_two() { kind } else { NO_KIND };
    }

    /// Whether a mechanism of `kind` is attached.
    #[inline]
    pub const fn has(&self, kind: u8) -> bool {
        kind < MAX_KINDS && self.present & (1 << kind) != 0
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

    /// The kind of the port's one attachment, if it has exactly one.
    #[inline]
    pub const fn sole(&self) -> Option<u8> {
        if self.sole == NO_KIND {
            None
        } else {
            Some(self.sole)
        }
    }

    /// The kinds attached, in the order they see a moment.
    pub fn kinds(&self) -> impl Iterator<Item = u8> + '_ {
        (0..MAX_KINDS).filter(|&k| self.has(k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attachments_keep_one_order_whatever_the_order_they_came_in() {
        let mut a = Attachments::default();
        assert!(a.is_empty() && a.sole().is_none() && a.watched() == 0);
        a.attach(2, ENQUEUED_HELD | EMPTY | CONTROL_QUEUED);
        assert_eq!(a.sole(), Some(2));
        a.attach(0, FORWARDED | DEQUEUED | EMPTY);
        a.attach(2, ENQUEUED_HELD | EMPTY | CONTROL_QUEUED);
        assert_eq!(a.kinds().collect::<Vec<_>>(), [0, 2]);
        assert!(a.sole().is_none() && !a.is_empty(), "two kinds: no sole one");
        assert!(a.has(0) && !a.has(1) && !a.has(MAX_KINDS));
        assert!(
            a.watch(Moment::ControlQueued.bit(false))
                && a.watch(Moment::Forwarded { from: PortId(3) }.bit(false))
        );
        assert!(!a.watch(Moment::Enqueued(64).bit(false)), "only a frame queued at a held gate is watched");
        assert!(a.watch(Moment::Enqueued(64).bit(true)));
    }

    #[test]
    fn each_moment_has_its_bit_and_an_enqueue_may_have_either() {
        let all = [
            Moment::Enqueued(1).bit(false),
            Moment::Enqueued(1).bit(true),
            Moment::Dequeued(1).bit(false),
            Moment::Empty.bit(false),
            Moment::ControlQueued.bit(false),
            Moment::Forwarded { from: PortId(0) }.bit(false),
        ];
        assert_eq!(all, [ENQUEUED, ENQUEUED_HELD, DEQUEUED, EMPTY, CONTROL_QUEUED, FORWARDED]);
        assert_eq!(Moment::Enqueued(1).any_bit(), ENQUEUED | ENQUEUED_HELD);
        assert_eq!(Moment::Empty.any_bit(), EMPTY);
    }
}

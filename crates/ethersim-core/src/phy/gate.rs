//! A port's transmit gate: the one place a port asks whether a frame may start.
//!
//! Several mechanisms may hold a port's transmitter, each for its own reason and each
//! on its own clock: the link is dark (an outage, a rate switch), the PHY is asleep or
//! waking (Low Power Idle), the link partner sent PAUSE, a queue policy is holding
//! frames to send them as a burst. Each mechanism is a [`Closer`] with its own slot; it
//! closes the gate until an instant (the gate reopens by itself then) or until it opens
//! it again, and never touches another closer's slot. The gate is open for a frame when
//! no closer that holds that class of frame is closed.
//!
//! MAC control frames pass closers that hold only data: IEEE 802.3 Annex 31B lets a
//! paused MAC still send MAC control frames, so two ports that pause each other never
//! deadlock. Closers of the physical layer hold every frame: nothing crosses a dark link.

use crate::time::SimTime;

/// A mechanism that can hold a port's transmitter: its slot in the gate.
///
/// The gate knows its closers by number. Its own (the link, the PHY, a queue policy,
/// the host's driver) are named here; each port mechanism that holds data frames (PAUSE,
/// a shaper) takes one of the slots after them, [`Closer::of_mechanism`], numbered by
/// the registry of port mechanisms (`sim/attach/`), so the gate names no mechanism.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Closer(u8);

impl Closer {
    /// Slots a gate has: its own four, and the mechanisms' after them.
    pub const SLOTS: usize = 6;

    /// The link carries nothing (a scheduled outage, a rate switch). Holds every frame.
    pub const LINK: Closer = Closer(0);
    /// The transmitting PHY is not ready (asleep or waking). Holds every frame.
    pub const PHY: Closer = Closer(1);
    /// A queue policy (frame coalescing, say). Holds data frames only.
    pub const POLICY: Closer = Closer(2);
    /// The host's driver: after each frame the controller waits for the host to service
    /// its interrupt before it can start the next one. Holds data frames only.
    pub const DRIVER: Closer = Closer(3);

    /// The closers of the physical layer, which hold MAC control frames too: the first
    /// this many slots.
    const HOLDING_CONTROL: usize = 2;
    /// The first slot of the mechanisms' closers.
    const FIRST_OF_MECHANISMS: u8 = 4;

    /// The closer of port mechanism `n` (0, 1, …): it holds data frames only.
    ///
    /// # Panics
    /// At compile time when used in a constant (as the registry does), if the gate has no
    /// slot `n`.
    pub const fn of_mechanism(n: u8) -> Closer {
        assert!(
            (Closer::FIRST_OF_MECHANISMS as usize) + (n as usize) < Closer::SLOTS,
            "the gate has no slot for this mechanism: raise Closer::SLOTS"
        );
        Closer(Closer::FIRST_OF_MECHANISMS + n)
    }

    /// Its slot.
    #[inline]
    pub const fn slot(self) -> usize {
        self.0 as usize
    }

    /// Whether this closer also holds MAC control frames.
    pub const fn holds_control(self) -> bool {
        self.slot() < Closer::HOLDING_CONTROL
    }
}

/// The two classes of frame a gate tells apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameClass {
    /// MAC control frames (PAUSE): held only by the physical layer.
    Control,
    /// Everything else.
    Data,
}

/// Whether a frame of some class may start now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GateState {
    /// It may start.
    Open,
    /// Not before this instant (the gate reopens by itself then, unless closed again).
    ClosedUntil(SimTime),
    /// Not until a closer opens the gate.
    Closed,
}

/// The transmit gate of one port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxGate {
    /// Per closer: closed until this instant (at or before now: open; `NEVER`: until opened).
    until: [SimTime; Closer::SLOTS],
    /// The latest of `until`: at or before now, every closer is open (the common case,
    /// answered with one comparison).
    latest: SimTime,
}

impl Default for TxGate {
    fn default() -> Self {
        TxGate { until: [SimTime::ZERO; Closer::SLOTS], latest: SimTime::ZERO }
    }
}

impl TxGate {
    /// `closer` holds the gate until `until` ([`SimTime::NEVER`]: until it opens it).
    /// A later call replaces an earlier one of the same closer.
    pub fn close(&mut self, closer: Closer, until: SimTime) {
        self.until[closer.slot()] = until;
        self.latest = self.until.iter().copied().max().unwrap_or(SimTime::ZERO);
    }

    /// `closer` releases the gate.
    pub fn open(&mut self, closer: Closer) {
        self.close(closer, SimTime::ZERO);
    }

    /// Whether no closer holds the gate at `now`.
    #[inline]
    pub fn is_open(&self, now: SimTime) -> bool {
        self.latest <= now
    }

    /// Whether some closer holds the gate until it opens it (rather than until an
    /// instant).
    #[inline]
    pub fn held_until_opened(&self) -> bool {
        self.latest.is_never()
    }

    /// Whether `closer` holds the gate at `now`.
    pub fn is_closed_by(&self, closer: Closer, now: SimTime) -> bool {
        self.until[closer.slot()] > now
    }

    /// Until when `closer` holds the gate, if it does at `now`.
    pub fn closed_until(&self, closer: Closer, now: SimTime) -> Option<SimTime> {
        let u = self.until[closer.slot()];
        (u > now).then_some(u)
    }

    /// Whether a frame of `class` may start at `now`, and if not, until when.
    pub fn state(&self, now: SimTime, class: FrameClass) -> GateState {
        if self.is_open(now) {
            return GateState::Open;
        }
        if class == FrameClass::Data {
            // Every closer holds data: the latest of them decides.
            return if self.latest.is_never() {
                GateState::Closed
            } else {
                GateState::ClosedUntil(self.latest)
            };
        }
        let mut latest = now;
        // A control frame: only the closers of the physical layer hold it.
        for &until in &self.until[..Closer::HOLDING_CONTROL] {
            latest = latest.max(until);
        }
        if latest == now {
            GateState::Open
        } else if latest.is_never() {
            GateState::Closed
        } else {
            GateState::ClosedUntil(latest)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mechanism's closer, which holds data only (as PAUSE's does).
    const PAUSE: Closer = Closer::of_mechanism(0);

    #[test]
    fn a_fresh_gate_is_open() {
        assert_eq!(TxGate::default().state(SimTime::ZERO, FrameClass::Data), GateState::Open);
    }

    #[test]
    fn the_gate_reopens_by_itself_at_the_instant_it_was_closed_until() {
        let mut g = TxGate::default();
        g.close(Closer::LINK, SimTime(100));
        assert_eq!(g.state(SimTime(99), FrameClass::Data), GateState::ClosedUntil(SimTime(100)));
        assert_eq!(g.state(SimTime(100), FrameClass::Data), GateState::Open);
    }

    #[test]
    fn the_latest_closer_decides_and_closed_until_opened_wins() {
        let mut g = TxGate::default();
        g.close(Closer::LINK, SimTime(100));
        g.close(Closer::POLICY, SimTime(300));
        assert_eq!(g.state(SimTime(0), FrameClass::Data), GateState::ClosedUntil(SimTime(300)));
        assert!(!g.held_until_opened());
        g.close(Closer::PHY, SimTime::NEVER);
        assert_eq!(g.state(SimTime(0), FrameClass::Data), GateState::Closed);
        assert!(g.held_until_opened());
        g.open(Closer::PHY);
        g.open(Closer::POLICY);
        assert_eq!(g.state(SimTime(0), FrameClass::Data), GateState::ClosedUntil(SimTime(100)));
    }

    #[test]
    fn pause_holds_data_but_never_mac_control() {
        let mut g = TxGate::default();
        g.close(PAUSE, SimTime::NEVER);
        assert_eq!(g.state(SimTime(0), FrameClass::Data), GateState::Closed);
        assert_eq!(g.state(SimTime(0), FrameClass::Control), GateState::Open);
        g.close(Closer::LINK, SimTime(50));
        assert_eq!(g.state(SimTime(0), FrameClass::Control), GateState::ClosedUntil(SimTime(50)));
    }

    #[test]
    fn a_new_close_replaces_the_running_one_of_the_same_closer() {
        let mut g = TxGate::default();
        g.close(PAUSE, SimTime(1000));
        g.close(PAUSE, SimTime(10));
        assert_eq!(g.closed_until(PAUSE, SimTime(0)), Some(SimTime(10)));
        assert!(!g.is_closed_by(PAUSE, SimTime(10)));
    }
}

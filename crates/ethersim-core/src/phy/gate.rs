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

/// A mechanism that can hold a port's transmitter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Closer {
    /// The link carries nothing (a scheduled outage, a rate switch). Holds every frame.
    Link = 0,
    /// The transmitting PHY is not ready (asleep or waking). Holds every frame.
    Phy = 1,
    /// PAUSE from the link partner (802.3 Annex 31B). Holds data frames only.
    Pause = 2,
    /// A queue policy (frame coalescing, say). Holds data frames only.
    Policy = 3,
    /// The host's driver: after each frame the controller waits for the host to service
    /// its interrupt before it can start the next one. Holds data frames only.
    Driver = 4,
    /// A token-bucket shaper whose credit is below zero (`mechanisms/shaper/`). Holds data
    /// frames only.
    Shaper = 5,
}

impl Closer {
    /// Every closer, in slot order.
    pub const ALL: [Closer; 6] =
        [Closer::Link, Closer::Phy, Closer::Pause, Closer::Policy, Closer::Driver, Closer::Shaper];

    /// Whether this closer also holds MAC control frames.
    pub const fn holds_control(self) -> bool {
        matches!(self, Closer::Link | Closer::Phy)
    }

    /// Its name in results and traces.
    pub const fn name(self) -> &'static str {
        match self {
            Closer::Link => "link",
            Closer::Phy => "phy",
            Closer::Pause => "pause",
            Closer::Policy => "policy",
            Closer::Driver => "driver",
            Closer::Shaper => "shaper",
        }
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
    until: [SimTime; Closer::ALL.len()],
    /// The latest of `until`: at or before now, every closer is open (the common case,
    /// answered with one comparison).
    latest: SimTime,
}

impl Default for TxGate {
    fn default() -> Self {
        TxGate { until: [SimTime::ZERO; Closer::ALL.len()], latest: SimTime::ZERO }
    }
}

impl TxGate {
    /// `closer` holds the gate until `until` ([`SimTime::NEVER`]: until it opens it).
    /// A later call replaces an earlier one of the same closer.
    pub fn close(&mut self, closer: Closer, until: SimTime) {
        self.until[closer as usize] = until;
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
        self.until[closer as usize] > now
    }

    /// Until when `closer` holds the gate, if it does at `now`.
    pub fn closed_until(&self, closer: Closer, now: SimTime) -> Option<SimTime> {
        let u = self.until[closer as usize];
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
        for closer in Closer::ALL {
            if class == FrameClass::Control && !closer.holds_control() {
                continue;
            }
            latest = latest.max(self.until[closer as usize]);
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

    #[test]
    fn a_fresh_gate_is_open() {
        assert_eq!(TxGate::default().state(SimTime::ZERO, FrameClass::Data), GateState::Open);
    }

    #[test]
    fn the_gate_reopens_by_itself_at_the_instant_it_was_closed_until() {
        let mut g = TxGate::default();
        g.close(Closer::Link, SimTime(100));
        assert_eq!(g.state(SimTime(99), FrameClass::Data), GateState::ClosedUntil(SimTime(100)));
        assert_eq!(g.state(SimTime(100), FrameClass::Data), GateState::Open);
    }

    #[test]
    fn the_latest_closer_decides_and_closed_until_opened_wins() {
        let mut g = TxGate::default();
        g.close(Closer::Link, SimTime(100));
        g.close(Closer::Policy, SimTime(300));
        assert_eq!(g.state(SimTime(0), FrameClass::Data), GateState::ClosedUntil(SimTime(300)));
        assert!(!g.held_until_opened());
        g.close(Closer::Phy, SimTime::NEVER);
        assert_eq!(g.state(SimTime(0), FrameClass::Data), GateState::Closed);
        assert!(g.held_until_opened());
        g.open(Closer::Phy);
        g.open(Closer::Policy);
        assert_eq!(g.state(SimTime(0), FrameClass::Data), GateState::ClosedUntil(SimTime(100)));
    }

    #[test]
    fn pause_holds_data_but_never_mac_control() {
        let mut g = TxGate::default();
        g.close(Closer::Pause, SimTime::NEVER);
        assert_eq!(g.state(SimTime(0), FrameClass::Data), GateState::Closed);
        assert_eq!(g.state(SimTime(0), FrameClass::Control), GateState::Open);
        g.close(Closer::Link, SimTime(50));
        assert_eq!(g.state(SimTime(0), FrameClass::Control), GateState::ClosedUntil(SimTime(50)));
    }

    #[test]
    fn a_new_close_replaces_the_running_one_of_the_same_closer() {
        let mut g = TxGate::default();
        g.close(Closer::Pause, SimTime(1000));
        g.close(Closer::Pause, SimTime(10));
        assert_eq!(g.closed_until(Closer::Pause, SimTime(0)), Some(SimTime(10)));
        assert!(!g.is_closed_by(Closer::Pause, SimTime(10)));
    }
}

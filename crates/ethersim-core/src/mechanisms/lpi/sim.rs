//! Energy Efficient Ethernet: a link's LPI PHYs meet its ports. A port going idle asks
//! the PHY's policy when to sleep; a frame queued while the PHY is not Active asks when
//! to wake; the policy's timer carries out what it decided. A sleeping PHY closes its
//! ports' gates with `Closer::PHY` (holding every frame); a wake reopens them when it
//! ends. The state machines are in `phy/machine.rs`, the policies in `phy/policy.rs`.

use crate::engine::{Generation, Scheduler};
use crate::ids::{LinkId, PortId};
use crate::mechanisms::lpi::phy::machine::{LpiState, Pending};
use crate::mechanisms::lpi::phy::policy::When;
use crate::node::Moment;
use crate::phy::Closer;
use crate::sim::attach::MechanismTimer;
use crate::sim::event::Event;
use crate::sim::network::Network;
use crate::time::SimTime;

impl Network {
    /// A moment of `port`'s queue, an end of a link with LPI PHYs: an idle port may let
    /// its PHY sleep; a frame queued at a sleeping PHY may wake it (a MAC control frame
    /// does, at once). An awake or waking PHY sends a queued frame in its turn, and has
    /// nothing to do as a frame starts.
    // Inlined, with the two below, into the attachments' out-of-line entry for the
    // moment (`sim/attach/dispatch.rs`): one call from the frame's path.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub(crate) fn lpi_moment(&mut self, sched: &mut Scheduler<Event>, port: PortId, moment: Moment) {
        match moment {
            // Shown only for a frame queued at a gate held until opened, a sleeping
            // PHY's (its watch mask, `node/attach.rs`): an awake or waking one sends the
            // frame in its turn.
            Moment::Enqueued(_) => self.lpi_on_enqueue(sched, port, false),
            Moment::ControlQueued => self.lpi_on_enqueue(sched, port, true),
            Moment::Empty => self.lpi_on_idle(sched, port),
            Moment::Dequeued(_) | Moment::Forwarded { .. } => {}
        }
    }

    /// A frame (data or MAC control) joined `port`'s queue: a PHY that is not Active
    /// asks its policy when to wake.
    /// A MAC control frame (`control`) wakes the PHY at once whatever the policy
    /// (coalescing holds data only: a PAUSE held back would defeat it).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn lpi_on_enqueue(&mut self, sched: &mut Scheduler<Event>, port: PortId, control: bool) {
        let now = sched.now();
        let (link, end) = (self.ports[port.index()].link, self.ports[port.index()].end);
        let ends = self.links[link.index()].ends;
        let Some(eee) = self.attached.eee.get_mut(link) else { return };
        let u = eee.unit_of(end);
        let dirs = eee.dirs_of(u);
        let unit = &mut eee.units[u];
        match unit.lpi.state(now) {
            // Awake: the frame goes at once or behind the one on the wire. A pending idle
            // timeout is left armed: when it fires it finds the port busy, or re-armed by
            // the idle that followed (`lpi_consider_sleep`), so frames sent while awake cost
            // the PHY nothing (a port with only LPI watching is not even asked).
            LpiState::Active | LpiState::Wake => {}
            LpiState::Sleep | LpiState::Quiet => {
                let when = if control {
                    When::Now
                } else {
                    let ports = &self.ports;
                    unit.policy
                        .on_arrival(now, || dirs.iter().map(|&d| ports[ends[d].index()].waiting()).sum())
                };
                match when {
                    When::Now => {
                        let active_at = unit.begin_wake(now);
                        self.lpi_gates(sched, ends, dirs, active_at, Some(port));
                    }
                    When::At(t)
                        if unit.pending != Pending::Wake || unit.timer.deadline().is_some_and(|d| t < d) =>
                    {
                        unit.pending = Pending::Wake;
                        sched.arm(&mut unit.timer, t, |generation| {
                            MechanismTimer::Lpi { unit: u as u8 }.event(link.0, generation)
                        });
                    }
                    When::At(_) | When::Never => {}
                }
            }
        }
    }

    /// `port` went idle with nothing waiting: if every port of its PHY is, the policy
    /// says when to sleep.
    #[inline]
    fn lpi_on_idle(&mut self, sched: &mut Scheduler<Event>, port: PortId) {
        let (link, end) = (self.ports[port.index()].link, self.ports[port.index()].end);
        let Some(eee) = self.attached.eee.get(link) else { return };
        let u = eee.unit_of(end);
        // A PHY of one direction transmits through `port` alone, which is idle.
        if eee.symmetric() && !self.lpi_idle(link, u, sched.now()) {
            return;
        }
        self.lpi_consider_sleep(sched, link, u);
    }

    /// Whether every port the PHY `u` of `link` transmits through is idle with nothing
    /// waiting at `now`.
    fn lpi_idle(&self, link: LinkId, u: usize, now: SimTime) -> bool {
        let l = &self.links[link.index()];
        let dirs = self.attached.eee.get(link).map_or(&[][..], |e| e.dirs_of(u));
        dirs.iter().all(|&d| {
            let p = &self.ports[l.ends[d].index()];
            !p.busy_at(now) && p.nothing_waits()
        })
    }

    /// The PHY's transmitters are idle: an Active PHY asks its policy when to sleep. An
    /// idle timeout re-arms from now, moving a pending one later.
    #[inline]
    fn lpi_consider_sleep(&mut self, sched: &mut Scheduler<Event>, link: LinkId, u: usize) {
        let now = sched.now();
        let Some(eee) = self.attached.eee.get_mut(link) else { return };
        let dirs = eee.dirs_of(u);
        let unit = &mut eee.units[u];
        if unit.lpi.state(now) != LpiState::Active {
            return;
        }
        match unit.policy.on_idle(now) {
            When::Now => {
                unit.begin_sleep(now);
                let ends = self.links[link.index()].ends;
                self.lpi_gates(sched, ends, dirs, SimTime::NEVER, None);
            }
            When::At(t) => {
                unit.pending = Pending::Sleep;
                sched.arm(&mut unit.timer, t, |generation| {
                    MechanismTimer::Lpi { unit: u as u8 }.event(link.0, generation)
                });
            }
            When::Never => {}
        }
    }

    /// The PHY goes to sleep: its ports' gates close until it wakes. Nothing waits (the
    /// ports are idle), so no port needs a look now.
    fn lpi_sleep(&mut self, sched: &mut Scheduler<Event>, link: LinkId, u: usize) {
        let ends = self.links[link.index()].ends;
        let Some(eee) = self.attached.eee.get_mut(link) else { return };
        let dirs = eee.dirs_of(u);
        eee.units[u].begin_sleep(sched.now());
        self.lpi_gates(sched, ends, dirs, SimTime::NEVER, None);
    }

    /// The PHY wakes (coalescing's timer): frames wait at both ends, so each end looks.
    fn lpi_wake(&mut self, sched: &mut Scheduler<Event>, link: LinkId, u: usize) {
        let ends = self.links[link.index()].ends;
        let Some(eee) = self.attached.eee.get_mut(link) else { return };
        let dirs = eee.dirs_of(u);
        let active_at = eee.units[u].begin_wake(sched.now());
        self.lpi_gates(sched, ends, dirs, active_at, None);
    }

    /// A PHY transmitting on `dirs` of a link with `ends` slept or woke: the Phy closer of
    /// its ports holds them until `until` (they reopen by themselves when a wake ends). A
    /// waking port with frames waiting gets its wake-up armed (`by`, if a frame queued
    /// there woke the PHY, does so itself as it queues it).
    #[inline]
    fn lpi_gates(
        &mut self,
        sched: &mut Scheduler<Event>,
        ends: [PortId; 2],
        dirs: &[usize],
        until: SimTime,
        by: Option<PortId>,
    ) {
        let now = sched.now();
        for &d in dirs {
            let port = ends[d];
            self.change_gate(now, port, Closer::PHY, Some(until));
            if !until.is_never() && Some(port) != by && !self.ports[port.index()].nothing_waits() {
                self.try_start(sched, port);
            }
        }
    }

    // A rare event: kept out of the event dispatch, which must stay small enough to be
    // inlined into the event loop.
    #[inline(never)]
    pub(crate) fn on_lpi_timer(
        &mut self,
        sched: &mut Scheduler<Event>,
        link: LinkId,
        u: usize,
        generation: Generation,
    ) {
        let Some(eee) = self.attached.eee.get_mut(link) else { return };
        let unit = &mut eee.units[u];
        let event = |generation| MechanismTimer::Lpi { unit: u as u8 }.event(link.0, generation);
        if !sched.timer_fires(&mut unit.timer, generation, event) {
            return;
        }
        match std::mem::replace(&mut unit.pending, Pending::None) {
            // The timeout ran out: asleep if still idle (a frame sent since re-armed it
            // when it ended; one on the wire or waiting now keeps the PHY awake).
            Pending::Sleep => {
                if self.lpi_idle(link, u, sched.now()) {
                    self.lpi_sleep(sched, link, u);
                }
            }
            Pending::Wake => self.lpi_wake(sched, link, u),
            Pending::Idle => {
                if self.lpi_idle(link, u, sched.now()) {
                    self.lpi_consider_sleep(sched, link, u);
                }
            }
            Pending::None => {}
        }
    }

    /// Every LPI PHY asks its policy when to sleep at the start, as if it had just gone
    /// idle (`Pending::Idle`: the timer finds out whether it still is).
    pub(crate) fn start_lpi(&mut self, sched: &mut Scheduler<Event>) {
        for i in 0..self.links.len() {
            let link = LinkId(i as u32);
            if let Some(eee) = self.attached.eee.get_mut(link) {
                for (u, unit) in eee.units.iter_mut().enumerate() {
                    unit.pending = Pending::Idle;
                    let unit_id = u as u8;
                    sched.arm(&mut unit.timer, SimTime::ZERO, |generation| {
                        MechanismTimer::Lpi { unit: unit_id }.event(link.0, generation)
                    });
                }
            }
        }
    }
}

//! Energy Efficient Ethernet: a link's LPI PHYs meet its ports. A port going idle asks
//! the PHY's policy when to sleep; a frame queued while the PHY is not Active asks when
//! to wake; the policy's timer carries out what it decided. A sleeping PHY closes its
//! ports' gates with `Closer::Phy` (holding every frame); a wake reopens them when it
//! ends. The state machines are in `phy/lpi.rs`.

use crate::engine::{Generation, Scheduler};
use crate::ids::{LinkId, PortId};
use crate::phy::{Closer, LpiState, Pending, When};
use crate::sim::event::Event;
use crate::sim::network::Network;
use crate::sim::trace::TraceRecord;
use crate::time::SimTime;

impl Network {
    /// The ports a PHY of `link` transmits through.
    fn lpi_ports(&self, link: LinkId, unit: usize) -> impl Iterator<Item = PortId> + '_ {
        let l = &self.links[link.index()];
        let dirs = l.eee.as_ref().map_or(&[][..], |e| e.dirs_of(unit));
        dirs.iter().map(move |&d| l.ends[d])
    }

    /// A frame (data or MAC control) joined `port`'s queue: an Active PHY cancels a
    /// pending sleep; one that is not asks its policy when to wake.
    /// A MAC control frame (`control`) wakes the PHY at once whatever the policy
    /// (coalescing holds data only: a PAUSE held back would defeat it).
    pub(in crate::sim) fn lpi_on_enqueue(
        &mut self,
        sched: &mut Scheduler<Event>,
        port: PortId,
        control: bool,
    ) {
        let now = sched.now();
        let (link, end) = (self.ports[port.index()].link, self.ports[port.index()].end);
        let Some(eee) = self.links[link.index()].eee.as_deref_mut() else { return };
        let u = eee.unit_of(end);
        let unit = &mut eee.units[u];
        match unit.lpi.state(now) {
            LpiState::Active => {
                if unit.pending != Pending::None {
                    unit.pending = Pending::None;
                    unit.timer.cancel();
                }
            }
            LpiState::Wake => {}
            LpiState::Sleep | LpiState::Quiet => {
                let waiting: usize = self.lpi_ports(link, u).map(|p| self.ports[p.index()].waiting()).sum();
                let Some(eee) = self.links[link.index()].eee.as_deref_mut() else { return };
                let unit = &mut eee.units[u];
                let when = if control { When::Now } else { unit.policy.on_arrival(now, waiting) };
                match when {
                    When::Now => self.lpi_wake(sched, link, u, port),
                    When::At(t)
                        if unit.pending != Pending::Wake || unit.timer.deadline().is_some_and(|d| t < d) =>
                    {
                        unit.pending = Pending::Wake;
                        sched.arm(&mut unit.timer, t, |generation| Event::LpiTimer {
                            link,
                            unit: u as u8,
                            generation,
                        });
                    }
                    When::At(_) | When::Never => {}
                }
            }
        }
    }

    /// `port` went idle with nothing waiting: if every port of its PHY is, the policy
    /// says when to sleep.
    pub(in crate::sim) fn lpi_on_idle(&mut self, sched: &mut Scheduler<Event>, port: PortId) {
        let (link, end) = (self.ports[port.index()].link, self.ports[port.index()].end);
        let Some(eee) = self.links[link.index()].eee.as_deref() else { return };
        let u = eee.unit_of(end);
        self.lpi_consider_sleep(sched, link, u);
    }

    fn lpi_consider_sleep(&mut self, sched: &mut Scheduler<Event>, link: LinkId, u: usize) {
        let now = sched.now();
        let l = &mut self.links[link.index()];
        let Some(eee) = l.eee.as_deref_mut() else { return };
        let (dirs, ends) = (eee.dirs_of(u), l.ends);
        let unit = &mut eee.units[u];
        if unit.pending == Pending::Sleep || unit.lpi.state(now) != LpiState::Active {
            return;
        }
        let idle = dirs.iter().all(|&d| {
            let p = &self.ports[ends[d].index()];
            !p.busy_at(now) && p.nothing_waits()
        });
        if !idle {
            return;
        }
        match unit.policy.on_idle(now) {
            When::Now => self.lpi_sleep(sched, link, u),
            When::At(t) => {
                unit.pending = Pending::Sleep;
                sched.arm(&mut unit.timer, t, |generation| Event::LpiTimer {
                    link,
                    unit: u as u8,
                    generation,
                });
            }
            When::Never => {}
        }
    }

    /// The PHY goes to sleep: its ports' gates close until it wakes. Nothing waits (the
    /// ports are idle), so no port needs a look now.
    fn lpi_sleep(&mut self, sched: &mut Scheduler<Event>, link: LinkId, u: usize) {
        let now = sched.now();
        let Some(eee) = self.links[link.index()].eee.as_deref_mut() else { return };
        let unit = &mut eee.units[u];
        unit.pending = Pending::None;
        unit.timer.cancel();
        unit.lpi.sleep(now);
        let (dirs, ends) = (eee.dirs_of(u), self.links[link.index()].ends);
        for &d in dirs {
            let port = ends[d];
            self.ports[port.index()].gate.close(Closer::Phy, SimTime::NEVER);
            self.trace.emit(now, || TraceRecord::Gate { port, closer: Closer::Phy, until: SimTime::NEVER });
        }
    }

    /// The PHY wakes: its ports' gates reopen by themselves when the wake ends. A port
    /// with frames waiting gets its wake-up armed (`by`, whose frame woke the PHY, does so
    /// itself as it queues it).
    fn lpi_wake(&mut self, sched: &mut Scheduler<Event>, link: LinkId, u: usize, by: PortId) {
        let now = sched.now();
        let Some(eee) = self.links[link.index()].eee.as_deref_mut() else { return };
        let unit = &mut eee.units[u];
        unit.pending = Pending::None;
        unit.timer.cancel();
        let active_at = unit.lpi.wake(now);
        unit.policy.on_wake();
        let (dirs, ends) = (eee.dirs_of(u), self.links[link.index()].ends);
        for &d in dirs {
            let port = ends[d];
            self.ports[port.index()].gate.close(Closer::Phy, active_at);
            self.trace.emit(now, || TraceRecord::Gate { port, closer: Closer::Phy, until: active_at });
            if port != by && !self.ports[port.index()].nothing_waits() {
                self.try_start(sched, port);
            }
        }
    }

    pub(in crate::sim) fn on_lpi_timer(
        &mut self,
        sched: &mut Scheduler<Event>,
        link: LinkId,
        u: usize,
        generation: Generation,
    ) {
        let Some(eee) = self.links[link.index()].eee.as_deref_mut() else { return };
        let unit = &mut eee.units[u];
        let event = |generation| Event::LpiTimer { link, unit: u as u8, generation };
        if !sched.timer_fires(&mut unit.timer, generation, event) {
            return;
        }
        match std::mem::replace(&mut unit.pending, Pending::None) {
            Pending::Sleep => self.lpi_sleep(sched, link, u),
            Pending::Wake => {
                // Coalescing's timer: frames wait at both ends, so each end looks.
                self.lpi_wake(sched, link, u, PortId(u32::MAX));
            }
            Pending::Idle => self.lpi_consider_sleep(sched, link, u),
            Pending::None => {}
        }
    }
}

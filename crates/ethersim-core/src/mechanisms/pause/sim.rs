//! IEEE 802.3x flow control (802.3 Annex 31B): PAUSE frames received and honoured (or
//! not), PAUSE sent by switch inputs on behalf of congested outputs and refreshed while
//! they stay congested, and periodic PAUSE generators. The state machines are in
//! `node/state.rs`, kept beside the ports (`AttachedState::pause`); here they meet the
//! network.

use crate::engine::{Generation, Scheduler};
use crate::ids::PortId;
use crate::mechanisms::pause::node::state::ThresholdPause;
use crate::mechanisms::pause::wire;
use crate::node::Moment;
use crate::sim::attach::closers;
use crate::sim::attach::MechanismTimer;
use crate::sim::event::Event;
use crate::sim::network::Network;
use crate::time::{BitRate, Duration};
use crate::wire::mac_control;

impl Network {
    /// The current rate of the link direction `port` transmits on.
    fn tx_rate(&self, port: PortId) -> BitRate {
        let p = &self.ports[port.index()];
        self.links[p.link.index()].dirs[p.end].rate()
    }

    /// A PAUSE frame asking for `quanta` arrived whole at `port` (handed here by the
    /// registry): it pauses the port's data transmissions if the port honours PAUSE, and
    /// is counted either way.
    pub(crate) fn on_pause_frame(&mut self, sched: &mut Scheduler<Event>, port: PortId, quanta: u16) {
        let now = sched.now();
        // Quanta are bit times of the receiving MAC's own link (802.3 Annex 31B.2).
        let length = wire::quanta_duration(quanta, self.tx_rate(port));
        let frame_end = self.ports[port.index()].frame_end(now);
        match self.attached.pause[port.index()].rx.on_pause(now, frame_end, length) {
            Some(until) if until <= now => self.open_gate(sched, port, closers::PAUSE),
            Some(until) => self.close_gate(sched, port, closers::PAUSE, until),
            None => {}
        }
    }

    /// Sends a PAUSE frame asking for `quanta` (0: resume) out of `port` to its link
    /// partner, ahead of any queued data.
    /// A PAUSE still waiting in the port's control slot is updated to the new pause time
    /// instead: a MAC sends the current request, not a backlog of them (and a port asked
    /// to pause faster than it can send PAUSE frames does not pile them up).
    pub fn send_pause(&mut self, sched: &mut Scheduler<Event>, port: PortId, quanta: u16) {
        let waiting = self.ports[port.index()].waiting_control();
        if let Some(r) = waiting.filter(|&r| wire::pause_quanta(self.packets.get(r)).is_some()) {
            mac_control::set_parameter(self.packets.get_mut(r), quanta);
            return;
        }
        self.attached.pause[port.index()].rx.sent += 1;
        let p = &self.ports[port.index()];
        let (src, dst) = (p.node, self.ports[p.peer.index()].node);
        self.send_control_frame(sched, port, wire::pause_frame(src, dst, quanta, sched.now()));
    }

    /// A moment of output `out`'s queue, which has threshold flow control: a frame
    /// forwarded to it may pause its input's partner; one leaving may release inputs.
    // Inlined into the attachments' dispatch (`sim/attach/dispatch.rs`): an arrival below the
    // high-water mark costs a test on the frame's path, as before the seam.
    #[inline]
    pub(crate) fn threshold_moment(&mut self, sched: &mut Scheduler<Event>, out: PortId, moment: Moment) {
        match moment {
            Moment::Forwarded { from } => self.threshold_after_arrival(sched, from, out),
            Moment::Dequeued(_) | Moment::Empty => self.threshold_after_departure(sched, out),
            Moment::Enqueued(_) | Moment::ControlQueued => {}
        }
    }

    /// A frame that arrived through switch port `input` was offered to output `out`,
    /// which has threshold flow control: at the high-water mark, `input`'s partner is
    /// paused on `out`'s behalf.
    #[inline]
    fn threshold_after_arrival(&mut self, sched: &mut Scheduler<Event>, input: PortId, out: PortId) {
        let now = sched.now();
        let (held, _) = self.ports[out.index()].queue().held_at(now);
        if !self.attached.pause[out.index()].threshold.as_ref().is_some_and(|t| t.at_high_water(held)) {
            return;
        }
        // At the mark (rare): PAUSE is for full-duplex links (IEEE 802.3 Annex 31B), so an
        // input on a segment is not paused.
        if self.links[self.ports[input.index()].link.index()].is_shared() {
            return;
        }
        let Some(t) = self.attached.pause[out.index()].threshold.as_mut() else { return };
        if t.on_arrival(held, input) {
            let (quanta, release) = (t.quanta, t.release);
            if self.attached.pause[input.index()].hold.take(quanta, release) {
                self.send_pause(sched, input, quanta);
                self.arm_pause_refresh(sched, input);
            }
        }
    }

    /// Output `out` sent a frame or went idle: if its buffer drained to the low-water
    /// mark, the inputs it held paused are released (each with a pause time of 0, once no
    /// other output holds it, or by letting its pause run out).
    #[inline(never)]
    fn threshold_after_departure(&mut self, sched: &mut Scheduler<Event>, out: PortId) {
        let now = sched.now();
        loop {
            // Most departures find no input held: the buffer's level is not even asked.
            let threshold = self.attached.pause[out.index()].threshold.as_ref();
            if !threshold.is_some_and(ThresholdPause::is_holding) {
                return;
            }
            let (held, _) = self.ports[out.index()].queue().held_at(now);
            let threshold = self.attached.pause[out.index()].threshold.as_mut();
            let Some(input) = threshold.and_then(|t| t.next_released(held)) else {
                return;
            };
            if self.attached.pause[input.index()].hold.let_go() == Some(true) {
                self.send_pause(sched, input, 0);
            }
        }
    }

    /// Arms `input`'s refresh: the PAUSE is re-sent when half of it has run, so the
    /// partner's pause never lapses while an output is congested (switch chips re-send
    /// XOFF while over threshold).
    fn arm_pause_refresh(&mut self, sched: &mut Scheduler<Event>, input: PortId) {
        let quanta = self.attached.pause[input.index()].hold.quanta;
        // The partner counts the quanta in bit times of its own link (Annex 31B.2), the
        // direction `input` receives on, which may be faster than the one the PAUSE
        // takes: half the pause at the switch's own rate could outlast it.
        let partner = self.tx_rate(self.ports[input.index()].peer);
        let half = Duration(wire::quanta_duration(quanta, partner).as_ps() / 2);
        // Never sooner than a PAUSE frame takes on the wire (a pause of a few quanta).
        let at = sched.now() + half.max(wire::frame_time(self.tx_rate(input)));
        let timer = &mut self.attached.pause[input.index()].hold.refresh;
        sched.arm(timer, at, |generation| MechanismTimer::PauseRefresh.event(input.0, generation));
    }

    pub(crate) fn on_pause_refresh(
        &mut self,
        sched: &mut Scheduler<Event>,
        port: PortId,
        generation: Generation,
    ) {
        let hold = &mut self.attached.pause[port.index()].hold;
        if !sched.timer_fires(&mut hold.refresh, generation, |generation| {
            MechanismTimer::PauseRefresh.event(port.0, generation)
        }) || hold.holders == 0
        {
            return;
        }
        let quanta = hold.quanta;
        self.send_pause(sched, port, quanta);
        self.arm_pause_refresh(sched, port);
    }

    /// A periodic PAUSE generator sends its frame: the pause asked for, in whole quanta
    /// at the link's current rate (rounded up; at most 65535).
    pub(crate) fn on_pause_tick(&mut self, sched: &mut Scheduler<Event>, port: PortId) {
        let now = sched.now();
        let rate = self.tx_rate(port);
        let Some(g) = self.attached.pause[port.index()].periodic.as_mut() else { return };
        let quanta = wire::quanta_for(g.pause, rate).unwrap_or(wire::MAX_QUANTA);
        if let Some(next) = g.next_after(now) {
            sched.schedule_at(next, MechanismTimer::PauseTick.event(port.0, 0));
        }
        self.send_pause(sched, port, quanta);
    }

    /// Every periodic PAUSE generator's first frame, port by port.
    pub(crate) fn start_periodic_pause(&mut self, sched: &mut Scheduler<Event>) {
        for (i, p) in self.attached.pause.iter().enumerate() {
            if let Some(g) = p.periodic {
                sched.schedule_at(g.start, MechanismTimer::PauseTick.event(i as u32, 0));
            }
        }
    }
}

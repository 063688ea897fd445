//! Link-rate switching and capacity scaling: consulting a link's rate policy at its
//! queues' moments and at its timer, and carrying out a change (both directions, or the
//! one scaled port, dark for the switching time after the frames on the wire, then the
//! new rate); a change asked for within the minimum interval of the last waits for it.
//! Capacity that varies at random is redrawn here too. The policies are in
//! `phy/switching.rs` and `phy/practra.rs`, the link's policy timer is the link's own
//! (`Link::policy_timer`: the link may go dark at its deadline).

use crate::engine::{Generation, Scheduler};
use crate::ids::LinkId;
use crate::node::Moment;
use crate::sim::attach::MechanismTimer;
use crate::sim::event::Event;
use crate::sim::network::Network;
use crate::sim::trace::TraceRecord;

impl Network {
    /// Switches `link` to its rate number `target` (slowest first) now, unless a switch
    /// is under way or it already runs at that rate. No new frame starts on either
    /// direction from now; the frames on the wire finish at the old rate; then the link
    /// is dark for its switching time, and carries frames at the new rate.
    pub fn switch_rate(&mut self, sched: &mut Scheduler<Event>, link: LinkId, target: usize) {
        let now = sched.now();
        let ends = self.links[link.index()].ends;
        let Some(rs) = self.attached.rate_switching.get(link) else { return };
        let scaled = |e: usize| rs.scales(e);
        let wire_clear = (0..2)
            .filter(|&e| scaled(e))
            .filter_map(|e| self.ports[ends[e].index()].frame_end(now))
            .max()
            .unwrap_or(now);
        let l = &mut self.links[link.index()];
        let Some(rs) = self.attached.rate_switching.get_mut(link) else { return };
        if rs.is_switching(now) || target >= rs.rates().len() || rs.rate_index() == target {
            return;
        }
        if now < rs.earliest_change() {
            // practRA's minimum rate-change interval: asked again when it is over.
            rs.defer(target);
            self.arm_rate_timer(sched, link);
            return;
        }
        let sw = rs.begin(now, target, wire_clear);
        let scaled_end = rs.scaled_end();
        // Frames on the wire keep the timing they started with.
        for (e, d) in l.dirs.iter_mut().enumerate() {
            if scaled_end.is_none_or(|s| s == e) {
                d.set_rate_from(now, sw.dark_until, sw.rate);
            }
        }
        if scaled_end.is_none() {
            self.trace.emit(now, || TraceRecord::LinkDark { link, until: sw.dark_until });
        }
        for (e, port) in ends.into_iter().enumerate() {
            if scaled_end.is_none_or(|s| s == e) {
                self.trace.emit(now, || TraceRecord::RateChanged {
                    port,
                    rate_bps: sw.rate.as_bps(),
                    from: sw.dark_until,
                });
                self.close_link_gate(sched, port, sw.dark_until);
            }
        }
    }

    /// A moment of `port`'s queue, an end its link's rate policy watches.
    // Inlined into the attachments' dispatch; the policy's work is out of line.
    #[inline]
    pub(crate) fn rate_moment(
        &mut self,
        sched: &mut Scheduler<Event>,
        port: crate::ids::PortId,
        moment: Moment,
    ) {
        let enqueued = match moment {
            Moment::Enqueued(len) => Some((port, len)),
            Moment::Dequeued(_) | Moment::Empty => None,
            // The policy watches the data queue only.
            Moment::ControlQueued | Moment::Forwarded { .. } => return,
        };
        let link = self.ports[port.index()].link;
        self.rate_queue_moment(sched, link, enqueued);
    }

    /// A queue of `link` changed (a frame queued or started, a port gone idle): its rate
    /// policy may ask for another rate. `enqueued` is (port, frame length) when a data
    /// frame joined that port's queue.
    #[inline(never)]
    fn rate_queue_moment(
        &mut self,
        sched: &mut Scheduler<Event>,
        link: LinkId,
        enqueued: Option<(crate::ids::PortId, u32)>,
    ) {
        let now = sched.now();
        let [a, b] = self.links[link.index()].ends;
        let Some(rs) = self.attached.rate_switching.get_mut(link) else { return };
        let mut dropped = [0, 0];
        if rs.counts_arrivals() {
            if let Some((port, len)) = enqueued {
                rs.count_accepted(usize::from(port == b), len);
            }
            dropped =
                [self.ports[a.index()].stats().dropped_bytes, self.ports[b.index()].stats().dropped_bytes];
        }
        if rs.is_switching(now) {
            return;
        }
        let queues = [self.ports[a.index()].view(), self.ports[b.index()].view()];
        let view = rs.view(queues, dropped);
        if let Some(target) = rs.consult_queue(now, view) {
            self.switch_rate(sched, link, target);
        }
        self.arm_rate_timer(sched, link);
    }

    /// Arms (or cancels) `link`'s policy timer for when the policy next needs it.
    pub(crate) fn arm_rate_timer(&mut self, sched: &mut Scheduler<Event>, link: LinkId) {
        let now = sched.now();
        let Some(rs) = self.attached.rate_switching.get_mut(link) else { return };
        let timer = &mut self.links[link.index()].policy_timer;
        match rs.next_wake() {
            Some(at) => {
                sched.arm(timer, at.max(now), |generation| {
                    MechanismTimer::RatePolicy.event(link.0, generation)
                });
            }
            None => timer.cancel(),
        }
    }

    pub(crate) fn on_rate_timer(
        &mut self,
        sched: &mut Scheduler<Event>,
        link: LinkId,
        generation: Generation,
    ) {
        let now = sched.now();
        let [a, b] = self.links[link.index()].ends;
        let queues = [self.ports[a.index()].view(), self.ports[b.index()].view()];
        let dropped =
            [self.ports[a.index()].stats().dropped_bytes, self.ports[b.index()].stats().dropped_bytes];
        let Some(rs) = self.attached.rate_switching.get_mut(link) else { return };
        let timer = &mut self.links[link.index()].policy_timer;
        if !sched
            .timer_fires(timer, generation, |generation| MechanismTimer::RatePolicy.event(link.0, generation))
        {
            return;
        }
        if rs.is_switching(now) {
            // The policy decides again when the switch under way is over.
            let at = rs.dark_until();
            sched.arm(timer, at, |generation| MechanismTimer::RatePolicy.event(link.0, generation));
            return;
        }
        let view = rs.view(queues, dropped);
        let policy_due = rs.next_timer().is_some_and(|t| t <= now);
        let deferred = rs.take_retry(now);
        let wanted = if policy_due {
            rs.consult_timer(now, view)
        } else if rs.policy.watches_queues() {
            // A deferred change: the policy decides again on the queues as they are now.
            deferred.and_then(|_| rs.consult_queue(now, view))
        } else {
            deferred // a schedule's change, due while the interval held it
        };
        if let Some(target) = wanted {
            self.switch_rate(sched, link, target);
        }
        self.arm_rate_timer(sched, link);
        // Frames that were due now waited for this event (`Link::goes_dark_at`); if the
        // link did not go dark, they start.
        for port in [a, b] {
            self.try_start(sched, port);
        }
    }
}

impl Network {
    /// Arms the first redraw of every link whose capacity varies.
    pub(crate) fn start_capacity(&mut self, sched: &mut Scheduler<Event>, link: LinkId) {
        let now = sched.now();
        let Some(c) = self.links[link.index()].capacity.as_deref_mut() else { return };
        let at = c.next_redraw(now);
        sched.arm(&mut c.timer, at, |generation| MechanismTimer::CapacityRedraw.event(link.0, generation));
    }

    /// A link's capacity is redrawn: frames that start from now on go at the new rate.
    pub(crate) fn on_capacity_redraw(
        &mut self,
        sched: &mut Scheduler<Event>,
        link: LinkId,
        generation: Generation,
    ) {
        let now = sched.now();
        let l = &mut self.links[link.index()];
        let Some(c) = l.capacity.as_deref_mut() else { return };
        if !sched.timer_fires(&mut c.timer, generation, |generation| {
            MechanismTimer::CapacityRedraw.event(link.0, generation)
        }) {
            return;
        }
        let rate = c.draw();
        let at = c.next_redraw(now);
        let dirs = c.dirs;
        sched.arm(&mut c.timer, at, |generation| MechanismTimer::CapacityRedraw.event(link.0, generation));
        let ends = l.ends;
        for (e, d) in l.dirs.iter_mut().enumerate() {
            if dirs[e] {
                d.set_rate(now, rate);
            }
        }
        for (e, port) in ends.into_iter().enumerate() {
            if dirs[e] {
                self.trace.emit(now, || TraceRecord::RateChanged {
                    port,
                    rate_bps: rate.as_bps(),
                    from: now,
                });
            }
        }
    }
}

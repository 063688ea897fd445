//! Ports: queueing, starting frames through the transmit gate, finishing them, the
//! gate's wake-ups, and the queue's moments shown to the port's queue policy and its
//! attachments (`sim/attach/`). MAC control frames arrive here too.

use crate::engine::{EventOrder, Generation, Scheduler};
use crate::ids::PortId;
use crate::node::{Moment, NextTx, PolicyAction, Queued};
use crate::phy::{Channel, Closer, FrameClass, TxId};
use crate::sim::event::Event;
use crate::sim::network::{Network, Node};
use crate::sim::trace::{DropReason, TraceRecord};
use crate::time::SimTime;
use crate::wire::{Packet, PacketKind, PacketRef};

impl Network {
    /// Queues the data packet `r` on `port` and starts it if the port can.
    pub(in crate::sim) fn port_send(&mut self, sched: &mut Scheduler<Event>, port: PortId, r: PacketRef) {
        let now = sched.now();
        let frame = Queued { pkt: r, len: self.packets.get(r).frame_len };
        let p = &mut self.ports[port.index()];
        if p.enqueue(now, frame).is_err() {
            let node = p.node;
            self.lose(now, r, Some(port), node, DropReason::QueueFull);
            return;
        }
        self.trace.emit(now, || {
            let (held_bytes, held_frames) = p.queue().held_at(now);
            TraceRecord::Enqueued { port, frame_len: frame.len, held_bytes, held_frames }
        });
        self.queue_moment(sched, port, Moment::Enqueued(frame.len));
        self.try_start(sched, port);
    }

    /// Sends the MAC control frame `pkt` out of `port` now: it takes the port's priority
    /// slot, goes out ahead of queued data and is not held by PAUSE or queue policies.
    /// This is the seam MAC control mechanisms (PAUSE) send through.
    pub fn send_control_frame(&mut self, sched: &mut Scheduler<Event>, port: PortId, pkt: Packet) {
        debug_assert_eq!(pkt.kind, PacketKind::Control);
        let frame = Queued { pkt: self.packets.insert(pkt), len: pkt.frame_len };
        self.ports[port.index()].enqueue_control(frame);
        self.show_attachments(sched, port, Moment::ControlQueued);
        self.try_start(sched, port);
    }

    /// Starts the next frame on `port` if its wire is free and its gate open; if a frame
    /// waits behind a gate that reopens by itself, arms the port's wake-up for then.
    pub(crate) fn try_start(&mut self, sched: &mut Scheduler<Event>, port: PortId) {
        let now = sched.now();
        let p = &mut self.ports[port.index()];
        p.settle(sched.order());
        if self.links[p.link.index()].goes_dark_at(now) {
            // Dark over [start, end): nothing starts; the link's own event at this
            // instant closes the gate and arms the wake-up for the end.
            return;
        }
        if p.is_busy() {
            // A frame now waits behind a transmission whose end was not an event: make it one.
            if !p.nothing_waits() {
                if let Some((tx, at, seq)) = p.done_event_needed() {
                    sched.schedule_first(at, seq, Event::TxDone { port, tx });
                    if let Node::Host(h) = &mut self.nodes[p.node.index()] {
                        // Its buffer is freed by that event now (see node/host.rs).
                        h.end_made_event(sched.order());
                    }
                }
            }
            return;
        }
        match p.next_tx(now) {
            NextTx::Ready(class) => {
                let link = p.link;
                if self.links[link.index()].channel == Channel::Shared {
                    self.start_on_shared_medium(sched, port, class);
                    return;
                }
                let end = p.end;
                // The end's place among ties, whether or not it becomes an event (see
                // node/port.rs): taken here, where its event would be queued.
                let end_seq = sched.reserve();
                let (frame, sent) = p.start(now, class, &mut self.links[link.index()].dirs[end], end_seq);
                // The end of the transmission is an event only if someone acts then (see
                // node/port.rs): a frame waits, an endpoint waits for the host's buffer it
                // frees, a policy or the trace path watches.
                let p = &mut self.ports[port.index()];
                let needed = !p.nothing_waits()
                    || p.policy.is_some()
                    || !p.attachments.is_empty()
                    || self.trace.is_on()
                    || (p.on_host
                        && match &mut self.nodes[p.node.index()] {
                            Node::Host(h) => !h.end_lazily(
                                EventOrder { at: sent.timing.wire_free, seq: end_seq },
                                class == FrameClass::Data,
                            ),
                            Node::Switch(_) => true,
                        });
                if needed {
                    if let Some((tx, at, seq)) = p.done_event_needed() {
                        sched.schedule_first(at, seq, Event::TxDone { port, tx });
                    }
                }
                if let Some((at, generation)) = sent.arrival_event {
                    sched.schedule_at(at, Event::Arrival { link, dir: end as u8, generation });
                }
                if self.trace.wants_frames() {
                    let record = TraceRecord::TxStarted {
                        port,
                        tx: sent.tx,
                        class,
                        frame_len: frame.len,
                        last_bit: sent.timing.last_bit,
                        wire_free: sent.timing.wire_free,
                    };
                    self.frame_started(now, record, frame.pkt);
                }
                if class == FrameClass::Data {
                    self.queue_moment(sched, port, Moment::Dequeued(frame.len));
                }
            }
            NextTx::WaitUntil(t) => {
                sched.arm(&mut p.gate_timer, t, |generation| Event::GateWake { port, generation });
            }
            NextTx::Idle => {}
        }
    }

    /// A station of a shared medium may start a frame: the medium's MAC takes it.
    // Cold for the point-to-point path it branches from (see `try_start`).
    #[cold]
    #[inline(never)]
    fn start_on_shared_medium(&mut self, sched: &mut Scheduler<Event>, port: PortId, class: FrameClass) {
        let len = self.medium_takes(sched, port, class);
        if class == FrameClass::Data {
            self.queue_moment(sched, port, Moment::Dequeued(len));
        }
    }

    pub(in crate::sim) fn on_tx_done(&mut self, sched: &mut Scheduler<Event>, port: PortId, tx: TxId) {
        let now = sched.now();
        let p = &mut self.ports[port.index()];
        let Some(class) = p.finish_tx(tx) else {
            return; // the transmission was cut off; its completion is stale
        };
        let node = p.node;
        if self.trace.is_on() {
            if let Some(until) = p.gate.closed_until(Closer::DRIVER, now) {
                // The host's interrupt service holds the next frame (see `Port::finish_tx`).
                self.trace.emit(now, || TraceRecord::Gate { port, closer: Closer::DRIVER, until });
            }
        }
        self.trace.emit(now, || TraceRecord::TxEnded { port, tx });
        self.after_tx_end(sched, port);
        if class == FrameClass::Data {
            self.release_host_buffer(sched, node);
        }
    }

    /// A transmission of `port` ended (finished or cut off): the next frame starts if it
    /// can; if nothing waits, the port's policy learns that the queue is empty.
    pub(crate) fn after_tx_end(&mut self, sched: &mut Scheduler<Event>, port: PortId) {
        self.try_start(sched, port);
        let p = &self.ports[port.index()];
        if !p.is_busy() && p.nothing_waits() {
            self.queue_moment(sched, port, Moment::Empty);
        }
    }

    /// A data frame of host `node` left its wire (or was lost on it): its transmit buffer
    /// is free for the endpoints waiting for one.
    // Out of line, with the waiters' service inlined in it, as the compiler chose while it
    // had two callers; a segment's MAC, a third, tipped it the other way (1-2% slower
    // TCP transfers).
    #[inline(never)]
    pub(crate) fn release_host_buffer(&mut self, sched: &mut Scheduler<Event>, node: crate::ids::NodeId) {
        if let Node::Host(h) = &mut self.nodes[node.index()] {
            h.release_tx_buffer();
            self.serve_buffer_waiters(sched, node);
        }
    }

    pub(in crate::sim) fn on_gate_wake(
        &mut self,
        sched: &mut Scheduler<Event>,
        port: PortId,
        generation: Generation,
    ) {
        let timer = &mut self.ports[port.index()].gate_timer;
        if sched.timer_fires(timer, generation, |generation| Event::GateWake { port, generation }) {
            self.try_start(sched, port);
        }
    }

    /// `closer` closes `port`'s gate until `until` ([`SimTime::NEVER`]: until it opens
    /// it), replacing its earlier closing. A frame on the wire finishes; a waiting frame
    /// starts when the gate reopens.
    pub fn close_gate(&mut self, sched: &mut Scheduler<Event>, port: PortId, closer: Closer, until: SimTime) {
        self.change_gate(sched.now(), port, closer, Some(until));
        // A closing that replaces a longer one may reopen sooner: the wake-up moves earlier.
        self.try_start(sched, port);
    }

    /// Closes `port`'s gate for its link until `until`, or longer if the link is already
    /// dark longer (an outage and a rate switch share the link's closer).
    pub(crate) fn close_link_gate(&mut self, sched: &mut Scheduler<Event>, port: PortId, until: SimTime) {
        let now = sched.now();
        let held = self.ports[port.index()].gate.closed_until(Closer::LINK, now);
        self.close_gate(sched, port, Closer::LINK, held.map_or(until, |h| h.max(until)));
    }

    /// `closer` opens `port`'s gate; a waiting frame starts if nothing else holds it.
    pub fn open_gate(&mut self, sched: &mut Scheduler<Event>, port: PortId, closer: Closer) {
        self.change_gate(sched.now(), port, closer, None);
        self.try_start(sched, port);
    }

    /// The one place a mechanism changes a port's gate: `closer` holds it until `until`
    /// (`Some(SimTime::NEVER)`: until it opens it) or opens it (`None`), and the trace
    /// path records the change. The caller says when the port looks at its queue again
    /// ([`Network::close_gate`] and [`Network::open_gate`] at once; a link mechanism
    /// changing both ends, port by port). The host's interrupt service (`Closer::DRIVER`)
    /// is the port's own and is set by the port as a frame ends.
    pub(crate) fn change_gate(&mut self, now: SimTime, port: PortId, closer: Closer, until: Option<SimTime>) {
        let gate = &mut self.ports[port.index()].gate;
        let until = if let Some(until) = until {
            gate.close(closer, until);
            until
        } else {
            gate.open(closer);
            now
        };
        self.trace.emit(now, || TraceRecord::Gate { port, closer, until });
    }

    /// Shows `moment` of `port`'s queue to its policy, if it has one, and applies its
    /// answer; then to the port's attachments that watch it (`sim/attach/`).
    // On every frame's path, where most ports have neither: two tests inlined, the work
    // out of line. Left to `#[inline]` it was not inlined (3% of `udp-file-500MB`).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn queue_moment(&mut self, sched: &mut Scheduler<Event>, port: PortId, moment: Moment) {
        // The policy flag and the attachments from one look at the port: the plain path
        // indexes it once (the attachments do not change as the network runs).
        let p = &self.ports[port.index()];
        let (policy, watched) = (p.policy.is_some(), p.attachments.watched());
        if policy {
            self.run_policy(sched, port, moment);
        }
        self.show_attachments_of(sched, port, watched, moment);
    }

    #[inline(never)]
    fn run_policy(&mut self, sched: &mut Scheduler<Event>, port: PortId, moment: Moment) {
        let now = sched.now();
        let p = &mut self.ports[port.index()];
        let view = p.view();
        let Some(policy) = p.policy.as_mut() else {
            return;
        };
        let action = match moment {
            Moment::Enqueued(_) => policy.on_enqueue(now, view),
            Moment::Dequeued(_) => policy.on_dequeue(now, view),
            Moment::Empty => policy.on_empty(now),
            // A queue policy sees the data queue only (`queue_moment` passes no other).
            Moment::ControlQueued | Moment::Forwarded { .. } => PolicyAction::Keep,
        };
        match action {
            PolicyAction::Keep => {}
            PolicyAction::Hold(until) => self.close_gate(sched, port, Closer::POLICY, until),
            PolicyAction::Release => {
                if self.ports[port.index()].gate.is_closed_by(Closer::POLICY, now) {
                    self.open_gate(sched, port, Closer::POLICY);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::RunLimits;
    use crate::ids::{NodeId, PortId};
    use crate::scenario;
    use crate::sim::attach::closers;
    use crate::sim::{Network, Simulation};
    use crate::time::{Duration, SimTime};
    use crate::wire::{ethernet, Packet};

    const TWO_HOSTS: &str = r#"
[[hosts]]
name = "a"
[[hosts]]
name = "b"
[[links]]
between = ["a", "b"]
rate = "1 Gb/s"
[[apps]]
kind = "constant_rate"
from = "a"
to = "b"
rate = "100 Mb/s"
count = 5
"#;

    fn sim() -> Simulation {
        let s = scenario::load(TWO_HOSTS, &[]).unwrap();
        let built = scenario::build(&s).unwrap();
        Simulation::new(
            built.network,
            RunLimits { until: Some(SimTime(Duration::from_ms(1).as_ps())), max_events: None },
        )
    }

    /// Sends a control frame from host a at the current instant of `sim`.
    fn send_control(sim: &mut Simulation) {
        let (net, sched): (&mut Network, _) = sim.parts_mut();
        net.send_control_frame(
            sched,
            PortId(0),
            Packet::control(NodeId(0), NodeId(1), ethernet::MIN_FRAME as u32, sched.now()),
        );
    }

    #[test]
    fn a_paused_port_still_sends_mac_control_and_holds_data() {
        let mut sim = sim();
        sim.network_mut().ports[0].gate.close(closers::PAUSE, SimTime::NEVER);
        sim.run_until(SimTime(Duration::from_us(100).as_ps()));
        send_control(&mut sim);
        sim.run_until(SimTime(Duration::from_us(200).as_ps()));
        let net = sim.network();
        assert_eq!(net.ports[0].stats().control_sent, 1);
        assert_eq!(net.ports[1].stats().control_received, 1);
        assert_eq!(net.ports[0].stats().frames_sent, 0, "data is held by the pause");
        assert_eq!(net.ports[0].queue().len(), 2, "requests due at 0 and 120 us wait");
        // Opening the gate lets the data go at once.
        let (net, sched) = sim.parts_mut();
        net.open_gate(sched, PortId(0), closers::PAUSE);
        sim.run();
        assert_eq!(sim.network().flows[0].forward().packets_received, 5);
    }
}

//! Links: frames arriving at the far end of a direction, and scheduled outages.

use crate::engine::{Generation, Scheduler};
use crate::ids::{LinkId, PortId};
use crate::phy::FrameClass;
use crate::sim::event::Event;
use crate::sim::network::{Network, Node};
use crate::sim::trace::{DropReason, TraceRecord};
use crate::wire::{mac_control, PacketKind, PacketRef};

impl Network {
    pub(in crate::sim) fn on_arrival(
        &mut self,
        sched: &mut Scheduler<Event>,
        link: LinkId,
        dir: usize,
        generation: Generation,
    ) {
        let now = sched.now();
        let l = &mut self.links[link.index()];
        let d = dir as u8;
        let event = |generation| Event::Arrival { link, dir: d, generation };
        if !sched.timer_fires(l.dirs[dir].arrival_timer(), generation, event) {
            return; // the frame it was for left the cable (aborted)
        }
        let arrived = l.dirs[dir].arrive(now);
        let receiver = l.ends[1 - dir];
        if let Some((at, generation)) = arrived.next_event {
            sched.schedule_at(at, event(generation));
        }
        if let Some(loss) = l.loss.as_deref_mut() {
            if loss.loses(dir, self.packets.get(arrived.pkt)) {
                let node = self.ports[receiver.index()].node;
                self.lose(now, arrived.pkt, Some(receiver), node, DropReason::LinkLoss);
                return;
            }
        }
        if self.trace.is_capturing() {
            self.frame_received(now, receiver, arrived.pkt);
        }
        self.receive(sched, receiver, arrived.pkt);
    }

    /// A MAC control frame arrived whole at `port` (802.3 Annex 31A): counted, traced,
    /// handed to the operation its opcode names (the registry), and discarded.
    #[inline(never)]
    fn receive_control(&mut self, sched: &mut Scheduler<Event>, port: PortId, r: PacketRef) {
        let now = sched.now();
        let pkt = self.packets.remove(r);
        self.ports[port.index()].count_control_received();
        let Some((opcode, parameter)) = mac_control::operation(&pkt) else { return };
        self.trace.emit(now, || TraceRecord::ControlReceived { port, opcode, parameter });
        self.control_operation(sched, port, opcode, parameter);
    }

    /// `port` received the packet `r` whole: a switch forwards it, a host takes it in.
    // On every frame's path (a link's arrival); segments' deliveries call it too, and with
    // two callers the compiler stopped inlining it (3% of `udp-file-500MB`).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub(crate) fn receive(&mut self, sched: &mut Scheduler<Event>, port: PortId, r: PacketRef) {
        let now = sched.now();
        if self.packets.get(r).kind == PacketKind::Control {
            self.receive_control(sched, port, r);
            return;
        }
        let node = self.ports[port.index()].node;
        match &self.nodes[node.index()] {
            Node::Switch(sw) => match sw.route(self.packets.get(r).dst) {
                Some(out) => {
                    self.port_send(sched, out, r);
                    self.show_attachments(sched, out, crate::node::Moment::Forwarded { from: port });
                }
                // Validation guarantees a route to every destination an endpoint names.
                None => self.lose(now, r, None, node, DropReason::Unroutable),
            },
            Node::Host(_) => self.host_receive(sched, node, r),
        }
    }

    /// A link's outage begins: both directions go dark until it ends. A frame whose last
    /// bit has not left is lost; waiting frames wait; each port reopens at the end.
    pub(in crate::sim) fn on_outage_start(&mut self, sched: &mut Scheduler<Event>, link: LinkId) {
        let now = sched.now();
        let l = &mut self.links[link.index()];
        let Some(outage) = l.outages.begin(now) else {
            return;
        };
        if let Some(t) = l.outages.next_start() {
            sched.schedule_at(t, Event::OutageStart { link });
        }
        let ends = l.ends;
        self.trace.emit(now, || TraceRecord::LinkDark { link, until: outage.end });
        for (end, port) in ends.into_iter().enumerate() {
            let p = &mut self.ports[port.index()];
            let cut = p.cut_off(sched.order());
            let node = p.node;
            self.close_link_gate(sched, port, outage.end);
            let Some(cut) = cut else { continue };
            let (pkt, event) = self.links[link.index()].dirs[end].abort(cut.tx);
            if let Some((at, generation)) = event {
                sched.schedule_at(at, Event::Arrival { link, dir: end as u8, generation });
            }
            let frame_len = pkt.map_or(0, |r| {
                let len = self.packets.get(r).frame_len;
                self.lose(now, r, Some(port), node, DropReason::CutOff);
                len
            });
            self.trace.emit(now, || TraceRecord::TxCutOff { port, tx: cut.tx, class: cut.class, frame_len });
            // The wire is free: the policy learns the queue is empty if it is, and the
            // gate's wake-up for the end of the outage is armed if frames wait.
            self.after_tx_end(sched, port);
            if cut.class == FrameClass::Data {
                if let Node::Host(h) = &mut self.nodes[node.index()] {
                    h.end_made_event(sched.order());
                }
                self.release_host_buffer(sched, node);
            }
        }
    }
}

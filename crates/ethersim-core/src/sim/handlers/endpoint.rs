//! Endpoints: waking them, letting them send, and delivering packets to them.

use crate::app::Next;
use crate::engine::{Generation, Scheduler};
use crate::ids::{EndpointId, NodeId};
use crate::sim::event::Event;
use crate::sim::network::Network;
use crate::sim::trace::{DropReason, TraceRecord};
use crate::wire::{self, Packet, PacketKind, PacketRef, Protocol, Role};

impl Network {
    pub(in crate::sim) fn on_endpoint_wake(
        &mut self,
        sched: &mut Scheduler<Event>,
        endpoint: EndpointId,
        generation: Generation,
    ) {
        let timer = &mut self.endpoints[endpoint.index()].timer;
        if sched.timer_fires(timer, generation, |generation| Event::EndpointWake { endpoint, generation }) {
            self.drive_endpoint(sched, endpoint);
        }
    }

    /// Lets an endpoint act until it sleeps, blocks, waits for packets or finishes.
    pub(in crate::sim) fn drive_endpoint(&mut self, sched: &mut Scheduler<Event>, endpoint: EndpointId) {
        let now = sched.now();
        loop {
            let host = self.endpoints[endpoint.index()].host;
            let buffer_free = self.tx_buffer_free(host, sched.order());
            let e = &mut self.endpoints[endpoint.index()];
            match e.poll(now, buffer_free) {
                Next::Send => {
                    let out = e.take(now);
                    // A TCP segment's header stays with its endpoint until it is stored
                    // beside the packet; other protocols never look for one.
                    let tcp = if out.protocol == Protocol::Tcp { e.tcp_header() } else { None };
                    // An endpoint without a flow of its own names one for every packet.
                    let flow_id = out.flow.or(e.flow).expect("a packet an endpoint sends belongs to a flow");
                    let flow = &mut self.flows[flow_id.index()];
                    let pkt = Packet {
                        kind: out.kind,
                        protocol: out.protocol,
                        to: out.to,
                        flow: Some(flow_id),
                        src: host,
                        dst: flow.hosts[out.to.index()],
                        seq: out.seq,
                        frame_len: wire::frame_len(
                            out.protocol,
                            u64::from(out.payload),
                            tcp.map_or(0, crate::wire::TcpHeader::options_len),
                        ) as u32,
                        payload: out.payload,
                        created: now,
                        echo: out.echo,
                    };
                    flow.counters.dirs[out.to.index()].sent(&pkt);
                    flow.in_flight += 1;
                    self.in_flight += 1;
                    let r = match tcp {
                        Some(h) => self.packets.insert_tcp(pkt, h),
                        None => self.packets.insert(pkt),
                    };
                    self.host_send(sched, host, r);
                }
                Next::SleepUntil(t) => {
                    sched.arm(&mut e.timer, t, |generation| Event::EndpointWake { endpoint, generation });
                    return;
                }
                next @ (Next::WaitForBuffer | Next::WaitForBufferOrWake(_)) => {
                    if let Next::WaitForBufferOrWake(t) = next {
                        sched.arm(&mut e.timer, t, |generation| Event::EndpointWake { endpoint, generation });
                    }
                    if !e.waiting_for_buffer {
                        e.waiting_for_buffer = true;
                        self.host_mut(host).wait_for_buffer(endpoint);
                        self.buffer_release_is_awaited(sched, host);
                    }
                    return;
                }
                Next::Idle => {
                    // Nothing until a packet arrives: a pending wake-up would do nothing.
                    e.timer.cancel();
                    return;
                }
                Next::Finished => {
                    if !e.finished {
                        self.endpoint_finished(now, endpoint);
                    }
                    return;
                }
            }
        }
    }

    /// Whether host `node` has a transmit buffer free at `now` (the event being
    /// handled), counting those freed by data frames that ended without an event before
    /// it (see `node/host.rs`).
    #[inline]
    fn tx_buffer_free(&mut self, node: NodeId, now: crate::engine::EventOrder) -> bool {
        self.host(node).has_tx_buffer() || self.host_mut(node).take_lazy_frees(now)
    }

    /// An endpoint of host `node` began to wait for a transmit buffer: if the data frame
    /// on the host's wire was to end without an event, its end becomes one, which frees
    /// its buffer and serves the line (`tx_buffer_free` has freed those of frames that
    /// had ended by now).
    fn buffer_release_is_awaited(&mut self, sched: &mut Scheduler<Event>, node: NodeId) {
        let h = self.host_mut(node);
        if !h.end_made_event(sched.order()) {
            return;
        }
        let port = h.port;
        if let Some((tx, at, seq)) = self.ports[port.index()].done_event_needed() {
            sched.schedule_first(at, seq, Event::TxDone { port, tx });
        }
    }

    /// `endpoint` has sent everything it ever will: the flows it is the source of may be
    /// complete, and the run no longer waits for it. Out of line: it happens once per
    /// endpoint, off the frame path.
    #[inline(never)]
    fn endpoint_finished(&mut self, now: crate::time::SimTime, endpoint: EndpointId) {
        let e = &mut self.endpoints[endpoint.index()];
        e.finished = true;
        if e.holds_run_open() {
            self.open_endpoints -= 1;
        }
        for k in 0..e.source_of.len() {
            let flow = self.endpoints[endpoint.index()].source_of[k];
            self.check_complete(now, flow);
        }
    }

    /// Gives freed transmit buffers of `node` to the endpoints waiting for one, in the
    /// order they began to wait.
    pub(in crate::sim) fn serve_buffer_waiters(&mut self, sched: &mut Scheduler<Event>, node: NodeId) {
        while let Some(endpoint) = self.host_mut(node).next_waiting() {
            self.endpoints[endpoint.index()].waiting_for_buffer = false;
            self.drive_endpoint(sched, endpoint);
        }
    }

    /// Hands the packet `r`, received whole by host `node`, to its endpoint.
    pub(in crate::sim) fn deliver(&mut self, sched: &mut Scheduler<Event>, node: NodeId, r: PacketRef) {
        let now = sched.now();
        if self.packets.get(r).dst != node {
            self.lose(now, r, None, node, DropReason::Unroutable);
            return;
        }
        let (pkt, tcp) = self.packets.remove_with_header(r);
        // Control frames stop at the MAC: every packet delivered belongs to a flow.
        let flow_id = pkt.flow.expect("a packet delivered to a host belongs to a flow");
        self.in_flight -= 1;
        let flow = &mut self.flows[flow_id.index()];
        flow.in_flight -= 1;
        flow.counters.dirs[pkt.to.index()].received(now, &pkt);
        if pkt.to == Role::Sink && pkt.kind == PacketKind::Data {
            flow.counters.delay.record(now - pkt.created);
        }
        let endpoint = flow.ends[pkt.to.index()];
        self.trace.emit(now, || TraceRecord::Delivered {
            node,
            flow: flow_id,
            to: pkt.to,
            kind: pkt.kind,
            frame_len: pkt.frame_len,
        });
        self.endpoints[endpoint.index()].on_packet(now, &pkt, tcp);
        self.drive_endpoint(sched, endpoint);
        self.check_complete(now, flow_id);
    }

    /// The packet `r` is lost at `node` (at `port`, if a port lost it) for `reason`.
    pub(crate) fn lose(
        &mut self,
        now: crate::time::SimTime,
        r: PacketRef,
        port: Option<crate::ids::PortId>,
        node: NodeId,
        reason: DropReason,
    ) {
        let pkt = self.packets.remove(r);
        self.trace.emit(now, || TraceRecord::Dropped {
            port,
            node,
            flow: pkt.flow,
            frame_len: pkt.frame_len,
            reason,
        });
        let Some(flow_id) = pkt.flow else {
            return; // a control frame: it belongs to no flow
        };
        self.in_flight -= 1;
        let flow = &mut self.flows[flow_id.index()];
        flow.in_flight -= 1;
        flow.counters.dirs[pkt.to.index()].lost += 1;
        self.check_complete(now, flow_id);
    }
}

//! The network: nodes, ports and applications in flat tables, and the rules that move
//! a packet from one to the next.

use crate::app::{App, Next};
use crate::engine::{Model, Scheduler};
use crate::ids::{FlowId, NodeId, PortId};
use crate::node::{Host, Port, RxStep, Switch, TxStep};
use crate::time::SimTime;
use crate::wire::Packet;

use super::event::Event;

/// A node of the network.
#[derive(Debug)]
pub enum Node {
    /// An end host.
    Host(Host),
    /// A switch.
    Switch(Switch),
}

/// Every component of a built network.
#[derive(Debug)]
pub struct Network {
    /// Node names, by node id.
    pub names: Vec<String>,
    /// Nodes, by node id.
    pub nodes: Vec<Node>,
    /// Ports, by port id.
    pub ports: Vec<Port>,
    /// Applications, by flow id.
    pub apps: Vec<App>,
    /// Application names, by flow id.
    pub app_names: Vec<String>,
    /// The applications sending from each node, by node id.
    apps_on: Vec<Vec<FlowId>>,
    /// Per node, where the next round of buffer wake-ups starts in `apps_on`.
    wake_cursor: Vec<usize>,
    /// Applications not yet finished.
    active_apps: usize,
    /// Packets handed to a host and not yet delivered or dropped.
    in_flight: u64,
}

impl Network {
    /// Assembles a network from validated parts. `apps_on` is derived here.
    pub fn new(
        names: Vec<String>,
        nodes: Vec<Node>,
        ports: Vec<Port>,
        apps: Vec<App>,
        app_names: Vec<String>,
    ) -> Self {
        let mut apps_on = vec![Vec::new(); nodes.len()];
        for app in &apps {
            apps_on[app.src.index()].push(app.flow);
        }
        let active_apps = apps.len();
        let wake_cursor = vec![0; nodes.len()];
        Network { names, nodes, ports, apps, app_names, apps_on, wake_cursor, active_apps, in_flight: 0 }
    }

    /// Schedules every application's first poll at its start time.
    pub fn schedule_starts(&mut self, sched: &mut Scheduler<Event>) {
        for app in &mut self.apps {
            let generation = app.timer.arm();
            sched.schedule_at(app.start, Event::AppWake { flow: app.flow, generation });
        }
    }

    /// Packets handed to hosts and not yet delivered or dropped.
    pub fn in_flight(&self) -> u64 {
        self.in_flight
    }

    fn host_mut(&mut self, node: NodeId) -> &mut Host {
        match &mut self.nodes[node.index()] {
            Node::Host(h) => h,
            // Events naming a host are only created for hosts.
            Node::Switch(_) => unreachable!("host event for a switch"),
        }
    }

    /// Lets an application act until it sleeps, blocks or finishes.
    fn drive_app(&mut self, sched: &mut Scheduler<Event>, flow: FlowId) {
        let now = sched.now();
        loop {
            let app = &mut self.apps[flow.index()];
            let src = app.src;
            let buffer_free = match &self.nodes[src.index()] {
                Node::Host(h) => h.has_tx_buffer(),
                Node::Switch(_) => false,
            };
            match app.poll(now, buffer_free) {
                Next::Send => {
                    let pkt = app.take_packet(now);
                    self.in_flight += 1;
                    self.host_send(sched, src, pkt);
                }
                Next::SleepUntil(t) => {
                    let generation = app.timer.arm();
                    sched.schedule_at(t, Event::AppWake { flow, generation });
                    return;
                }
                Next::WaitForBuffer => {
                    app.waiting_for_buffer = true;
                    return;
                }
                Next::Finished => {
                    if app.finish(now) {
                        self.active_apps -= 1;
                    }
                    return;
                }
            }
        }
    }

    /// A host's transmit path takes a packet from an application.
    fn host_send(&mut self, sched: &mut Scheduler<Event>, node: NodeId, pkt: Packet) {
        let now = sched.now();
        let host = self.host_mut(node);
        let port = host.port;
        match host.accept_tx(now, pkt) {
            TxStep::ToNic(p) => self.port_send(sched, port, p),
            TxStep::ProcessUntil(t) => sched.schedule_at(t, Event::HostTxProcessed { node }),
            TxStep::Queued => {}
        }
    }

    /// Queues a frame on a port and starts it if the wire is idle.
    fn port_send(&mut self, sched: &mut Scheduler<Event>, port: PortId, pkt: Packet) {
        let now = sched.now();
        if let Err(dropped) = self.ports[port.index()].enqueue(now, pkt) {
            self.packet_done(now, &dropped, false);
            return;
        }
        self.try_start(sched, port);
    }

    fn try_start(&mut self, sched: &mut Scheduler<Event>, port: PortId) {
        let p = &mut self.ports[port.index()];
        if let Some((pkt, timing)) = p.start_next(sched.now()) {
            let peer = p.peer;
            sched.schedule_at(timing.wire_free, Event::WireFree { port });
            sched.schedule_at(timing.received, Event::FrameArrival { port: peer, pkt });
        }
    }

    /// A packet left the network: delivered to its application or dropped.
    fn packet_done(&mut self, now: SimTime, pkt: &Packet, delivered: bool) {
        self.in_flight -= 1;
        self.apps[pkt.flow.index()].packet_done(now, delivered.then_some(pkt));
    }

    fn on_wire_free(&mut self, sched: &mut Scheduler<Event>, port: PortId) {
        let p = &mut self.ports[port.index()];
        p.finish_tx();
        let node = p.node;
        self.try_start(sched, port);
        if let Node::Host(h) = &mut self.nodes[node.index()] {
            h.release_tx_buffer();
            self.wake_waiting_apps(sched, node);
        }
    }

    /// Offers freed transmit buffers to the host's blocked applications in round-robin
    /// order, starting after the one served last, so that applications sharing a host
    /// share its buffers instead of the first in file order taking every one.
    fn wake_waiting_apps(&mut self, sched: &mut Scheduler<Event>, node: NodeId) {
        let n = self.apps_on[node.index()].len();
        let first = self.wake_cursor[node.index()];
        for k in 0..n {
            let i = (first + k) % n;
            let flow = self.apps_on[node.index()][i];
            let app = &mut self.apps[flow.index()];
            if !app.waiting_for_buffer {
                continue;
            }
            if let Node::Host(h) = &self.nodes[node.index()] {
                if !h.has_tx_buffer() {
                    return;
                }
            }
            app.waiting_for_buffer = false;
            self.wake_cursor[node.index()] = (i + 1) % n;
            self.drive_app(sched, flow);
        }
    }

    fn on_frame_arrival(&mut self, sched: &mut Scheduler<Event>, port: PortId, pkt: Packet) {
        let now = sched.now();
        let node = self.ports[port.index()].node;
        match &mut self.nodes[node.index()] {
            Node::Switch(sw) => match sw.route(pkt.dst) {
                Some(out) => self.port_send(sched, out, pkt),
                // Validation guarantees a route to every destination an application names.
                None => self.packet_done(now, &pkt, false),
            },
            Node::Host(h) => match h.accept_rx(now, pkt) {
                RxStep::Deliver(p) => self.packet_done(now, &p, p.dst == node),
                RxStep::ProcessUntil(t) => sched.schedule_at(t, Event::HostRxProcessed { node }),
                RxStep::Queued => {}
                RxStep::Dropped(p) => self.packet_done(now, &p, false),
            },
        }
    }
}

impl Model for Network {
    type Event = Event;

    fn handle(&mut self, sched: &mut Scheduler<Event>, event: Event) {
        match event {
            Event::AppWake { flow, generation } => {
                if self.apps[flow.index()].timer.fires(generation) {
                    self.drive_app(sched, flow);
                }
            }
            Event::HostTxProcessed { node } => {
                let now = sched.now();
                let host = self.host_mut(node);
                let port = host.port;
                let (pkt, next) = host.finish_tx_processing(now);
                if let Some(t) = next {
                    sched.schedule_at(t, Event::HostTxProcessed { node });
                }
                self.port_send(sched, port, pkt);
            }
            Event::HostRxProcessed { node } => {
                let now = sched.now();
                let (pkt, next) = self.host_mut(node).finish_rx_processing(now);
                if let Some(t) = next {
                    sched.schedule_at(t, Event::HostRxProcessed { node });
                }
                self.packet_done(now, &pkt, pkt.dst == node);
            }
            Event::WireFree { port } => self.on_wire_free(sched, port),
            Event::FrameArrival { port, pkt } => self.on_frame_arrival(sched, port, pkt),
        }
    }

    fn work_done(&self) -> bool {
        self.active_apps == 0 && self.in_flight == 0
    }
}

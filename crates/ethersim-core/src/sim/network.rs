//! The network: nodes, ports, links, endpoints, flows and packets in flat tables, and
//! the dispatch of each event to the handler of its layer (`sim/handlers/`).

use crate::app::Endpoint;
use crate::engine::{Model, Scheduler};
use crate::ids::{FlowId, NodeId};
use crate::node::{Host, Port, Switch};
use crate::phy::Link;
use crate::time::SimTime;

use super::event::Event;
use super::flows::Flow;
use super::pool::PacketPool;
use super::trace::Trace;

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
    /// Links, by link id.
    pub links: Vec<Link>,
    /// Endpoints, by endpoint id.
    pub endpoints: Vec<Endpoint>,
    /// Flows, by flow id.
    pub flows: Vec<Flow>,
    /// The measurement window, if the scenario has one (boxed: off every frame's path).
    pub window: Option<Box<super::window::MeasureWindow>>,
    /// The packets in the network.
    pub packets: PacketPool,
    /// The trace path and its subscribers.
    pub trace: Trace,
    /// MPI jobs, for their results.
    pub jobs: Vec<crate::app::mpi::MpiJob>,
    /// The state of the port mechanisms kept beside the ports (`sim/attach/`).
    pub attached: super::attach::AttachedState,
    /// Packet captures of ports (each port's `captured` says whether it has one).
    pub captures: Vec<crate::capture::PortCapture>,
    /// Flows not yet complete.
    pub(super) active_flows: usize,
    /// Endpoints the run waits for that have not finished (see
    /// [`Endpoint::holds_run_open`]).
    pub(super) open_endpoints: usize,
    /// Packets of flows in the network (handed to a host, not yet delivered or lost).
    pub(super) in_flight: u64,
}

impl Network {
    /// Assembles a network from validated parts.
    pub fn new(
        names: Vec<String>,
        nodes: Vec<Node>,
        ports: Vec<Port>,
        links: Vec<Link>,
        endpoints: Vec<Endpoint>,
        flows: Vec<Flow>,
    ) -> Self {
        let active_flows = flows.len();
        let open_endpoints = endpoints.iter().filter(|e| e.holds_run_open()).count();
        let mut ports = ports;
        for p in &mut ports {
            p.on_host = matches!(nodes[p.node.index()], Node::Host(_));
            if let Node::Host(h) = &nodes[p.node.index()] {
                p.tx_interrupt = h.config.tx_interrupt;
            }
        }
        Network {
            names,
            nodes,
            ports,
            links,
            endpoints,
            flows,
            packets: PacketPool::with_capacity(1024),
            trace: Trace::default(),
            window: None,
            jobs: Vec::new(),
            captures: Vec::new(),
            attached: super::attach::AttachedState::default(),
            active_flows,
            open_endpoints,
            in_flight: 0,
        }
    }

    /// Schedules what starts by itself: every endpoint's first poll at its start, every
    /// link's first outage, the link mechanisms' starts, the measurement window's edges,
    /// then the port mechanisms' starts (`sim/attach/`). Events at one instant run in
    /// the order they were scheduled, so this order is part of every result.
    pub fn schedule_starts(&mut self, sched: &mut Scheduler<Event>) {
        for (i, e) in self.endpoints.iter_mut().enumerate() {
            let endpoint = crate::ids::EndpointId(i as u32);
            sched.arm(&mut e.timer, e.start, |generation| Event::EndpointWake { endpoint, generation });
        }
        for (i, l) in self.links.iter().enumerate() {
            if let Some(t) = l.outages.next_start() {
                sched.schedule_at(t, Event::OutageStart { link: crate::ids::LinkId(i as u32) });
            }
        }
        self.start_link_mechanisms(sched);
        if let Some(w) = self.window.as_deref() {
            sched.schedule_at(w.from, Event::Window { edge: 0 });
            sched.schedule_at(w.until, Event::Window { edge: 1 });
        }
        self.start_port_mechanisms(sched);
    }

    /// The measurement window's start (`edge` 0) or end (1): the counters are read.
    #[inline(never)]
    fn on_window_edge(&mut self, order: crate::engine::EventOrder, edge: u8) {
        let now = order.at;
        let counts = self.window_counts(order);
        if let Some(w) = self.window.as_deref_mut() {
            if edge == 0 {
                w.at_start = Some(counts);
            } else {
                w.at_end = Some((now, counts));
            }
        }
    }

    /// The counters a measurement window differences, read at `order` (the event being
    /// handled: transmissions that end at its instant count if they end before it).
    pub fn window_counts(&mut self, order: crate::engine::EventOrder) -> super::window::Counts {
        self.settle(order);
        self.settled_counts()
    }

    /// The counters a measurement window differences, as they stand (the caller has
    /// settled the ports to the instant it reads them at).
    pub fn settled_counts(&self) -> super::window::Counts {
        super::window::Counts {
            ports: self.ports.iter().map(|p| (p.stats().frames_sent, p.stats().bytes_sent)).collect(),
            flows: self
                .flows
                .iter()
                .map(|f| (f.forward().packets_received, f.forward().bytes_received))
                .collect(),
        }
    }

    /// Counts every transmission that ended before `order` without an event (see
    /// `node/port.rs`), so that counters read between runs are exact. Changes nothing
    /// else: each would be settled the same way at its port's next operation.
    pub fn settle(&mut self, order: crate::engine::EventOrder) {
        for p in &mut self.ports {
            p.settle(order);
        }
    }

    /// Packets of flows in the network (handed to a host, not yet delivered or lost).
    pub fn in_flight(&self) -> u64 {
        self.in_flight
    }

    /// The flow `flow`.
    pub fn flow(&self, flow: FlowId) -> &Flow {
        &self.flows[flow.index()]
    }

    /// The name of the port `port` as results show it: `node->peer`, or `node->segment`
    /// for a station of a shared-medium segment.
    pub fn port_name(&self, port: crate::ids::PortId) -> String {
        let p = &self.ports[port.index()];
        format!("{}->{}", self.names[p.node.index()], self.peer_name(port))
    }

    /// What `port` faces: the node at the other end of its link, or its segment's name.
    pub fn peer_name(&self, port: crate::ids::PortId) -> &str {
        let p = &self.ports[port.index()];
        match self.attached.medium_name(p.link) {
            Some(name) => name,
            None => &self.names[self.ports[p.peer.index()].node.index()],
        }
    }

    pub(super) fn host_mut(&mut self, node: NodeId) -> &mut Host {
        match &mut self.nodes[node.index()] {
            Node::Host(h) => h,
            // Events and endpoints naming a host are only created for hosts.
            Node::Switch(_) => unreachable!("host event for a switch"),
        }
    }

    pub(super) fn host(&self, node: NodeId) -> &Host {
        match &self.nodes[node.index()] {
            Node::Host(h) => h,
            // As above.
            Node::Switch(_) => unreachable!("host query for a switch"),
        }
    }

    /// Records completion of `flow` at `now` if it is complete: its source end has
    /// finished, neither end holds unsent work, and none of its packets is in flight.
    pub(super) fn check_complete(&mut self, now: SimTime, flow: FlowId) {
        let f = &self.flows[flow.index()];
        if f.completed_at.is_some() || f.in_flight > 0 {
            return;
        }
        let [src, dst] = f.ends;
        let (s, d) = (&self.endpoints[src.index()], &self.endpoints[dst.index()]);
        if s.finished && !s.has_pending(flow) && !d.has_pending(flow) {
            self.flows[flow.index()].completed_at = Some(now);
            self.active_flows -= 1;
        }
    }
}

impl Model for Network {
    type Event = Event;

    fn handle(&mut self, sched: &mut Scheduler<Event>, event: Event) {
        match event {
            Event::EndpointWake { endpoint, generation } => {
                self.on_endpoint_wake(sched, endpoint, generation);
            }
            Event::HostTxProcessed { node } => self.on_host_tx_processed(sched, node),
            Event::HostRxProcessed { node } => self.on_host_rx_processed(sched, node),
            Event::TxDone { port, tx } => self.on_tx_done(sched, port, tx),
            Event::GateWake { port, generation } => self.on_gate_wake(sched, port, generation),
            Event::Arrival { link, dir, generation } => {
                self.on_arrival(sched, link, usize::from(dir), generation);
            }
            Event::OutageStart { link } => self.on_outage_start(sched, link),
            Event::Mechanism { target, timer, generation } => {
                self.on_mechanism_event(sched, target, timer, generation);
            }
            Event::Window { edge } => self.on_window_edge(sched.order(), edge),
        }
    }

    // Asked after every event: both counts are zero exactly when their bitwise or is,
    // one test where `&&` compiled to two (about 4 instructions an event).
    fn work_done(&self) -> bool {
        (self.active_flows | self.open_endpoints) == 0
    }
}

//! Flows: one conversation between two endpoints, and one row of the results.
//!
//! The network counts every packet of a flow as it is handed to a host, delivered or
//! lost ([`FlowCounters`]), and decides when the flow is complete: its source end has
//! finished, neither end holds work it has not handed over, and none of its packets is
//! in the network.

use crate::ids::{EndpointId, NodeId};
use crate::stats::{DirectionCounters, FlowCounters};
use crate::time::SimTime;
use crate::wire::Role;

/// One flow.
#[derive(Debug)]
pub struct Flow {
    /// Its name in the results (the application's name).
    pub name: String,
    /// Its endpoints, source end first (index by [`Role::index`](crate::wire::Role::index)).
    pub ends: [EndpointId; 2],
    /// The hosts of its endpoints, source end first.
    pub hosts: [NodeId; 2],
    /// When its source end starts.
    pub start: SimTime,
    /// Counters of both directions.
    pub counters: FlowCounters,
    /// Its packets in the network (handed to a host, not yet delivered or lost).
    pub in_flight: u64,
    /// When it completed, if it has.
    pub completed_at: Option<SimTime>,
}

impl Flow {
    /// A flow between `ends` on `hosts`, starting at `start`.
    pub fn new(name: String, ends: [EndpointId; 2], hosts: [NodeId; 2], start: SimTime) -> Self {
        Flow { name, ends, hosts, start, counters: FlowCounters::default(), in_flight: 0, completed_at: None }
    }

    /// Counters of the forward direction (towards the sink end): the flow's data.
    pub fn forward(&self) -> &DirectionCounters {
        &self.counters.dirs[Role::Sink.index()]
    }

    /// Counters of the reverse direction (towards the source end): replies, acknowledgements.
    pub fn reverse(&self) -> &DirectionCounters {
        &self.counters.dirs[Role::Source.index()]
    }
}

//! Hosts, switches and their ports: host timing, transmit buffers, interrupt
//! service and its jitter, port buffers.

use crate::engine::rng;
use crate::ids::{LinkId, NodeId, PortId};
use crate::node::{Host, HostConfig, InterruptJitter, Port, QueueLimits, Switch};
use crate::scenario::error::ScenarioError;
use crate::scenario::schema::{HostSpec, Scenario};
use crate::scenario::topology::{Role, Topology};
use crate::sim::Node;
use crate::time::Duration;
use crate::wire::ethernet;

use crate::scenario::common::{buffer_limits, link_mtu, Result};

/// Two ports per link, in link order: port `2i` at `between[0]`, `2i + 1` at `between[1]`;
/// then one per station of each segment.
pub(super) fn ports(s: &Scenario, topo: &Topology) -> Result<Vec<Port>> {
    let stations: usize = s.segments.iter().map(|g| g.stations.len()).sum();
    let mut ports: Vec<Option<Port>> = (0..2 * s.links.len() + stations).map(|_| None).collect();
    for (node, interfaces) in topo.interfaces.iter().enumerate() {
        let node = NodeId(node as u32);
        let limits = match topo.roles[node.index()] {
            // A host's NIC queue is bounded by the host's transmit buffers instead.
            Role::Host(_) => QueueLimits::default(),
            Role::Switch(w) => {
                let largest = interfaces
                    .iter()
                    .map(|&(link, _)| ethernet::max_frame_for_mtu(link_mtu(s, link)))
                    .max()
                    .unwrap_or(0);
                buffer_limits(&s.switches[w].port_buffer, &format!("switches[{w}].port_buffer"), largest)?
            }
        };
        for &(link, port) in interfaces {
            let p = if link < s.links.len() {
                let end = (port.0 % 2) as usize;
                let peer = PortId(2 * link as u32 + 1 - end as u32);
                Port::new(node, LinkId(link as u32), end, peer, limits)
            } else {
                // A station: it faces the whole segment (its results name the segment).
                Port::new(node, LinkId(link as u32), 0, port, limits)
            };
            ports[port.index()] = Some(p);
        }
    }
    // Every link has two ends, and every segment its stations, each attached above.
    Ok(ports.into_iter().map(|p| p.expect("every port attached")).collect())
}

pub(super) fn nodes(s: &Scenario, topo: &Topology) -> Result<Vec<Node>> {
    let hosts: Vec<NodeId> = topo.hosts().collect();
    (0..topo.names.len())
        .map(|idx| {
            let id = NodeId(idx as u32);
            Ok(match topo.roles[idx] {
                Role::Host(h) => {
                    Node::Host(Host::new(host_config(&s.hosts[h], h)?, topo.interfaces[idx][0].1))
                }
                Role::Switch(_) => {
                    // Destinations are hosts, whose node ids come first: one entry per host.
                    let mut forwarding = vec![None; s.hosts.len()];
                    for &dst in &hosts {
                        forwarding[dst.index()] = topo.next_hop(id, dst).map(|a| a.port);
                    }
                    let ports = topo.interfaces[idx].iter().map(|&(_, p)| p).collect();
                    Node::Switch(Switch { ports, forwarding })
                }
            })
        })
        .collect()
}

/// The variation of each host's interrupt service time, on its port (the controller's
/// hold after each frame is set there), each from its own stream.
pub(super) fn interrupt_jitter(s: &Scenario, topo: &Topology, ports: &mut [Port]) -> Result<()> {
    for (node, role) in topo.roles.iter().enumerate() {
        let Role::Host(h) = *role else { continue };
        let spec = &s.hosts[h];
        let jitter = spec.tx_interrupt_jitter.0;
        if jitter == Duration::ZERO {
            continue;
        }
        if spec.tx_interrupt.0 == Duration::ZERO {
            return Err(ScenarioError::at(
                format!("hosts[{h}].tx_interrupt_jitter"),
                "varies the interrupt service time, but the host has none; give tx_interrupt too",
            ));
        }
        let stream = rng::stream(s.seed, &format!("host/{}/interrupt", spec.name));
        let port = topo.interfaces[node][0].1;
        ports[port.index()].interrupt_jitter = Some(Box::new(InterruptJitter::new(jitter, stream)));
    }
    Ok(())
}

/// Most transmit buffers or receive-ring slots a host may have.
const MAX_HOST_BUFFERS: u32 = 1 << 20;

fn host_config(spec: &HostSpec, h: usize) -> Result<HostConfig> {
    for (key, v) in [("tx_buffers", spec.tx_buffers), ("rx_buffers", spec.rx_buffers)] {
        if !(1..=MAX_HOST_BUFFERS).contains(&v) {
            return Err(ScenarioError::at(
                format!("hosts[{h}].{key}"),
                format!("{v} is out of range; expected 1 to {MAX_HOST_BUFFERS}"),
            ));
        }
    }
    Ok(HostConfig {
        tx_processing: spec.tx_processing.0,
        rx_processing: spec.rx_processing.0,
        tx_buffers: spec.tx_buffers,
        rx_buffers: spec.rx_buffers,
        tx_interrupt: spec.tx_interrupt.0,
    })
}

//! From a checked-in-shape scenario to a runnable network: every consistency rule that
//! the schema alone cannot express, then assembly. Each rule names the key path it
//! concerns and says what is expected.

use std::collections::{HashMap, VecDeque};

use crate::app::{App, AppKind, Arrivals, FilePacing, PacketSource, UdpFileTransfer};
use crate::engine::{rng, RunLimits};
use crate::ids::{FlowId, NodeId, PortId};
use crate::node::{Host, HostConfig, Port, QueueLimits, Switch};
use crate::phy::LinkDirection;
use crate::sim::{Network, Node};
use crate::time::{BitRate, Bytes, Duration, SimTime};
use crate::wire::{ethernet, udp};

use super::error::ScenarioError;
use super::schema::{AppSpec, BufferSpec, Scenario, SourceSpec};

/// A validated scenario, ready to run.
#[derive(Debug)]
pub struct Built {
    /// The network.
    pub network: Network,
    /// When the run stops.
    pub limits: RunLimits,
}

type Result<T> = std::result::Result<T, ScenarioError>;

/// What a node is, while the network is being assembled.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Host(usize),
    Switch(usize),
}

/// Node names to ids, and the links of each node.
struct Topology {
    ids: HashMap<String, NodeId>,
    roles: Vec<Role>,
    names: Vec<String>,
    /// Per node: (link index, neighbour) in link order.
    adjacency: Vec<Vec<(usize, NodeId)>>,
}

impl Topology {
    fn lookup(&self, name: &str, path: &str) -> Result<NodeId> {
        self.ids.get(name).copied().ok_or_else(|| {
            let mut known: Vec<&str> = self.names.iter().map(String::as_str).collect();
            known.sort_unstable();
            ScenarioError::at(path, format!("no node named {name:?}; known nodes: {}", known.join(", ")))
        })
    }

    fn host(&self, name: &str, path: &str) -> Result<NodeId> {
        let id = self.lookup(name, path)?;
        match self.roles[id.index()] {
            Role::Host(_) => Ok(id),
            Role::Switch(_) => Err(ScenarioError::at(path, format!("{name:?} is a switch; expected a host"))),
        }
    }
}

fn nodes_of(s: &Scenario) -> Result<Topology> {
    let mut topo = Topology { ids: HashMap::new(), roles: Vec::new(), names: Vec::new(), adjacency: Vec::new() };
    let named = s.hosts.iter().enumerate().map(|(i, h)| (format!("hosts[{i}].name"), &h.name, Role::Host(i)));
    let named = named.chain(s.switches.iter().enumerate().map(|(i, w)| (format!("switches[{i}].name"), &w.name, Role::Switch(i))));
    for (path, name, role) in named {
        if name.is_empty() {
            return Err(ScenarioError::at(path, "a node name must not be empty"));
        }
        let id = NodeId(topo.names.len() as u32);
        if topo.ids.insert(name.clone(), id).is_some() {
            return Err(ScenarioError::at(path, format!("node name {name:?} is used twice; names must be unique")));
        }
        topo.roles.push(role);
        topo.names.push(name.clone());
        topo.adjacency.push(Vec::new());
    }
    for (i, link) in s.links.iter().enumerate() {
        let a = topo.lookup(&link.between[0], &format!("links[{i}].between[0]"))?;
        let b = topo.lookup(&link.between[1], &format!("links[{i}].between[1]"))?;
        if a == b {
            return Err(ScenarioError::at(format!("links[{i}].between"), "a link must join two different nodes"));
        }
        if link.rate.0.as_bps() == 0 {
            return Err(ScenarioError::at(format!("links[{i}].rate"), "must be greater than 0 b/s"));
        }
        let mtu = link.mtu.0.get();
        if !(68..=ethernet::MAX_JUMBO_MTU).contains(&mtu) {
            return Err(ScenarioError::at(
                format!("links[{i}].mtu"),
                format!("{mtu} B is outside 68 B (the IPv4 minimum) to {} B (jumbo frames)", ethernet::MAX_JUMBO_MTU),
            ));
        }
        topo.adjacency[a.index()].push((i, b));
        topo.adjacency[b.index()].push((i, a));
    }
    for (id, role) in topo.roles.iter().enumerate() {
        if let Role::Host(h) = role {
            let n = topo.adjacency[id].len();
            if n != 1 {
                return Err(ScenarioError::at(
                    format!("hosts[{h}]"),
                    format!("host {:?} has {n} links; a host has exactly one network interface (one link)", topo.names[id]),
                ));
            }
        }
    }
    Ok(topo)
}

/// Breadth-first distances (in hops) from `dst`, moving only through switches.
fn hops_to(topo: &Topology, dst: NodeId) -> Vec<Option<u32>> {
    let mut dist = vec![None; topo.names.len()];
    dist[dst.index()] = Some(0);
    let mut frontier = VecDeque::from([dst]);
    while let Some(n) = frontier.pop_front() {
        let d = dist[n.index()].unwrap_or(0);
        if n != dst && matches!(topo.roles[n.index()], Role::Host(_)) {
            continue; // hosts do not forward
        }
        for &(_, m) in &topo.adjacency[n.index()] {
            if dist[m.index()].is_none() {
                dist[m.index()] = Some(d + 1);
                frontier.push_back(m);
            }
        }
    }
    dist
}

fn check_buffer(buf: &BufferSpec, path: &str, largest_frame: u64) -> Result<QueueLimits> {
    if buf.bytes.is_none() && buf.frames.is_none() {
        return Err(ScenarioError::at(path, "give bytes, frames or both; a buffer must be finite"));
    }
    if let Some(b) = buf.bytes {
        if b.0.get() < largest_frame {
            return Err(ScenarioError::at(
                format!("{path}.bytes"),
                format!("{} is smaller than one maximum frame ({largest_frame} B) of this switch's links", b.0),
            ));
        }
    }
    if buf.frames == Some(0) {
        return Err(ScenarioError::at(format!("{path}.frames"), "must hold at least 1 frame"));
    }
    Ok(QueueLimits { bytes: buf.bytes.map(|b| b.0.get()), frames: buf.frames })
}

/// Checks `s` and assembles its network.
pub fn build(s: &Scenario) -> Result<Built> {
    let topo = nodes_of(s)?;
    if let Some(d) = s.duration {
        if d.0 == Duration::ZERO {
            return Err(ScenarioError::at("duration", "must be greater than 0 s"));
        }
    }
    if s.max_events == Some(0) {
        return Err(ScenarioError::at("max_events", "must be at least 1"));
    }

    // Ports: two per link, in link order (port 2i at between[0], 2i+1 at between[1]).
    let mut ports = Vec::with_capacity(2 * s.links.len());
    let mut port_of_link_end: Vec<[PortId; 2]> = Vec::with_capacity(s.links.len());
    for (i, link) in s.links.iter().enumerate() {
        let dir = LinkDirection { rate: link.rate.0, delay: link.delay.0 };
        let a = topo.ids[&link.between[0]];
        let b = topo.ids[&link.between[1]];
        let (pa, pb) = (PortId(2 * i as u32), PortId(2 * i as u32 + 1));
        for (node, peer) in [(a, pb), (b, pa)] {
            let limits = match topo.roles[node.index()] {
                // Host NICs are bounded by the host's transmit buffers, not a byte limit.
                Role::Host(_) => QueueLimits::default(),
                Role::Switch(w) => {
                    let largest = topo.adjacency[node.index()]
                        .iter()
                        .map(|&(l, _)| ethernet::max_frame_for_mtu(s.links[l].mtu.0.get()))
                        .max()
                        .unwrap_or(0);
                    check_buffer(&s.switches[w].port_buffer, &format!("switches[{w}].port_buffer"), largest)?
                }
            };
            ports.push(Port::new(node, peer, dir, limits));
        }
        port_of_link_end.push([pa, pb]);
    }
    let port_towards = |node: NodeId, link: usize| {
        let ends = port_of_link_end[link];
        if topo.ids[&s.links[link].between[0]] == node { ends[0] } else { ends[1] }
    };

    // Nodes, with forwarding tables for switches.
    let host_ids: Vec<NodeId> = (0..topo.names.len() as u32)
        .map(NodeId)
        .filter(|n| matches!(topo.roles[n.index()], Role::Host(_)))
        .collect();
    let distances: HashMap<NodeId, Vec<Option<u32>>> = host_ids.iter().map(|&h| (h, hops_to(&topo, h))).collect();
    let mut nodes = Vec::with_capacity(topo.names.len());
    for (idx, role) in topo.roles.iter().enumerate() {
        let id = NodeId(idx as u32);
        let node = match *role {
            Role::Host(h) => {
                let spec = &s.hosts[h];
                for (key, v) in [("tx_buffers", spec.tx_buffers), ("rx_buffers", spec.rx_buffers)] {
                    if v == 0 {
                        return Err(ScenarioError::at(format!("hosts[{h}].{key}"), "must be at least 1"));
                    }
                }
                let config = HostConfig {
                    tx_processing: spec.tx_processing.0,
                    rx_processing: spec.rx_processing.0,
                    tx_buffers: spec.tx_buffers,
                    rx_buffers: spec.rx_buffers,
                };
                let (link, _) = topo.adjacency[idx][0];
                Node::Host(Host::new(config, port_towards(id, link)))
            }
            Role::Switch(_) => {
                let mut forwarding = vec![None; topo.names.len()];
                for &dst in &host_ids {
                    let dist = &distances[&dst];
                    let Some(mine) = dist[idx] else { continue };
                    let next = topo.adjacency[idx]
                        .iter()
                        .find(|&&(_, m)| dist[m.index()].is_some_and(|d| d + 1 == mine));
                    forwarding[dst.index()] = next.map(|&(link, _)| port_towards(id, link));
                }
                let ports = topo.adjacency[idx].iter().map(|&(l, _)| port_towards(id, l)).collect();
                Node::Switch(Switch { ports, forwarding })
            }
        };
        nodes.push(node);
    }

    // Applications.
    let mut apps = Vec::with_capacity(s.apps.len());
    let mut names = Vec::with_capacity(s.apps.len());
    for (i, spec) in s.apps.iter().enumerate() {
        let path = format!("apps[{i}]");
        let src = topo.host(spec.from(), &format!("{path}.from"))?;
        let dst = topo.host(spec.to(), &format!("{path}.to"))?;
        if src == dst {
            return Err(ScenarioError::at(format!("{path}.to"), "must differ from `from`; a host does not send to itself"));
        }
        let dist = &distances[&dst];
        let Some(_) = dist[src.index()] else {
            return Err(ScenarioError::at(
                format!("{path}.to"),
                format!("{:?} cannot be reached from {:?} through the links given", spec.to(), spec.from()),
            ));
        };
        let path_mtu = path_mtu(s, &topo, dist, src);
        let max_payload = udp::max_payload_for_mtu(path_mtu);
        let payload = spec.payload().get();
        if payload == 0 || payload > max_payload {
            return Err(ScenarioError::at(
                format!("{path}.payload"),
                format!("{payload} B does not fit; expected 1 B to {max_payload} B (path MTU {path_mtu} B less 28 B of IPv4 and UDP headers)"),
            ));
        }
        let kind = match spec {
            AppSpec::UdpFile(f) => {
                if f.size.0.get() == 0 {
                    return Err(ScenarioError::at(format!("{path}.size"), "must be greater than 0 B"));
                }
                let pacing = match f.rate {
                    Some(r) => FilePacing::Rate(positive_rate(r.0, &format!("{path}.rate"))?),
                    None => FilePacing::Host,
                };
                AppKind::UdpFile(UdpFileTransfer::new(f.size.0, pacing))
            }
            AppSpec::ConstantRate(src_spec) => source(src_spec, &path, s, false)?,
            AppSpec::Poisson(src_spec) => source(src_spec, &path, s, true)?,
        };
        let name = spec.name().map_or_else(|| path.clone(), str::to_owned);
        let stream = rng::stream(s.seed, &format!("apps[{i}]"));
        let start = SimTime::ZERO + spec.start();
        apps.push(App::new(FlowId(i as u32), src, dst, payload as u32, start, kind, stream));
        names.push(name);
    }

    let limits = RunLimits { until: s.duration.map(|d| SimTime::ZERO + d.0), max_events: s.max_events };
    Ok(Built { network: Network::new(topo.names, nodes, ports, apps, names), limits })
}

fn positive_rate(r: BitRate, path: &str) -> Result<BitRate> {
    if r.as_bps() == 0 {
        Err(ScenarioError::at(path, "must be greater than 0 b/s"))
    } else {
        Ok(r)
    }
}

/// The smallest MTU along the route from `src` towards the destination whose hop
/// distances are `dist`.
fn path_mtu(s: &Scenario, topo: &Topology, dist: &[Option<u32>], src: NodeId) -> u64 {
    let mut mtu = u64::MAX;
    let mut at = src;
    while let Some(d) = dist[at.index()].filter(|&d| d > 0) {
        let Some(&(link, next)) = topo.adjacency[at.index()]
            .iter()
            .find(|&&(_, m)| dist[m.index()].is_some_and(|dm| dm + 1 == d))
        else {
            break;
        };
        mtu = mtu.min(s.links[link].mtu.0.get());
        at = next;
    }
    mtu
}

fn source(spec: &SourceSpec, path: &str, s: &Scenario, poisson: bool) -> Result<AppKind> {
    let rate = positive_rate(spec.rate.0, &format!("{path}.rate"))?;
    let interval = rate.time_to_send(Bytes(spec.payload.0.get()));
    let arrivals = if poisson {
        Arrivals::Poisson { mean_interval: interval }
    } else {
        Arrivals::Constant { interval }
    };
    if spec.count == Some(0) {
        return Err(ScenarioError::at(format!("{path}.count"), "must be at least 1"));
    }
    let start = spec.start.0;
    if let Some(stop) = spec.stop {
        if stop.0 <= start {
            return Err(ScenarioError::at(format!("{path}.stop"), format!("must be later than start ({start})")));
        }
    }
    if spec.stop.is_none() && spec.count.is_none() && s.duration.is_none() && s.max_events.is_none() {
        return Err(ScenarioError::at(
            path,
            "this source never stops: give it `stop` or `count`, or give the scenario a `duration`",
        ));
    }
    Ok(AppKind::Source(PacketSource::new(arrivals, spec.stop.map(|d| SimTime::ZERO + d.0), spec.count)))
}

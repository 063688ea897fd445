//! The scenario's graph: node names and roles, links per node, and shortest-path routes.
//!
//! Routes are shortest paths in hops through switches (hosts do not forward); among equal
//! next hops the first link in file order wins, so routing is deterministic.
//!
//! A shared-medium segment joins every pair of its stations: each station has one port on
//! it, and an attachment per other station. Links are numbered point-to-point links first
//! (in file order), then segments; ports likewise: two per point-to-point link, then one
//! per station, segment by segment.

use std::collections::{HashMap, VecDeque};

use crate::ids::{NodeId, PortId};
use crate::wire::ethernet;

use super::error::ScenarioError;
use super::schema::Scenario;

/// What a node is: an index into `hosts` or `switches`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// `hosts[i]`.
    Host(usize),
    /// `switches[i]`.
    Switch(usize),
}

/// One link as seen from one of its ends.
#[derive(Clone, Copy, Debug)]
pub struct Attachment {
    /// Index into `links`.
    pub link: usize,
    /// The node at the other end (on a segment, one of the other stations).
    pub neighbour: NodeId,
    /// This end's port: link `i` has port `2i` at `between[0]` and `2i + 1` at `between[1]`;
    /// a segment's stations have consecutive ports after those of every link.
    pub port: PortId,
}

/// A shared-medium segment as the graph sees it.
#[derive(Clone, Debug)]
pub struct Segment {
    /// Its name.
    pub name: String,
    /// Its stations' nodes, in file order.
    pub nodes: Vec<NodeId>,
    /// The first station's port.
    pub first_port: PortId,
    /// Its index among all links (after the point-to-point links).
    pub link: usize,
}

/// Node names, roles and attachments, checked for consistency.
#[derive(Debug)]
pub struct Topology {
    ids: HashMap<String, NodeId>,
    /// Role of each node, by node id (hosts first, then switches, in file order).
    pub roles: Vec<Role>,
    /// Name of each node, by node id.
    pub names: Vec<String>,
    /// Links of each node, in file order.
    pub attachments: Vec<Vec<Attachment>>,
    /// Ports of each node with the link (or segment) each is on, in file order.
    pub interfaces: Vec<Vec<(usize, PortId)>>,
    /// The segments, in file order.
    pub segments: Vec<Segment>,
    /// Per switch, its links to other switches, in file order.
    switch_links: Vec<Vec<Attachment>>,
    /// Per node, hop distances from every switch to it (`None` for switches, which are
    /// never destinations): hosts × switches entries, not hosts × nodes.
    switch_distances: Vec<Option<Box<[Option<u32>]>>>,
}

type Result<T> = std::result::Result<T, ScenarioError>;

/// Most known names an error message lists.
const SHOWN: usize = 20;

/// Most stations on one segment (the coaxial segments of IEEE 802.3 clause 8 allow 100;
/// the geometry holds a delay per pair).
pub const MAX_STATIONS: usize = 1024;

impl Topology {
    /// Checks names and links of `s` and computes routes.
    pub fn new(s: &Scenario) -> Result<Self> {
        let mut topo = Topology {
            ids: HashMap::new(),
            roles: Vec::new(),
            names: Vec::new(),
            attachments: Vec::new(),
            interfaces: Vec::new(),
            segments: Vec::new(),
            switch_links: Vec::new(),
            switch_distances: Vec::new(),
        };
        let hosts =
            s.hosts.iter().enumerate().map(|(i, h)| (format!("hosts[{i}].name"), &h.name, Role::Host(i)));
        let switches = s
            .switches
            .iter()
            .enumerate()
            .map(|(i, w)| (format!("switches[{i}].name"), &w.name, Role::Switch(i)));
        for (path, name, role) in hosts.chain(switches) {
            topo.add_node(&path, name, role)?;
        }
        for (i, link) in s.links.iter().enumerate() {
            topo.add_link(s, i, link)?;
        }
        let mut next_port = 2 * s.links.len() as u32;
        for (k, seg) in s.segments.iter().enumerate() {
            let nodes: Vec<&str> = seg.stations.iter().map(|st| st.node.as_str()).collect();
            topo.add_segment(s, k, &seg.name, &nodes, PortId(next_port))?;
            next_port += seg.stations.len() as u32;
        }
        topo.check_hosts_have_one_link()?;
        topo.switch_links = vec![Vec::new(); s.switches.len()];
        for (n, role) in topo.roles.iter().enumerate() {
            if let Role::Switch(w) = *role {
                topo.switch_links[w] = topo.attachments[n]
                    .iter()
                    .filter(|a| matches!(topo.roles[a.neighbour.index()], Role::Switch(_)))
                    .copied()
                    .collect();
            }
        }
        topo.switch_distances = (0..topo.names.len())
            .map(|n| match topo.roles[n] {
                Role::Host(_) => Some(topo.switch_hops_to(NodeId(n as u32))),
                Role::Switch(_) => None,
            })
            .collect();
        Ok(topo)
    }

    fn add_node(&mut self, path: &str, name: &str, role: Role) -> Result<()> {
        if name.is_empty() {
            return Err(ScenarioError::at(path, "a node name must not be empty"));
        }
        let id = NodeId(self.names.len() as u32);
        if self.ids.insert(name.to_owned(), id).is_some() {
            return Err(ScenarioError::at(
                path,
                format!("node name {name:?} is used twice; names must be unique"),
            ));
        }
        self.roles.push(role);
        self.names.push(name.to_owned());
        self.attachments.push(Vec::new());
        self.interfaces.push(Vec::new());
        Ok(())
    }

    fn add_link(&mut self, s: &Scenario, i: usize, link: &super::schema::LinkSpec) -> Result<()> {
        let a = self.lookup(&link.between[0], &format!("links[{i}].between[0]"))?;
        let b = self.lookup(&link.between[1], &format!("links[{i}].between[1]"))?;
        if a == b {
            return Err(ScenarioError::at(
                format!("links[{i}].between"),
                "a link must join two different nodes",
            ));
        }
        if link.rate.0.as_bps() == 0 {
            return Err(ScenarioError::at(format!("links[{i}].rate"), "must be greater than 0 b/s"));
        }
        let mtu = s.links[i].mtu.0.get();
        if !(68..=ethernet::MAX_JUMBO_MTU).contains(&mtu) {
            return Err(ScenarioError::at(
                format!("links[{i}].mtu"),
                format!(
                    "{mtu} B is outside 68 B (the IPv4 minimum) to {} B (jumbo frames)",
                    ethernet::MAX_JUMBO_MTU
                ),
            ));
        }
        let port = |end: u32| PortId(2 * i as u32 + end);
        self.attachments[a.index()].push(Attachment { link: i, neighbour: b, port: port(0) });
        self.attachments[b.index()].push(Attachment { link: i, neighbour: a, port: port(1) });
        self.interfaces[a.index()].push((i, port(0)));
        self.interfaces[b.index()].push((i, port(1)));
        Ok(())
    }

    /// Adds segment `k` of the file: a shared medium named `name` joining the nodes named
    /// `stations`, station `j` on port `first_port + j` (the graph needs no more of it).
    fn add_segment(
        &mut self,
        s: &Scenario,
        k: usize,
        name: &str,
        stations: &[&str],
        first_port: PortId,
    ) -> Result<()> {
        let path = format!("segments[{k}]");
        if name.is_empty() {
            return Err(ScenarioError::at(format!("{path}.name"), "a segment name must not be empty"));
        }
        if self.ids.contains_key(name) || self.segments.iter().any(|g| g.name == name) {
            return Err(ScenarioError::at(
                format!("{path}.name"),
                format!("{name:?} is already the name of a node or segment; names must be unique"),
            ));
        }
        if stations.is_empty() {
            return Err(ScenarioError::at(
                format!("{path}.stations"),
                "is empty; expected at least one station",
            ));
        }
        if stations.len() > MAX_STATIONS {
            return Err(ScenarioError::at(
                format!("{path}.stations"),
                format!("{} stations exceed the limit of {MAX_STATIONS} per segment", stations.len()),
            ));
        }
        let link = s.links.len() + k;
        let mut nodes = Vec::with_capacity(stations.len());
        for (j, &station) in stations.iter().enumerate() {
            let node = self.lookup(station, &format!("{path}.stations[{j}].node"))?;
            if nodes.contains(&node) {
                return Err(ScenarioError::at(
                    format!("{path}.stations[{j}].node"),
                    format!("{station:?} is already a station of this segment; a node has one port on it"),
                ));
            }
            nodes.push(node);
        }
        for (j, &a) in nodes.iter().enumerate() {
            let port = PortId(first_port.0 + j as u32);
            for &b in nodes.iter().filter(|&&b| b != a) {
                self.attachments[a.index()].push(Attachment { link, neighbour: b, port });
            }
            self.interfaces[a.index()].push((link, port));
        }
        self.segments.push(Segment { name: name.to_owned(), nodes, first_port, link });
        Ok(())
    }

    fn check_hosts_have_one_link(&self) -> Result<()> {
        for (id, role) in self.roles.iter().enumerate() {
            if let Role::Host(h) = role {
                let n = self.interfaces[id].len();
                if n != 1 {
                    return Err(ScenarioError::at(
                        format!("hosts[{h}]"),
                        format!(
                            "host {:?} has {n} links; a host has exactly one network interface (one link)",
                            self.names[id]
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The node called `name`; the error (at `path`) lists the known names, at most
    /// `SHOWN` of them (the message names what a reader takes in at a glance).
    pub fn lookup(&self, name: &str, path: &str) -> Result<NodeId> {
        self.ids.get(name).copied().ok_or_else(|| {
            let mut known: Vec<&str> = self.names.iter().map(String::as_str).collect();
            known.sort_unstable();
            let more = known.len().saturating_sub(SHOWN);
            known.truncate(SHOWN);
            let tail = if more > 0 { format!(" and {more} more") } else { String::new() };
            ScenarioError::at(
                path,
                format!("no node named {name:?}; known nodes: {}{tail}", known.join(", ")),
            )
        })
    }

    /// The host called `name`; a switch or an unknown name is an error at `path`.
    pub fn host(&self, name: &str, path: &str) -> Result<NodeId> {
        let id = self.lookup(name, path)?;
        match self.roles[id.index()] {
            Role::Host(_) => Ok(id),
            Role::Switch(_) => Err(ScenarioError::at(path, format!("{name:?} is a switch; expected a host"))),
        }
    }

    /// The port named `node->peer`: the port of `node` on its link to `peer`.
    pub fn port_named(&self, text: &str, path: &str) -> Result<PortId> {
        let Some((a, b)) = text.split_once("->") else {
            return Err(ScenarioError::at(
                path,
                format!("{text:?} is not a port; expected \"node->peer\", e.g. \"switch->client\""),
            ));
        };
        let (a, b) = (a.trim(), b.trim());
        let node = self.lookup(a, path)?;
        if let Some(seg) = self.segments.iter().find(|g| g.name == b) {
            return self.interfaces[node.index()]
                .iter()
                .find(|&&(l, _)| l == seg.link)
                .map(|&(_, p)| p)
                .ok_or_else(|| ScenarioError::at(path, format!("{a:?} is not a station of segment {b:?}")));
        }
        let peer = self.lookup(b, path)?;
        let mut found = self.attachments[node.index()].iter().filter(|at| at.neighbour == peer);
        match (found.next(), found.next()) {
            (Some(at), None) => Ok(at.port),
            (None, _) => Err(ScenarioError::at(path, format!("no link joins {a:?} and {b:?}"))),
            (Some(_), Some(_)) => Err(ScenarioError::at(
                path,
                format!("several links join {a:?} and {b:?}; a port name must be unambiguous"),
            )),
        }
    }

    /// Host ids, in order.
    pub fn hosts(&self) -> impl Iterator<Item = NodeId> + '_ {
        (0..self.names.len() as u32).map(NodeId).filter(|n| matches!(self.roles[n.index()], Role::Host(_)))
    }

    /// Breadth-first distances (in hops) from every switch to host `dst`, moving only
    /// through switches (hosts do not forward).
    fn switch_hops_to(&self, dst: NodeId) -> Box<[Option<u32>]> {
        let mut dist = vec![None; self.switch_links.len()].into_boxed_slice();
        // A host has exactly one link: the switches at its other end (several on a
        // segment), if any, are 1 hop away.
        let mut frontier = VecDeque::new();
        for a in &self.attachments[dst.index()] {
            if let Role::Switch(first) = self.roles[a.neighbour.index()] {
                if dist[first].is_none() {
                    dist[first] = Some(1);
                    frontier.push_back((first, 1));
                }
            }
        }
        while let Some((w, d)) = frontier.pop_front() {
            for a in &self.switch_links[w] {
                let Role::Switch(next) = self.roles[a.neighbour.index()] else { continue };
                if dist[next].is_none() {
                    dist[next] = Some(d + 1);
                    frontier.push_back((next, d + 1));
                }
            }
        }
        dist
    }

    /// Hops from `node` to host `dst` (`None`: unreachable).
    pub fn hops_to(&self, node: NodeId, dst: NodeId) -> Option<u32> {
        self.hops(node, dst)
    }

    /// Hops from `node` to host `dst` (`None`: unreachable).
    fn hops(&self, node: NodeId, dst: NodeId) -> Option<u32> {
        if node == dst {
            return Some(0);
        }
        let dist = self.switch_distances[dst.index()].as_ref()?;
        match self.roles[node.index()] {
            Role::Switch(w) => dist[w],
            Role::Host(_) => self.attachments[node.index()]
                .iter()
                .filter_map(|a| match self.roles[a.neighbour.index()] {
                    _ if a.neighbour == dst => Some(1),
                    Role::Switch(w) => dist[w].map(|d| d + 1),
                    Role::Host(_) => None,
                })
                .min(),
        }
    }

    /// The attachment through which `from` sends towards host `dst` (`None`: no route,
    /// or `from` is `dst`). Among equal next hops the first link in file order wins.
    pub fn next_hop(&self, from: NodeId, dst: NodeId) -> Option<Attachment> {
        let mine = self.hops(from, dst).filter(|&d| d > 0)?;
        match self.roles[from.index()] {
            // Hosts do not forward: the next hop is the destination or a switch.
            Role::Host(_) => self.attachments[from.index()].iter().copied().find(|a| {
                (a.neighbour == dst || matches!(self.roles[a.neighbour.index()], Role::Switch(_)))
                    && self.hops(a.neighbour, dst) == Some(mine - 1)
            }),
            // `dst` hangs on this switch by its one link (or segment): this end of it.
            Role::Switch(_) if mine == 1 => {
                self.attachments[from.index()].iter().copied().find(|a| a.neighbour == dst)
            }
            Role::Switch(w) => {
                self.switch_links[w].iter().find(|a| self.hops(a.neighbour, dst) == Some(mine - 1)).copied()
            }
        }
    }

    /// Whether `node` is a station of a segment (and so may send frames to itself).
    pub fn segment_of(&self, node: NodeId) -> Option<usize> {
        self.interfaces[node.index()]
            .iter()
            .find_map(|&(l, _)| self.segments.iter().find(|g| g.link == l).map(|g| g.link))
    }

    /// The links a packet from `src` to host `dst` crosses, in order (empty if unreachable).
    pub fn route(&self, src: NodeId, dst: NodeId) -> Vec<usize> {
        let mut links = Vec::new();
        let mut at = src;
        while let Some(a) = self.next_hop(at, dst) {
            links.push(a.link);
            at = a.neighbour;
        }
        links
    }
}

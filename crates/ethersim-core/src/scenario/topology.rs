//! The scenario's graph: node names and roles, links per node, and shortest-path routes.
//!
//! Routes are shortest paths in hops through switches (hosts do not forward); among equal
//! next hops the first link in file order wins, so routing is deterministic.

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
    /// The node at the other end.
    pub neighbour: NodeId,
    /// This end's port: link `i` has port `2i` at `between[0]` and `2i + 1` at `between[1]`.
    pub port: PortId,
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
    /// Per switch, its links to other switches, in file order.
    switch_links: Vec<Vec<Attachment>>,
    /// Per node, hop distances from every switch to it (`None` for switches, which are
    /// never destinations): hosts × switches entries, not hosts × nodes.
    switch_distances: Vec<Option<Box<[Option<u32>]>>>,
}

type Result<T> = std::result::Result<T, ScenarioError>;

/// Most known names an error message lists.
const SHOWN: usize = 20;

impl Topology {
    /// Checks names and links of `s` and computes routes.
    pub fn new(s: &Scenario) -> Result<Self> {
        let mut topo = Topology {
            ids: HashMap::new(),
            roles: Vec::new(),
            names: Vec::new(),
            attachments: Vec::new(),
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
        Ok(())
    }

    fn check_hosts_have_one_link(&self) -> Result<()> {
        for (id, role) in self.roles.iter().enumerate() {
            if let Role::Host(h) = role {
                let n = self.attachments[id].len();
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
    /// [`SHOWN`] of them (the message names what a reader takes in at a glance).
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
        // A host has exactly one link: the switch at its other end, if any, is 1 hop away.
        let Role::Switch(first) = self.roles[self.attachments[dst.index()][0].neighbour.index()] else {
            return dist;
        };
        dist[first] = Some(1);
        let mut frontier = VecDeque::from([(first, 1)]);
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
    fn hops(&self, node: NodeId, dst: NodeId) -> Option<u32> {
        if node == dst {
            return Some(0);
        }
        let dist = self.switch_distances[dst.index()].as_ref()?;
        match self.roles[node.index()] {
            Role::Switch(w) => dist[w],
            Role::Host(_) => {
                let a = self.attachments[node.index()][0];
                match self.roles[a.neighbour.index()] {
                    _ if a.neighbour == dst => Some(1),
                    Role::Switch(w) => dist[w].map(|d| d + 1),
                    Role::Host(_) => None,
                }
            }
        }
    }

    /// The attachment through which `from` sends towards host `dst` (`None`: no route,
    /// or `from` is `dst`). Among equal next hops the first link in file order wins.
    pub fn next_hop(&self, from: NodeId, dst: NodeId) -> Option<Attachment> {
        let mine = self.hops(from, dst).filter(|&d| d > 0)?;
        match self.roles[from.index()] {
            Role::Host(_) => Some(self.attachments[from.index()][0])
                .filter(|a| self.hops(a.neighbour, dst) == Some(mine - 1)),
            Role::Switch(_) if mine == 1 => {
                // `dst` hangs on this switch by its one link: this end of that link.
                let theirs = self.attachments[dst.index()][0];
                let end = theirs.port.0 % 2;
                Some(Attachment {
                    link: theirs.link,
                    neighbour: dst,
                    port: PortId(theirs.port.0 - end + (1 - end)),
                })
            }
            Role::Switch(w) => {
                self.switch_links[w].iter().find(|a| self.hops(a.neighbour, dst) == Some(mine - 1)).copied()
            }
        }
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

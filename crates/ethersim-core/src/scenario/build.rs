//! From a scenario that matches the schema to a runnable network: every consistency rule
//! the schema alone cannot express, then assembly. Each rule names the key path it
//! concerns and says what is expected.

use crate::app::{App, AppKind, Arrivals, FilePacing, PacketSource, UdpFileTransfer};
use crate::engine::{rng, RunLimits};
use crate::ids::{FlowId, NodeId};
use crate::node::{Host, HostConfig, Port, QueueLimits, Switch};
use crate::phy::LinkDirection;
use crate::sim::{Network, Node};
use crate::time::{BitRate, Bytes, Duration, SimTime};
use crate::wire::{ethernet, udp};

use super::error::ScenarioError;
use super::schema::{AppSpec, BufferSpec, HostSpec, Scenario, SourceSpec, UdpFileSpec};
use super::topology::{Role, Topology};

/// A validated scenario, ready to run.
#[derive(Debug)]
pub struct Built {
    /// The network.
    pub network: Network,
    /// When the run stops.
    pub limits: RunLimits,
}

type Result<T> = std::result::Result<T, ScenarioError>;

/// Checks `s` and assembles its network.
pub fn build(s: &Scenario) -> Result<Built> {
    let topo = Topology::new(s)?;
    let limits = run_limits(s)?;
    let ports = ports(s, &topo)?;
    let nodes = nodes(s, &topo)?;
    let (apps, names) = apps(s, &topo)?;
    Ok(Built { network: Network::new(topo.names, nodes, ports, apps, names), limits })
}

fn run_limits(s: &Scenario) -> Result<RunLimits> {
    if s.duration.is_some_and(|d| d.0 == Duration::ZERO) {
        return Err(ScenarioError::at("duration", "must be greater than 0 s"));
    }
    if s.max_events == Some(0) {
        return Err(ScenarioError::at("max_events", "must be at least 1"));
    }
    Ok(RunLimits { until: s.duration.map(|d| SimTime::ZERO + d.0), max_events: s.max_events })
}

/// Two ports per link, in link order: port `2i` at `between[0]`, `2i + 1` at `between[1]`.
fn ports(s: &Scenario, topo: &Topology) -> Result<Vec<Port>> {
    let mut ports: Vec<Option<Port>> = (0..2 * s.links.len()).map(|_| None).collect();
    for (node, attachments) in topo.attachments.iter().enumerate() {
        let node = NodeId(node as u32);
        let limits = match topo.roles[node.index()] {
            // A host's NIC queue is bounded by the host's transmit buffers instead.
            Role::Host(_) => QueueLimits::default(),
            Role::Switch(w) => {
                let largest = attachments
                    .iter()
                    .map(|a| ethernet::max_frame_for_mtu(s.links[a.link].mtu.0.get()))
                    .max()
                    .unwrap_or(0);
                buffer_limits(&s.switches[w].port_buffer, &format!("switches[{w}].port_buffer"), largest)?
            }
        };
        for a in attachments {
            let link = &s.links[a.link];
            let direction = LinkDirection { rate: link.rate.0, delay: link.delay.0 };
            let peer = crate::ids::PortId(a.port.0 ^ 1);
            ports[a.port.index()] = Some(Port::new(node, peer, direction, limits));
        }
    }
    // Every link has two ends, each attached to a node above.
    Ok(ports.into_iter().map(|p| p.expect("both ends of every link attached")).collect())
}

fn buffer_limits(buf: &BufferSpec, path: &str, largest_frame: u64) -> Result<QueueLimits> {
    if buf.bytes.is_none() && buf.frames.is_none() {
        return Err(ScenarioError::at(path, "give bytes, frames or both; a buffer must be finite"));
    }
    if let Some(b) = buf.bytes.filter(|b| b.0.get() < largest_frame) {
        return Err(ScenarioError::at(
            format!("{path}.bytes"),
            format!("{} is smaller than one maximum frame ({largest_frame} B) of this switch's links", b.0),
        ));
    }
    if buf.frames == Some(0) {
        return Err(ScenarioError::at(format!("{path}.frames"), "must hold at least 1 frame"));
    }
    Ok(QueueLimits { bytes: buf.bytes.map(|b| b.0.get()), frames: buf.frames })
}

fn nodes(s: &Scenario, topo: &Topology) -> Result<Vec<Node>> {
    let hosts: Vec<NodeId> = topo.hosts().collect();
    (0..topo.names.len())
        .map(|idx| {
            let id = NodeId(idx as u32);
            Ok(match topo.roles[idx] {
                Role::Host(h) => {
                    Node::Host(Host::new(host_config(&s.hosts[h], h)?, topo.attachments[idx][0].port))
                }
                Role::Switch(_) => {
                    let mut forwarding = vec![None; topo.names.len()];
                    for &dst in &hosts {
                        forwarding[dst.index()] = topo.next_hop(id, dst).map(|a| a.port);
                    }
                    let ports = topo.attachments[idx].iter().map(|a| a.port).collect();
                    Node::Switch(Switch { ports, forwarding })
                }
            })
        })
        .collect()
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
    })
}

fn apps(s: &Scenario, topo: &Topology) -> Result<(Vec<App>, Vec<String>)> {
    let mut apps = Vec::with_capacity(s.apps.len());
    let mut names: Vec<String> = Vec::with_capacity(s.apps.len());
    for (i, spec) in s.apps.iter().enumerate() {
        let path = format!("apps[{i}]");
        let name = spec.name().map_or_else(|| path.clone(), str::to_owned);
        if names.contains(&name) {
            let key = if spec.name().is_some() { format!("{path}.name") } else { path.clone() };
            return Err(ScenarioError::at(
                key,
                format!("application name {name:?} is used twice; names must be unique"),
            ));
        }
        let src = topo.host(spec.from(), &format!("{path}.from"))?;
        let dst = topo.host(spec.to(), &format!("{path}.to"))?;
        if src == dst {
            return Err(ScenarioError::at(
                format!("{path}.to"),
                "must differ from `from`; a host does not send to itself",
            ));
        }
        let route = topo.route(src, dst);
        if route.is_empty() {
            return Err(ScenarioError::at(
                format!("{path}.to"),
                format!("{:?} cannot be reached from {:?} through the links given", spec.to(), spec.from()),
            ));
        }
        let path_mtu = route.iter().map(|&l| s.links[l].mtu.0.get()).min().unwrap_or(ethernet::STANDARD_MTU);
        let max_payload = udp::max_payload_for_mtu(path_mtu);
        let payload = spec.payload().get();
        if payload == 0 || payload > max_payload {
            return Err(ScenarioError::at(
                format!("{path}.payload"),
                format!(
                    "{payload} B does not fit; expected 1 B to {max_payload} B \
                     (path MTU {path_mtu} B less 28 B of IPv4 and UDP headers)"
                ),
            ));
        }
        let kind = match spec {
            AppSpec::UdpFile(f) => file_transfer(f, &path)?,
            AppSpec::ConstantRate(src_spec) => source(src_spec, &path, s, false)?,
            AppSpec::Poisson(src_spec) => source(src_spec, &path, s, true)?,
        };
        // Each application draws from its own stream, named after the application: a named
        // application keeps its random numbers when others are added or reordered.
        let stream = rng::stream(s.seed, &format!("app:{name}.arrivals"));
        let start = SimTime::ZERO + spec.start();
        apps.push(App::new(FlowId(i as u32), src, dst, payload as u32, start, kind, stream));
        names.push(name);
    }
    Ok((apps, names))
}

fn positive_rate(r: BitRate, path: &str) -> Result<BitRate> {
    if r.as_bps() == 0 {
        Err(ScenarioError::at(path, "must be greater than 0 b/s"))
    } else {
        Ok(r)
    }
}

fn file_transfer(f: &UdpFileSpec, path: &str) -> Result<AppKind> {
    if f.size.0.get() == 0 {
        return Err(ScenarioError::at(format!("{path}.size"), "must be greater than 0 B"));
    }
    let pacing = match f.rate {
        Some(r) => FilePacing::Rate(positive_rate(r.0, &format!("{path}.rate"))?),
        None => FilePacing::Host,
    };
    Ok(AppKind::UdpFile(UdpFileTransfer::new(f.size.0, pacing)))
}

fn source(spec: &SourceSpec, path: &str, s: &Scenario, poisson: bool) -> Result<AppKind> {
    let rate = positive_rate(spec.rate.0, &format!("{path}.rate"))?;
    // One packet's payload at the payload rate: the (mean) time between packets.
    let interval = rate.time_to_send(Bytes(spec.payload.0.get()));
    let arrivals =
        if poisson { Arrivals::Poisson { mean_interval: interval } } else { Arrivals::Constant { interval } };
    if spec.count == Some(0) {
        return Err(ScenarioError::at(format!("{path}.count"), "must be at least 1"));
    }
    let start = spec.start.0;
    if let Some(stop) = spec.stop.filter(|stop| stop.0 <= start) {
        return Err(ScenarioError::at(
            format!("{path}.stop"),
            format!("{} must be later than start ({start})", stop.0),
        ));
    }
    if spec.stop.is_none() && spec.count.is_none() && s.duration.is_none() && s.max_events.is_none() {
        return Err(ScenarioError::at(
            path,
            "this source never stops: give it `stop` or `count`, or give the scenario a `duration`",
        ));
    }
    Ok(AppKind::Source(PacketSource::new(arrivals, spec.stop.map(|d| SimTime::ZERO + d.0), spec.count)))
}

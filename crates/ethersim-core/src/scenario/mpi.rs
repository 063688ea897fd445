//! Building MPI jobs: placing ranks, reading traces, and making each job's endpoints and
//! flows.

use std::path::Path;

use crate::app::mpi::{self, Call, Jitter, JitterStreams, MpiJob, MpiNode, Overhead, Placement, Program};
use crate::app::{Endpoint, EndpointKind};
use crate::engine::rng;
use crate::ids::{EndpointId, FlowId, NodeId};
use crate::input;
use crate::node::HostTiming;
use crate::sim::Flow;
use crate::time::{Duration, SimTime};
use crate::wire::{udp, Role};

use super::common::link_mtu;
use super::error::ScenarioError;
use super::schema::{CollectiveSpec, MpiJobSpec, Scenario};
use super::topology::{Role as NodeRole, Topology};

type Result<T> = std::result::Result<T, ScenarioError>;

/// The most ranks one job may have (each node keeps a count per pair of its ranks and
/// the job's ranks).
pub const MAX_RANKS: u32 = 4096;
/// The largest size of one call (as a trace's `bytes` column allows).
pub const MAX_CALL_BYTES: u64 = mpi::trace::MAX_CALL_BYTES;
/// The most iterations of a synthetic benchmark (a job whose ranks all share one host and
/// spend no time runs them all at one instant, inside one event).
pub const MAX_ITERATIONS: u64 = 1_000_000_000;
/// The most hosts one job may span (it has a flow per ordered pair of them).
pub const MAX_JOB_NODES: usize = 256;

/// Adds every job's endpoints and flows; returns the jobs. `timing` is each host's
/// timing variability, by host index.
pub fn jobs(
    s: &Scenario,
    topo: &Topology,
    timing: &[Option<HostTiming>],
    endpoints: &mut Vec<Endpoint>,
    flows: &mut Vec<Flow>,
) -> Result<Vec<MpiJob>> {
    let mut names = std::collections::HashSet::new();
    let mut jobs = Vec::with_capacity(s.mpi_jobs.len());
    for (i, spec) in s.mpi_jobs.iter().enumerate() {
        let path = format!("mpi_jobs[{i}]");
        if !names.insert(spec.name.as_str()) {
            return Err(ScenarioError::at(
                format!("{path}.name"),
                format!("job name {:?} is used twice; names must be unique", spec.name),
            ));
        }
        jobs.push(job(s, topo, timing, spec, &path, endpoints, flows)?);
    }
    Ok(jobs)
}

fn job(
    s: &Scenario,
    topo: &Topology,
    timing: &[Option<HostTiming>],
    spec: &MpiJobSpec,
    path: &str,
    endpoints: &mut Vec<Endpoint>,
    flows: &mut Vec<Flow>,
) -> Result<MpiJob> {
    let hosts = hosts(topo, spec, path)?;
    let per_node = spec.processes_per_node;
    let ranks =
        u32::try_from(hosts.len()).ok().and_then(|n| n.checked_mul(per_node)).filter(|&r| r <= MAX_RANKS);
    let ranks = match ranks {
        Some(r) if per_node > 0 => r,
        _ => {
            return Err(ScenarioError::at(
                format!("{path}.processes_per_node"),
                format!("must be at least 1, with at most {MAX_RANKS} ranks in the job (nodes × processes per node)"),
            ));
        }
    };
    let programs = programs(spec, path, ranks)?;
    let segment = spec.segment.0.get();
    let start = SimTime::ZERO + spec.start.0;
    // The flows: one per ordered pair of hosts whose ranks exchange messages, and the
    // largest datagram their routes carry.
    let n = hosts.len() as u32;
    let used = host_pairs(&programs, ranks, per_node, n);
    let first_endpoint = endpoints.len() as u32;
    let mut flow_of: Vec<Option<FlowId>> = vec![None; (n * n) as usize];
    for (a, b) in used {
        let (src, dst) = (hosts[a as usize], hosts[b as usize]);
        let (from, to) = (&spec.nodes[a as usize], &spec.nodes[b as usize]);
        let route = topo.route(src, dst);
        if route.is_empty() {
            return Err(ScenarioError::at(
                format!("{path}.nodes[{b}]"),
                format!("{to:?} cannot be reached from {from:?} through the links given"),
            ));
        }
        let mtu = route.iter().map(|&l| link_mtu(s, l)).min().unwrap_or(1500);
        let max = udp::max_payload_for_mtu(mtu);
        if segment == 0 || segment > max {
            return Err(ScenarioError::at(
                format!("{path}.segment"),
                format!(
                    "{segment} B; expected 1 B to {max} B (the largest UDP payload from {from:?} to {to:?})"
                ),
            ));
        }
        flow_of[(a * n + b) as usize] = Some(FlowId::new(flows.len() as u32));
        let ends = [EndpointId(first_endpoint + a), EndpointId(first_endpoint + b)];
        flows.push(Flow::new(format!("{}:{from}->{to}", spec.name), ends, [src, dst], start));
    }
    let overhead = Overhead {
        fixed: spec.overhead.fixed.map_or(Duration::ZERO, |d| d.0),
        per_byte_ps: spec.overhead.per_byte.map_or(0, |d| d.0.as_ps()),
    };
    let mut programs = programs.into_iter();
    for (a, &host) in hosts.iter().enumerate() {
        let a = a as u32;
        let place = Placement {
            ranks,
            per_node,
            node: a,
            flow_to: flow_of[(a * n) as usize..((a + 1) * n) as usize].to_vec(),
            segment,
            overhead,
            time_calls: a == 0,
            jitter: jitter(s, topo, timing, host, &spec.name, per_node),
        };
        let local: Vec<Program> = programs.by_ref().take(per_node as usize).collect();
        let node = MpiNode::new(place, local, start);
        let outgoing: Vec<FlowId> =
            flow_of[(a * n) as usize..((a + 1) * n) as usize].iter().copied().flatten().collect();
        // A job on one node has no flow.
        let own_flow = outgoing.first().copied();
        let stream = rng::stream(s.seed, &format!("mpi:{}.{}", spec.name, spec.nodes[a as usize]));
        let mut e =
            Endpoint::new(host, own_flow, Role::Sink, start, EndpointKind::Mpi(Box::new(node)), stream);
        e.source_of = outgoing;
        endpoints.push(e);
    }
    Ok(MpiJob {
        name: spec.name.clone(),
        hosts,
        endpoints: (0..n).map(|a| EndpointId(first_endpoint + a)).collect(),
        ranks,
        per_node,
        start,
    })
}

/// The timing variability of `host`'s `local` ranks of job `job`, if the host has one:
/// each rank draws from its own streams, named after the host, the purpose, the job and
/// the rank's place on the host (so adding a host or a job changes no other's draws).
fn jitter(
    s: &Scenario,
    topo: &Topology,
    timing: &[Option<HostTiming>],
    host: NodeId,
    job: &str,
    local: u32,
) -> Option<Box<Jitter>> {
    let NodeRole::Host(h) = topo.roles[host.index()] else { return None };
    let timing = timing[h].clone()?;
    let name = &topo.names[host.index()];
    let streams = (0..local)
        .map(|i| JitterStreams {
            sleep: rng::stream(s.seed, &format!("host/{name}/sleep_overshoot/{job}/{i}")),
            call: rng::stream(s.seed, &format!("host/{name}/call_overhead/{job}/{i}")),
        })
        .collect();
    Some(Box::new(Jitter { timing, streams }))
}

/// The ordered pairs of distinct hosts between whose ranks the programs send messages.
fn host_pairs(
    programs: &[Program],
    ranks: u32,
    per_node: u32,
    nodes: u32,
) -> std::collections::BTreeSet<(u32, u32)> {
    let mut pairs = std::collections::BTreeSet::new();
    let mut sends = Vec::new();
    let mut add_call = |rank: u32, call: &Call, pairs: &mut std::collections::BTreeSet<(u32, u32)>| {
        for step in 0..call.step_count(ranks) {
            sends.clear();
            call.step_sends(rank, ranks, step, &mut sends);
            for &(to, _) in &sends {
                let (a, b) = (rank / per_node, to / per_node);
                if a != b {
                    pairs.insert((a, b));
                }
            }
        }
    };
    for (rank, program) in programs.iter().enumerate() {
        let rank = rank as u32;
        match program {
            Program::Synthetic { call, .. } => add_call(rank, call, &mut pairs),
            Program::Trace(ops) => {
                for op in ops {
                    add_call(rank, &op.call, &mut pairs);
                }
            }
        }
        if pairs.len() as u64 == u64::from(nodes) * u64::from(nodes - 1) {
            break;
        }
    }
    pairs
}

fn hosts(topo: &Topology, spec: &MpiJobSpec, path: &str) -> Result<Vec<NodeId>> {
    if spec.nodes.is_empty() || spec.nodes.len() > MAX_JOB_NODES {
        return Err(ScenarioError::at(
            format!("{path}.nodes"),
            format!("expected 1 to {MAX_JOB_NODES} hosts"),
        ));
    }
    let mut hosts = Vec::with_capacity(spec.nodes.len());
    for (k, name) in spec.nodes.iter().enumerate() {
        let h = topo.host(name, &format!("{path}.nodes[{k}]"))?;
        if hosts.contains(&h) {
            return Err(ScenarioError::at(
                format!("{path}.nodes[{k}]"),
                format!("{name:?} is listed twice; list each host once"),
            ));
        }
        hosts.push(h);
    }
    Ok(hosts)
}

/// One program per rank, from the synthetic benchmark or the trace.
fn programs(spec: &MpiJobSpec, path: &str, ranks: u32) -> Result<Vec<Program>> {
    match (&spec.synthetic, &spec.trace) {
        (Some(b), None) => {
            let bytes = b.bytes.map_or(0, |b| b.0.get());
            if bytes > MAX_CALL_BYTES {
                return Err(ScenarioError::at(
                    format!("{path}.synthetic.bytes"),
                    format!("{bytes} B; expected at most {MAX_CALL_BYTES} B (1 TiB)"),
                ));
            }
            if b.iterations > MAX_ITERATIONS {
                return Err(ScenarioError::at(
                    format!("{path}.synthetic.iterations"),
                    format!("{}; expected at most {MAX_ITERATIONS}", b.iterations),
                ));
            }
            let call = match b.collective {
                CollectiveSpec::Alltoall => Call::Alltoall { bytes },
                CollectiveSpec::Allreduce => Call::Allreduce { bytes },
                CollectiveSpec::Barrier if bytes == 0 => Call::Barrier,
                CollectiveSpec::Barrier => {
                    return Err(ScenarioError::at(
                        format!("{path}.synthetic.bytes"),
                        "a barrier carries no bytes; leave it out",
                    ));
                }
            };
            let program = Program::Synthetic { call, sleep: b.sleep.0, iterations: b.iterations };
            Ok(vec![program; ranks as usize])
        }
        (None, Some(file)) => {
            let key = format!("{path}.trace");
            let text = input::read_to_string(Path::new(file), input::MAX_MPI_TRACE_BYTES, "an MPI trace")
                .map_err(|e| ScenarioError::at(&key, format!("cannot read the trace {file:?}: {e}")))?;
            let programs = mpi::trace::parse(&text, ranks).map_err(|e| {
                let at = e.line.map_or_else(String::new, |l| format!(" line {l}"));
                ScenarioError::at(&key, format!("{file}{at}: {}", e.message))
            })?;
            Ok(programs.into_iter().map(Program::Trace).collect())
        }
        _ => Err(ScenarioError::at(path.to_owned(), "give exactly one of `synthetic` and `trace`")),
    }
}

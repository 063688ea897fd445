//! What MPI jobs report: per job and per job node, and the idle intervals of the ports
//! that record them (what a Low Power Idle PHY could sleep in).

use crate::ids::PortId;
use crate::sim::network::Network;
use crate::stats::IdleIntervals;
use crate::time::SimTime;
use serde::Serialize;

/// The results of one MPI job: the profile the EEE performance model needs.
#[derive(Clone, Debug, Serialize)]
pub struct JobResult {
    /// Job name.
    pub name: String,
    /// Ranks.
    pub ranks: u32,
    /// Hosts.
    pub nodes: u32,
    /// Ranks per host.
    pub processes_per_node: u32,
    /// Whether every rank finished its program.
    pub completed: bool,
    /// From the start until the last rank finished, s (`null` if unfinished).
    pub elapsed_s: Option<f64>,
    /// The same, ps (exact).
    pub elapsed_ps: Option<u64>,
    /// Operations rank 0 completed (for the synthetic benchmark: its iterations and the
    /// final sleep).
    pub operations: u64,
    /// Messages between hosts (on the network).
    pub messages: u64,
    /// Their payload bytes.
    pub bytes: u64,
    /// Frames they took.
    pub frames: u64,
    /// Messages between ranks of one host (never on the network).
    pub intra_messages: u64,
    /// Messages between hosts per host: the model's communications per node, `n`.
    pub communications_per_node: f64,
    /// Mean payload bytes per message between hosts: the model's `S`.
    pub mean_bytes: f64,
    /// Mean time between the ends of rank 0's successive calls (one iteration of the
    /// synthetic benchmark: a sleep and a call), s.
    pub operation_mean_s: Option<f64>,
    /// Their standard deviation, s.
    pub operation_std_s: Option<f64>,
    /// Means of up to 20 equal consecutive batches of those times, s (for a batch-means
    /// confidence interval).
    pub operation_batch_means_s: Vec<f64>,
}

/// What the ranks on one host of an MPI job sent and received.
#[derive(Clone, Debug, Serialize)]
pub struct JobNodeResult {
    /// Job name.
    pub job: String,
    /// Host.
    pub node: String,
    /// Ranks on it.
    pub ranks: u32,
    /// What its ranks sent and received.
    #[serde(flatten)]
    pub counts: crate::app::mpi::MpiNodeStats,
    /// When its last rank finished, s from the job's start (`null` if unfinished).
    pub finished_s: Option<f64>,
}

pub(super) fn job_results(net: &Network) -> Vec<JobResult> {
    net.jobs
        .iter()
        .map(|job| {
            let nodes: Vec<&crate::app::mpi::MpiNode> =
                job.endpoints.iter().filter_map(|e| net.endpoints[e.index()].as_mpi()).collect();
            let sum = |f: fn(&crate::app::mpi::MpiNodeStats) -> u64| {
                nodes.iter().map(|n| f(&n.stats())).sum::<u64>()
            };
            let (messages, bytes) = (sum(|s| s.messages_sent), sum(|s| s.bytes_sent));
            let finished: Option<SimTime> =
                nodes.iter().try_fold(SimTime::ZERO, |t, n| n.finished_at().map(|f| f.max(t)));
            // Rank 0 is on the job's first node, which times its calls.
            let timing = nodes.first().and_then(|n| n.call_timing());
            JobResult {
                name: job.name.clone(),
                ranks: job.ranks,
                nodes: job.hosts.len() as u32,
                processes_per_node: job.per_node,
                completed: finished.is_some(),
                elapsed_s: finished.map(|f| (f - job.start).as_secs_f64()),
                elapsed_ps: finished.map(|f| (f - job.start).as_ps()),
                operations: nodes.first().map_or(0, |n| n.first_rank_ops()),
                messages,
                bytes,
                frames: sum(|s| s.frames_sent),
                intra_messages: sum(|s| s.intra_messages),
                communications_per_node: messages as f64 / job.hosts.len() as f64,
                mean_bytes: if messages == 0 { 0.0 } else { bytes as f64 / messages as f64 },
                operation_mean_s: timing.and_then(crate::app::mpi::CallTiming::mean_s),
                operation_std_s: timing.and_then(crate::app::mpi::CallTiming::std_s),
                operation_batch_means_s: timing.map_or_else(Vec::new, |t| t.batch_means_s().to_vec()),
            }
        })
        .collect()
}

pub(super) fn job_node_results(net: &Network) -> Vec<JobNodeResult> {
    let mut rows = Vec::new();
    for job in &net.jobs {
        for (&e, &host) in job.endpoints.iter().zip(&job.hosts) {
            let Some(n) = net.endpoints[e.index()].as_mpi() else { continue };
            rows.push(JobNodeResult {
                job: job.name.clone(),
                node: net.names[host.index()].clone(),
                ranks: n.local_ranks(),
                counts: n.stats(),
                finished_s: n.finished_at().map(|f| (f - job.start).as_secs_f64()),
            });
        }
    }
    rows
}

/// One bin of a port's idle-interval histogram.
#[derive(Clone, Debug, Serialize)]
pub struct IdleBinResult {
    /// Node owning the port.
    pub node: String,
    /// Node at the other end.
    pub peer: String,
    /// Lower edge, s.
    pub lower_s: f64,
    /// Upper edge, s (bins are within 1% of their values).
    pub upper_s: f64,
    /// Idle intervals in [`lower_s`, `upper_s`).
    pub count: u64,
}

pub(super) fn idle_interval_results(net: &Network) -> Vec<IdleBinResult> {
    let mut rows = Vec::new();
    for (i, p) in net.ports.iter().enumerate() {
        let peer = net.peer_name(PortId(i as u32));
        for b in p.idle_intervals().map_or_else(Vec::new, IdleIntervals::bins) {
            rows.push(IdleBinResult {
                node: net.names[p.node.index()].clone(),
                peer: peer.to_owned(),
                lower_s: b.lower_s,
                upper_s: b.upper_s,
                count: b.count,
            });
        }
    }
    rows
}

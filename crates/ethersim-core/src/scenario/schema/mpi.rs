//! `[[mpi_jobs]]`: MPI jobs, synthetic collectives and replayed traces.

use crate::scenario::units::{DurationSpec, SizeSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::common::{default_payload, one, zero_time};

/// An MPI-like parallel job. `processes_per_node` consecutive ranks run on each host of
/// `nodes` (rank r on `nodes[r / processes_per_node]`). Messages between ranks of one host
/// never touch the network; messages between hosts go as UDP datagrams of at most
/// `segment` payload bytes, one flow per ordered pair of hosts whose ranks exchange
/// messages, over a fabric assumed lossless (a lost frame stalls the job). Give exactly
/// one of `synthetic` and `trace`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MpiJobSpec {
    /// Unique name, used in reports; its flows are named `NAME:A->B` after their hosts.
    pub name: String,
    /// The hosts the ranks run on, in rank order.
    pub nodes: Vec<String>,
    /// Ranks per host. Default 1.
    #[serde(default = "one")]
    pub processes_per_node: u32,
    /// The synthetic benchmark: a collective, then a sleep, repeated.
    #[serde(default)]
    pub synthetic: Option<MpiSyntheticSpec>,
    /// A trace to replay: a CSV file of per-rank operations (docs/mpi.md gives the
    /// format). A relative path is relative to the scenario file when it is run from a
    /// file, else to the working directory.
    #[serde(default)]
    pub trace: Option<String>,
    /// The software overhead of each MPI call.
    #[serde(default)]
    pub overhead: MpiOverheadSpec,
    /// Payload bytes per frame (at most the path's largest UDP payload). Default 1472 B.
    #[serde(default = "default_payload")]
    pub segment: SizeSpec,
    /// When the ranks start. Default 0 s.
    #[serde(default = "zero_time")]
    pub start: DurationSpec,
}

/// The synthetic MPI benchmark: `iterations` times the collective and then `sleep`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MpiSyntheticSpec {
    /// The collective each iteration makes.
    pub collective: CollectiveSpec,
    /// Its size: per pair of ranks for alltoall, the vector for allreduce, nothing for
    /// barrier. Default 0 B.
    #[serde(default)]
    pub bytes: Option<SizeSpec>,
    /// Compute (sleep) time after each collective. Default 0 s.
    #[serde(default = "zero_time")]
    pub sleep: DurationSpec,
    /// Iterations.
    pub iterations: u64,
}

/// The collectives of the synthetic benchmark (the algorithms are in docs/mpi.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CollectiveSpec {
    /// `MPI_Alltoall`, pairwise exchange.
    Alltoall,
    /// `MPI_Allreduce`, ring (reduce-scatter then allgather).
    Allreduce,
    /// `MPI_Barrier`, dissemination.
    Barrier,
}

/// The software overhead of an MPI call: `fixed + per_byte × bytes the rank sends in the
/// call`, spent before its first message leaves. Defaults 0 s (the network alone).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MpiOverheadSpec {
    /// Per call.
    #[serde(default)]
    pub fixed: Option<DurationSpec>,
    /// Per byte sent (e.g. "0.5 ns": a 2 GB/s copy).
    #[serde(default)]
    pub per_byte: Option<DurationSpec>,
}

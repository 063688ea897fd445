//! MPI-like parallel applications: ranks on nodes running a program of compute times and
//! MPI calls (collectives and point-to-point), from a synthetic benchmark or a replayed
//! trace.
//!
//! A job places `ranks_per_node` consecutive ranks on each of its hosts (block
//! placement). The ranks of one host share one endpoint ([`MpiNode`]); a job has one flow
//! per ordered pair of its hosts whose ranks exchange messages, which carries every
//! message between their ranks.
//! [`program`] states the algorithm of each call; [`trace`] reads and checks replayed
//! programs.

pub mod node;
pub mod program;
pub mod timing;
pub mod trace;

pub use node::{Jitter, JitterStreams, MpiNode, MpiNodeStats, Overhead, Placement};
pub use program::{Call, Op, Program, CALL_NAMES};
pub use timing::CallTiming;

use crate::ids::{EndpointId, NodeId};
use crate::time::SimTime;

/// One MPI job of a network: what its results are gathered from.
#[derive(Clone, Debug)]
pub struct MpiJob {
    /// Its name in the results.
    pub name: String,
    /// Its hosts, in node order.
    pub hosts: Vec<NodeId>,
    /// The endpoint of its ranks on each host, in node order.
    pub endpoints: Vec<EndpointId>,
    /// Ranks in the job.
    pub ranks: u32,
    /// Ranks per host.
    pub per_node: u32,
    /// When its ranks start.
    pub start: SimTime,
}

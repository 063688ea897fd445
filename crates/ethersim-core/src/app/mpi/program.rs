//! What an MPI rank runs: a sequence of operations, each a compute time and then a call,
//! and how each call breaks into steps of messages.
//!
//! A call is executed as a fixed sequence of steps. In a step a rank sends a set of
//! messages and waits for a set of messages; the step ends once every message it sends
//! has been handed to its host (MPI's local completion of an eager send) and every
//! message it waits for has arrived whole. The algorithms are the classic ones MPI
//! libraries use on small clusters (Thakur, Rabenseifner and Gropp, "Optimization of
//! Collective Communication Operations in MPICH", IJHPCA 2005):
//!
//! - **alltoall**, pairwise exchange: `P − 1` steps; in step `k` (1 ≤ k < P) rank `r` sends
//!   its block for `(r + k) mod P` and receives the block from `(r − k) mod P`. Every rank
//!   sends `(P − 1)` messages of `bytes` (the block each pair exchanges).
//! - **allreduce**, ring (reduce-scatter then allgather): `2 (P − 1)` steps; in each, rank `r`
//!   sends one chunk to `(r + 1) mod P` and receives one from `(r − 1) mod P`. The vector
//!   of `bytes` is cut into `P` chunks whose sizes differ by at most one byte; in step `s`
//!   of the reduce-scatter rank `r` sends chunk `(r − s) mod P`, in step `s` of the
//!   allgather chunk `(r + 1 − s) mod P`. Bandwidth-optimal for any `P`; reduction work is
//!   part of the call's software overhead.
//! - **barrier**, dissemination (Hensgen, Finkel and Manber 1988): `⌈log₂ P⌉` steps; in step
//!   `k` rank `r` sends an empty message to `(r + 2^k) mod P` and waits for one from
//!   `(r − 2^k) mod P`.
//! - **send** / **recv** / **sendrecv** to and from a list of peers: one step.
//!
//! Messages between two ranks are matched in order (MPI's non-overtaking rule): the
//! `n`-th message a rank waits for from a peer is the `n`-th that peer sent it.

use crate::time::Duration;

/// One MPI call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Call {
    /// No call: the operation is compute time alone (a program's tail).
    None,
    /// `MPI_Alltoall` with `bytes` per pair of ranks.
    Alltoall {
        /// Bytes each rank sends to each other rank.
        bytes: u64,
    },
    /// `MPI_Allreduce` of a vector of `bytes`.
    Allreduce {
        /// Size of the vector every rank contributes.
        bytes: u64,
    },
    /// `MPI_Barrier`.
    Barrier,
    /// Sends of `bytes` to each of `peers`.
    Send {
        /// Bytes per message.
        bytes: u64,
        /// Destination ranks.
        peers: Vec<u32>,
    },
    /// Receives of one message from each of `peers`.
    Recv {
        /// Bytes per message (what the senders send).
        bytes: u64,
        /// Source ranks.
        peers: Vec<u32>,
    },
    /// Sends of `bytes` to each of `peers` and a receive from each (a halo exchange).
    Sendrecv {
        /// Bytes per message, each way.
        bytes: u64,
        /// The ranks exchanged with.
        peers: Vec<u32>,
    },
}

/// The names of the calls, as traces spell them.
pub const CALL_NAMES: [&str; 7] = ["none", "alltoall", "allreduce", "barrier", "send", "recv", "sendrecv"];

impl Call {
    /// The call's name in traces and results.
    pub fn name(&self) -> &'static str {
        match self {
            Call::None => "none",
            Call::Alltoall { .. } => "alltoall",
            Call::Allreduce { .. } => "allreduce",
            Call::Barrier => "barrier",
            Call::Send { .. } => "send",
            Call::Recv { .. } => "recv",
            Call::Sendrecv { .. } => "sendrecv",
        }
    }

    /// Whether every rank must make it, in the same order (a collective).
    pub fn is_collective(&self) -> bool {
        matches!(self, Call::Alltoall { .. } | Call::Allreduce { .. } | Call::Barrier)
    }

    /// The steps rank `rank` of `ranks` takes for this call.
    pub fn step_count(&self, ranks: u32) -> u32 {
        match self {
            Call::None => 0,
            Call::Alltoall { .. } => ranks - 1,
            Call::Allreduce { .. } => 2 * (ranks - 1),
            Call::Barrier => u32::BITS - (ranks - 1).leading_zeros(),
            Call::Send { .. } | Call::Recv { .. } | Call::Sendrecv { .. } => 1,
        }
    }

    /// The messages rank `rank` of `ranks` sends in step `step`: appends `(peer, bytes)`
    /// to `out`.
    pub fn step_sends(&self, rank: u32, ranks: u32, step: u32, out: &mut Vec<(u32, u64)>) {
        let p = ranks;
        match self {
            Call::None | Call::Recv { .. } => {}
            Call::Alltoall { bytes } => out.push(((rank + step + 1) % p, *bytes)),
            Call::Allreduce { bytes } => {
                let chunk = if step < p - 1 {
                    (rank + p - step % p) % p
                } else {
                    (rank + 1 + p - (step - (p - 1)) % p) % p
                };
                out.push(((rank + 1) % p, chunk_bytes(*bytes, p, chunk)));
            }
            Call::Barrier => out.push(((rank + (1 << step)) % p, 0)),
            Call::Send { bytes, peers } | Call::Sendrecv { bytes, peers } => {
                out.extend(peers.iter().map(|&q| (q, *bytes)));
            }
        }
    }

    /// The ranks rank `rank` of `ranks` waits for a message from in step `step`: appends
    /// them to `out`.
    pub fn step_receives(&self, rank: u32, ranks: u32, step: u32, out: &mut Vec<u32>) {
        let p = ranks;
        match self {
            Call::None | Call::Send { .. } => {}
            Call::Alltoall { .. } => out.push((rank + p - (step + 1)) % p),
            Call::Allreduce { .. } => out.push((rank + p - 1) % p),
            Call::Barrier => out.push((rank + p - (1 << step) % p) % p),
            Call::Recv { peers, .. } | Call::Sendrecv { peers, .. } => out.extend_from_slice(peers),
        }
    }

    /// The bytes rank `rank` of `ranks` sends over the whole call (its software overhead
    /// is charged on them).
    pub fn bytes_sent(&self, rank: u32, ranks: u32) -> u64 {
        let mut sends = Vec::new();
        (0..self.step_count(ranks)).for_each(|s| self.step_sends(rank, ranks, s, &mut sends));
        sends.iter().fold(0u64, |total, &(_, b)| total.saturating_add(b))
    }
}

/// The size of chunk `k` of `bytes` cut into `parts` chunks: the first `bytes mod parts`
/// chunks carry one byte more.
fn chunk_bytes(bytes: u64, parts: u32, k: u32) -> u64 {
    let parts = u64::from(parts);
    bytes / parts + u64::from(u64::from(k) < bytes % parts)
}

/// One operation of a rank: compute for a while, then make a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Op {
    /// Compute (or sleep) time before the call.
    pub compute: Duration,
    /// The call.
    pub call: Call,
}

/// A rank's program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Program {
    /// The synthetic benchmark: `iterations` times the call and then `sleep` (operation 0
    /// is the first call; the last operation is the final sleep alone).
    Synthetic {
        /// The collective every iteration makes.
        call: Call,
        /// Compute time after each call.
        sleep: Duration,
        /// Iterations.
        iterations: u64,
    },
    /// A replayed trace: the rank's operations in order.
    Trace(Vec<Op>),
}

impl Program {
    /// Operation `i` of the program: its compute time and call; `None` past the end.
    pub fn op(&self, i: u64) -> Option<(Duration, &Call)> {
        match self {
            Program::Synthetic { call, sleep, iterations } => match i {
                0 if *iterations > 0 => Some((Duration::ZERO, call)),
                i if i < *iterations => Some((*sleep, call)),
                i if i == *iterations && *iterations > 0 => Some((*sleep, &Call::None)),
                _ => None,
            },
            Program::Trace(ops) => ops.get(usize::try_from(i).ok()?).map(|o| (o.compute, &o.call)),
        }
    }

    /// The number of operations.
    pub fn len(&self) -> u64 {
        match self {
            Program::Synthetic { iterations, .. } => iterations + u64::from(*iterations > 0),
            Program::Trace(ops) => ops.len() as u64,
        }
    }

    /// The number of calls (operations other than compute alone).
    pub fn calls(&self) -> u64 {
        match self {
            Program::Synthetic { iterations, .. } => *iterations,
            Program::Trace(ops) => ops.iter().filter(|o| o.call != Call::None).count() as u64,
        }
    }

    /// Whether it does nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sends(call: &Call, rank: u32, ranks: u32) -> Vec<Vec<(u32, u64)>> {
        (0..call.step_count(ranks))
            .map(|s| {
                let mut v = Vec::new();
                call.step_sends(rank, ranks, s, &mut v);
                v
            })
            .collect()
    }

    fn receives(call: &Call, rank: u32, ranks: u32) -> Vec<Vec<u32>> {
        (0..call.step_count(ranks))
            .map(|s| {
                let mut v = Vec::new();
                call.step_receives(rank, ranks, s, &mut v);
                v
            })
            .collect()
    }

    /// In every step of a collective, what each rank receives is what its source sends it
    /// in the same step: the steps match pairwise.
    fn assert_steps_match(call: &Call, ranks: u32) {
        for step in 0..call.step_count(ranks) {
            for r in 0..ranks {
                let mut from = Vec::new();
                call.step_receives(r, ranks, step, &mut from);
                for src in from {
                    let mut out = Vec::new();
                    call.step_sends(src, ranks, step, &mut out);
                    assert!(out.iter().any(|&(to, _)| to == r), "{call:?} P={ranks} step {step}: {src}->{r}");
                }
            }
        }
    }

    #[test]
    fn pairwise_alltoall_of_four_ranks_sends_one_block_to_each_other_rank() {
        let call = Call::Alltoall { bytes: 1000 };
        assert_eq!(call.step_count(4), 3);
        assert_eq!(sends(&call, 1, 4), vec![vec![(2, 1000)], vec![(3, 1000)], vec![(0, 1000)]]);
        assert_eq!(receives(&call, 1, 4), vec![vec![0], vec![3], vec![2]]);
        for p in 1..=17 {
            assert_steps_match(&call, p);
            for r in 0..p {
                let mut to: Vec<u32> = sends(&call, r, p).concat().iter().map(|&(q, _)| q).collect();
                to.sort_unstable();
                assert_eq!(to, (0..p).filter(|&q| q != r).collect::<Vec<_>>());
                assert_eq!(call.bytes_sent(r, p), 1000 * u64::from(p - 1));
            }
        }
    }

    #[test]
    fn ring_allreduce_sends_each_chunk_twice_around_the_ring() {
        for p in 1..=9u32 {
            let bytes = 1001;
            let call = Call::Allreduce { bytes };
            assert_eq!(call.step_count(p), 2 * (p - 1));
            assert_steps_match(&call, p);
            // Every rank sends 2 (P-1)/P of the vector, to within a chunk's rounding; over all
            // ranks, every chunk is sent exactly 2 (P - 1) times in all: 2 (P - 1) bytes.
            let total: u64 = (0..p).map(|r| call.bytes_sent(r, p)).sum();
            assert_eq!(total, 2 * u64::from(p - 1) * bytes);
            // In each step a rank forwards the chunk it received in the step before (the
            // ring's pipelining): chunk sent by r at s+1 = chunk sent by r-1 at s.
            for r in 0..p {
                for s in 0..call.step_count(p).saturating_sub(1) {
                    let mut mine = Vec::new();
                    let mut before = Vec::new();
                    call.step_sends(r, p, s + 1, &mut mine);
                    call.step_sends((r + p - 1) % p, p, s, &mut before);
                    assert_eq!(mine[0].1, before[0].1);
                }
            }
        }
    }

    #[test]
    fn dissemination_barrier_takes_ceil_log2_steps_of_empty_messages() {
        let steps: Vec<u32> = (1..=9).map(|p| Call::Barrier.step_count(p)).collect();
        assert_eq!(steps, vec![0, 1, 2, 2, 3, 3, 3, 3, 4]);
        for p in 1..=17 {
            assert_steps_match(&Call::Barrier, p);
            assert_eq!(Call::Barrier.bytes_sent(0, p), 0);
        }
        assert_eq!(sends(&Call::Barrier, 5, 6), vec![vec![(0, 0)], vec![(1, 0)], vec![(3, 0)]]);
        assert_eq!(receives(&Call::Barrier, 5, 6), vec![vec![4], vec![3], vec![1]]);
    }

    #[test]
    fn a_synthetic_program_is_call_then_sleep_and_a_final_sleep() {
        let call = Call::Barrier;
        let p = Program::Synthetic { call: call.clone(), sleep: Duration::from_us(5), iterations: 3 };
        assert_eq!(p.len(), 4);
        assert_eq!(p.op(0), Some((Duration::ZERO, &call)));
        assert_eq!(p.op(2), Some((Duration::from_us(5), &call)));
        assert_eq!(p.op(3), Some((Duration::from_us(5), &Call::None)));
        assert_eq!(p.op(4), None);
        let empty = Program::Synthetic { call, sleep: Duration::ZERO, iterations: 0 };
        assert!(empty.is_empty() && empty.op(0).is_none());
    }
}

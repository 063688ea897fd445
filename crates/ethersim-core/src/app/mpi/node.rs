//! The MPI ranks of one node, as one endpoint: their programs, the messages between
//! them, and the messages they send over the node's NIC.
//!
//! All ranks of a job placed on one host share one endpoint, so that a message between
//! two of them never touches the network: it is delivered the instant its step begins
//! (its copy is part of the call's software overhead). Messages to other nodes wait in
//! one first-in, first-out line and go out as UDP datagrams of at most `segment` payload
//! bytes each through the host's transmit path, one whole message after another.
//!
//! The transport assumes a lossless fabric (as RDMA over Converged Ethernet does, with
//! PAUSE or priority flow control): a lost frame is not recovered, and the ranks that
//! wait for its message never finish; the job's results then say it did not complete.
//!
//! Each frame's sequence number carries its message's source and destination ranks and
//! whether it is the message's last frame: `src << 32 | dst << 1 | last`. Messages
//! between two nodes arrive in the order they were sent (one path, first-in first-out
//! queues), so a count of whole messages per pair of ranks matches them.
//!
//! A host's timing variability ([`HostTiming`]), when it has one, lengthens what its
//! ranks are asked to spend: every sleep of a synthetic benchmark by a sleep overshoot,
//! every call's software overhead by a draw of its own. Each local rank draws from its
//! own two streams ([`Jitter`]) in its own program order, so the draws do not depend on
//! how the ranks' events interleave. A replayed trace's compute times are not sleeps:
//! they were measured on a real host, its noise included, and are kept as they are.

use std::collections::VecDeque;

use super::program::{Call, Program};
use super::timing::CallTiming;
use crate::app::{Next, Outgoing};
use crate::engine::rng::Stream;
use crate::ids::FlowId;
use crate::node::HostTiming;
use crate::time::{Duration, SimTime};
use crate::wire::{Packet, PacketKind, Protocol, Role};

/// The software overhead of an MPI call: `fixed + per_byte × bytes` the rank sends in it,
/// spent before its first message leaves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overhead {
    /// Per call.
    pub fixed: Duration,
    /// Per byte sent in the call, ps.
    pub per_byte_ps: u64,
}

impl Overhead {
    fn of(&self, bytes: u64) -> Duration {
        self.fixed + Duration(self.per_byte_ps.saturating_mul(bytes))
    }
}

/// Where a job's ranks are and how they send.
#[derive(Clone, Debug)]
pub struct Placement {
    /// Ranks in the job.
    pub ranks: u32,
    /// Ranks per node (rank `r` is on node `r / per_node`).
    pub per_node: u32,
    /// This node's index in the job.
    pub node: u32,
    /// The flow to each node of the job, by node index (none to this one).
    pub flow_to: Vec<Option<FlowId>>,
    /// Payload bytes per frame.
    pub segment: u64,
    /// Software overhead per call.
    pub overhead: Overhead,
    /// Whether to time the calls of the node's first rank.
    pub time_calls: bool,
    /// The host's timing variability, if it has any.
    pub jitter: Option<Box<Jitter>>,
}

/// A host's timing variability as the ranks of one node draw it.
#[derive(Clone, Debug)]
pub struct Jitter {
    /// What the host adds, and to what.
    pub timing: HostTiming,
    /// Each local rank's streams, in rank order.
    pub streams: Vec<JitterStreams>,
}

/// One rank's random streams, one per purpose.
#[derive(Clone, Debug)]
pub struct JitterStreams {
    /// For its sleep overshoots.
    pub sleep: Stream,
    /// For its calls' extra overhead.
    pub call: Stream,
}

// Out of line: a draw is rare next to the polls of the ranks' loop, and inlined its
// sampler crowds that loop (measured: 0.2% more instructions on mpi-alltoall-eee, where
// no host has a table).
impl Jitter {
    /// How much longer than `asked` local rank `i`'s sleep takes (a zero sleep is none and
    /// draws nothing).
    #[inline(never)]
    fn sleep(&mut self, i: usize, asked: Duration) -> Duration {
        match &self.timing.sleep_overshoot {
            Some(v) if asked > Duration::ZERO => asked + v.sample(&mut self.streams[i].sleep),
            _ => asked,
        }
    }

    /// Local rank `i`'s software overhead of a call, `asked` plus its extra.
    #[inline(never)]
    fn call(&mut self, i: usize, asked: Duration) -> Duration {
        match &self.timing.call_overhead {
            Some(v) => asked + v.sample(&mut self.streams[i].call),
            None => asked,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Computing until the instant, then the call.
    Computing(SimTime),
    /// In the call's software overhead until the instant, then its first step.
    Overhead(SimTime),
    /// In a step: sending and waiting.
    Stepping,
    /// The program has ended.
    Done,
}

#[derive(Debug)]
struct Rank {
    program: Program,
    op: u64,
    phase: Phase,
    step: u32,
    /// Messages of the current step not yet handed to the host whole.
    unsent: u32,
    /// Ranks whose message the current step still waits for.
    waits: Vec<u32>,
    finished_at: Option<SimTime>,
}

#[derive(Clone, Copy, Debug)]
struct Message {
    src: u32,
    dst: u32,
    flow: Option<FlowId>,
    remaining: u64,
}

/// What a node's ranks sent and received.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct MpiNodeStats {
    /// Messages sent to ranks on other nodes.
    pub messages_sent: u64,
    /// Their payload bytes.
    pub bytes_sent: u64,
    /// Frames they took.
    pub frames_sent: u64,
    /// Messages between ranks of this node (never on the network).
    pub intra_messages: u64,
    /// Their bytes.
    pub intra_bytes: u64,
    /// Messages received whole from other nodes.
    pub messages_received: u64,
    /// Payload bytes received from other nodes.
    pub bytes_received: u64,
}

/// The ranks of one job on one node.
#[derive(Debug)]
pub struct MpiNode {
    place: Placement,
    first_rank: u32,
    ranks: Vec<Rank>,
    line: VecDeque<Message>,
    /// Whole messages arrived, by `local rank × ranks + source rank`.
    arrived: Vec<u32>,
    /// Of those, the ones a step has taken.
    taken: Vec<u32>,
    stats: MpiNodeStats,
    sends: Vec<(u32, u64)>,
    timing: Option<Box<CallTiming>>,
}

impl MpiNode {
    /// The ranks of node `place.node`, running `programs` (one per local rank, in rank
    /// order), from `start`.
    pub fn new(mut place: Placement, programs: Vec<Program>, start: SimTime) -> Self {
        let first_rank = place.node * place.per_node;
        let ranks: Vec<Rank> = programs
            .into_iter()
            .enumerate()
            .map(|(i, program)| {
                let first = program.op(0).map(|(compute, _)| compute);
                let first = first.map(|c| compute_time(place.jitter.as_deref_mut(), i, &program, c));
                Rank {
                    program,
                    op: 0,
                    phase: first.map_or(Phase::Done, |c| Phase::Computing(start + c)),
                    step: 0,
                    unsent: 0,
                    waits: Vec::new(),
                    finished_at: first.is_none().then_some(start),
                }
            })
            .collect();
        let cells = ranks.len() * place.ranks as usize;
        let timing = (place.time_calls)
            .then(|| ranks.first().map(|r| Box::new(CallTiming::new(r.program.calls()))))
            .flatten();
        MpiNode {
            place,
            first_rank,
            ranks,
            line: VecDeque::new(),
            arrived: vec![0; cells],
            taken: vec![0; cells],
            stats: MpiNodeStats::default(),
            sends: Vec::new(),
            timing,
        }
    }

    /// What the ranks want at `now`.
    pub(crate) fn poll(&mut self, now: SimTime, buffer_free: bool) -> Next {
        while (0..self.ranks.len()).fold(false, |moved, i| self.advance(i, now) | moved) {}
        let wake = self
            .ranks
            .iter()
            .filter_map(|r| match r.phase {
                Phase::Computing(t) | Phase::Overhead(t) => Some(t),
                Phase::Stepping | Phase::Done => None,
            })
            .min();
        match (self.line.is_empty(), buffer_free, wake) {
            (false, true, _) => Next::Send,
            (false, false, None) => Next::WaitForBuffer,
            (false, false, Some(t)) => Next::WaitForBufferOrWake(t),
            (true, _, Some(t)) => Next::SleepUntil(t),
            (true, _, None) if self.ranks.iter().all(|r| r.phase == Phase::Done) => Next::Finished,
            (true, _, None) => Next::Idle,
        }
    }

    /// Moves local rank `i` on as far as it can at `now`; whether it moved.
    fn advance(&mut self, i: usize, now: SimTime) -> bool {
        let mut moved = false;
        loop {
            match self.ranks[i].phase {
                Phase::Done => return moved,
                Phase::Computing(t) | Phase::Overhead(t) if t > now => return moved,
                Phase::Computing(_) => {
                    let r = &self.ranks[i];
                    let call = r.program.op(r.op).map_or(&Call::None, |(_, c)| c);
                    let bytes = call.bytes_sent(self.first_rank + i as u32, self.place.ranks);
                    let overhead = match (call, self.place.jitter.as_deref_mut()) {
                        (Call::None, _) => Duration::ZERO,
                        (_, None) => self.place.overhead.of(bytes),
                        (_, Some(jitter)) => jitter.call(i, self.place.overhead.of(bytes)),
                    };
                    self.ranks[i].phase = Phase::Overhead(now + overhead);
                }
                Phase::Overhead(_) => {
                    self.ranks[i].step = 0;
                    self.begin_step(i, now);
                }
                Phase::Stepping => {
                    let r = &mut self.ranks[i];
                    let row = i * self.place.ranks as usize;
                    let (arrived, taken) = (&self.arrived, &mut self.taken);
                    r.waits.retain(|&src| {
                        let cell = row + src as usize;
                        let here = arrived[cell] > taken[cell];
                        taken[cell] += u32::from(here);
                        !here
                    });
                    if r.unsent > 0 || !r.waits.is_empty() {
                        return moved;
                    }
                    r.step += 1;
                    self.begin_step(i, now);
                }
            }
            moved = true;
        }
    }

    /// Rank `i` begins step `step` of its call at `now` (or, past the last, ends the call
    /// and begins its next operation).
    fn begin_step(&mut self, i: usize, now: SimTime) {
        let rank = self.first_rank + i as u32;
        let p = self.place.ranks;
        let r = &mut self.ranks[i];
        let call = r.program.op(r.op).map_or(&Call::None, |(_, c)| c);
        if r.step >= call.step_count(p) {
            self.end_op(i, now);
            return;
        }
        self.sends.clear();
        call.step_sends(rank, p, r.step, &mut self.sends);
        r.waits.clear();
        call.step_receives(rank, p, r.step, &mut r.waits);
        r.phase = Phase::Stepping;
        for &(to, bytes) in &self.sends {
            let node = to / self.place.per_node;
            if node == self.place.node {
                let cell = (to - self.first_rank) as usize * p as usize + rank as usize;
                self.arrived[cell] += 1;
                self.stats.intra_messages += 1;
                self.stats.intra_bytes += bytes;
            } else {
                r.unsent += 1;
                let flow = self.place.flow_to[node as usize];
                self.line.push_back(Message { src: rank, dst: to, flow, remaining: bytes });
                self.stats.messages_sent += 1;
                self.stats.bytes_sent += bytes;
            }
        }
    }

    /// Rank `i` finished its current operation at `now`.
    fn end_op(&mut self, i: usize, now: SimTime) {
        let r = &mut self.ranks[i];
        // The times between calls: an operation that is compute alone (a program's tail)
        // ends no call.
        let made_call = r.program.op(r.op).is_some_and(|(_, c)| *c != Call::None);
        if let (0, true, Some(timing)) = (i, made_call, self.timing.as_deref_mut()) {
            timing.call_ended(now);
        }
        r.op += 1;
        if let Some((compute, _)) = r.program.op(r.op) {
            let compute = compute_time(self.place.jitter.as_deref_mut(), i, &r.program, compute);
            r.phase = Phase::Computing(now + compute);
        } else {
            r.phase = Phase::Done;
            r.finished_at = Some(now);
        }
    }

    /// The next frame of the message at the head of the line.
    pub(crate) fn take(&mut self) -> Outgoing {
        // poll answered Send only with a message in line.
        let m = self.line.front_mut().expect("a message in line");
        let payload = m.remaining.min(self.place.segment);
        m.remaining -= payload;
        let last = m.remaining == 0;
        let (src, dst, flow) = (m.src, m.dst, m.flow);
        if last {
            self.line.pop_front();
            self.ranks[(src - self.first_rank) as usize].unsent -= 1;
        }
        self.stats.frames_sent += 1;
        Outgoing {
            flow,
            to: Role::Sink,
            kind: PacketKind::Data,
            protocol: Protocol::Udp,
            // At most `segment`, which the build bounds by the largest datagram.
            payload: payload as u32,
            seq: u64::from(src) << 32 | u64::from(dst) << 1 | u64::from(last),
            echo: SimTime::NEVER,
        }
    }

    /// A frame of a message from another node arrived.
    pub(crate) fn on_packet(&mut self, pkt: &Packet) {
        let (src, dst, last) = ((pkt.seq >> 32) as u32, (pkt.seq as u32) >> 1, pkt.seq & 1 == 1);
        self.stats.bytes_received += u64::from(pkt.payload);
        if last {
            let cell = (dst - self.first_rank) as usize * self.place.ranks as usize + src as usize;
            self.arrived[cell] += 1;
            self.stats.messages_received += 1;
        }
    }

    /// Whether a message on `flow` waits in line.
    pub(crate) fn has_pending(&self, flow: FlowId) -> bool {
        self.line.iter().any(|m| m.flow == Some(flow))
    }

    /// What the node's ranks sent and received.
    pub fn stats(&self) -> MpiNodeStats {
        self.stats
    }

    /// When the last of the node's ranks finished its program, if all have.
    pub fn finished_at(&self) -> Option<SimTime> {
        self.ranks.iter().try_fold(SimTime::ZERO, |t, r| r.finished_at.map(|f| f.max(t)))
    }

    /// Operations the node's first rank has completed.
    pub fn first_rank_ops(&self) -> u64 {
        self.ranks.first().map_or(0, |r| r.op)
    }

    /// The times between the calls of the node's first rank, if timed.
    pub fn call_timing(&self) -> Option<&CallTiming> {
        self.timing.as_deref()
    }

    /// The ranks on the node.
    pub fn local_ranks(&self) -> u32 {
        self.ranks.len() as u32
    }
}

/// The time local rank `i` spends on an operation's compute time `asked`: a synthetic
/// benchmark's compute is a sleep, which the host's jitter may lengthen.
#[inline]
fn compute_time(jitter: Option<&mut Jitter>, i: usize, program: &Program, asked: Duration) -> Duration {
    match (jitter, program) {
        (Some(j), Program::Synthetic { .. }) => j.sleep(i, asked),
        _ => asked,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(index: u32, ranks: u32, per_node: u32, call: Call, iterations: u64) -> MpiNode {
        let nodes = ranks.div_ceil(per_node);
        let flow_to = (0..nodes).map(|n| (n != index).then(|| FlowId::new(n))).collect();
        let place = Placement {
            ranks,
            per_node,
            node: index,
            flow_to,
            segment: 1000,
            overhead: Overhead { fixed: Duration::from_us(1), per_byte_ps: 10 },
            time_calls: true,
            jitter: None,
        };
        let program = Program::Synthetic { call, sleep: Duration::from_us(3), iterations };
        let local = (ranks - index * per_node).min(per_node);
        MpiNode::new(place, vec![program; local as usize], SimTime::ZERO)
    }

    #[test]
    fn ranks_of_one_node_exchange_without_the_network() {
        // Four ranks on one node: an alltoall costs only its overhead.
        let mut n = node(0, 4, 4, Call::Alltoall { bytes: 100 }, 2);
        // Overhead: 1 us + 10 ps x 300 B = 1.003 us, then the call completes at once.
        assert_eq!(n.poll(SimTime::ZERO, true), Next::SleepUntil(SimTime(1_003_000)));
        assert_eq!(n.poll(SimTime(1_003_000), true), Next::SleepUntil(SimTime(4_003_000)));
        assert_eq!(n.stats().intra_messages, 12);
        assert_eq!(n.poll(SimTime(4_003_000), true), Next::SleepUntil(SimTime(5_006_000)));
        assert_eq!(n.poll(SimTime(5_006_000), true), Next::SleepUntil(SimTime(8_006_000)));
        assert_eq!(n.poll(SimTime(8_006_000), true), Next::Finished);
        assert_eq!(n.finished_at(), Some(SimTime(8_006_000)));
        // Two calls, 4.003 us apart (the 3 us sleep and the second call's overhead).
        let timing = n.call_timing().expect("timed");
        assert_eq!((timing.count(), timing.batch_means_s()), (1, &[4.003e-6][..]));
        assert_eq!(n.stats().messages_sent, 0);
    }

    fn constant(ns: u64) -> crate::node::Variability {
        crate::node::Variability::Exponential { offset: Duration::from_ns(ns), mean: Duration::ZERO }
    }

    fn jitter(ranks: usize, sleep_ns: u64, call_ns: u64) -> Jitter {
        let streams = (0..ranks)
            .map(|r| JitterStreams {
                sleep: crate::engine::rng::stream(1, &format!("s{r}")),
                call: crate::engine::rng::stream(1, &format!("c{r}")),
            })
            .collect();
        let timing =
            HostTiming { sleep_overshoot: Some(constant(sleep_ns)), call_overhead: Some(constant(call_ns)) };
        Jitter { timing, streams }
    }

    #[test]
    fn host_jitter_lengthens_every_sleep_and_call_overhead_but_not_a_trace_compute() {
        // As ranks_of_one_node_exchange_without_the_network, with every sleep 2 us and
        // every call's overhead 0.5 us longer: 1.503 us of overhead, 5 us of sleep.
        let mut n = node(0, 4, 4, Call::Alltoall { bytes: 100 }, 2);
        n.place.jitter = Some(Box::new(jitter(4, 2_000, 500)));
        assert_eq!(n.poll(SimTime::ZERO, true), Next::SleepUntil(SimTime(1_503_000)));
        assert_eq!(n.poll(SimTime(1_503_000), true), Next::SleepUntil(SimTime(6_503_000)));
        assert_eq!(n.poll(SimTime(6_503_000), true), Next::SleepUntil(SimTime(8_006_000)));
        // The final sleep is a sleep too; the program's tail makes no call.
        assert_eq!(n.poll(SimTime(8_006_000), true), Next::SleepUntil(SimTime(13_006_000)));
        assert_eq!(n.poll(SimTime(13_006_000), true), Next::Finished);

        // A replayed trace's compute time is kept as it is; its call still pays the extra.
        let place = Placement { jitter: Some(Box::new(jitter(1, 2_000, 500))), ..n.place.clone() };
        let op = super::super::Op { compute: Duration::from_us(5), call: Call::Barrier };
        let mut t = MpiNode::new(
            Placement { ranks: 1, per_node: 1, ..place },
            vec![Program::Trace(vec![op])],
            SimTime::ZERO,
        );
        assert_eq!(t.poll(SimTime::ZERO, true), Next::SleepUntil(SimTime(5_000_000)));
        assert_eq!(t.poll(SimTime(5_000_000), true), Next::SleepUntil(SimTime(6_500_000)));
    }

    #[test]
    fn a_message_to_another_node_goes_as_segments_and_the_step_waits_for_the_reply() {
        // Two ranks, one per node: node 0 sends 2500 B to rank 1 in three frames.
        let mut n = node(0, 2, 1, Call::Alltoall { bytes: 2500 }, 1);
        let overhead = SimTime(1_000_000 + 25_000);
        assert_eq!(n.poll(SimTime::ZERO, true), Next::SleepUntil(overhead));
        assert_eq!(n.poll(overhead, false), Next::WaitForBuffer);
        let payloads: Vec<(u32, bool)> = (0..3)
            .map(|_| {
                assert_eq!(n.poll(overhead, true), Next::Send);
                let o = n.take();
                (o.payload, o.seq & 1 == 1)
            })
            .collect();
        assert_eq!(payloads, vec![(1000, false), (1000, false), (500, true)]);
        assert_eq!(n.poll(overhead, true), Next::Idle);
        let mut reply = Packet {
            kind: PacketKind::Data,
            protocol: Protocol::Udp,
            to: Role::Sink,
            flow: Some(FlowId::new(1)),
            src: crate::ids::NodeId(1),
            dst: crate::ids::NodeId(0),
            seq: 1 << 32,
            frame_len: 1046,
            payload: 1000,
            created: SimTime::ZERO,
            echo: SimTime::NEVER,
        };
        n.on_packet(&reply);
        assert_eq!(n.poll(SimTime(9), true), Next::Idle);
        reply.seq |= 1;
        n.on_packet(&reply);
        assert_eq!(n.poll(SimTime(10), true), Next::SleepUntil(SimTime(3_000_010)));
        assert_eq!(n.stats().messages_received, 1);
        assert_eq!(n.stats().bytes_sent, 2500);
    }

    #[test]
    fn a_compute_end_is_a_wake_up_even_while_the_line_waits_for_a_buffer() {
        // Ranks 0 and 1 on node 0 of two: rank 0 sends at once, rank 1 after 5 us of
        // compute. With no buffer free, the node waits for one but must still wake when
        // rank 1's compute ends.
        let place = Placement {
            ranks: 4,
            per_node: 2,
            node: 0,
            flow_to: vec![None, Some(FlowId::new(0))],
            segment: 1000,
            overhead: Overhead { fixed: Duration::from_us(1), per_byte_ps: 10 },
            time_calls: false,
            jitter: None,
        };
        let send = |compute: u64, to: u32| {
            Program::Trace(vec![super::super::Op {
                compute: Duration::from_us(compute),
                call: Call::Send { bytes: 100, peers: vec![to] },
            }])
        };
        let mut n = MpiNode::new(place, vec![send(0, 2), send(5, 3)], SimTime::ZERO);
        let overhead_end = SimTime(1_001_000);
        assert_eq!(n.poll(SimTime::ZERO, false), Next::SleepUntil(overhead_end));
        assert_eq!(n.poll(overhead_end, false), Next::WaitForBufferOrWake(SimTime(5_000_000)));
        assert_eq!(n.poll(SimTime(5_000_000), false), Next::WaitForBufferOrWake(SimTime(6_001_000)));
        assert_eq!(n.poll(SimTime(6_001_000), false), Next::WaitForBuffer);
        assert_eq!(n.stats().messages_sent, 2);
        // Both messages go, in the order their steps began; then both ranks are done.
        assert_eq!(n.poll(SimTime(6_001_000), true), Next::Send);
        assert_eq!(n.take().seq, 2 << 1 | 1);
        assert_eq!(n.take().seq, 1 << 32 | 3 << 1 | 1);
        assert_eq!(n.poll(SimTime(6_001_000), true), Next::Finished);
    }
}

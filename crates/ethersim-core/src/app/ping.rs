//! Ping: ICMP echo requests at a fixed interval and the round-trip time of each reply
//! (RFC 792, echo and echo reply).
//!
//! The client sends a request every `interval` from its start, like `ping -i`, whether
//! or not earlier requests were answered; a request due while its host has no free
//! transmit buffer is not sent and is counted as a sender drop. The responder (one per
//! host, as a kernel's, answering every ping flow to it) answers each request with a
//! reply of the same size on the request's flow, through its own host's transmit path
//! (its buffers and processing time); a reply that finds no buffer waits for one, in the
//! order the requests came. A reply
//! carries its request's send instant, so the round-trip time is measured from the
//! moment the client handed the request to its host to the moment its host delivered the
//! reply, as an application sees it.

use std::collections::VecDeque;

use super::AppFigures;

use crate::engine::rng::Stream;
use crate::ids::FlowId;
use crate::stats::DelayStats;
use crate::time::SimTime;
use crate::wire::{Packet, PacketKind, Protocol, Role};

use super::{Next, Outgoing, PacketSource};

/// The pinging end.
#[derive(Clone, Debug)]
pub struct PingClient {
    clock: PacketSource,
    replies: u64,
    rtt: DelayStats,
}

impl PingClient {
    /// A client sending requests of `payload` bytes of echo data on `clock`'s instants
    /// (a constant-interval source with its limits).
    pub fn new(clock: PacketSource) -> Self {
        PingClient { clock, replies: 0, rtt: DelayStats::default() }
    }

    pub(super) fn poll(&mut self, now: SimTime, buffer_free: bool, rng: &mut Stream) -> Next {
        self.clock.poll(now, buffer_free, rng)
    }

    pub(super) fn take(&mut self, rng: &mut Stream) -> Outgoing {
        let seq = self.clock.advance(rng);
        Outgoing {
            flow: None,
            to: Role::Sink,
            kind: PacketKind::Data,
            protocol: Protocol::IcmpEcho,
            payload: self.clock.payload,
            seq,
            echo: SimTime::NEVER,
        }
    }

    pub(super) fn on_packet(&mut self, now: SimTime, pkt: &Packet) {
        // Only echo replies come back to the client; each carries its request's send instant.
        if pkt.protocol == Protocol::IcmpEcho && !pkt.echo.is_never() {
            self.replies += 1;
            self.rtt.record(now - pkt.echo);
        }
    }

    /// Requests not sent for want of a transmit buffer.
    pub fn send_drops(&self) -> u64 {
        self.clock.send_drops()
    }

    /// Replies received.
    pub fn replies(&self) -> u64 {
        self.replies
    }

    /// Round-trip times of the replies.
    pub fn rtt(&self) -> &DelayStats {
        &self.rtt
    }

    pub(super) fn report(&self, out: &mut AppFigures) {
        let requests = self.clock.generated() - self.clock.send_drops();
        out.insert("ping_requests", requests);
        out.insert("ping_replies", self.replies);
        // A summary of plain numbers always serializes.
        out.insert("rtt", serde_json::to_value(self.rtt.summary()).expect("numbers serialize"));
    }
}

/// A request waiting to be answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PendingReply {
    flow: Option<FlowId>,
    seq: u64,
    payload: u32,
    echo: SimTime,
}

/// The answering end.
#[derive(Clone, Debug, Default)]
pub struct PingResponder {
    pending: VecDeque<PendingReply>,
}

impl PingResponder {
    pub(super) fn on_packet(&mut self, pkt: &Packet) {
        if pkt.protocol == Protocol::IcmpEcho {
            self.pending.push_back(PendingReply {
                flow: pkt.flow,
                seq: pkt.seq,
                payload: pkt.payload,
                echo: pkt.created,
            });
        }
    }

    pub(super) fn poll(&mut self, buffer_free: bool) -> Next {
        match (self.pending.is_empty(), buffer_free) {
            (true, _) => Next::Idle,
            (false, true) => Next::Send,
            (false, false) => Next::WaitForBuffer,
        }
    }

    pub(super) fn take(&mut self) -> Outgoing {
        // poll answered Send only with a reply pending.
        let r = self.pending.pop_front().expect("a pending reply");
        Outgoing {
            flow: r.flow,
            to: Role::Source,
            kind: PacketKind::Data,
            protocol: Protocol::IcmpEcho,
            payload: r.payload,
            seq: r.seq,
            echo: r.echo,
        }
    }

    pub(super) fn has_pending(&self, flow: FlowId) -> bool {
        self.pending.iter().any(|r| r.flow == Some(flow))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Arrivals;
    use crate::engine::rng;
    use crate::ids::{FlowId, NodeId};
    use crate::time::Duration;

    fn request(seq: u64, created: SimTime) -> Packet {
        Packet {
            kind: PacketKind::Data,
            protocol: Protocol::IcmpEcho,
            to: Role::Sink,
            flow: Some(FlowId::new(0)),
            src: NodeId(0),
            dst: NodeId(1),
            seq,
            frame_len: 102,
            payload: 56,
            created,
            echo: SimTime::NEVER,
        }
    }

    #[test]
    fn the_client_sends_on_its_interval_and_measures_each_reply() {
        let mut rng = rng::stream(1, "t");
        let clock =
            PacketSource::new(Arrivals::Constant { interval: Duration::from_ms(1) }, None, Some(2), 56);
        let mut c = PingClient::new(clock);
        assert_eq!(c.poll(SimTime(0), true, &mut rng), Next::Send);
        assert_eq!(c.take(&mut rng).seq, 0);
        assert_eq!(c.poll(SimTime(0), true, &mut rng), Next::SleepUntil(SimTime(1_000_000_000)));
        let mut reply = request(0, SimTime(5));
        reply.echo = SimTime(0);
        c.on_packet(SimTime(40), &reply);
        assert_eq!(c.replies(), 1);
        assert!((c.rtt().summary().min_s - 40e-12).abs() < 1e-18);
        assert_eq!(c.poll(SimTime(1_000_000_000), true, &mut rng), Next::Send);
        c.take(&mut rng);
        assert_eq!(c.poll(SimTime(1_000_000_000), true, &mut rng), Next::Finished);
    }

    #[test]
    fn the_responder_answers_each_request_in_order_and_waits_for_buffers() {
        let mut r = PingResponder::default();
        assert_eq!(r.poll(true), Next::Idle);
        r.on_packet(&request(3, SimTime(10)));
        r.on_packet(&request(4, SimTime(20)));
        assert_eq!(r.poll(false), Next::WaitForBuffer);
        assert_eq!(r.poll(true), Next::Send);
        let first = r.take();
        assert_eq!((first.flow, first.seq, first.echo), (Some(FlowId::new(0)), 3, SimTime(10)));
        assert_eq!(first.to, Role::Source);
        assert!(r.has_pending(FlowId::new(0)) && !r.has_pending(FlowId::new(1)));
        assert_eq!(r.take().seq, 4);
        assert!(!r.has_pending(FlowId::new(0)));
    }
}

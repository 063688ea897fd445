//! Applications, as endpoints: what sends and receives packets, when, and how much.
//!
//! An application in a scenario opens one flow between two endpoints, one on each host:
//! the source end (a file sender, a packet source, a pinger) and the sink end (a UDP
//! receiver, an echo responder). An endpoint may be an end of many flows and talk to
//! many peers: a host's echo responder answers every ping flow to that host, each reply
//! on its request's flow (an MPI rank will do the same). An endpoint is a small state machine with time passed
//! in: the network polls it ([`Endpoint::poll`]: send now, sleep until an instant, wait
//! for a transmit buffer, wait for packets, or finished) and hands it every packet that
//! arrives for it ([`Endpoint::on_packet`]). A sink that answers (an echo responder, a
//! TCP receiver) does so through its own host's transmit path, with that host's buffers
//! and processing time, by being polled like any sender. The network owns the timers,
//! hosts and flows; an endpoint only decides.
//!
//! Each kind names itself in the results ([`Endpoint::kind_name`]) and adds its own
//! figures there ([`Endpoint::report`]), so the results module lists no kind.

mod figures;
pub mod mpi;
pub mod ping;
pub mod replay;
pub mod saturating;
pub mod sink;
pub mod sources;
pub mod tcp;
pub mod udp_file;
pub mod voip;
pub mod web;

use crate::engine::rng::Stream;
use crate::engine::Timer;
use crate::ids::{FlowId, NodeId};
use crate::time::SimTime;
use crate::wire::{Packet, PacketKind, Protocol, Role, TcpHeader};

pub use figures::AppFigures;
pub use ping::{PingClient, PingResponder};
pub use replay::{ReplayFrame, TraceReplay};
pub use saturating::{FrameLengths, SaturatingSource};
pub use sink::UdpSink;
pub use sources::{Arrivals, PacketSource};
pub use tcp::{TcpReceiver, TcpSender, TcpWorkload};
pub use udp_file::{FilePacing, UdpFileTransfer};

/// What an endpoint wants after being polled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Hand a packet to the host now (call [`Endpoint::take`]).
    Send,
    /// Nothing until this instant.
    SleepUntil(SimTime),
    /// Blocked until the host frees a transmit buffer.
    WaitForBuffer,
    /// Blocked until the host frees a transmit buffer, but wake at this instant as well
    /// (an endpoint of several ranks whose other ranks have timers).
    WaitForBufferOrWake(SimTime),
    /// Nothing to send until a packet arrives.
    Idle,
    /// No more packets, ever.
    Finished,
}

/// A packet an endpoint decided to send; the network completes it (flow, addresses,
/// frame length) and hands it to the host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outgoing {
    /// The flow it belongs to; `None` for the endpoint's own flow ([`Endpoint::flow`]).
    pub flow: Option<FlowId>,
    /// The end of the flow it goes to.
    pub to: Role,
    /// What it is for.
    pub kind: PacketKind,
    /// Its header stack.
    pub protocol: Protocol,
    /// Application payload, bytes.
    pub payload: u32,
    /// Sequence number.
    pub seq: u64,
    /// Timestamp to echo ([`SimTime::NEVER`]: none).
    pub echo: SimTime,
}

/// The behaviour of an endpoint.
#[derive(Debug)]
pub enum EndpointKind {
    /// Sends a file over UDP.
    UdpFile(UdpFileTransfer),
    /// Constant-rate or Poisson packet source.
    Source(PacketSource),
    /// A source that always has a frame ready (boxed: its lengths would make every
    /// endpoint larger).
    Saturating(Box<SaturatingSource>),
    /// Receives UDP datagrams (no acknowledgement, no recovery).
    UdpSink(UdpSink),
    /// Sends ICMP echo requests and measures round-trip times.
    PingClient(PingClient),
    /// Answers ICMP echo requests.
    PingResponder(PingResponder),
    /// Sends a file or a bulk stream over TCP.
    TcpSender(Box<TcpSender>),
    /// Receives over TCP.
    TcpReceiver(Box<TcpReceiver>),
    /// The ranks of an MPI job on one host.
    Mpi(Box<mpi::MpiNode>),
    /// A packet trace's frames, replayed at their times (boxed: its frames are a table).
    Replay(Box<TraceReplay>),
    /// One end of a two-way voice call (boxed: its delay histograms are large).
    Voip(Box<voip::VoipCall>),
    /// A browser loading pages (boxed: it holds its connections).
    WebClient(Box<web::WebClient>),
    /// The server of a browser's pages (boxed: it holds its connections).
    WebServer(Box<web::WebServer>),
}

/// One endpoint: an end of a flow, on a host.
#[derive(Debug)]
pub struct Endpoint {
    /// The host it lives on.
    pub host: NodeId,
    /// The flow it was made for (packets it sends belong to it unless they say
    /// otherwise); none for an MPI job's ranks on a node with no flow to any other.
    pub flow: Option<FlowId>,
    /// The flows it is the source end of: they complete only once it has finished.
    pub source_of: Vec<FlowId>,
    /// Which end.
    pub role: Role,
    /// When it starts.
    pub start: SimTime,
    /// The behaviour.
    pub kind: EndpointKind,
    /// Its wake-up timer.
    pub timer: Timer,
    /// Whether it waits in its host's line for a transmit buffer.
    pub waiting_for_buffer: bool,
    /// Whether it has sent everything it ever will.
    pub finished: bool,
    rng: Stream,
}

impl Endpoint {
    /// A new endpoint; `rng` is its own named stream.
    pub fn new(
        host: NodeId,
        flow: Option<FlowId>,
        role: Role,
        start: SimTime,
        kind: EndpointKind,
        rng: Stream,
    ) -> Self {
        let source_of = if role == Role::Source { flow.into_iter().collect() } else { Vec::new() };
        Endpoint {
            host,
            flow,
            source_of,
            role,
            start,
            kind,
            timer: Timer::default(),
            waiting_for_buffer: false,
            finished: false,
            rng,
        }
    }

    /// Asks the endpoint what it wants at `now`; `buffer_free` says whether its host can
    /// take a packet.
    #[inline]
    pub fn poll(&mut self, now: SimTime, buffer_free: bool) -> Next {
        // A finished endpoint is still polled: a TCP end in TIME-WAIT answers a
        // retransmitted FIN. Every kind keeps answering Finished once it has.
        if now < self.start {
            return Next::SleepUntil(self.start);
        }
        match &mut self.kind {
            EndpointKind::UdpFile(f) => f.poll(now, buffer_free),
            EndpointKind::Source(s) => s.poll(now, buffer_free, &mut self.rng),
            EndpointKind::Saturating(s) => s.poll(now, buffer_free),
            EndpointKind::UdpSink(_) => Next::Idle,
            EndpointKind::PingClient(p) => p.poll(now, buffer_free, &mut self.rng),
            EndpointKind::PingResponder(r) => r.poll(buffer_free),
            EndpointKind::TcpSender(t) => t.poll(now, buffer_free),
            EndpointKind::TcpReceiver(t) => t.poll(now, buffer_free),
            EndpointKind::Mpi(m) => m.poll(now, buffer_free),
            EndpointKind::Replay(r) => r.poll(now, buffer_free),
            EndpointKind::Voip(v) => v.poll(now, buffer_free, &mut self.rng),
            EndpointKind::WebClient(w) => w.poll(now, buffer_free, &mut self.rng),
            EndpointKind::WebServer(w) => w.poll(now, buffer_free),
        }
    }

    /// The packet the endpoint decided to send (after [`Next::Send`]).
    pub fn take(&mut self, now: SimTime) -> Outgoing {
        match &mut self.kind {
            EndpointKind::UdpFile(f) => f.take(now),
            EndpointKind::Source(s) => s.take(&mut self.rng),
            EndpointKind::Saturating(s) => s.take(&mut self.rng),
            EndpointKind::PingClient(p) => p.take(&mut self.rng),
            EndpointKind::PingResponder(r) => r.take(),
            EndpointKind::TcpSender(t) => t.socket.take(now),
            EndpointKind::TcpReceiver(t) => t.socket.take(now),
            EndpointKind::Mpi(m) => m.take(),
            EndpointKind::Replay(r) => r.take(),
            EndpointKind::Voip(v) => v.take(&mut self.rng),
            EndpointKind::WebClient(w) => w.take(now),
            EndpointKind::WebServer(w) => w.take(now),
            // A sink never answers Send.
            EndpointKind::UdpSink(_) => unreachable!("a UDP sink has nothing to send"),
        }
    }

    /// The TCP header of the segment [`Endpoint::take`] just returned (TCP kinds only):
    /// headers travel beside packets, so that packets of every protocol stay small.
    pub fn tcp_header(&self) -> Option<&TcpHeader> {
        match &self.kind {
            EndpointKind::TcpSender(t) => Some(t.socket.last_header()),
            EndpointKind::TcpReceiver(t) => Some(t.socket.last_header()),
            EndpointKind::WebClient(w) => Some(w.last_header()),
            EndpointKind::WebServer(w) => Some(w.last_header()),
            _ => None,
        }
    }

    /// A packet of one of its flows arrived for it at `now`, with its TCP header if it
    /// is a TCP segment.
    pub fn on_packet(&mut self, now: SimTime, pkt: &Packet, tcp: Option<&TcpHeader>) {
        match &mut self.kind {
            EndpointKind::PingClient(p) => p.on_packet(now, pkt),
            EndpointKind::PingResponder(r) => r.on_packet(pkt),
            EndpointKind::TcpSender(t) => t.socket.on_packet(now, pkt, tcp),
            EndpointKind::TcpReceiver(t) => t.socket.on_packet(now, pkt, tcp),
            EndpointKind::Mpi(m) => m.on_packet(pkt),
            EndpointKind::Voip(v) => v.on_packet(now, pkt),
            EndpointKind::WebClient(w) => w.on_packet(now, pkt, tcp),
            EndpointKind::WebServer(w) => w.on_packet(now, pkt, tcp),
            // A UDP sink only consumes (its flow counts what arrives); senders of one-way
            // flows receive nothing, and a stray packet is ignored.
            EndpointKind::UdpSink(_)
            | EndpointKind::UdpFile(_)
            | EndpointKind::Source(_)
            | EndpointKind::Saturating(_)
            | EndpointKind::Replay(_) => {}
        }
    }

    /// Whether it holds work for `flow` it has not yet handed to its host (an echo reply
    /// waiting for a buffer): the flow is not complete while it does.
    pub fn has_pending(&self, flow: FlowId) -> bool {
        match &self.kind {
            EndpointKind::PingResponder(r) => r.has_pending(flow),
            EndpointKind::TcpSender(t) => t.socket.has_pending(),
            EndpointKind::TcpReceiver(t) => t.socket.has_pending(),
            EndpointKind::Mpi(m) => m.has_pending(flow),
            EndpointKind::WebClient(w) => w.has_pending(),
            EndpointKind::WebServer(w) => w.has_pending(),
            _ => false,
        }
    }

    /// Packets it generated but could not hand over because its host had no buffer.
    pub fn send_drops(&self) -> u64 {
        match &self.kind {
            EndpointKind::Source(s) => s.send_drops(),
            EndpointKind::PingClient(p) => p.send_drops(),
            EndpointKind::Replay(r) => r.send_drops(),
            EndpointKind::Voip(v) => v.send_drops(),
            _ => 0,
        }
    }

    /// Payload bytes its application received, each once and in order, when the kind
    /// knows better than the flow's count of data delivered (a TCP receiver: the flow
    /// counts retransmitted duplicates too). The flow's goodput is computed from this.
    pub fn delivered_bytes(&self) -> Option<u64> {
        match &self.kind {
            EndpointKind::TcpReceiver(t) => Some(t.delivered()),
            _ => None,
        }
    }

    /// The TCP time series it keeps, if asked for.
    pub fn tcp_series(&self) -> Option<&crate::transport::tcp::TcpSeries> {
        match &self.kind {
            EndpointKind::TcpSender(t) => t.series(),
            _ => None,
        }
    }

    /// Its kind's name in the results (the source end names the application).
    pub fn kind_name(&self) -> &'static str {
        match &self.kind {
            EndpointKind::UdpFile(_) => "udp_file",
            EndpointKind::Source(s) => s.kind_name(),
            EndpointKind::Saturating(_) => "saturating",
            EndpointKind::UdpSink(_) => "udp_sink",
            EndpointKind::PingClient(_) => "ping",
            EndpointKind::PingResponder(_) => "ping_responder",
            EndpointKind::TcpSender(t) => t.kind_name(),
            EndpointKind::TcpReceiver(_) => "tcp_receiver",
            EndpointKind::Mpi(_) => "mpi",
            EndpointKind::Replay(_) => "replay",
            EndpointKind::Voip(_) => "voip",
            EndpointKind::WebClient(_) => "web",
            EndpointKind::WebServer(_) => "web_server",
        }
    }

    /// Adds the figures of its kind to its flow's results.
    pub fn report(&self, out: &mut AppFigures) {
        match &self.kind {
            EndpointKind::PingClient(p) => p.report(out),
            EndpointKind::TcpSender(t) => t.report(out),
            EndpointKind::TcpReceiver(t) => t.report(out),
            EndpointKind::Replay(r) => r.report(out),
            EndpointKind::Voip(v) => v.report(out),
            EndpointKind::WebClient(w) => w.report(out),
            // A responder may serve many flows; each flow counts its own replies.
            // A job reports per job, not per flow.
            EndpointKind::PingResponder(_)
            | EndpointKind::UdpSink(_)
            | EndpointKind::UdpFile(_)
            | EndpointKind::Source(_)
            | EndpointKind::Saturating(_)
            | EndpointKind::WebServer(_)
            | EndpointKind::Mpi(_) => {}
        }
    }

    /// The MPI ranks it runs, if it is an MPI job's endpoint.
    pub fn as_mpi(&self) -> Option<&mpi::MpiNode> {
        match &self.kind {
            EndpointKind::Mpi(m) => Some(m),
            _ => None,
        }
    }

    /// Whether the run waits for it to finish even if it has no flow open (an MPI node
    /// whose ranks talk only among themselves).
    pub fn holds_run_open(&self) -> bool {
        matches!(self.kind, EndpointKind::Mpi(_))
    }
}

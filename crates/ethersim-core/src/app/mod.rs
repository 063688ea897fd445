//! Applications: what sends packets, when, and how much. Each application is one flow
//! from a source host to a destination host.
//!
//! An application is a small state machine polled by the network: [`App::poll`] says
//! whether it wants to send now, sleep until an instant, wait for a transmit buffer, or
//! is finished. The network owns the timers and the hosts; the application only decides.

pub mod file_transfer;
pub mod sources;

use rand_pcg::Pcg64Mcg;

use crate::engine::Timer;
use crate::ids::{FlowId, NodeId};
use crate::time::SimTime;
use crate::transport::UdpReceiver;
use crate::wire::{udp, Packet, PacketKind};

pub use file_transfer::{FilePacing, UdpFileTransfer};
pub use sources::{Arrivals, PacketSource};

/// What an application wants after being polled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Hand a packet to the host now (call [`App::take_packet`]).
    Send,
    /// Nothing until this instant.
    SleepUntil(SimTime),
    /// Blocked until the host frees a transmit buffer.
    WaitForBuffer,
    /// No more packets, ever.
    Finished,
}

/// The behaviour of an application.
#[derive(Debug)]
pub enum AppKind {
    /// Send a file of N bytes over UDP.
    UdpFile(UdpFileTransfer),
    /// Constant-rate or Poisson packet source.
    Source(PacketSource),
}

/// Sender-side counters of a flow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Packets handed to the host.
    pub packets: u64,
    /// Payload bytes handed to the host.
    pub bytes: u64,
    /// Packets a source generated while the host had no free transmit buffer (lost at the sender).
    pub send_drops: u64,
    /// Packets lost in the network (queue overflow, receive ring overflow).
    pub network_drops: u64,
    /// Packets handed to the host and not yet delivered or dropped.
    pub in_flight: u64,
}

/// One application and its flow's statistics.
#[derive(Debug)]
pub struct App {
    /// The flow this application sends.
    pub flow: FlowId,
    /// Sending host.
    pub src: NodeId,
    /// Destination host.
    pub dst: NodeId,
    /// Payload bytes per packet (the last packet of a file may be shorter).
    pub payload: u32,
    /// When the application starts.
    pub start: SimTime,
    /// The behaviour.
    pub kind: AppKind,
    /// The application's wake-up timer.
    pub timer: Timer,
    /// Whether it waits for a transmit buffer of its host.
    pub waiting_for_buffer: bool,
    /// Whether it has sent everything it ever will.
    pub finished: bool,
    /// When the last packet left the network (delivered or dropped) after it finished.
    pub completed_at: Option<SimTime>,
    /// Sender-side counters.
    pub sent: SenderStats,
    /// Receiver-side view of the flow.
    pub received: UdpReceiver,
    next_seq: u64,
    rng: Pcg64Mcg,
}

impl App {
    /// A new application; `rng` is its own named stream.
    pub fn new(
        flow: FlowId,
        src: NodeId,
        dst: NodeId,
        payload: u32,
        start: SimTime,
        kind: AppKind,
        rng: Pcg64Mcg,
    ) -> Self {
        App {
            flow,
            src,
            dst,
            payload,
            start,
            kind,
            timer: Timer::default(),
            waiting_for_buffer: false,
            finished: false,
            completed_at: None,
            sent: SenderStats::default(),
            received: UdpReceiver::default(),
            next_seq: 0,
            rng,
        }
    }

    /// Asks the application what it wants at `now`; `buffer_free` says whether its host
    /// can take a packet. A source that finds no buffer counts a send drop and moves on.
    pub fn poll(&mut self, now: SimTime, buffer_free: bool) -> Next {
        if self.finished {
            return Next::Finished;
        }
        if now < self.start {
            return Next::SleepUntil(self.start);
        }
        match &mut self.kind {
            AppKind::UdpFile(f) => f.poll(now, buffer_free),
            AppKind::Source(s) => s.poll(now, buffer_free, &mut self.rng, &mut self.sent.send_drops),
        }
    }

    /// Marks the application finished after [`Next::Finished`]; true the first time only.
    pub fn finish(&mut self, now: SimTime) -> bool {
        if self.finished {
            return false;
        }
        self.finished = true;
        self.note_if_complete(now);
        true
    }

    /// Builds the packet the application decided to send (after [`Next::Send`]).
    pub fn take_packet(&mut self, now: SimTime) -> Packet {
        let payload = match &mut self.kind {
            AppKind::UdpFile(f) => f.take(now, self.payload),
            AppKind::Source(s) => s.take(now, self.payload, &mut self.rng),
        };
        let seq = self.next_seq;
        self.next_seq += 1;
        self.sent.packets += 1;
        self.sent.bytes += u64::from(payload);
        self.sent.in_flight += 1;
        Packet {
            kind: PacketKind::Udp,
            flow: self.flow,
            src: self.src,
            dst: self.dst,
            seq,
            frame_len: udp::frame_len(u64::from(payload)) as u32,
            payload,
            created: now,
        }
    }

    /// One of the flow's packets left the network (delivered: `Some`, dropped: `None`).
    pub fn packet_done(&mut self, now: SimTime, delivered: Option<&Packet>) {
        debug_assert!(self.sent.in_flight > 0);
        self.sent.in_flight -= 1;
        match delivered {
            Some(p) => self.received.deliver(now, p),
            None => self.sent.network_drops += 1,
        }
        self.note_if_complete(now);
    }

    /// Records completion once the sender is finished and nothing is in flight.
    pub fn note_if_complete(&mut self, now: SimTime) {
        if self.finished && self.sent.in_flight == 0 && self.completed_at.is_none() {
            self.completed_at = Some(now);
        }
    }
}

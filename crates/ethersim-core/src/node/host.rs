//! A host with finite speed: its network stack takes time per packet and owns a bounded
//! number of transmit buffers, so a host, not a link, can limit a transfer.
//!
//! Transmit path: an application hands a packet to the host only when a transmit buffer
//! is free; the buffer stays taken while the CPU processes the packet (a fixed time per
//! packet, one packet at a time) and while the NIC queues and sends it, and is freed
//! when the frame has left the wire (an event only when an endpoint waits for it; otherwise
//! the host counts it free at its next look, see `node/port.rs`). Receive path: arriving frames wait in a bounded
//! receive ring (a full ring drops the frame) and are processed one at a time before
//! delivery to the endpoint they are for. The two paths have their own processors.
//!
//! Endpoints that find no free transmit buffer wait in a first-in first-out line; each
//! freed buffer goes to the endpoint at its head, which rejoins the back if it still has
//! more to send, so endpoints sharing a host share its buffers round robin at a cost
//! that does not grow with the number of endpoints on the host.

use std::collections::VecDeque;

use serde::Serialize;

use crate::engine::EventOrder;
use crate::ids::{EndpointId, PortId};
use crate::time::{Duration, SimTime};
use crate::wire::PacketRef;

/// Most slots reserved up front per ring; enough for any realistic NIC ring.
const RESERVE_LIMIT: u32 = 4096;

/// How fast a host is and how many buffers it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostConfig {
    /// CPU time to send one packet.
    pub tx_processing: Duration,
    /// CPU time to receive one packet.
    pub rx_processing: Duration,
    /// Transmit buffers: packets accepted but not yet off the wire.
    pub tx_buffers: u32,
    /// Receive ring slots: frames received but not yet processed.
    pub rx_buffers: u32,
    /// Interrupt service time after each frame sent: the controller starts the next
    /// frame no sooner than this after the last bit of the one before.
    pub tx_interrupt: Duration,
}

/// Counters of one host.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HostStats {
    /// Packets the endpoints handed to the host.
    pub tx_packets: u64,
    /// Frames delivered to endpoints.
    pub rx_packets: u64,
    /// Frames dropped because the receive ring was full.
    pub rx_drops: u64,
}

/// A host's state.
#[derive(Debug)]
pub struct Host {
    /// Speed and buffers.
    pub config: HostConfig,
    /// The host's network interface.
    pub port: PortId,
    tx_in_use: u32,
    /// Transmit buffers of data frames that ended without an event, not yet freed.
    lazily_ended: u32,
    /// When the data frame on the wire that will end without an event (if any) frees
    /// its transmit buffer: the end of its inter-frame gap, in the order of events.
    lazy_end_at: Option<EventOrder>,
    tx_cpu: VecDeque<PacketRef>,
    rx_ring: VecDeque<PacketRef>,
    waiting: VecDeque<EndpointId>,
    stats: HostStats,
}

/// What the transmit path does with a packet an application handed over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxStep {
    /// No processing time: the packet goes to the NIC now.
    ToNic(PacketRef),
    /// The CPU started on a packet; its processing ends at this instant.
    ProcessUntil(SimTime),
    /// The CPU is busy; the packet waits its turn.
    Queued,
}

/// What the receive path does with an arriving frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxStep {
    /// No processing time: deliver to the endpoint now.
    Deliver(PacketRef),
    /// The CPU started on a frame; its processing ends at this instant.
    ProcessUntil(SimTime),
    /// The CPU is busy; the frame waits in the ring.
    Queued,
    /// The receive ring was full: the frame is lost.
    Dropped(PacketRef),
}

impl Host {
    /// A host with `config` whose interface is `port`.
    pub fn new(config: HostConfig, port: PortId) -> Self {
        Host {
            config,
            port,
            tx_in_use: 0,
            lazily_ended: 0,
            lazy_end_at: None,
            // Reserve up to a working size; larger rings grow on demand (once, not per event).
            tx_cpu: VecDeque::with_capacity(config.tx_buffers.min(RESERVE_LIMIT) as usize),
            rx_ring: VecDeque::with_capacity(config.rx_buffers.min(RESERVE_LIMIT) as usize),
            waiting: VecDeque::new(),
            stats: HostStats::default(),
        }
    }

    /// Whether an endpoint may hand over a packet now.
    pub fn has_tx_buffer(&self) -> bool {
        self.tx_in_use < self.config.tx_buffers
    }

    /// Accepts `pkt` from an endpoint into a transmit buffer and queues it for the
    /// CPU. The caller checks [`Host::has_tx_buffer`] first.
    pub fn accept_tx(&mut self, now: SimTime, pkt: PacketRef) -> TxStep {
        debug_assert!(self.has_tx_buffer());
        self.tx_in_use += 1;
        self.stats.tx_packets += 1;
        if self.config.tx_processing == Duration::ZERO {
            return TxStep::ToNic(pkt);
        }
        self.tx_cpu.push_back(pkt);
        if self.tx_cpu.len() == 1 {
            TxStep::ProcessUntil(now + self.config.tx_processing)
        } else {
            TxStep::Queued
        }
    }

    /// The CPU finished the head transmit packet: returns it (for the NIC) and the next step.
    /// When the CPU has another packet, the instant its processing ends is returned too.
    pub fn finish_tx_processing(&mut self, now: SimTime) -> (PacketRef, Option<SimTime>) {
        // Completion events are scheduled only while the CPU queue is non-empty.
        let pkt = self.tx_cpu.pop_front().expect("tx processing completion with an empty CPU queue");
        let next = (!self.tx_cpu.is_empty()).then(|| now + self.config.tx_processing);
        (pkt, next)
    }

    /// A frame left the wire (or was lost on it): its transmit buffer is free again.
    pub fn release_tx_buffer(&mut self) {
        debug_assert!(self.tx_in_use > 0);
        self.tx_in_use -= 1;
    }

    /// A frame of this host starts on the wire with nothing waiting behind it; its gap
    /// ends at `free_at` (the place its end's event would have among the events at that
    /// instant). Whether its end may go without an event: yes unless an endpoint waits
    /// for a buffer. A data frame's buffer is then freed at `free_at`, counted at the
    /// host's next look for one ([`Host::take_lazy_frees`]).
    pub fn end_lazily(&mut self, free_at: EventOrder, data: bool) -> bool {
        if !self.waiting.is_empty() {
            return false;
        }
        if data {
            // The port is free only once the frame before has ended: a data frame of
            // the host's that ended without an event has freed its buffer.
            if self.lazy_end_at.replace(free_at).is_some() {
                self.lazily_ended += 1;
            }
        }
        true
    }

    /// Frees the transmit buffers of data frames that ended without an event before
    /// `now` (the event being handled); whether a buffer is free then. Called when none
    /// is free otherwise: until a buffer is wanted, nothing else needs the count.
    pub fn take_lazy_frees(&mut self, now: EventOrder) -> bool {
        let mut freed = std::mem::take(&mut self.lazily_ended);
        if self.lazy_end_at.is_some_and(|t| t < now) {
            self.lazy_end_at = None;
            freed += 1;
        }
        debug_assert!(self.tx_in_use >= freed);
        self.tx_in_use -= freed;
        self.has_tx_buffer()
    }

    /// The frame on the host's wire at `now` (the event being handled) will free its
    /// buffer another way: its end became an event (an endpoint or a frame waits behind
    /// it), or the link cut it off. If it is the data frame that was to end without an
    /// event, that no longer frees the buffer (a frame that ended before `now` still
    /// does). Returns whether it was.
    pub fn end_made_event(&mut self, now: EventOrder) -> bool {
        let on_wire = self.lazy_end_at.is_some_and(|t| t > now);
        if on_wire {
            self.lazy_end_at = None;
        }
        on_wire
    }

    /// `endpoint` waits for a transmit buffer (at the back of the line).
    pub fn wait_for_buffer(&mut self, endpoint: EndpointId) {
        self.waiting.push_back(endpoint);
    }

    /// The endpoint at the head of the line, if a buffer is free for it.
    pub fn next_waiting(&mut self) -> Option<EndpointId> {
        if self.has_tx_buffer() {
            self.waiting.pop_front()
        } else {
            None
        }
    }

    /// A frame arrived from the wire (zero processing time delivers it at once).
    pub fn accept_rx(&mut self, now: SimTime, pkt: PacketRef) -> RxStep {
        if self.config.rx_processing == Duration::ZERO {
            self.stats.rx_packets += 1;
            return RxStep::Deliver(pkt);
        }
        if self.rx_ring.len() >= self.config.rx_buffers as usize {
            self.stats.rx_drops += 1;
            return RxStep::Dropped(pkt);
        }
        self.rx_ring.push_back(pkt);
        if self.rx_ring.len() == 1 {
            RxStep::ProcessUntil(now + self.config.rx_processing)
        } else {
            RxStep::Queued
        }
    }

    /// The CPU finished the head received frame: returns it (for its endpoint).
    /// When the ring holds another frame, the instant its processing ends is returned too.
    pub fn finish_rx_processing(&mut self, now: SimTime) -> (PacketRef, Option<SimTime>) {
        // Completion events are scheduled only while the ring is non-empty.
        let pkt = self.rx_ring.pop_front().expect("rx processing completion with an empty ring");
        self.stats.rx_packets += 1;
        let next = (!self.rx_ring.is_empty()).then(|| now + self.config.rx_processing);
        (pkt, next)
    }

    /// The host's counters.
    pub fn stats(&self) -> &HostStats {
        &self.stats
    }
}

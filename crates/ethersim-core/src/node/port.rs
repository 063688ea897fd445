//! A port: the transmitting end of one direction of a link, with its output queue, its
//! priority slot for MAC control frames, and its transmit gate.
//!
//! The port owns the queues and the transmit state; the link [`Direction`] it drives
//! owns the rate, the delay and the frames on the cable. Whether a frame may start is
//! asked of one place, the port's [`TxGate`]; MAC control frames go out ahead of queued
//! data and pass closers that hold only data (PAUSE, queue policies).
//!
//! The end of a transmission is an event only when someone needs to act then: a frame
//! waits behind it, an endpoint waits for the transmit buffer a host's frame frees, a
//! policy watches the queue, or the trace path listens. Otherwise the transmission is
//! settled lazily, at the next operation on the port or when results are read
//! (`Port::settle`), with the same counts, so an uncongested port costs one event per
//! frame fewer. A host's data frame that ends so frees its transmit buffer at the
//! instant its gap ends: the host keeps that instant and counts the buffer free at its
//! next look (`node/host.rs`), so a receiver's acknowledgements, sent with nothing
//! waiting, cost no event at their end.
//!
//! A transmission's end comes first at its instant, event or not: a `TxDone` event is
//! of the event list's first rank ([`Scheduler::schedule_first`]), so at the instant the
//! wire frees, the wire is free (and a host's transmit buffer with it) before anything
//! else happens there: a frame arriving then starts at once, a packet written then finds
//! its buffer free. Each transmission reserves its end's place among the ends
//! ([`Scheduler::reserve`]) as it starts; an operation settles a lazy end if that place
//! comes before the event being handled ([`EventOrder`]), and an end made an event later
//! is queued in it. So a run gives the same results whichever ends are events.
//!
//! [`Scheduler::reserve`]: crate::engine::Scheduler::reserve
//! [`Scheduler::schedule_first`]: crate::engine::Scheduler::schedule_first

use std::collections::VecDeque;

use serde::Serialize;

use crate::engine::{EventOrder, Timer};
use crate::ids::{LinkId, NodeId, PortId};
use crate::phy::{Closer, Direction, FrameClass, GateState, Sent, TxGate, TxId};
use crate::time::{Bytes, Duration, SimTime};
use crate::wire::PacketRef;

use crate::stats::IdleIntervals;

use super::attach::Attachments;
use super::policy::{PortPolicy, QueueView};
use super::queue::{DropTailQueue, QueueLimits, Queued};

/// Counters of one port. A transmission counts once it is complete (frame and gap).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PortStats {
    /// Data frames transmitted completely.
    pub frames_sent: u64,
    /// Bytes of those frames (frame lengths, without preamble and gap).
    pub bytes_sent: u64,
    /// MAC control frames transmitted completely.
    pub control_sent: u64,
    /// MAC control frames received.
    pub control_received: u64,
    /// Frames dropped because the queue was full.
    pub drops: u64,
    /// Bytes of the dropped frames.
    pub dropped_bytes: u64,
    /// Frames cut off on the wire (their last bit had not left when the link went dark).
    pub wire_losses: u64,
    /// Time spent on completed transmissions (preamble through gap), ps.
    pub busy_ps: u64,
}

/// The variation of a host's interrupt service time: uniform in [0, span).
#[derive(Debug)]
pub struct InterruptJitter {
    span_ps: u64,
    rng: crate::engine::rng::Stream,
}

impl InterruptJitter {
    /// Draws from `rng`, uniformly in [0, `span`) (`span` > 0).
    pub fn new(span: Duration, rng: crate::engine::rng::Stream) -> Self {
        assert!(span.as_ps() > 0, "a jitter spans some time");
        InterruptJitter { span_ps: span.as_ps(), rng }
    }

    fn draw(&mut self) -> Duration {
        use rand::Rng;
        Duration(self.rng.random_range(0..self.span_ps))
    }
}

/// The transmission on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct OnWire {
    start: SimTime,
    last_bit: SimTime,
    wire_free: SimTime,
    frame_len: u32,
    tx: TxId,
    class: FrameClass,
    /// Whether a `TxDone` event is queued for it (otherwise it is settled lazily).
    done_queued: bool,
    /// The insertion sequence of its `TxDone` event, queued or not: its end's place
    /// among the events at `wire_free`.
    end_seq: u64,
}

impl OnWire {
    /// Its end's place in the order of events.
    fn end_order(&self) -> EventOrder {
        EventOrder { at: self.wire_free, seq: self.end_seq }
    }
}

/// What a port can do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextTx {
    /// A frame of this class may start now.
    Ready(FrameClass),
    /// A frame waits behind the gate, which reopens by itself at this instant.
    WaitUntil(SimTime),
    /// Nothing to do: the wire is busy, nothing waits, or the gate is closed until opened.
    Idle,
}

/// A transmission cut off by the link going dark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CutOff {
    /// The transmission.
    pub tx: TxId,
    /// Its class.
    pub class: FrameClass,
}

/// One port of a node.
#[derive(Debug)]
pub struct Port {
    /// The node this port belongs to.
    pub node: NodeId,
    /// The link this port is an end of.
    pub link: LinkId,
    /// Which end of the link it is (0 or 1): it transmits on `link.dirs[end]`.
    pub end: usize,
    /// The port at the other end of the link.
    pub peer: PortId,
    /// The transmit gate.
    pub gate: TxGate,
    /// Wakes the port when its gate reopens by itself while a frame waits.
    pub gate_timer: Timer,
    /// The policy watching this port's queue, if any.
    pub policy: Option<PortPolicy>,
    /// Whether the port belongs to a host (whose transmit buffers free when a frame ends).
    pub on_host: bool,
    /// Whether a capture writes this port's frames (`Network::captures`).
    pub captured: bool,
    /// The host's interrupt service time: after each data frame's last bit, the
    /// controller waits this long before it can start the next ([`Closer::DRIVER`]).
    /// Zero for a NIC that sends from its queue back to back (and on switches).
    pub tx_interrupt: Duration,
    /// Variation of the interrupt service time, if the host's varies (boxed: most do not).
    pub interrupt_jitter: Option<Box<InterruptJitter>>,
    /// The mechanisms other than the queue policy that are shown the queue's moments
    /// (`node/attach.rs`); with any, the end of each transmission is an event.
    pub attachments: Attachments,
    queue: DropTailQueue,
    control: VecDeque<Queued>,
    on_wire: Option<OnWire>,
    stats: PortStats,
    /// Idle intervals, if this port records them (boxed: most ports do not, and the check
    /// is then one branch per frame).
    idle: Option<Box<IdleIntervals>>,
}

impl Port {
    /// A port of `node` at end `end` of `link`, facing `peer`, holding at most `limits`.
    pub fn new(node: NodeId, link: LinkId, end: usize, peer: PortId, limits: QueueLimits) -> Self {
        Port {
            node,
            link,
            end,
            peer,
            gate: TxGate::default(),
            gate_timer: Timer::default(),
            policy: None,
            on_host: false,
            captured: false,
            tx_interrupt: Duration::ZERO,
            interrupt_jitter: None,
            attachments: Attachments::default(),
            queue: DropTailQueue::new(limits),
            control: VecDeque::with_capacity(4),
            on_wire: None,
            stats: PortStats::default(),
            idle: None,
        }
    }

    /// Queues a data frame; a full queue drops it (drop-tail) and hands its packet back.
    pub fn enqueue(&mut self, now: SimTime, frame: Queued) -> Result<(), Queued> {
        self.queue.enqueue(now, frame).map_err(|_| {
            self.stats.drops += 1;
            self.stats.dropped_bytes += u64::from(frame.len);
            frame
        })
    }

    /// Puts a MAC control frame in the priority slot: it goes out before queued data and
    /// does not count toward the data buffer.
    pub fn enqueue_control(&mut self, frame: Queued) {
        self.control.push_back(frame);
    }

    /// What the port can do at `now`, asking the gate for the head frame of each class.
    pub fn next_tx(&self, now: SimTime) -> NextTx {
        if self.on_wire.is_some() {
            return NextTx::Idle;
        }
        if self.gate.is_open(now) {
            return if !self.control.is_empty() {
                NextTx::Ready(FrameClass::Control)
            } else if !self.queue.is_empty() {
                NextTx::Ready(FrameClass::Data)
            } else {
                NextTx::Idle
            };
        }
        let mut wake = SimTime::NEVER;
        for (class, waiting) in
            [(FrameClass::Control, !self.control.is_empty()), (FrameClass::Data, !self.queue.is_empty())]
        {
            if !waiting {
                continue;
            }
            match self.gate.state(now, class) {
                GateState::Open => return NextTx::Ready(class),
                GateState::ClosedUntil(t) => wake = wake.min(t),
                GateState::Closed => {}
            }
        }
        if wake.is_never() {
            NextTx::Idle
        } else {
            NextTx::WaitUntil(wake)
        }
    }

    /// Starts the head frame of `class` on `dir` at `now` (after [`Port::next_tx`] said
    /// it may), its end's `TxDone` event in the place `end_seq` among ties (reserved with
    /// [`Scheduler::reserve`](crate::engine::Scheduler::reserve), queued or not): returns
    /// the frame and what the link made of it.
    pub fn start(
        &mut self,
        now: SimTime,
        class: FrameClass,
        dir: &mut Direction,
        end_seq: u64,
    ) -> (Queued, Sent) {
        debug_assert!(self.on_wire.is_none());
        let head = match class {
            FrameClass::Control => self.control.pop_front(),
            FrameClass::Data => self.queue.head(),
        };
        // next_tx returned Ready(class) only with a frame of that class waiting.
        let frame = head.expect("a frame of the class to start");
        let sent = dir.send(now, frame.pkt, Bytes(u64::from(frame.len)));
        // Unless it is cut off, the wire is free again when this frame's gap ends: the only
        // idle-interval work on the frame path, one branch for ports that record none.
        self.note_busy(now, sent.timing.wire_free);
        if class == FrameClass::Data {
            self.queue.start_sending(now, sent.timing.last_bit);
        }
        self.on_wire = Some(OnWire {
            start: now,
            last_bit: sent.timing.last_bit,
            wire_free: sent.timing.wire_free,
            frame_len: frame.len,
            tx: sent.tx,
            class,
            done_queued: false,
            end_seq,
        });
        (frame, sent)
    }

    /// Hands the head frame of `class` to a shared medium's MAC at `now` (after
    /// [`Port::next_tx`] said it may start). The port is busy until the MAC reports the
    /// frame sent ([`Port::mac_sent`]) or dropped ([`Port::mac_dropped`]); a data frame
    /// stays in the buffer until then.
    pub fn take_for_mac(&mut self, now: SimTime, class: FrameClass) -> Queued {
        debug_assert!(self.on_wire.is_none());
        let frame = match class {
            FrameClass::Control => self.control.pop_front(),
            FrameClass::Data => self.queue.head().map(|_| self.queue.start_sending(now, SimTime::NEVER)),
        }
        .expect("a frame of the class to hand over");
        // The MAC reports when the wire is free again (mac_sent, mac_dropped).
        self.note_busy(now, SimTime::NEVER);
        self.on_wire = Some(OnWire {
            start: now,
            last_bit: SimTime::NEVER,
            wire_free: SimTime::NEVER,
            frame_len: frame.len,
            tx: TxId(0),
            class,
            // The MAC reports the end; nothing settles it lazily.
            done_queued: true,
            end_seq: u64::MAX,
        });
        frame
    }

    /// The MAC sent the frame it holds whole: its successful attempt began at `start`,
    /// its last bit left at `last_bit`, and the inter-frame gap after it ends at
    /// `wire_free`. The frame counts as sent (the host's interrupt service, if any,
    /// starts at its last bit).
    pub fn mac_sent(&mut self, start: SimTime, last_bit: SimTime, wire_free: SimTime) -> Option<FrameClass> {
        let w = self.on_wire.as_mut()?;
        (w.start, w.last_bit, w.wire_free) = (start, last_bit, wire_free);
        if let Some(idle) = self.idle.as_deref_mut() {
            idle.free_from(wire_free);
        }
        if w.class == FrameClass::Data {
            self.queue.abort_leaving(last_bit);
        }
        self.finish_tx(TxId(0))
    }

    /// The MAC dropped the frame it holds at `now` (excessive collisions): it leaves the
    /// buffer and the port is free. The host's interrupt service, if any, starts now.
    pub fn mac_dropped(&mut self, now: SimTime) -> Option<FrameClass> {
        let w = self.on_wire.take()?;
        self.wire_freed(now);
        if w.class == FrameClass::Data {
            self.queue.abort_leaving(now);
            if self.tx_interrupt != Duration::ZERO {
                let service = self.interrupt_service();
                self.gate.close(Closer::DRIVER, now + service);
            }
        }
        Some(w.class)
    }

    /// Counts a finished transmission whose end was not an event (see the module notes):
    /// if its end's place in the order of events comes before `order`, it is complete and
    /// the wire is free.
    pub fn settle(&mut self, order: EventOrder) {
        if let Some(w) = self.on_wire.filter(|w| !w.done_queued && w.end_order() < order) {
            self.finish_tx(w.tx);
        }
    }

    /// The transmission on the wire, if the caller must now queue its `TxDone` event
    /// (it was started lazily and something came to wait behind it): its id, its end
    /// and the insertion sequence reserved for the event.
    pub fn done_event_needed(&mut self) -> Option<(TxId, SimTime, u64)> {
        let w = self.on_wire.as_mut().filter(|w| !w.done_queued)?;
        w.done_queued = true;
        Some((w.tx, w.wire_free, w.end_seq))
    }

    /// Transmission `tx` finished (frame and gap): it counts, and the wire is free.
    /// Returns its class, or `None` if `tx` is not the transmission on the wire (it was
    /// cut off; the event is stale).
    pub fn finish_tx(&mut self, tx: TxId) -> Option<FrameClass> {
        let done = self.on_wire.filter(|w| w.tx == tx)?;
        self.on_wire = None;
        match done.class {
            FrameClass::Data => {
                self.stats.frames_sent += 1;
                self.stats.bytes_sent += u64::from(done.frame_len);
                if self.tx_interrupt != Duration::ZERO {
                    // The controller interrupts the host; the host gives it the next
                    // frame after the interrupt's service time, from the last bit.
                    let service = self.interrupt_service();
                    self.gate.close(Closer::DRIVER, done.last_bit + service);
                }
            }
            FrameClass::Control => self.stats.control_sent += 1,
        }
        self.stats.busy_ps += (done.wire_free - done.start).as_ps();
        Some(done.class)
    }

    /// A transmission starts at `now` and will leave the wire free at `free_again`: the
    /// silence since the wire was last free is one idle interval.
    #[inline]
    fn note_busy(&mut self, now: SimTime, free_again: SimTime) {
        if let Some(idle) = self.idle.as_deref_mut() {
            idle.busy_from(now);
            idle.free_from(free_again);
        }
    }

    /// The wire became free at `at`, earlier than the transmission on it planned (cut
    /// off, or dropped by the MAC).
    #[cold]
    fn wire_freed(&mut self, at: SimTime) {
        if let Some(idle) = self.idle.as_deref_mut() {
            idle.free_from(at);
        }
    }

    /// Makes the port record its idle intervals from now on.
    pub fn record_idle_intervals(&mut self) {
        self.idle.get_or_insert_with(Box::default);
    }

    /// The idle intervals between this port's transmissions so far, if it records them.
    pub fn idle_intervals(&self) -> Option<&IdleIntervals> {
        self.idle.as_deref()
    }

    /// One interrupt's service time: `tx_interrupt`, plus its variation if it has one.
    fn interrupt_service(&mut self) -> Duration {
        match self.interrupt_jitter.as_deref_mut() {
            None => self.tx_interrupt,
            Some(j) => self.tx_interrupt + j.draw(),
        }
    }

    /// The link went dark at `order`'s instant: a frame whose last bit has not left is cut
    /// off (lost) and the wire is free. A frame in its inter-frame gap is complete and
    /// stays.
    pub fn cut_off(&mut self, order: EventOrder) -> Option<CutOff> {
        let now = order.at;
        self.settle(order);
        let w = self.on_wire.filter(|w| w.last_bit > now)?;
        self.on_wire = None;
        self.wire_freed(now);
        if w.class == FrameClass::Data {
            self.queue.abort_leaving(now);
        }
        self.stats.wire_losses += 1;
        self.stats.busy_ps += (now - w.start).as_ps();
        Some(CutOff { tx: w.tx, class: w.class })
    }

    /// Frames waiting to be sent (data and MAC control; not one on the wire).
    pub fn waiting(&self) -> usize {
        self.queue.len() + self.control.len()
    }

    /// Whether a transmission (frame or its gap) is under way at `now`.
    pub fn busy_at(&self, now: SimTime) -> bool {
        self.on_wire.is_some_and(|w| w.wire_free > now)
    }

    /// The newest MAC control frame waiting to be sent (not one on the wire), if any.
    pub fn waiting_control(&self) -> Option<PacketRef> {
        self.control.back().map(|q| q.pkt)
    }

    /// The last bit of the frame being sent, if one is on the wire and its last bit has
    /// not left by `now`.
    pub fn frame_end(&self, now: SimTime) -> Option<SimTime> {
        self.on_wire.map(|w| w.last_bit).filter(|&t| t > now)
    }

    /// A MAC control frame arrived at this port.
    pub fn count_control_received(&mut self) {
        self.stats.control_received += 1;
    }

    /// What a policy sees of the queue: frames and bytes waiting.
    pub fn view(&self) -> QueueView {
        QueueView { frames: self.queue.len(), bytes: self.queue.waiting_bytes() }
    }

    /// Whether a frame is on the wire (or in its gap).
    pub fn is_busy(&self) -> bool {
        self.on_wire.is_some()
    }

    /// Whether neither data nor control frames wait.
    pub fn nothing_waits(&self) -> bool {
        self.queue.is_empty() && self.control.is_empty()
    }

    /// The output queue.
    pub fn queue(&self) -> &DropTailQueue {
        &self.queue
    }

    /// The port's counters.
    pub fn stats(&self) -> &PortStats {
        &self.stats
    }

    /// The data frame on the wire, if its last bit has left by `end` (its gap may still run).
    fn data_sent_on_wire_by(&self, end: SimTime) -> Option<OnWire> {
        self.on_wire.filter(|tx| tx.last_bit <= end && tx.class == FrameClass::Data)
    }

    /// Data frames whose last bit left by `end` (completed ones and the one in its gap).
    pub fn frames_sent_by(&self, end: SimTime) -> u64 {
        self.stats.frames_sent + u64::from(self.data_sent_on_wire_by(end).is_some())
    }

    /// Bytes of the frames counted by [`Port::frames_sent_by`].
    pub fn bytes_sent_by(&self, end: SimTime) -> u64 {
        self.stats.bytes_sent + self.data_sent_on_wire_by(end).map_or(0, |tx| u64::from(tx.frame_len))
    }

    /// Fraction of `[0, end]` spent transmitting, counting the part of a transmission in
    /// progress that falls before `end`.
    pub fn utilization(&self, end: SimTime) -> f64 {
        if end.as_ps() == 0 {
            return 0.0;
        }
        // A frame a shared medium's MAC holds (its end unknown) has not yet used the wire
        // (its attempts are not counted).
        let partial = self
            .on_wire
            .filter(|tx| !tx.wire_free.is_never())
            .map_or(Duration::ZERO, |tx| tx.wire_free.min(end).saturating_since(tx.start));
        (Duration(self.stats.busy_ps) + partial).as_secs_f64() / end.as_secs_f64()
    }
}

#[cfg(test)]
mod tests;

//! The trace path: typed records of what happens at each edge of the network (a frame
//! queued, dropped, put on the wire, finished, delivered; a gate closed or opened; a
//! link gone dark), to which observers subscribe: time series now, energy accounting
//! and packet capture as they arrive.
//!
//! Models never write files or logs; they emit records here. With no subscriber the
//! path costs one branch per trace point: the record is not even built
//! ([`Trace::emit`] takes a closure).
//!
//! Records arrive in event order. A record may describe a change that takes effect later
//! (a frame's buffer space is freed when its last bit leaves, `last_bit` in
//! [`TraceRecord::TxStarted`]; a gate closed until an instant reopens then by itself), and
//! subscribers that keep a level over time apply such changes at their instant.

use serde::Serialize;

use crate::ids::{FlowId, LinkId, NodeId, PortId};
use crate::phy::{Closer, FrameClass, TxId};
use crate::stats::{Series, SeriesLimits};
use crate::time::SimTime;
use crate::wire::{PacketKind, Role};

/// Why a packet was lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// A full output queue (drop-tail).
    QueueFull,
    /// A host's full receive ring.
    RingFull,
    /// Cut off on the wire when its link went dark.
    CutOff,
    /// Lost on the link by its loss model (random or scripted).
    LinkLoss,
    /// It reached a node with no route to its destination, or a host it was not for.
    Unroutable,
    /// Dropped by a shared medium's MAC after 16 collisions (IEEE 802.3 4.2.3.2.5).
    ExcessiveCollisions,
}

/// One thing that happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceRecord {
    /// A data frame joined a port's queue; the buffer now holds this much (counting a
    /// frame on the wire until its last bit leaves).
    Enqueued {
        /// The port.
        port: PortId,
        /// The frame's length.
        frame_len: u32,
        /// Bytes held.
        held_bytes: u64,
        /// Frames held.
        held_frames: u32,
    },
    /// A packet was lost.
    Dropped {
        /// The port whose queue or wire lost it, if a port did.
        port: Option<PortId>,
        /// The node where it was lost.
        node: NodeId,
        /// Its flow (none for a MAC control frame).
        flow: Option<FlowId>,
        /// Its frame length.
        frame_len: u32,
        /// Why.
        reason: DropReason,
    },
    /// A frame started on the wire.
    TxStarted {
        /// The port.
        port: PortId,
        /// The transmission.
        tx: TxId,
        /// Data or MAC control.
        class: FrameClass,
        /// Its frame length.
        frame_len: u32,
        /// Its last bit leaves (a data frame's buffer space is freed then).
        last_bit: SimTime,
        /// The wire is free after the inter-frame gap.
        wire_free: SimTime,
    },
    /// A station of a shared-medium segment starts an attempt to send its frame now.
    MacAttempt {
        /// The station's port.
        port: PortId,
        /// The attempt's last bit leaves then, unless a collision cuts it short.
        end: SimTime,
    },
    /// A station of a shared-medium segment detected a collision now: it sends the jam
    /// (after its preamble).
    MacJam {
        /// The station's port.
        port: PortId,
        /// Its jam ends then.
        end: SimTime,
    },
    /// A station of a shared-medium segment backs off after a collision.
    MacBackoff {
        /// The station's port.
        port: PortId,
        /// The backoff ends then; the station defers from that instant.
        until: SimTime,
    },
    /// A station of a shared-medium segment is done with its frame: sent whole (its
    /// last bit left now) or dropped after 16 collisions. The frame leaves the buffer.
    MacDone {
        /// The station's port.
        port: PortId,
        /// Data or MAC control.
        class: FrameClass,
        /// Its frame length.
        frame_len: u32,
        /// Sent whole (`false`: dropped).
        sent: bool,
    },
    /// A transmission finished (frame and gap).
    TxEnded {
        /// The port.
        port: PortId,
        /// The transmission.
        tx: TxId,
    },
    /// A transmission was cut off: its frame is lost, its buffer space freed now.
    TxCutOff {
        /// The port.
        port: PortId,
        /// The transmission.
        tx: TxId,
        /// Data or MAC control.
        class: FrameClass,
        /// Its frame length.
        frame_len: u32,
    },
    /// A packet was delivered to its endpoint.
    Delivered {
        /// The receiving host.
        node: NodeId,
        /// Its flow.
        flow: FlowId,
        /// The end it reached.
        to: Role,
        /// Data or acknowledgement.
        kind: PacketKind,
        /// Its frame length.
        frame_len: u32,
    },
    /// A closer closed a port's gate until an instant (`NEVER`: until it opens it), or
    /// opened it (`until` at or before the record's instant).
    Gate {
        /// The port.
        port: PortId,
        /// Who.
        closer: Closer,
        /// Until when.
        until: SimTime,
    },
    /// A MAC control frame arrived at a port (802.3 Annex 31A; acted on or not).
    ControlReceived {
        /// The port.
        port: PortId,
        /// Its opcode (0x0001: PAUSE).
        opcode: u16,
        /// Its first parameter (for PAUSE the pause time, quanta of 512 bit times).
        parameter: u16,
    },
    /// A port's rate changed (link-rate switching, capacity scaling, varying capacity):
    /// frames that start from `from` on go at `rate_bps`.
    RateChanged {
        /// The port.
        port: PortId,
        /// The new rate, bit/s.
        rate_bps: u64,
        /// When it takes effect (after the dark time of a switch).
        from: SimTime,
    },
    /// A link went dark until an instant.
    LinkDark {
        /// The link.
        link: LinkId,
        /// It carries frames again at this instant.
        until: SimTime,
    },
}

/// A complete log of records (for tests and debugging; costs memory per record).
#[derive(Clone, Debug, Default)]
pub struct TraceLog {
    /// Every record, with its instant, in event order.
    pub records: Vec<(SimTime, TraceRecord)>,
}

/// Time series of one port: buffer occupancy (bytes and frames), whether its gate is
/// open for data, its rate and the bytes offered to it so far
/// (queued or dropped: differences over an interval give the arrival rate), as change
/// points. Subscribe before the run starts: a series follows
/// the port from the records it sees.
#[derive(Clone, Debug)]
pub struct PortSeries {
    /// The port.
    pub port: PortId,
    /// Which change points are kept, per quantity.
    pub limits: SeriesLimits,
    /// Buffer bytes.
    pub queue_bytes: Series,
    /// Buffer frames.
    pub queue_frames: Series,
    /// Gate open for data (1) or closed (0).
    pub gate_open: Series,
    /// The port's rate, bit/s.
    pub rate_bps: Series,
    /// Bytes of data frames offered to the port so far, queued or dropped (a point per
    /// frame).
    pub offered_bytes: Series,
    offered: u64,
    held: (u64, u64),
    leaving: Option<(SimTime, u64)>,
    closed_until: [SimTime; Closer::SLOTS],
    gate_reopens: Option<SimTime>,
}

impl PortSeries {
    /// An empty series of `port` whose rate starts at `rate_bps`, keeping change points as
    /// `limits` say.
    pub fn new(port: PortId, rate_bps: u64, limits: SeriesLimits) -> Self {
        PortSeries {
            port,
            limits,
            queue_bytes: Series::starting_at(0, limits),
            queue_frames: Series::starting_at(0, limits),
            gate_open: Series::starting_at(1, limits),
            rate_bps: Series::starting_at(rate_bps, limits),
            offered_bytes: Series::starting_at(0, limits),
            offered: 0,
            held: (0, 0),
            leaving: None,
            closed_until: [SimTime::ZERO; Closer::SLOTS],
            gate_reopens: None,
        }
    }

    fn set_queue(&mut self, at: SimTime, bytes: u64, frames: u64) {
        self.held = (bytes, frames);
        self.queue_bytes.push(self.limits, at, bytes);
        self.queue_frames.push(self.limits, at, frames);
    }

    /// The level after a frame of `len` bytes left (never below zero, even for a series
    /// that joined after the frame was queued).
    fn set_queue_without(&mut self, at: SimTime, len: u64) {
        self.set_queue(at, self.held.0.saturating_sub(len), self.held.1.saturating_sub(1));
    }

    fn offer(&mut self, at: SimTime, frame_len: u32) {
        self.offered += u64::from(frame_len);
        self.offered_bytes.push(self.limits, at, self.offered);
    }

    fn set_gate(&mut self, at: SimTime, open: bool) {
        self.gate_open.push(self.limits, at, u64::from(open));
    }

    /// This series as it stands at `end`, with the changes that took effect by then applied.
    #[must_use]
    pub fn settled(&self, end: SimTime) -> PortSeries {
        let mut s = self.clone();
        s.settle(end);
        s
    }

    /// Applies the changes that took effect by `now` (a last bit left, a gate reopened).
    fn settle(&mut self, now: SimTime) {
        if let Some((at, len)) = self.leaving.filter(|&(at, _)| at <= now) {
            self.leaving = None;
            self.set_queue_without(at, len);
        }
        if let Some(at) = self.gate_reopens.filter(|&at| at <= now) {
            self.gate_reopens = None;
            self.set_gate(at, true);
        }
    }

    fn on_record(&mut self, now: SimTime, rec: &TraceRecord) {
        self.settle(now);
        match *rec {
            TraceRecord::Enqueued { port, frame_len, held_bytes, held_frames } if port == self.port => {
                self.set_queue(now, held_bytes, u64::from(held_frames));
                self.offer(now, frame_len);
            }
            TraceRecord::Dropped { port: Some(port), reason: DropReason::QueueFull, frame_len, .. }
                if port == self.port =>
            {
                self.offer(now, frame_len);
            }
            TraceRecord::RateChanged { port, rate_bps, from } if port == self.port => {
                self.rate_bps.push(self.limits, from, rate_bps);
            }
            TraceRecord::TxStarted { port, class: FrameClass::Data, frame_len, last_bit, .. }
                if port == self.port =>
            {
                self.leaving = Some((last_bit, u64::from(frame_len)));
            }
            TraceRecord::MacDone { port, class: FrameClass::Data, frame_len, .. } if port == self.port => {
                self.set_queue_without(now, u64::from(frame_len));
            }
            TraceRecord::TxCutOff { port, class: FrameClass::Data, .. } if port == self.port => {
                if let Some((_, len)) = self.leaving.take() {
                    self.set_queue_without(now, len);
                }
            }
            TraceRecord::Gate { port, closer, until } if port == self.port => {
                self.closed_until[closer.slot()] = until;
                // Data frames are held by every closer.
                let latest = self.closed_until.iter().copied().max().unwrap_or(SimTime::ZERO);
                if latest > now {
                    self.set_gate(now, false);
                    self.gate_reopens = (!latest.is_never()).then_some(latest);
                } else {
                    self.gate_reopens = None;
                    self.set_gate(now, true);
                }
            }
            _ => {}
        }
    }
}

/// An observer of the trace path.
// A handful per run, made once and dispatched off the hot path: their size is no cost.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Subscriber {
    /// Keeps every record.
    Log(TraceLog),
    /// Keeps one port's time series.
    Series(PortSeries),
}

/// The trace path of a network and its subscribers.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    subscribers: Vec<Subscriber>,
    /// Who listens, as bits: [`Trace::SUBSCRIBED`] and [`Trace::CAPTURING`]. One byte, so
    /// that the frame path asks both questions with one load.
    listening: u8,
}

impl Trace {
    /// A subscriber sees every record.
    const SUBSCRIBED: u8 = 1;
    /// A packet capture sees frames started and received (by the network, which holds
    /// the packets: see `sim/handlers/capture.rs`).
    const CAPTURING: u8 = 2;

    /// Adds a subscriber; it sees every record from then on.
    pub fn subscribe(&mut self, s: Subscriber) {
        self.subscribers.push(s);
        self.listening |= Self::SUBSCRIBED;
    }

    /// Tells the frame path that a port of the network is captured.
    pub fn capture_frames(&mut self) {
        self.listening |= Self::CAPTURING;
    }

    /// Whether a subscriber listens.
    #[inline]
    pub fn is_on(&self) -> bool {
        self.listening & Self::SUBSCRIBED != 0
    }

    /// Whether a port is captured.
    #[inline]
    pub fn is_capturing(&self) -> bool {
        self.listening & Self::CAPTURING != 0
    }

    /// Whether anything listens to frames put on the wire: a subscriber or a capture.
    #[inline]
    pub fn wants_frames(&self) -> bool {
        self.listening != 0
    }

    /// Emits the record `make` builds, if anyone listens (otherwise it is not built).
    #[inline]
    pub fn emit(&mut self, now: SimTime, make: impl FnOnce() -> TraceRecord) {
        if self.is_on() {
            self.dispatch(now, &make());
        }
    }

    #[cold]
    fn dispatch(&mut self, now: SimTime, rec: &TraceRecord) {
        for s in &mut self.subscribers {
            match s {
                Subscriber::Log(log) => log.records.push((now, *rec)),
                Subscriber::Series(series) => series.on_record(now, rec),
            }
        }
    }

    /// The subscribers.
    pub fn subscribers(&self) -> &[Subscriber] {
        &self.subscribers
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::attach::closers;

    #[test]
    fn each_quantity_keeps_its_own_point_limit() {
        let mut s = PortSeries::new(PortId(0), 0, SeriesLimits::points(3));
        for k in 1..=5u64 {
            let rec = TraceRecord::Enqueued {
                port: PortId(0),
                frame_len: 100,
                held_bytes: 100 * k,
                held_frames: k as u32,
            };
            s.on_record(SimTime(k), &rec);
        }
        assert_eq!(s.queue_bytes.points.len(), 3);
        assert_eq!(s.queue_bytes.dropped_points, 3);
        assert_eq!((s.gate_open.points.len(), s.gate_open.dropped_points), (1, 0));
    }

    #[test]
    fn a_series_joining_mid_run_never_goes_below_zero() {
        let mut s = PortSeries::new(PortId(0), 0, SeriesLimits::points(100));
        let start = TraceRecord::TxStarted {
            port: PortId(0),
            tx: TxId(0),
            class: FrameClass::Data,
            frame_len: 1518,
            last_bit: SimTime(10),
            wire_free: SimTime(11),
        };
        s.on_record(SimTime(0), &start);
        let settled = s.settled(SimTime(20));
        assert_eq!(settled.queue_bytes.points, vec![(SimTime::ZERO, 0)]);
    }

    #[test]
    fn the_gate_series_follows_every_closer_and_reopens_by_itself() {
        let mut s = PortSeries::new(PortId(0), 0, SeriesLimits::points(100));
        let gate = |closer, until| TraceRecord::Gate { port: PortId(0), closer, until };
        s.on_record(SimTime(10), &gate(Closer::LINK, SimTime(50)));
        s.on_record(SimTime(20), &gate(closers::PAUSE, SimTime(80)));
        s.on_record(SimTime(30), &gate(closers::PAUSE, SimTime(30))); // opened early
        let settled = s.settled(SimTime(100));
        assert_eq!(settled.gate_open.points, vec![(SimTime(0), 1), (SimTime(10), 0), (SimTime(50), 1)]);
    }
}

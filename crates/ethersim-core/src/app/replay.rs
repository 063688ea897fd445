//! Trace-driven traffic: a packet trace's frame times and lengths replayed as UDP
//! datagrams from one host to another.
//!
//! Each frame of the trace is handed to the sending host at its timestamp (relative to
//! the trace's first frame, scaled by the time scale, from the application's start) as a
//! UDP datagram whose frame has the traced frame's length. Like every open-loop source,
//! a frame due while the host has no free transmit buffer is lost at the sender and
//! counted. The trace may be replayed several times, or until the run ends: each pass
//! starts one pass length after the previous one (the trace's span plus its mean gap
//! between frames, so the last frame of a pass and the first of the next are as far apart
//! as frames are on average).

use super::AppFigures;
use serde_json::Value;

use crate::time::{Duration, SimTime};
use crate::wire::{ethernet, ip, udp, PacketKind, Protocol, Role};

use super::{Next, Outgoing};

/// The headers around a replayed frame's UDP payload: Ethernet (with FCS), IPv4, UDP.
const UDP_FRAME_OVERHEAD: u32 =
    (ethernet::HEADER_LEN + ethernet::FCS_LEN + ip::IPV4_HEADER_LEN + udp::UDP_HEADER_LEN) as u32;

/// One frame to replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplayFrame {
    /// When it is due, from the start of its pass.
    pub offset: Duration,
    /// Its frame length (at least 64 B).
    pub frame_len: u32,
}

/// A trace replayed onto the network.
#[derive(Clone, Debug)]
pub struct TraceReplay {
    frames: Vec<ReplayFrame>,
    /// Time from one pass's start to the next's.
    pass_len: Duration,
    /// Passes to make (`None`: until the run or the stop time ends it).
    passes: Option<u64>,
    /// No frame at or after this instant.
    stop: Option<SimTime>,
    /// The instant of the trace's first frame in the first pass.
    origin: SimTime,
    pass_start: SimTime,
    pass: u64,
    index: usize,
    generated: u64,
    send_drops: u64,
    /// Traced frames longer than the path carries, each replayed as several frames.
    split: u64,
}

impl TraceReplay {
    /// Replays `frames` (in time order, the first at offset 0) from `origin`, `passes`
    /// times (`None`: endlessly), each pass `pass_len` after the previous; `split` counts
    /// traced frames that were split to fit the path.
    pub fn new(
        frames: Vec<ReplayFrame>,
        origin: SimTime,
        pass_len: Duration,
        passes: Option<u64>,
        stop: Option<SimTime>,
        split: u64,
    ) -> Self {
        TraceReplay {
            frames,
            pass_len,
            passes,
            stop,
            origin,
            pass_start: origin,
            pass: 0,
            index: 0,
            generated: 0,
            send_drops: 0,
            split,
        }
    }

    /// The instant the next frame is due, if there is one.
    fn due(&self) -> Option<SimTime> {
        if self.passes.is_some_and(|p| self.pass >= p) {
            return None;
        }
        let at = self.pass_start + self.frames.get(self.index)?.offset;
        self.stop.is_none_or(|s| at < s).then_some(at)
    }

    /// Moves past the frame due now.
    fn advance(&mut self) {
        self.generated += 1;
        self.index += 1;
        if self.index == self.frames.len() {
            self.index = 0;
            self.pass += 1;
            self.pass_start += self.pass_len;
        }
    }

    pub(super) fn poll(&mut self, now: SimTime, buffer_free: bool) -> Next {
        loop {
            let Some(at) = self.due() else { return Next::Finished };
            if now < at {
                return Next::SleepUntil(at);
            }
            if buffer_free {
                return Next::Send;
            }
            // Lost at the sender: the host had no buffer when the frame was due.
            self.send_drops += 1;
            self.advance();
        }
    }

    pub(super) fn take(&mut self) -> Outgoing {
        let frame = self.frames[self.index];
        let seq = self.generated;
        self.advance();
        Outgoing {
            flow: None,
            to: Role::Sink,
            kind: PacketKind::Data,
            protocol: Protocol::Udp,
            // A frame of at least 64 B: UDP's frame length gives back exactly this length.
            payload: frame.frame_len.saturating_sub(UDP_FRAME_OVERHEAD),
            seq,
            echo: SimTime::NEVER,
        }
    }

    /// Frames lost at the sender for want of a transmit buffer.
    pub fn send_drops(&self) -> u64 {
        self.send_drops
    }

    /// Adds its figures to its flow's results.
    pub fn report(&self, out: &mut AppFigures) {
        out.insert("trace_frames", Value::from(self.frames.len() as u64));
        out.insert("trace_passes", Value::from(self.pass));
        out.insert("trace_frames_split", Value::from(self.split));
        out.insert("trace_origin_s", Value::from(self.origin.as_secs_f64()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames() -> Vec<ReplayFrame> {
        [(0, 100), (10, 200), (30, 64)]
            .map(|(ns, len)| ReplayFrame { offset: Duration::from_ns(ns), frame_len: len })
            .to_vec()
    }

    fn run(mut r: TraceReplay) -> Vec<(u64, u32)> {
        let mut out = Vec::new();
        let mut now = SimTime::ZERO;
        loop {
            match r.poll(now, true) {
                Next::SleepUntil(t) => now = t,
                Next::Send => {
                    let o = r.take();
                    out.push((now.as_ps() / 1000, crate::wire::udp::frame_len(u64::from(o.payload)) as u32));
                }
                Next::Finished => return out,
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn frames_go_at_their_offsets_with_their_lengths_pass_after_pass() {
        let origin = SimTime::ZERO + Duration::from_ns(5);
        let r = TraceReplay::new(frames(), origin, Duration::from_ns(45), Some(2), None, 0);
        assert_eq!(run(r), vec![(5, 100), (15, 200), (35, 64), (50, 100), (60, 200), (80, 64)]);
    }

    #[test]
    fn an_endless_replay_stops_at_its_stop_time() {
        let stop = SimTime::ZERO + Duration::from_ns(60);
        let r = TraceReplay::new(frames(), SimTime::ZERO, Duration::from_ns(45), None, Some(stop), 0);
        assert_eq!(run(r), vec![(0, 100), (10, 200), (30, 64), (45, 100), (55, 200)]);
    }
}

//! IEEE 802.3x flow control (802.3 Annex 31B): what each port does with PAUSE.
//!
//! Three roles, each a plain state machine with time passed in:
//!
//! * **Receiving** ([`PauseReceiver`]): a PAUSE frame asks the port to send no data frame
//!   for `quanta · 512` bit times at the link's current rate. The frame on the wire is
//!   finished first, so the pause runs from the later of the frame's arrival and the
//!   last bit of the frame being sent; a newer PAUSE replaces the running one, and a
//!   pause time of 0 resumes at once. MAC control frames still go out while paused
//!   (Annex 31B.3.1), so two ports that pause each other never deadlock. A port that
//!   ignores PAUSE (a NIC setting) only counts the frames.
//! * **Threshold sending** ([`ThresholdPause`], on a switch's output port): when the
//!   port's buffer reaches a high-water mark, the switch pauses the link partners whose
//!   frames arrive into it (each through the port they arrived on), and re-sends the
//!   PAUSE before it runs out while the buffer stays above the low-water mark; at or below
//!   the low-water mark it sends a pause time of 0 to each of them (or, if the switch
//!   does not send XON, stops refreshing and lets the pause run out). An input port paused
//!   on behalf of several congested outputs is released when the last one drains.
//! * **Periodic sending** ([`PeriodicPause`]): every P send a PAUSE of T, as the Rapid
//!   PHY Selection study emulated a link-rate switch on real hardware.

use serde::Serialize;

use crate::engine::Timer;
use crate::ids::PortId;
use crate::stats::{RecordView, Series, SeriesLimits};
use crate::time::{Duration, SimTime};

/// Everything 802.3x flow control keeps for one port.
#[derive(Clone, Debug)]
pub struct PortPause {
    /// PAUSE received: honoured or not, counted, time paused.
    pub rx: PauseReceiver,
    /// PAUSE this port sends its partner on behalf of congested outputs (switch inputs).
    pub hold: PauseHold,
    /// Threshold flow control of this port's buffer (switch outputs that send PAUSE).
    pub threshold: Option<ThresholdPause>,
    /// A periodic PAUSE generator on this port.
    pub periodic: Option<PeriodicPause>,
}

impl Default for PortPause {
    /// A port that honours PAUSE and sends none.
    fn default() -> Self {
        PortPause {
            rx: PauseReceiver::new(true),
            hold: PauseHold::default(),
            threshold: None,
            periodic: None,
        }
    }
}

/// The receiving side of flow control on one port, and its counters.
#[derive(Clone, Debug, Default)]
pub struct PauseReceiver {
    /// Whether the port honours PAUSE (otherwise it counts it and sends on).
    pub honour: bool,
    /// PAUSE frames received.
    pub received: u64,
    /// PAUSE frames this port handed to its MAC (threshold, refresh and periodic ones).
    pub sent: u64,
    /// Time paused by pauses already over.
    paused_total: Duration,
    /// The pause in effect or about to begin: `[begin, until)`.
    current: Option<(SimTime, SimTime)>,
    /// PAUSE frames received so far over time, when a series of the port asks for it
    /// (the `pause_received` quantity), with the change points it keeps.
    series: Option<Box<(Series, SeriesLimits)>>,
}

impl PauseReceiver {
    /// A port that honours PAUSE or not.
    pub fn new(honour: bool) -> Self {
        PauseReceiver { honour, ..PauseReceiver::default() }
    }

    /// A PAUSE frame of `length` (the quanta's duration at the link's rate) arrived at
    /// `now`, while the frame being sent (if any) has its last bit at `frame_end`.
    /// Returns the instant data may flow again (`now` when it resumes at once), or
    /// `None` if the port ignores PAUSE.
    pub fn on_pause(
        &mut self,
        now: SimTime,
        frame_end: Option<SimTime>,
        length: Duration,
    ) -> Option<SimTime> {
        self.received += 1;
        if let Some((series, limits)) = self.series.as_deref_mut() {
            series.push(*limits, now, self.received);
        }
        if !self.honour {
            return None;
        }
        if length == Duration::ZERO {
            self.record(now, now, now);
            return Some(now);
        }
        let begin = frame_end.map_or(now, |t| t.max(now));
        let until = begin + length;
        self.record(now, begin, until);
        Some(until)
    }

    /// Keeps the frames received over time within `limits` (widened to cover the limits
    /// asked for before, when the port has several series).
    pub fn record_series(&mut self, limits: SeriesLimits) {
        let limits = self.series.as_deref().map_or(limits, |(_, l)| l.covering(limits));
        self.series = Some(Box::new((Series::starting_at(self.received, limits), limits)));
    }

    /// The frames received over time, if kept.
    pub fn series(&self) -> Option<&Series> {
        self.series.as_deref().map(|(s, _)| s)
    }

    /// The pause becomes `[begin, until)` at `now`, replacing the running one.
    fn record(&mut self, now: SimTime, begin: SimTime, until: SimTime) {
        match self.current {
            // A pause in effect is extended or cut short by the new one.
            Some((start, end)) if start <= now && now < end => {
                self.current = Some((start, until.max(start)));
            }
            // One that had not begun yet is replaced.
            Some((start, _)) if start > now => self.current = Some((begin, until)),
            Some((start, end)) => {
                self.paused_total = self.paused_total + end.saturating_since(start);
                self.current = Some((begin, until));
            }
            None => self.current = Some((begin, until)),
        }
    }

    /// Time spent paused within `[0, end]`.
    pub fn paused_time(&self, end: SimTime) -> Duration {
        let current = self.current.map_or(Duration::ZERO, |(b, u)| u.min(end).saturating_since(b));
        self.paused_total + current
    }
}

/// What IEEE 802.3x flow control reports for one port: its columns of the `ports` table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PausePortReport {
    /// Whether the port honours PAUSE.
    pub honours_pause: bool,
    /// PAUSE frames this port sent its partner (threshold, refresh, release and periodic).
    pub pause_sent: u64,
    /// PAUSE frames it received.
    pub pause_received: u64,
    /// Time its data transmissions were paused by PAUSE, s.
    pub paused_s: f64,
}

impl PausePortReport {
    /// How the record is shown: ports that sent or received PAUSE.
    pub const VIEW: RecordView = RecordView {
        table: "ports",
        title: "pause (802.3x)",
        shown_when: &["pause_sent", "pause_received"],
        columns: &[
            ("pause_sent", "sent"),
            ("pause_received", "received"),
            ("honours_pause", "honours"),
            ("paused_s", "paused"),
        ],
    };
}

impl PauseReceiver {
    /// The port's PAUSE figures over `[0, end]`.
    pub fn report(&self, end: SimTime) -> PausePortReport {
        PausePortReport {
            honours_pause: self.honour,
            pause_sent: self.sent,
            pause_received: self.received,
            paused_s: self.paused_time(end).as_secs_f64(),
        }
    }
}

/// Threshold flow control of one output port: the high- and low-water marks of its
/// buffer, and the input ports it holds paused.
#[derive(Clone, Debug)]
pub struct ThresholdPause {
    /// At or above this many bytes held, the inputs feeding the port are paused.
    pub high_water: u64,
    /// At or below this many bytes held, they are released.
    pub low_water: u64,
    /// The pause time sent, quanta.
    pub quanta: u16,
    /// Whether draining to the low-water mark sends a pause time of 0 (XON); otherwise
    /// the partner's pause runs out by itself (it is no longer refreshed).
    pub release: bool,
    /// The input ports this output holds paused.
    holding: Vec<PortId>,
}

impl ThresholdPause {
    /// Marks and pause time; `low_water < high_water`.
    pub fn new(high_water: u64, low_water: u64, quanta: u16, release: bool) -> Self {
        debug_assert!(low_water < high_water && quanta > 0);
        ThresholdPause { high_water, low_water, quanta, release, holding: Vec::new() }
    }

    /// Whether a buffer holding `held` bytes is at or above the high-water mark.
    pub fn at_high_water(&self, held: u64) -> bool {
        held >= self.high_water
    }

    /// A frame that arrived through `input` was offered to the buffer, which now holds
    /// `held` bytes. Returns whether `input` must now be held paused on this output's
    /// behalf (it was not already).
    pub fn on_arrival(&mut self, held: u64, input: PortId) -> bool {
        if held < self.high_water || self.holding.contains(&input) {
            return false;
        }
        self.holding.push(input);
        true
    }

    /// The buffer holds `held` bytes: if it drained to the low-water mark, the next input
    /// this output held paused, to release (each once, in the order they were paused).
    pub fn next_released(&mut self, held: u64) -> Option<PortId> {
        (held <= self.low_water && !self.holding.is_empty()).then(|| self.holding.remove(0))
    }

    /// Whether this output holds any input paused.
    pub fn is_holding(&self) -> bool {
        !self.holding.is_empty()
    }
}

/// An input port's side of threshold flow control: how many congested outputs hold its
/// link partner paused, and the timer that re-sends PAUSE before it runs out.
#[derive(Clone, Debug, Default)]
pub struct PauseHold {
    /// Outputs holding this port's partner paused.
    pub holders: u32,
    /// The pause time sent (and re-sent), quanta.
    pub quanta: u16,
    /// Whether the release sends a pause time of 0, or lets the pause run out.
    pub release: bool,
    /// Re-sends PAUSE while held.
    pub refresh: Timer,
}

impl PauseHold {
    /// An output's threshold took hold of this input with a pause time of `quanta`
    /// (`release`: freed by a pause of 0). True if it is the first holder: the input's
    /// partner is to be paused now.
    pub fn take(&mut self, quanta: u16, release: bool) -> bool {
        self.holders += 1;
        self.quanta = quanta;
        self.release = release;
        self.holders == 1
    }

    /// An output let go of this input. When it was the last, the refresh stops and the
    /// answer says whether the partner is released at once with a pause of 0
    /// (`Some(true)`) or its pause runs out (`Some(false)`); `None` while others hold.
    pub fn let_go(&mut self) -> Option<bool> {
        self.holders -= 1;
        if self.holders > 0 {
            return None;
        }
        self.refresh.cancel();
        Some(self.release)
    }
}

/// Every `every`, a PAUSE of `quanta` (from `start`, until `stop` or `count` frames).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeriodicPause {
    /// The first PAUSE.
    pub start: SimTime,
    /// Time between PAUSE frames.
    pub every: Duration,
    /// The pause asked for; converted to whole quanta at the link's rate when sent.
    pub pause: Duration,
    /// No PAUSE at or after this instant.
    pub stop: Option<SimTime>,
    /// Most PAUSE frames.
    pub count: Option<u64>,
    /// PAUSE frames sent so far.
    pub sent: u64,
}

impl PeriodicPause {
    /// After sending one at `now`: when the next is due, if one is.
    pub fn next_after(&mut self, now: SimTime) -> Option<SimTime> {
        self.sent += 1;
        if self.count.is_some_and(|c| self.sent >= c) {
            return None;
        }
        let next = now + self.every;
        self.stop.is_none_or(|s| next < s).then_some(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: u64 = 1_000_000;

    #[test]
    fn a_pause_starts_after_the_frame_on_the_wire_and_a_newer_one_replaces_it() {
        let mut r = PauseReceiver::new(true);
        let len = Duration::from_us(100);
        // Arrives at 10 us while a frame's last bit leaves at 12 us.
        assert_eq!(r.on_pause(SimTime(10 * US), Some(SimTime(12 * US)), len), Some(SimTime(112 * US)));
        // A newer PAUSE at 50 us replaces it: 100 us from 50 us.
        assert_eq!(r.on_pause(SimTime(50 * US), None, len), Some(SimTime(150 * US)));
        assert_eq!(r.paused_time(SimTime(1000 * US)), Duration::from_us(150 - 12));
        // Zero resumes at once.
        assert_eq!(r.on_pause(SimTime(60 * US), None, Duration::ZERO), Some(SimTime(60 * US)));
        assert_eq!(r.paused_time(SimTime(1000 * US)), Duration::from_us(60 - 12));
        // A later, separate pause adds to the total.
        r.on_pause(SimTime(200 * US), None, len);
        assert_eq!(r.paused_time(SimTime(250 * US)), Duration::from_us(48 + 50));
        assert_eq!(r.received, 4);
    }

    #[test]
    fn a_port_that_ignores_pause_only_counts_it() {
        let mut r = PauseReceiver::new(false);
        assert_eq!(r.on_pause(SimTime(0), None, Duration::from_us(5)), None);
        assert_eq!((r.received, r.paused_time(SimTime(US * 10))), (1, Duration::ZERO));
    }

    #[test]
    fn thresholds_pause_each_input_once_and_release_them_together() {
        let mut t = ThresholdPause::new(10_000, 4_000, 65_535, true);
        assert!(!t.on_arrival(9_999, PortId(1)), "below the high-water mark");
        assert!(t.on_arrival(10_000, PortId(1)));
        assert!(!t.on_arrival(11_000, PortId(1)), "already held");
        assert!(t.on_arrival(10_500, PortId(3)));
        assert_eq!(t.next_released(4_001), None, "above the low-water mark");
        assert_eq!(t.next_released(4_000), Some(PortId(1)));
        assert_eq!(t.next_released(3_000), Some(PortId(3)));
        assert!(!t.is_holding() && t.next_released(0).is_none());
    }

    #[test]
    fn a_periodic_generator_stops_by_count_or_time() {
        let mut p = PeriodicPause {
            start: SimTime(0),
            every: Duration::from_us(10),
            pause: Duration::from_us(1),
            stop: Some(SimTime(25 * US)),
            count: None,
            sent: 0,
        };
        assert_eq!(p.next_after(SimTime(0)), Some(SimTime(10 * US)));
        assert_eq!(p.next_after(SimTime(10 * US)), Some(SimTime(20 * US)));
        assert_eq!(p.next_after(SimTime(20 * US)), None, "30 us is past the stop");
        let mut q = PeriodicPause { count: Some(1), stop: None, sent: 0, ..p };
        assert_eq!(q.next_after(SimTime(0)), None);
    }
}

//! `[[hosts]]` and `[[switches]]`: host timing and its variability, buffers.

use crate::scenario::units::{DurationSpec, SizeSpec};
use crate::time::Bytes;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::common::{default_buffers, yes, zero_time};
use crate::mechanisms::pause::scenario::schema::{HostPauseSpec, SwitchPauseSpec};

/// An end host with finite speed.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    /// Unique node name.
    pub name: String,
    /// CPU time to send one packet (its network stack and driver). Default 0 s.
    #[serde(default = "zero_time")]
    pub tx_processing: DurationSpec,
    /// CPU time to receive one packet. Default 0 s.
    #[serde(default = "zero_time")]
    pub rx_processing: DurationSpec,
    /// Interrupt service time of the transmit path: the controller holds one frame at a
    /// time and, after each frame's last bit, waits this long for the host before it can
    /// start the next (the hosts of the CSMA/CD capacity study: 100 us). Default 0 s: a
    /// NIC that sends from its queue back to back.
    #[serde(default = "zero_time")]
    pub tx_interrupt: DurationSpec,
    /// Variation of the interrupt service time: each service takes `tx_interrupt` plus a
    /// time drawn uniformly in [0, this), from the random stream `host/<name>/interrupt`
    /// (real hosts' service times vary; identical fixed ones can lock hosts into step).
    /// Needs a `tx_interrupt`. Default 0 s: every service takes exactly `tx_interrupt`.
    #[serde(default = "zero_time")]
    pub tx_interrupt_jitter: DurationSpec,
    /// Transmit buffers: packets accepted from applications and not yet off the wire.
    /// Default 256.
    #[serde(default = "default_buffers")]
    pub tx_buffers: u32,
    /// Receive ring slots: frames received and not yet processed. Default 256.
    #[serde(default = "default_buffers")]
    pub rx_buffers: u32,
    /// How the NIC treats PAUSE frames. Default: honours them.
    #[serde(default)]
    pub pause: HostPauseSpec,
    /// Timing variability of the host's software: how much longer than asked the sleeps
    /// and MPI calls of the ranks it runs take (see docs/mpi.md). Default none: every
    /// time is exact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing_variability: Option<TimingVariabilitySpec>,
}

/// What a host's software adds to the times it is asked for, each a distribution drawn
/// from every rank's own random streams (`host/<host>/sleep_overshoot/<job>/<i>` and
/// `host/<host>/call_overhead/<job>/<i>`, `i` the rank's place on the host from 0). Either
/// may be left out: that time is then exact.
///
/// Suggested values (docs/mpi.md gives the sources): a Linux thread's timer fires up to
/// its timer slack late, never early, and the slack every process inherits is 50 us
/// (`PR_SET_TIMERSLACK(2const)`); with nothing else waking an idle host, a sleep ends
/// about the slack late, so `sleep_overshoot = { kind = "exponential", offset = "50 us",
/// mean = "5 us" }` (the 5 us wake-up latency is an assumption: measure yours), or
/// `kind = "empirical"` from a measured histogram.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimingVariabilitySpec {
    /// Added to every sleep of a rank: the synthetic benchmark's `sleep` after each call
    /// and at the end (a zero sleep is none). Not to a replayed trace's compute times,
    /// which were measured with the real host's noise in them.
    #[serde(default)]
    pub sleep_overshoot: Option<VariabilitySpec>,
    /// Added to the software overhead of every MPI call (`mpi_jobs[].overhead`), before
    /// its first message leaves.
    #[serde(default)]
    pub call_overhead: Option<VariabilitySpec>,
}

/// A distribution of extra time. `kind` chooses it and says which other keys it takes:
/// `exponential` (`offset`, `mean`): `offset` plus an exponential of mean `mean`, so a
/// mean of `offset + mean` (`mean = "0 s"` is the constant `offset`); `lognormal`
/// (`mean`, `std`): the lognormal of that mean and standard deviation (not the
/// parameters of its logarithm); `empirical` (`points`): a table of its cumulative
/// distribution, linear between points. Each time is at most 1 s.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VariabilitySpec {
    /// The distribution.
    pub kind: VariabilityKind,
    /// `exponential`: the fixed part, added to every draw. Default 0 s.
    #[serde(default)]
    pub offset: Option<DurationSpec>,
    /// `exponential`: the mean of the exponential part; `lognormal`: the mean (above 0).
    #[serde(default)]
    pub mean: Option<DurationSpec>,
    /// `lognormal`: the standard deviation.
    #[serde(default)]
    pub std: Option<DurationSpec>,
    /// `empirical`: points of the cumulative distribution function in order, from the
    /// smallest value (`p = 0`) to the largest (`p = 1`), `p` rising strictly and values
    /// never falling. A draw takes a uniform `U` in [0, 1) and interpolates linearly
    /// between the values of the two points whose `p` surround it; two points at one
    /// value make a step (that value is drawn with the difference of their `p`).
    #[serde(default)]
    pub points: Option<Vec<QuantileSpec>>,
}

/// The distributions a timing variability may follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VariabilityKind {
    /// A constant plus an exponential.
    Exponential,
    /// Lognormal, by its mean and standard deviation.
    Lognormal,
    /// A table of the cumulative distribution function.
    Empirical,
}

/// One point of a cumulative distribution function.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuantileSpec {
    /// The time.
    pub value: DurationSpec,
    /// The fraction of draws at or below it, 0 to 1.
    pub p: f64,
}

/// A store-and-forward, output-queued switch.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwitchSpec {
    /// Unique node name.
    pub name: String,
    /// Buffer of each output port. Default: 1 MiB per port, no frame limit.
    #[serde(default = "default_port_buffer")]
    pub port_buffer: BufferSpec,
    /// IEEE 802.3x flow control. Default: PAUSE honoured, never sent.
    #[serde(default)]
    pub pause: SwitchPauseSpec,
}

fn default_port_buffer() -> BufferSpec {
    BufferSpec { bytes: Some(SizeSpec(Bytes(1 << 20))), frames: None, counts_in_service: true }
}

/// Limits of one output queue; a frame that would exceed either is dropped (drop-tail).
/// At least one limit must be given.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BufferSpec {
    /// Most bytes (frame lengths) held at once.
    #[serde(default)]
    pub bytes: Option<SizeSpec>,
    /// Most frames held at once.
    #[serde(default)]
    pub frames: Option<u32>,
    /// Whether the frame being sent counts toward the limits until its last bit has left.
    /// true (default): the limits are the port's packet memory; `frames = N` is also
    /// ns-2's `DropTail` with `limit_` N (N packets in all). false: only the frames
    /// waiting behind it count; `frames = N` is ns-3's `DropTailQueue` with `MaxSize` N
    /// on a point-to-point device (N waiting, one more being sent).
    #[serde(default = "yes")]
    pub counts_in_service: bool,
}

//! What hosts and switches hold: a host's timing and its variability, a switch's
//! buffers (the `[[hosts]]` and `[[switches]]` tables themselves are the top level's,
//! `scenario.rs`).

use crate::scenario::units::{DurationSpec, SizeSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::common::yes;

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

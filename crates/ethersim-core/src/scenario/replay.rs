//! Trace-driven traffic: a `replay` application's trace read, checked and laid out.

use crate::app::{EndpointKind, ReplayFrame, TraceReplay};
use std::path::Path;

use crate::capture::read_trace_from;
use crate::input;
use crate::time::{Duration, SimTime};
use crate::wire::ethernet;

use super::error::ScenarioError;
use super::schema::{ReplayAlign, ReplaySpec, Scenario};

type Result<T> = std::result::Result<T, ScenarioError>;

/// The replaying endpoint of `spec` (at `path`), on a path of MTU `path_mtu`.
pub(super) fn replay(spec: &ReplaySpec, path: &str, s: &Scenario, path_mtu: u64) -> Result<EndpointKind> {
    let file_path = format!("{path}.file");
    let (file, _) = input::open(Path::new(&spec.file), None, "a packet trace")
        .map_err(|e| ScenarioError::at(&file_path, format!("cannot read trace {:?}: {e}", spec.file)))?;
    // No limit on the file's size: it is streamed, and what is kept is 16 bytes a frame.
    let trace = read_trace_from(file)
        .map_err(|e| ScenarioError::at(&file_path, format!("trace {:?}: {e}", spec.file)))?;
    let scale = spec.time_scale;
    if !(scale.is_finite() && scale > 0.0) {
        return Err(ScenarioError::at(
            format!("{path}.time_scale"),
            format!("{scale} is not a positive number; expected, e.g., 0.5 to replay twice as fast"),
        ));
    }
    if spec.loop_ && spec.repeat.is_some() {
        return Err(ScenarioError::at(format!("{path}.repeat"), "give `repeat` or `loop = true`, not both"));
    }
    if spec.repeat == Some(0) {
        return Err(ScenarioError::at(format!("{path}.repeat"), "must be at least 1"));
    }
    let passes = if spec.loop_ { None } else { Some(spec.repeat.unwrap_or(1)) };
    if passes.is_none() {
        super::common::check_stops(path, s, spec.start.0, spec.stop.map(|d| d.0), None)?;
    } else if let Some(stop) = spec.stop.map(|d| d.0).filter(|&stop| stop <= spec.start.0) {
        return Err(ScenarioError::at(
            format!("{path}.stop"),
            format!("{stop} must be later than start ({})", spec.start.0),
        ));
    }
    let n = trace.frames.len();
    if n == 1 && passes != Some(1) {
        return Err(ScenarioError::at(
            format!("{path}.repeat"),
            "a trace of one frame has no gap between frames to repeat it by; expected a trace of two frames or more",
        ));
    }
    let scaled = |ps: u64| -> u64 {
        // A scale of exactly 1 keeps every instant exact (f64 holds 2^53 ps, 2.5 hours).
        #[allow(clippy::float_cmp)]
        if scale == 1.0 {
            ps
        } else {
            (ps as f64 * scale).round() as u64
        }
    };
    // Frames longer than the path carries (offloaded segments in a host's capture) go as
    // full frames and a remainder at their instant.
    let max_frame = ethernet::max_frame_for_mtu(path_mtu) as u32;
    let around = (ethernet::HEADER_LEN + ethernet::FCS_LEN) as u32;
    let mut frames = Vec::with_capacity(n);
    let mut split = 0u64;
    for f in &trace.frames {
        let offset = Duration::from_ps(scaled(f.offset_ps));
        if f.frame_len <= max_frame {
            frames.push(ReplayFrame { offset, frame_len: f.frame_len });
            continue;
        }
        split += 1;
        let mut data = f.frame_len - around;
        let per_frame = max_frame - around;
        while data > 0 {
            let d = data.min(per_frame);
            frames.push(ReplayFrame { offset, frame_len: (d + around).max(ethernet::MIN_FRAME as u32) });
            data -= d;
        }
    }
    let span = trace.frames[n - 1].offset_ps;
    let pass_ps = if n > 1 { span + span / (n as u64 - 1) } else { 0 };
    if passes != Some(1) && pass_ps == 0 {
        return Err(ScenarioError::at(
            format!("{path}.repeat"),
            "every frame of the trace has the same timestamp, so a pass has no length; expected frames spread in time",
        ));
    }
    let start = SimTime::ZERO + spec.start.0;
    let origin = match spec.align {
        ReplayAlign::FirstFrame => start,
        ReplayAlign::Capture => u64::try_from(trace.first_ps)
            .ok()
            .and_then(|ps| start.as_ps().checked_add(ps))
            .filter(|&ps| ps < SimTime::NEVER.as_ps() / 2)
            .map(SimTime)
            .ok_or_else(|| {
                ScenarioError::at(
                    format!("{path}.align"),
                    "the trace's timestamps are beyond the engine's clock (about 213 days after the \
                     epoch); expected align = \"first_frame\" for a capture of a real network",
                )
            })?,
    };
    let stop = spec.stop.map(|d| SimTime::ZERO + d.0);
    Ok(EndpointKind::Replay(Box::new(TraceReplay::new(
        frames,
        origin,
        Duration::from_ps(scaled(pass_ps)),
        passes,
        stop,
        split,
    ))))
}

//! What the stations of shared CSMA/CD segments report.

use crate::sim::network::Network;
use crate::time::SimTime;
use crate::wire::ethernet;
use serde::Serialize;

use crate::sim::results::window::{per_frame, per_s, WindowDelta};

/// The results of one station of a shared-medium segment (CSMA/CD). Counters cover the
/// measurement window when the scenario has one (a frame counts when it is sent or
/// dropped), otherwise the whole run.
#[derive(Clone, Debug, Serialize)]
pub struct StationResult {
    /// The segment.
    pub segment: String,
    /// The station's node.
    pub node: String,
    /// Its position on the cable, m.
    pub position_m: f64,
    /// Frames sent whole.
    pub frames_sent: u64,
    /// Their bytes (header to FCS, padded).
    pub bytes_sent: u64,
    /// Bit rate in wire bits: each frame with its preamble and inter-frame gap (20 B),
    /// bit/s. Equal to the CSMA/CD capacity study's accounting (frame without FCS, plus 24
    /// B per frame).
    pub bit_rate_bps: f64,
    /// Frames sent whole per second.
    pub frame_rate_per_s: f64,
    /// Transmission delay (the MAC taking the frame to the last bit of its successful
    /// attempt): mean, s.
    pub delay_mean_s: f64,
    /// Its standard deviation, s.
    pub delay_std_s: f64,
    /// The delay less the frame's collision-free transmission time (preamble and frame),
    /// mean, s.
    pub excess_delay_mean_s: f64,
    /// Collisions suffered by the frames sent or dropped.
    pub collisions: u64,
    /// Collisions per frame the MAC finished with (sent or dropped).
    pub collisions_per_frame: f64,
    /// Frames dropped after 16 collisions.
    pub drops: u64,
    /// The span the counters cover, s.
    pub span_s: f64,
}

pub(crate) fn station_results(
    net: &Network,
    end: SimTime,
    window: Option<&WindowDelta>,
) -> Vec<StationResult> {
    let span_s = match (net.window.as_deref(), window) {
        (Some(_), Some(w)) => w.span_s,
        (Some(_), None) => 0.0, // the run ended before the window began
        (None, _) => end.as_secs_f64(),
    };
    let mut out = Vec::new();
    for (_, bus) in net.attached.segments.iter() {
        for st in &bus.stations {
            let s = &st.stats;
            let frames = s.frames_sent;
            let wire_bits = (s.bytes_sent + frames * ethernet::WIRE_OVERHEAD.get()) as f64 * 8.0;
            out.push(StationResult {
                segment: bus.name.clone(),
                node: net.names[st.node.index()].clone(),
                position_m: st.position_m,
                frames_sent: frames,
                bytes_sent: s.bytes_sent,
                bit_rate_bps: per_s(wire_bits, span_s),
                frame_rate_per_s: per_s(frames as f64, span_s),
                delay_mean_s: s.delay.mean(),
                delay_std_s: s.delay.std_dev(),
                excess_delay_mean_s: s.excess_delay.mean(),
                collisions: s.collisions,
                collisions_per_frame: per_frame(s.collisions, frames + s.drops),
                drops: s.drops,
                span_s,
            });
        }
    }
    out
}

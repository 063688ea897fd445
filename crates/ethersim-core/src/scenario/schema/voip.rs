//! `[[apps]]` of kind `voip`: a two-way voice call.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::scenario::units::DurationSpec;
use crate::time::Duration;

use super::common::zero_time;

fn sixty_seconds() -> DurationSpec {
    DurationSpec(Duration::from_secs(60))
}

/// A two-way voice call between `from` (the caller) and `to` (the callee): each end
/// talks in exponential talk spurts and silences, sends an RTP packet over UDP every
/// codec interval while it talks, and plays what it hears through a jitter buffer.
/// Each end's figures are rated with the ITU-T G.107 E-model (R and MOS); see
/// docs/voip.md.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VoipSpec {
    /// Unique name, used in reports and to name the call's random streams.
    /// Default `apps[i]`.
    #[serde(default)]
    pub name: Option<String>,
    /// The caller's host.
    pub from: String,
    /// The callee's host.
    pub to: String,
    /// The codec both ends use. Default G.711.
    #[serde(default)]
    pub codec: CodecName,
    /// When the call starts. Default 0 s.
    #[serde(default = "zero_time")]
    pub start: DurationSpec,
    /// How long the call lasts. Default 60 s.
    #[serde(default = "sixty_seconds")]
    pub duration: DurationSpec,
    /// Each listener's jitter buffer. Default a fixed buffer of 40 ms.
    #[serde(default)]
    pub jitter_buffer: JitterBufferSpec,
    /// The talkers' on/off model. Default ITU-T P.59's means (1.004 s and 1.587 s).
    #[serde(default)]
    pub talk_spurts: TalkSpurtSpec,
}

/// A voice codec (ITU-T G.113 Appendix I gives each one's Ie and Bpl).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum CodecName {
    /// G.711 at 64 kbit/s, 20 ms packets, with G.711 Appendix I loss concealment
    /// (Ie 0, Bpl 25.1).
    #[default]
    #[serde(rename = "G.711")]
    G711,
    /// G.711 without loss concealment (Ie 0, Bpl 4.3).
    #[serde(rename = "G.711-noPLC")]
    G711NoPlc,
    /// G.729 Annex A at 8 kbit/s, 20 ms packets (Ie 11, Bpl 19.0).
    #[serde(rename = "G.729A")]
    G729A,
}

const fn forty_ms() -> DurationSpec {
    DurationSpec(Duration::from_ms(40))
}

const fn default_beta() -> f64 {
    4.0
}

/// How a listener's jitter buffer plans each talk spurt's playout.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum JitterBufferSpec {
    /// The spurt's first packet plays `depth` after it arrives; the rest keep their spacing.
    Fixed {
        /// How long the first packet of a spurt waits. Default 40 ms.
        #[serde(default = "forty_ms")]
        depth: DurationSpec,
    },
    /// Ramjee et al. (INFOCOM 1994) algorithm 1: each spurt plays at the running mean
    /// transit plus `beta` times its running variation.
    Adaptive {
        /// Variations above the mean. Default 4.
        #[serde(default = "default_beta")]
        beta: f64,
    },
}

impl Default for JitterBufferSpec {
    fn default() -> Self {
        JitterBufferSpec::Fixed { depth: forty_ms() }
    }
}

fn p59_spurt() -> DurationSpec {
    DurationSpec(Duration::from_ms(1004))
}

fn p59_silence() -> DurationSpec {
    DurationSpec(Duration::from_ms(1587))
}

/// The means of a talker's exponential talk spurts and silences.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TalkSpurtSpec {
    /// Mean talk spurt. Default 1.004 s (ITU-T P.59).
    #[serde(default = "p59_spurt")]
    pub mean_spurt: DurationSpec,
    /// Mean silence. Default 1.587 s (ITU-T P.59).
    #[serde(default = "p59_silence")]
    pub mean_silence: DurationSpec,
}

impl Default for TalkSpurtSpec {
    fn default() -> Self {
        TalkSpurtSpec { mean_spurt: p59_spurt(), mean_silence: p59_silence() }
    }
}

//! A token-bucket shaper on a link's output ports (`links[i].shaper`).

use crate::scenario::units::{RateSpec, SizeSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A token-bucket shaper on the link's transmitters: data frames leave at a long-run
/// rate of at most `rate`, in bursts of at most `burst` (plus one frame) at the link's
/// rate. A frame may start while the bucket's credit is not negative and spends its
/// length (header to FCS); MAC control frames pass unshaped. See docs/scenarios.md.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShaperSpec {
    /// The rate the bucket fills at: the long-run rate of the shaped port's data.
    pub rate: RateSpec,
    /// The bucket's size: the burst that leaves at the link's rate after an idle spell.
    pub burst: SizeSpec,
    /// Shape only the port of this node (an end of the link). Default: both ends.
    #[serde(default)]
    pub from: Option<String>,
}

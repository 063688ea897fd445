//! The shaper's scenario keys, `links[i].shaper = { rate, burst, from }`, and its
//! builder: a token bucket on each shaped port of a point-to-point link, attached to the
//! port's queue moments (`node/attach.rs`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::node::{Shapers, TokenBucket};
use crate::node::Port;
use crate::phy::Link;
use crate::scenario::common::{ends_from, positive_rate, Result};
use crate::scenario::error::ScenarioError;
use crate::scenario::schema::Scenario;
use crate::scenario::units::{RateSpec, SizeSpec};
use crate::sim::attach::PortAttachment;

/// A token-bucket shaper on the link's transmitters: data frames leave at a long-run
/// rate of at most `rate`, in bursts of at most `burst` (plus one frame) at the link's
/// rate. A frame may start while the bucket's credit is not negative and spends its
/// length (header to FCS); MAC control frames pass unshaped. Shaped ports report
/// `shaped`, `shaper_holds` and `shaper_held_s` among their results.
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

/// The token buckets of `s`'s links, attached to their ports (`links[i]` is `links`'s
/// `i`th).
pub(crate) fn shapers(s: &Scenario, links: &[Link], ports: &mut [Port]) -> Result<Shapers> {
    let mut buckets = Shapers::default();
    for (i, spec) in s.links.iter().enumerate() {
        let Some(shaper) = &spec.shaper else { continue };
        let path = format!("links[{i}].shaper");
        let rate = positive_rate(shaper.rate.0, &format!("{path}.rate"))?;
        if shaper.burst.0 .0 == 0 {
            return Err(ScenarioError::at(format!("{path}.burst"), "must be greater than 0 B"));
        }
        let shaped = ends_from(spec, shaper.from.as_deref(), &format!("{path}.from"))?;
        for (end, port) in links[i].ends.into_iter().enumerate() {
            if shaped[end] {
                buckets.insert(port, TokenBucket::new(rate, shaper.burst.0));
                PortAttachment::TokenBucketShaper.attach_to(&mut ports[port.index()].attachments);
            }
        }
    }
    Ok(buckets)
}

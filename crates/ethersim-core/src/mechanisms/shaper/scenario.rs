//! The shaper's scenario keys, `links[i].shaper = { rate, burst, from }`, and its
//! builder (`LinkMechanismSpec`): a token bucket on each shaped port of a
//! point-to-point link, attached to the port's queue moments (`node/attach.rs`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::node::TokenBucket;
use crate::node::Port;
use crate::scenario::common::{ends_from, positive_rate, LinkMechanismSpec, LinkSite, Result};
use crate::scenario::error::ScenarioError;
use crate::scenario::units::{RateSpec, SizeSpec};
use crate::sim::attach::{AttachedState, PortAttachment};

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

impl LinkMechanismSpec for ShaperSpec {
    /// A token bucket on each shaped end of the link, attached to that port.
    fn attach(
        &self,
        path: &str,
        site: &LinkSite<'_>,
        ports: &mut [Port],
        attached: &mut AttachedState,
    ) -> Result<()> {
        let rate = positive_rate(self.rate.0, &format!("{path}.rate"))?;
        if self.burst.0 .0 == 0 {
            return Err(ScenarioError::at(format!("{path}.burst"), "must be greater than 0 B"));
        }
        let shaped = ends_from(site.spec, self.from.as_deref(), &format!("{path}.from"))?;
        for (end, port) in site.link.ends.into_iter().enumerate() {
            if shaped[end] {
                attached.shapers.insert(port, TokenBucket::new(rate, self.burst.0));
                PortAttachment::TokenBucketShaper.attach_to(&mut ports[port.index()].attachments);
            }
        }
        Ok(())
    }
}

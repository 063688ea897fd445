//! `links[i].shaper`: a token bucket on each shaped port of a point-to-point link,
//! attached to the port's queue moments (`node/attach.rs`).

use crate::node::{Port, PortAttachment, Shapers, TokenBucket};
use crate::phy::Link;
use crate::scenario::common::{ends_from, positive_rate, Result};
use crate::scenario::error::ScenarioError;
use crate::scenario::schema::Scenario;

/// The token buckets of `s`'s links, attached to their ports (`links[i]` is `links`'s
/// `i`th).
pub(super) fn shapers(s: &Scenario, links: &[Link], ports: &mut [Port]) -> Result<Shapers> {
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
                ports[port.index()].attachments.attach(PortAttachment::TokenBucketShaper);
            }
        }
    }
    Ok(buckets)
}

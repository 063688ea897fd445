//! Rules every builder of the scenario layer shares: a link's MTU, an application's
//! start and stop, positive rates, flow names, buffer limits. Builders import these
//! from here, never from the orchestrator (`build`), so the layer has no circle; so do
//! the scenario files of the mechanisms' rooms (`crate::mechanisms`).

use crate::ids::{FlowId, LinkId};
use crate::node::{Port, QueueLimits};
use crate::phy::Link;
use crate::scenario::error::ScenarioError;
use crate::scenario::schema::{BufferSpec, LinkSpec, Scenario};
use crate::scenario::topology::Topology;
use crate::sim::attach::AttachedState;
use crate::sim::{Flow, MeasureWindow};
use crate::time::{BitRate, Duration, SimTime};
use crate::wire::ethernet;

pub(crate) type Result<T> = std::result::Result<T, ScenarioError>;

/// A link of the scenario as its mechanisms see it when they attach: its spec
/// (`links[i]`) and the link built from it.
pub(crate) struct LinkSite<'a> {
    /// The link's number (`i`: point-to-point links come first).
    pub id: LinkId,
    /// `links[i]`.
    pub spec: &'a LinkSpec,
    /// The link built from it (its ports are `link.ends`).
    pub link: &'a Link,
}

/// The keys of a link mechanism built as a room (`links[i].KEY`, listed by
/// `LinkSpec::room_mechanisms`): its builder, in the room's `scenario.rs`, checks them
/// and attaches the mechanism to the link's ports. The orchestrator calls every one
/// alike, so it names none of them.
pub(crate) trait LinkMechanismSpec {
    /// Checks the keys (errors at `path`, the key's own path) and attaches the mechanism
    /// to `site`'s ports: their attachment kinds in `ports`, their state beside them in
    /// `attached`.
    fn attach(
        &self,
        path: &str,
        site: &LinkSite<'_>,
        ports: &mut [Port],
        attached: &mut AttachedState,
    ) -> Result<()>;
}

/// The scenario as a mechanism whose keys sit on the scenario itself sees it when it is
/// built, after the links and the link mechanisms.
pub(crate) struct ScenarioSite<'a> {
    /// The whole scenario.
    pub scenario: &'a Scenario,
    /// Its graph.
    pub topo: &'a Topology,
    /// Its measurement window, if it has one.
    pub window: Option<&'a MeasureWindow>,
    /// The links built so far (a mechanism may add its own after them, in file order).
    pub links: &'a mut Vec<Link>,
    /// Every port.
    pub ports: &'a mut [Port],
    /// The mechanisms' state beside the ports and links.
    pub attached: &'a mut AttachedState,
}

/// The keys of a mechanism built as a room that sit on the scenario itself (listed by
/// `Scenario::room_mechanisms`): its builder, in the room's `scenario/build.rs`, checks
/// them and builds the mechanism. The orchestrator calls every one alike, so it names
/// none of them.
pub(crate) trait ScenarioMechanismSpec {
    /// Refuses keys that would take more than the documented limits, before anything
    /// is built (errors at the key's path).
    fn check_sizes(&self, _s: &Scenario) -> Result<()> {
        Ok(())
    }

    /// Checks the keys (errors at their paths) and builds the mechanism into `site`.
    fn attach(&self, site: &mut ScenarioSite<'_>) -> Result<()>;

    /// What is valid but pointless in the keys, for the user to see (after the
    /// scenario's other warnings).
    fn warnings(&self, _s: &Scenario) -> Vec<String> {
        Vec::new()
    }
}

/// The flow of the application called `name`, or an error at `path`.
pub(crate) fn flow_named(flows: &[Flow], name: &str, path: &str) -> Result<FlowId> {
    flows.iter().position(|f| f.name == name).map(|i| FlowId::new(i as u32)).ok_or_else(|| {
        let known: Vec<&str> = flows.iter().map(|f| f.name.as_str()).collect();
        ScenarioError::at(path, format!("no application named {name:?}; known: {}", known.join(", ")))
    })
}

/// The largest payload a frame on link `link` (a point-to-point link, or a segment after
/// them) carries.
pub(crate) fn link_mtu(s: &Scenario, link: usize) -> u64 {
    match s.links.get(link) {
        Some(l) => l.mtu.0.get(),
        None => s.segments[link - s.links.len()].max_frame.0.get() - ethernet::HEADER_LEN - ethernet::FCS_LEN,
    }
}

pub(crate) fn buffer_limits(buf: &BufferSpec, path: &str, largest_frame: u64) -> Result<QueueLimits> {
    if buf.bytes.is_none() && buf.frames.is_none() {
        return Err(ScenarioError::at(path, "give bytes, frames or both; a buffer must be finite"));
    }
    if let Some(b) = buf.bytes.filter(|b| b.0.get() < largest_frame) {
        return Err(ScenarioError::at(
            format!("{path}.bytes"),
            format!("{} is smaller than one maximum frame ({largest_frame} B) of this switch's links", b.0),
        ));
    }
    if buf.frames == Some(0) {
        return Err(ScenarioError::at(format!("{path}.frames"), "must hold at least 1 frame"));
    }
    Ok(QueueLimits {
        bytes: buf.bytes.map(|b| b.0.get()),
        frames: buf.frames,
        counts_in_service: buf.counts_in_service,
    })
}

/// Which ends of the link `spec` transmit through the mechanism: both without `from`,
/// else the end of the node `from` names (an error at `path` if it names neither).
pub(crate) fn ends_from(spec: &LinkSpec, from: Option<&str>, path: &str) -> Result<[bool; 2]> {
    let Some(node) = from else { return Ok([true, true]) };
    match spec.between.iter().position(|n| n == node) {
        Some(e) => Ok([e == 0, e == 1]),
        None => Err(ScenarioError::at(
            path,
            format!(
                "{node:?} is not an end of this link; expected {:?} or {:?}",
                spec.between[0], spec.between[1]
            ),
        )),
    }
}

pub(crate) fn positive_rate(r: BitRate, path: &str) -> Result<BitRate> {
    if r.as_bps() == 0 {
        Err(ScenarioError::at(path, "must be greater than 0 b/s"))
    } else {
        Ok(r)
    }
}

/// Checks that an open-loop sender stops: by `stop`, `count`, or the scenario's limits.
pub(crate) fn check_stops(
    path: &str,
    s: &Scenario,
    start: Duration,
    stop: Option<Duration>,
    count: Option<u64>,
) -> Result<Option<SimTime>> {
    if count == Some(0) {
        return Err(ScenarioError::at(format!("{path}.count"), "must be at least 1"));
    }
    if let Some(stop) = stop.filter(|&stop| stop <= start) {
        return Err(ScenarioError::at(
            format!("{path}.stop"),
            format!("{stop} must be later than start ({start})"),
        ));
    }
    if stop.is_none() && count.is_none() && s.duration.is_none() && s.max_events.is_none() {
        return Err(ScenarioError::at(
            path,
            "this application never stops: give it `stop` or `count`, or give the scenario a `duration`",
        ));
    }
    Ok(stop.map(|d| SimTime::ZERO + d))
}

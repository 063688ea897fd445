//! Point-to-point links: rate, delay, outages, capacity processes and loss models,
//! each checked against its key path; the mechanisms a link carries (EEE, rate
//! switching) are built by their own modules.

use crate::engine::rng;
use crate::ids::{LinkId, PortId};
use crate::node::Port;
use crate::phy::{CapacityProcess, Link, LossModel, Outage, OutageSchedule, ScriptedLoss};
use crate::scenario::error::ScenarioError;
use crate::scenario::schema::{FlowDirection, LinkSpec, LossSpec, Scenario};
use crate::scenario::topology::Topology;
use crate::sim::attach::AttachedState;
use crate::sim::Flow;
use crate::time::{Duration, SimTime};
use crate::wire::Role as End;

use crate::scenario::common::{ends_from, flow_named, LinkSite, Result};

/// One link object per `[[links]]` entry: link `i` joins ports `2i` and `2i + 1`.
pub(super) fn links(s: &Scenario) -> Result<Vec<Link>> {
    s.links
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let ends = [PortId(2 * i as u32), PortId(2 * i as u32 + 1)];
            let outages = outages(spec, i)?;
            let mut link = Link::point_to_point(ends, spec.rate.0, spec.delay.0, outages);
            if let Some(c) = capacity(s, spec, i)? {
                link.capacity = Some(Box::new(c));
            }
            Ok(link)
        })
        .collect()
}

/// The mechanisms built as rooms on `s`'s links (`links[i]` is `links`'s `i`th), each
/// attached by its own builder, and the state they keep beside the ports.
pub(super) fn room_mechanisms(s: &Scenario, links: &[Link], ports: &mut [Port]) -> Result<AttachedState> {
    let mut attached = AttachedState::default();
    for (i, spec) in s.links.iter().enumerate() {
        let site = LinkSite { id: LinkId(i as u32), spec, link: &links[i] };
        for (key, mechanism) in spec.room_mechanisms() {
            mechanism.attach(&format!("links[{i}].{key}"), &site, ports, &mut attached)?;
        }
    }
    Ok(attached)
}

/// A link's varying capacity, checked.
pub(super) fn capacity(s: &Scenario, spec: &LinkSpec, i: usize) -> Result<Option<CapacityProcess>> {
    let Some(c) = &spec.capacity else { return Ok(None) };
    let path = format!("links[{i}].capacity");
    let (min, max) = (c.min.0, c.max.0);
    if min.as_bps() == 0 || min > max {
        return Err(ScenarioError::at(
            format!("{path}.min"),
            format!("{min} does not fit under max ({max}); expected 0 b/s < min ≤ max"),
        ));
    }
    if c.mean_hold.0 == Duration::ZERO {
        return Err(ScenarioError::at(format!("{path}.mean_hold"), "must be greater than 0 s"));
    }
    let dirs = ends_from(spec, c.from.as_deref(), &format!("{path}.from"))?;
    let stream = rng::stream(s.seed, &format!("link:{}-{}.capacity", spec.between[0], spec.between[1]));
    Ok(Some(CapacityProcess::new(min, max, c.mean_hold.0, dirs, stream)))
}

fn outages(spec: &LinkSpec, i: usize) -> Result<OutageSchedule> {
    let mut list: Vec<Outage> = Vec::with_capacity(spec.outages.len());
    for (k, o) in spec.outages.iter().enumerate() {
        let path = format!("links[{i}].outages[{k}]");
        if o.duration.0 == Duration::ZERO {
            return Err(ScenarioError::at(format!("{path}.duration"), "must be greater than 0 s"));
        }
        let start = SimTime::ZERO + o.start.0;
        let outage = Outage { start, end: start + o.duration.0 };
        if let Some(prev) = list.last().filter(|prev| prev.end > start) {
            return Err(ScenarioError::at(
                format!("{path}.start"),
                format!(
                    "{} is before the end of outages[{}] ({}); list outages in time order, not overlapping",
                    o.start.0,
                    k - 1,
                    prev.end
                ),
            ));
        }
        list.push(outage);
    }
    Ok(OutageSchedule::new(list))
}

/// Gives each link with a `loss` table its loss model.
pub(super) fn attach_losses(s: &Scenario, topo: &Topology, flows: &[Flow], links: &mut [Link]) -> Result<()> {
    for (i, spec) in s.links.iter().enumerate() {
        let Some(loss) = &spec.loss else { continue };
        links[i].loss = Some(Box::new(loss_model(s, topo, flows, spec, loss, i)?));
    }
    Ok(())
}

fn loss_model(
    s: &Scenario,
    topo: &Topology,
    flows: &[Flow],
    link: &LinkSpec,
    loss: &LossSpec,
    i: usize,
) -> Result<LossModel> {
    let path = format!("links[{i}].loss");
    let p = loss.probability;
    if !(0.0..=1.0).contains(&p) {
        return Err(ScenarioError::at(
            format!("{path}.probability"),
            format!("{p} is not a probability; expected 0 to 1"),
        ));
    }
    let mut probability = [p; 2];
    if let Some(from) = &loss.from {
        let node = topo.lookup(from, &format!("{path}.from"))?;
        let Some(end) = link.between.iter().position(|n| topo.lookup(n, "").ok() == Some(node)) else {
            return Err(ScenarioError::at(
                format!("{path}.from"),
                format!(
                    "{from:?} is not an end of this link; expected {:?} or {:?}",
                    link.between[0], link.between[1]
                ),
            ));
        };
        probability[1 - end] = 0.0;
    }
    let mut scripted = Vec::with_capacity(loss.drop.len());
    for (k, d) in loss.drop.iter().enumerate() {
        let dpath = format!("{path}.drop[{k}]");
        let flow = flow_named(flows, &d.app, &format!("{dpath}.app"))?;
        if d.frames.contains(&0) {
            return Err(ScenarioError::at(format!("{dpath}.frames"), "frames are counted from 1"));
        }
        let to = match d.direction {
            FlowDirection::Forward => End::Sink,
            FlowDirection::Reverse => End::Source,
        };
        scripted.push(ScriptedLoss::new(flow, to, d.frames.clone()));
    }
    // Named after the nodes it joins, so adding links elsewhere never shifts its draws.
    let stream = rng::stream(s.seed, &format!("link:{}-{}.loss", link.between[0], link.between[1]));
    Ok(LossModel::new(probability, stream, scripted))
}

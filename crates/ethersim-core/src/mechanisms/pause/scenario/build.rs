//! IEEE 802.3x flow control: which ports honour PAUSE, the switches' threshold
//! generators and their headroom, the periodic generators.

use crate::ids::{LinkId, PortId};
use crate::mechanisms::pause::node::headroom::{self, PauseInput, RateRange};
use crate::mechanisms::pause::node::state::{PauseReceiver, PeriodicPause, PortPause, ThresholdPause};
use crate::mechanisms::pause::scenario::schema::PauseGeneratorSpec;
use crate::mechanisms::pause::wire;
use crate::node::Port;
use crate::phy::Link;
use crate::scenario::error::ScenarioError;
use crate::scenario::schema::{LinkSpec, Scenario};
use crate::scenario::topology::{Role, Topology};
use crate::sim::attach::{AttachedState, PortAttachment};
use crate::time::{Bytes, Duration, SimTime};
use crate::wire::ethernet;

use crate::scenario::common::{Result, ScenarioMechanismSpec, ScenarioSite};

/// IEEE 802.3x flow control, listed by its key on the scenario (`pause_generators`):
/// its builder reads every host's and switch's `pause` too, after the segments' links.
impl ScenarioMechanismSpec for Vec<PauseGeneratorSpec> {
    fn attach(&self, site: &mut ScenarioSite<'_>) -> Result<()> {
        flow_control(site.scenario, site.topo, site.links, site.attached, site.ports)
    }
}

/// Each port's IEEE 802.3x settings: whether it honours PAUSE, a switch's threshold
/// flow control on its outputs, and the periodic generators.
fn flow_control(
    s: &Scenario,
    topo: &Topology,
    links: &[Link],
    attached: &mut AttachedState,
    ports: &mut [Port],
) -> Result<()> {
    attached.pause = vec![PortPause::default(); ports.len()];
    for node in 0..topo.attachments.len() {
        let (honour, threshold) = match topo.roles[node] {
            Role::Host(h) => (s.hosts[h].pause.honour, None),
            Role::Switch(w) => {
                (s.switches[w].pause.honour, threshold_pause(s, topo, links, attached, w, node)?)
            }
        };
        for &(link, port) in &topo.interfaces[node] {
            let p = &mut attached.pause[port.index()];
            p.rx = PauseReceiver::new(honour);
            // PAUSE is for full-duplex links (IEEE 802.3 Annex 31B): not on a segment.
            if let Some(t) = threshold.as_ref().filter(|_| link < s.links.len()) {
                p.threshold = Some(t.clone());
                PortAttachment::ThresholdPause.attach_to(&mut ports[port.index()].attachments);
            }
        }
    }
    for (i, g) in s.pause_generators.iter().enumerate() {
        let path = format!("pause_generators[{i}]");
        let port = topo.port_named(&g.port, &format!("{path}.port"))?;
        if g.every.0 == Duration::ZERO {
            return Err(ScenarioError::at(format!("{path}.every"), "must be greater than 0 s"));
        }
        let Some(link) = s.links.get(ports[port.index()].link.index()) else {
            return Err(ScenarioError::at(
                format!("{path}.port"),
                format!(
                    "{:?} is on a shared-medium segment; PAUSE is for full-duplex links (IEEE 802.3 \
                     Annex 31B)",
                    g.port
                ),
            ));
        };
        let rate = link.rate.0;
        if g.pause.0 == Duration::ZERO || wire::quanta_for(g.pause.0, rate).is_none() {
            return Err(ScenarioError::at(
                format!("{path}.pause"),
                format!(
                    "{} does not fit a PAUSE frame; expected more than 0 s and at most 65535 quanta \
                     of 512 bit times ({} at this link's {})",
                    g.pause.0,
                    wire::quanta_duration(wire::MAX_QUANTA, rate),
                    rate
                ),
            ));
        }
        let line = wire::frame_time(rate);
        if g.every.0 < line {
            return Err(ScenarioError::at(
                format!("{path}.every"),
                format!(
                    "{} is shorter than one PAUSE frame's line time ({line} at {rate}); expected \
                     at least that",
                    g.every.0
                ),
            ));
        }
        // A generator needs no end of its own, the run ends when the applications do,
        // unless its pauses never lapse: then they never do.
        let length = wire::quanta_duration(wire::quanta_for(g.pause.0, rate).unwrap_or(0), rate);
        let endless = g.stop.is_none() && g.count.is_none() && s.duration.is_none() && s.max_events.is_none();
        if length >= g.every.0 && endless {
            return Err(ScenarioError::at(
                path,
                format!(
                    "pauses of {length} every {} hold the partner paused for good, so the run \
                     would never end; give `stop` or `count`, or the scenario a `duration`",
                    g.every.0
                ),
            ));
        }
        if g.count == Some(0) {
            return Err(ScenarioError::at(format!("{path}.count"), "must be at least 1"));
        }
        if let Some(stop) = g.stop.filter(|stop| stop.0 <= g.start.0) {
            return Err(ScenarioError::at(
                format!("{path}.stop"),
                format!("{} must be later than start ({})", stop.0, g.start.0),
            ));
        }
        let stop = g.stop.map(|d| SimTime::ZERO + d.0);
        let p = &mut attached.pause[port.index()];
        if p.periodic.is_some() {
            return Err(ScenarioError::at(
                format!("{path}.port"),
                format!("{:?} already has a PAUSE generator; give each port at most one", g.port),
            ));
        }
        p.periodic = Some(PeriodicPause {
            start: SimTime::ZERO + g.start.0,
            every: g.every.0,
            pause: g.pause.0,
            stop,
            count: g.count,
            sent: 0,
        });
    }
    Ok(())
}

/// The threshold flow control of switch `w`'s outputs, if it sends PAUSE.
fn threshold_pause(
    s: &Scenario,
    topo: &Topology,
    links: &[Link],
    attached: &AttachedState,
    w: usize,
    node: usize,
) -> Result<Option<ThresholdPause>> {
    let spec = &s.switches[w].pause;
    let path = format!("switches[{w}].pause");
    if !spec.send {
        for (key, given) in [
            ("high_water", spec.high_water.is_some()),
            ("low_water", spec.low_water.is_some()),
            ("quanta", spec.quanta.is_some()),
            ("release", spec.release.is_some()),
        ] {
            if given {
                return Err(ScenarioError::at(
                    format!("{path}.{key}"),
                    "applies only when the switch sends PAUSE; add `send = true` or remove it",
                ));
            }
        }
        return Ok(None);
    }
    let buffer = s.switches[w].port_buffer.bytes.map(|b| b.0.get());
    // PAUSE is for full-duplex links (IEEE 802.3 Annex 31B): a segment's ports are no
    // inputs it can stop, and not outputs that send it.
    let inputs: Vec<PauseInput> = topo.interfaces[node]
        .iter()
        .filter_map(|&(l, port)| {
            s.links.get(l).map(|spec| pause_input(spec, &links[l], LinkId(l as u32), attached, port))
        })
        .collect();
    let high = match (spec.high_water, buffer) {
        (Some(h), _) => h.0.get(),
        (None, None) => {
            return Err(ScenarioError::at(
                format!("{path}.high_water"),
                "the port buffer has no byte limit, so there is no default; give high_water",
            ));
        }
        (None, Some(buffer)) => {
            let headroom = pause_headroom(&inputs);
            let largest = inputs.iter().map(|i| i.max_frame.get()).max().unwrap_or(0);
            match buffer.checked_sub(headroom).filter(|&h| h >= largest) {
                Some(h) => h,
                None => {
                    return Err(ScenarioError::at(
                        format!("{path}.high_water"),
                        format!(
                            "the port buffer ({buffer} B) leaves no room above one maximum frame for \
                             the {headroom} B of headroom PAUSE needs (at least {} B in all); give \
                             high_water or a larger port_buffer",
                            headroom + largest
                        ),
                    ));
                }
            }
        }
    };
    if high == 0 || buffer.is_some_and(|b| high > b) {
        return Err(ScenarioError::at(
            format!("{path}.high_water"),
            format!(
                "{high} B is out of range; expected more than 0 B and at most the port buffer ({} B)",
                buffer.unwrap_or(0)
            ),
        ));
    }
    let low = spec.low_water.map_or(high / 2, |l| l.0.get());
    if low >= high {
        return Err(ScenarioError::at(
            format!("{path}.low_water"),
            format!("{low} B is not below high_water ({high} B); expected low_water < high_water"),
        ));
    }
    let quanta = spec.quanta.unwrap_or(wire::MAX_QUANTA);
    if quanta == 0 {
        return Err(ScenarioError::at(format!("{path}.quanta"), "must be at least 1"));
    }
    Ok(Some(ThresholdPause::new(high, low, quanta, spec.release.unwrap_or(true))))
}

/// Bytes that may still arrive at an output after it reaches its high-water mark, for the
/// output that needs the most: every other input sends into it (`node::headroom` derives
/// one input's share from IEEE 802.3 Annex 31B), so the sum over all inputs but the
/// smallest. (The marks are one per switch.)
fn pause_headroom(inputs: &[PauseInput]) -> u64 {
    let smallest = inputs.iter().map(|i| i.worst_arrivals().get()).min().unwrap_or(0);
    headroom::headroom(inputs).get() - smallest
}

/// What threshold PAUSE sees of switch port `port`, an end of `link` (built from `spec`):
/// each direction's slowest and fastest rate, whether the two always run at one rate,
/// and how long the switch's transmitter can be held while the partner sends.
fn pause_input(
    spec: &LinkSpec,
    link: &Link,
    id: LinkId,
    attached: &AttachedState,
    port: PortId,
) -> PauseInput {
    let switch_end = usize::from(link.ends[1] == port);
    let end_of = |node: &str| spec.between.iter().position(|n| n == node);
    // By the end that transmits on the direction.
    let mut rates = [RateRange::fixed(spec.rate.0); 2];
    let mut lockstep = true;
    let mut blocked = Duration::ZERO;
    if let Some(policy) = spec.policy_rates() {
        let range = RateRange { slowest: policy.slowest, fastest: policy.fastest };
        match policy.from.and_then(end_of) {
            // Both directions change together, frames on the wire first, both dark.
            None => rates = [range; 2],
            Some(scaled) => {
                rates[scaled] = range;
                lockstep = false;
                // The scaled direction alone goes dark: an XOFF there waits it out.
                if scaled == switch_end {
                    blocked = blocked + policy.dark;
                }
            }
        }
    }
    if let Some(c) = &spec.capacity {
        // A frame on the wire keeps its rate when the capacity is redrawn, so even when
        // both directions vary they can differ at an instant.
        let range = RateRange { slowest: c.min.0.min(spec.rate.0), fastest: c.max.0.max(spec.rate.0) };
        match c.from.as_deref().and_then(end_of) {
            None => rates = [range; 2],
            Some(varied) => rates[varied] = range,
        }
        lockstep = false;
    }
    // A mechanism may hold the switch's transmitter while the partner sends (one LPI
    // PHY per direction: the switch's may be asleep; a frame queued then waits for the
    // sleep to finish, unless it aborts it, and the wake).
    blocked = blocked + attached.transmitter_hold(id, switch_end);
    PauseInput {
        inbound: rates[1 - switch_end],
        outbound: rates[switch_end],
        lockstep,
        delay: spec.delay.0,
        max_frame: Bytes(ethernet::max_frame_for_mtu(spec.mtu.0.get())),
        blocked,
    }
}

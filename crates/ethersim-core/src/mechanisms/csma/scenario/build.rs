//! Shared CSMA/CD segments: stations, repeaters, the cable's geometry and the medium
//! they share.

use crate::engine::rng;
use crate::ids::LinkId;
use crate::mechanisms::csma::phy::bus::Bus;
use crate::mechanisms::csma::phy::medium::{Geometry, Medium};
use crate::mechanisms::csma::scenario::schema::SegmentSpec;
use crate::phy::{ByLink, Link};
use crate::scenario::error::ScenarioError;
use crate::scenario::schema::Scenario;
use crate::scenario::topology::{Role, Topology};
use crate::sim::MeasureWindow;
use crate::time::{Bytes, Duration};
use crate::wire::ethernet;

use crate::scenario::common::{Result, ScenarioMechanismSpec, ScenarioSite};

/// The scenario's `segments`: refused beyond the limits on stations, built after the
/// point-to-point links (their links follow them), warned about when a round trip is
/// longer than the slot time.
impl ScenarioMechanismSpec for Vec<SegmentSpec> {
    fn check_sizes(&self, _s: &Scenario) -> Result<()> {
        let stations: usize = self.iter().map(|g| g.stations.len()).sum();
        let pairs: usize = self.iter().map(|g| g.stations.len().saturating_mul(g.stations.len())).sum();
        if stations > MAX_STATIONS_TOTAL || pairs > MAX_STATION_PAIRS {
            return Err(ScenarioError::at(
                "segments",
                format!(
                    "{stations} stations ({pairs} station pairs) exceed the limits of {MAX_STATIONS_TOTAL} \
                     stations and {MAX_STATION_PAIRS} pairs on all segments"
                ),
            ));
        }
        Ok(())
    }

    fn attach(&self, site: &mut ScenarioSite<'_>) -> Result<()> {
        let (links, buses) = segments(site.scenario, site.topo, site.window)?;
        site.links.extend(links);
        site.attached.segments = buses;
        Ok(())
    }

    fn warnings(&self, s: &Scenario) -> Vec<String> {
        warnings(s)
    }
}

/// The physical settings of a segment, checked: a rate whose bit time is a whole number of
/// picoseconds, a signal speed, repeaters and delays within bounds, a maximum frame.
fn check_segment(spec: &SegmentSpec, path: &str) -> Result<()> {
    if spec.rate.0.as_bps() == 0 {
        return Err(ScenarioError::at(format!("{path}.rate"), "must be greater than 0 b/s"));
    }
    // A bit must last a whole number of picoseconds (1 Tb/s at most): every time on the
    // segment is a count of bit times.
    if crate::time::PS_PER_SEC % spec.rate.0.as_bps() != 0 {
        return Err(ScenarioError::at(
            format!("{path}.rate"),
            format!(
                "{} gives a bit time that is not a whole number of picoseconds; expected a rate \
                 that divides 1 Tb/s, such as 10 Mb/s, 100 Mb/s or 1 Gb/s",
                spec.rate.0
            ),
        ));
    }
    if !(MIN_VELOCITY..=1.0).contains(&spec.velocity) {
        return Err(ScenarioError::at(
            format!("{path}.velocity"),
            format!(
                "{} is not a signal speed; expected a fraction of c from {MIN_VELOCITY} to 1",
                spec.velocity
            ),
        ));
    }
    if spec.repeaters.len() > MAX_REPEATERS {
        return Err(ScenarioError::at(
            format!("{path}.repeaters"),
            format!("{} repeaters exceed the limit of {MAX_REPEATERS}", spec.repeaters.len()),
        ));
    }
    let delays =
        spec.repeaters.iter().enumerate().map(|(j, r)| (format!("{path}.repeaters[{j}].delay"), r.delay.0));
    for (key, delay) in std::iter::once((format!("{path}.tap_delay"), spec.tap_delay.0)).chain(delays) {
        if delay > MAX_SEGMENT_DELAY {
            return Err(ScenarioError::at(key, format!("{delay} exceeds the limit of {MAX_SEGMENT_DELAY}")));
        }
    }
    let max_frame = spec.max_frame.0.get();
    let smallest = ethernet::max_frame_for_mtu(68);
    let largest = ethernet::max_frame_for_mtu(ethernet::MAX_JUMBO_MTU);
    if !(smallest..=largest).contains(&max_frame) {
        return Err(ScenarioError::at(
            format!("{path}.max_frame"),
            format!(
                "{max_frame} B is outside {smallest} B (an IPv4 minimum MTU) to {largest} B (jumbo frames)"
            ),
        ));
    }
    Ok(())
}

/// The segments' links, after the point-to-point ones: geometry, stations and, per
/// destination host, the station each frame for it goes to (the destination itself, or
/// the first switch on the segment nearest it). Statistics count over the measurement
/// window, if there is one. Each segment's bus is kept beside the links
/// (`AttachedState::segments`).
fn segments(
    s: &Scenario,
    topo: &Topology,
    window: Option<&MeasureWindow>,
) -> Result<(Vec<Link>, ByLink<Bus>)> {
    let mut out = Vec::with_capacity(s.segments.len());
    let mut buses = ByLink::default();
    for (k, (spec, seg)) in s.segments.iter().zip(&topo.segments).enumerate() {
        let path = format!("segments[{k}]");
        check_segment(spec, &path)?;
        let position = |at: f64, key: String| -> Result<f64> {
            if at.is_finite() && at.abs() <= MAX_SEGMENT_METRES {
                Ok(at)
            } else {
                Err(ScenarioError::at(
                    key,
                    format!("{at} is not a position; expected metres within ±{MAX_SEGMENT_METRES}"),
                ))
            }
        };
        let mut stations = Vec::with_capacity(spec.stations.len());
        for (j, st) in spec.stations.iter().enumerate() {
            stations.push((seg.nodes[j], position(st.at, format!("{path}.stations[{j}].at"))?));
        }
        let mut repeaters = Vec::with_capacity(spec.repeaters.len());
        for (j, r) in spec.repeaters.iter().enumerate() {
            repeaters.push((position(r.at, format!("{path}.repeaters[{j}].at"))?, r.delay.0));
        }
        let positions: Vec<f64> = stations.iter().map(|&(_, x)| x).collect();
        let geometry = Geometry::bus(&positions, spec.velocity, &repeaters, spec.tap_delay.0);
        // Per destination host: the station a frame for it goes to.
        let mut receivers = vec![None; s.hosts.len()];
        for dst in topo.hosts() {
            receivers[dst.index()] = match seg.nodes.iter().position(|&n| n == dst) {
                Some(j) => Some(j as u16),
                None => seg
                    .nodes
                    .iter()
                    .enumerate()
                    .filter_map(|(j, &n)| topo.hops_to(n, dst).map(|d| (d, j)))
                    .filter(|&(_, j)| matches!(topo.roles[seg.nodes[j].index()], Role::Switch(_)))
                    .min()
                    .map(|(_, j)| j as u16),
            };
        }
        let medium = Medium::new(geometry, spec.rate.0);
        let mut bus = Bus::new(
            spec.name.clone(),
            medium,
            &stations,
            seg.first_port,
            receivers,
            rng::stream(s.seed, &format!("csma/{}", spec.name)),
        );
        if let Some(w) = window {
            bus.counted = (w.from, w.until);
        }
        out.push(Link::shared(seg.first_port, spec.rate.0));
        buses.insert(LinkId(seg.link as u32), bus);
    }
    Ok((out, buses))
}

/// What is valid but pointless in the scenario's segments: a round trip longer than the
/// slot time, in which a station may finish a short frame before a collision reaches it
/// (IEEE 802.3 clause 8 bounds a segment so that it cannot).
fn warnings(s: &Scenario) -> Vec<String> {
    let mut out = Vec::new();
    for (k, seg) in s.segments.iter().enumerate() {
        // The longest path runs between the two stations furthest apart (delay grows with
        // distance and the repeaters crossed).
        let (lo, hi) = seg
            .stations
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), st| (lo.min(st.at), hi.max(st.at)));
        if !(lo.is_finite() && hi.is_finite()) || seg.rate.0.as_bps() == 0 {
            continue; // refused when the segment is built
        }
        let repeaters: Vec<(f64, Duration)> = seg.repeaters.iter().map(|r| (r.at, r.delay.0)).collect();
        let longest = Geometry::bus(&[lo, hi], seg.velocity, &repeaters, seg.tap_delay.0).delay(0, 1);
        let slot = Duration(seg.rate.0.time_to_send(Bytes(64)).as_ps());
        if longest + longest > slot {
            out.push(format!(
                "segments[{k}]: its round trip ({}) exceeds the slot time ({slot}, 512 bit times): a \
                 station may finish a short frame before a collision reaches it, and such a frame \
                 counts as sent",
                longest + longest
            ));
        }
    }
    out
}

/// Largest distance of a station or repeater from the cable's origin, metres (10,000 km:
/// far beyond any cable). With the bounds below, a segment's delays stay far inside
/// picosecond arithmetic.
const MAX_SEGMENT_METRES: f64 = 1e7;

/// Slowest signal on a segment, as a fraction of c.
const MIN_VELOCITY: f64 = 0.01;

/// Most repeaters on one segment.
const MAX_REPEATERS: usize = 1024;

/// Longest transceiver or repeater delay.
const MAX_SEGMENT_DELAY: Duration = Duration::from_secs(1);

/// Most stations on all segments together.
pub const MAX_STATIONS_TOTAL: usize = 100_000;

/// Most station pairs on all segments together (the geometry and the routes hold an entry
/// per pair): 4 million pairs take about 100 MB.
pub const MAX_STATION_PAIRS: usize = 4_000_000;

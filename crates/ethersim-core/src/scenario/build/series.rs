//! The trace path's subscribers a scenario asks for: per-port series and per-flow TCP
//! series, with their point limits.

use crate::app::{Endpoint, EndpointKind};
use crate::ids::LinkId;
use crate::phy::Link;
use crate::scenario::error::ScenarioError;
use crate::scenario::schema::Scenario;
use crate::scenario::topology::Topology;
use crate::sim::attach::AttachedState;
use crate::sim::{Flow, PortSeries, Subscriber, Trace};
use crate::stats::SeriesLimits;
use crate::time::{BitRate, SimTime};

use crate::scenario::common::{flow_named, Result};

/// The time series the scenario asks for: port series subscribe to the trace path; a
/// TCP application's sender keeps its own.
pub(super) fn trace(
    s: &Scenario,
    topo: &Topology,
    endpoints: &mut [Endpoint],
    flows: &[Flow],
    links: &[Link],
    attached: &mut AttachedState,
) -> Result<Trace> {
    let mut trace = Trace::default();
    for (i, spec) in s.series.iter().enumerate() {
        if (spec.max_points as usize) < crate::stats::series::MIN_POINTS {
            return Err(ScenarioError::at(
                format!("series[{i}].max_points"),
                format!(
                    "{} is too few; expected at least {} (past its limit a series keeps each \
                     bucket's lowest, highest and last level)",
                    spec.max_points,
                    crate::stats::series::MIN_POINTS
                ),
            ));
        }
        let from = spec.from.map_or(SimTime::ZERO, |d| SimTime::ZERO + d.0);
        let until = spec.until.map_or(SimTime::NEVER, |d| SimTime::ZERO + d.0);
        if until <= from {
            return Err(ScenarioError::at(
                format!("series[{i}].until"),
                format!("the window is empty: it runs from {from} to {until}; expected from < until"),
            ));
        }
        let limits = SeriesLimits { max_points: spec.max_points as usize, from, until };
        match (&spec.port, &spec.app) {
            (Some(port), None) => {
                let port = topo.port_named(port, &format!("series[{i}].port"))?;
                // Ports of point-to-point links come first, two per link; a station's port
                // (on a segment) has no Low Power Idle.
                let (link, end) = (port.index() / 2, port.index() % 2);
                let rate = if link < s.links.len() {
                    links[link].dirs[end].rate()
                } else {
                    let on_bus = |l: &&Link| {
                        l.as_bus().is_some_and(|b| {
                            port.index() >= b.first_port.index()
                                && port.index() < b.first_port.index() + b.stations.len()
                        })
                    };
                    links.iter().find(on_bus).map_or(BitRate::bps(0), |l| l.dirs[0].rate())
                };
                trace.subscribe(Subscriber::Series(PortSeries::new(port, rate.as_bps(), limits)));
                attached.record_series(port, LinkId(link as u32), end, limits);
            }
            (None, Some(app)) => {
                let path = format!("series[{i}].app");
                let flow = flow_named(flows, app, &path)?;
                let sender = &mut endpoints[flows[flow.index()].ends[0].index()];
                let EndpointKind::TcpSender(t) = &mut sender.kind else {
                    return Err(ScenarioError::at(
                        path,
                        format!("{app:?} is not a TCP application (tcp_file or tcp_bulk)"),
                    ));
                };
                t.record_series(limits);
            }
            _ => {
                return Err(ScenarioError::at(
                    format!("series[{i}]"),
                    "give exactly one of `port` and `app`",
                ));
            }
        }
    }
    Ok(trace)
}

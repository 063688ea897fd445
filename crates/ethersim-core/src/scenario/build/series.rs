//! The trace path's subscribers a scenario asks for: per-port series and per-flow TCP
//! series, with their point limits.

use crate::app::{Endpoint, EndpointKind};
use crate::node::Port;
use crate::phy::Link;
use crate::scenario::error::ScenarioError;
use crate::scenario::schema::Scenario;
use crate::scenario::topology::Topology;
use crate::sim::attach::AttachedState;
use crate::sim::{Flow, PortSeries, Subscriber, Trace};
use crate::stats::SeriesLimits;
use crate::time::SimTime;

use crate::scenario::common::{flow_named, Result};

/// The time series the scenario asks for: port series subscribe to the trace path; a
/// TCP application's sender keeps its own.
pub(super) fn trace(
    s: &Scenario,
    topo: &Topology,
    endpoints: &mut [Endpoint],
    flows: &[Flow],
    links: &[Link],
    ports: &[Port],
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
                let (link, end) = (ports[port.index()].link, ports[port.index()].end);
                // A shared medium's directions both carry its rate.
                let rate = links[link.index()].dirs[end].rate();
                trace.subscribe(Subscriber::Series(PortSeries::new(port, rate.as_bps(), limits)));
                attached.record_series(port, link, end, limits);
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

//! From a scenario that matches the schema to a runnable network: every consistency rule
//! the schema alone cannot express, then assembly. Each rule names the key path it
//! concerns and says what is expected.

mod apps;
mod links;
mod nodes;
mod series;
mod tcp;
mod warnings;

use crate::engine::RunLimits;
use crate::ids::NodeId;
use crate::scenario::error::ScenarioError;
use crate::scenario::schema::Scenario;
use crate::scenario::topology::Topology;
use crate::sim::{MeasureWindow, Network};
use crate::time::{Duration, SimTime};

use self::apps::apps;
use self::links::{attach_losses, links, room_mechanisms};
use self::nodes::{interrupt_jitter, nodes, ports};
use self::series::trace;
use self::warnings::warnings;
use crate::scenario::common::{Result, ScenarioSite};

/// A validated scenario, ready to run.
#[derive(Debug)]
pub struct Built {
    /// The network.
    pub network: Network,
    /// When the run stops.
    pub limits: RunLimits,
    /// What is valid but pointless (no traffic, an application that never starts), for
    /// the user to see.
    pub warnings: Vec<String>,
}

/// Most nodes (hosts and switches) a scenario may have: each costs some kilobytes, so
/// this bounds a scenario's memory to about a gigabyte.
pub const MAX_NODES: usize = 100_000;

/// Most links a scenario may have.
pub const MAX_LINKS: usize = 200_000;

/// Most applications a scenario may have.
pub const MAX_APPS: usize = 100_000;

/// Most route-table entries (hosts × switches): each switch holds a next hop, and the
/// router a distance, per host; 25 million entries take about 400 MB.
pub const MAX_ROUTE_ENTRIES: usize = 25_000_000;

/// Refuses scenarios larger than the documented limits, before anything is allocated
/// for them.
fn check_sizes(s: &Scenario) -> Result<()> {
    let nodes = s.hosts.len() + s.switches.len();
    for (key, n, max) in [
        ("hosts", nodes, MAX_NODES),
        ("links", s.links.len(), MAX_LINKS),
        ("segments", s.segments.len(), MAX_LINKS),
        ("apps", s.apps.len(), MAX_APPS),
    ] {
        if n > max {
            let what = if key == "hosts" { "hosts and switches" } else { key };
            return Err(ScenarioError::at(key, format!("{n} {what} exceed the limit of {max}")));
        }
    }
    for mechanism in s.room_mechanisms() {
        mechanism.check_sizes(s)?;
    }
    let receivers = s.hosts.len().saturating_mul(s.segments.len());
    if receivers > MAX_ROUTE_ENTRIES {
        return Err(ScenarioError::at(
            "segments",
            format!(
                "{} hosts × {} segments need {receivers} route entries, beyond the limit of \
                 {MAX_ROUTE_ENTRIES}",
                s.hosts.len(),
                s.segments.len()
            ),
        ));
    }
    let entries = s.hosts.len().saturating_mul(s.switches.len());
    if entries > MAX_ROUTE_ENTRIES {
        return Err(ScenarioError::at(
            "switches",
            format!(
                "{} hosts × {} switches need {entries} route-table entries, beyond the limit of \
                 {MAX_ROUTE_ENTRIES}; use fewer switches or hosts",
                s.hosts.len(),
                s.switches.len()
            ),
        ));
    }
    Ok(())
}

/// Checks `s` and assembles its network.
pub fn build(s: &Scenario) -> Result<Built> {
    check_sizes(s)?;
    let topo = Topology::new(s)?;
    let limits = run_limits(s)?;
    let mut links = links(s)?;
    let window = measure_window(s)?;
    let mut ports = ports(s, &topo)?;
    let mut attached = room_mechanisms(s, &links, &mut ports)?;
    for mechanism in s.room_mechanisms() {
        let mut site = ScenarioSite {
            scenario: s,
            topo: &topo,
            window: window.as_ref(),
            links: &mut links,
            ports: &mut ports,
            attached: &mut attached,
        };
        mechanism.attach(&mut site)?;
    }
    let nodes = nodes(s, &topo)?;
    interrupt_jitter(s, &topo, &mut ports)?;
    let (mut endpoints, mut flows) = apps(s, &topo)?;
    let timing = super::variability::hosts(s)?;
    let jobs = super::mpi::jobs(s, &topo, &timing, &mut endpoints, &mut flows)?;
    let trace = trace(s, &topo, &mut endpoints, &flows, &links, &ports, &mut attached)?;
    attach_losses(s, &topo, &flows, &mut links)?;
    let mut network = Network::new(topo.names.clone(), nodes, ports, links, endpoints, flows);
    network.trace = trace;
    network.attached = attached;
    record_idle_intervals(s, &jobs, &mut network);
    network.jobs = jobs;
    network.window = window.map(Box::new);
    super::captures::attach(s, &topo, &mut network)?;
    let mut warnings = warnings(s);
    for mechanism in s.room_mechanisms() {
        warnings.extend(mechanism.warnings(s));
    }
    Ok(Built { network, limits, warnings })
}

/// Marks the ports that record their idle intervals: every port with the scenario's
/// `record_idle_intervals`, else the ports of MPI jobs' hosts and their link partners.
fn record_idle_intervals(s: &Scenario, jobs: &[crate::app::mpi::MpiJob], network: &mut Network) {
    let job_hosts: std::collections::HashSet<NodeId> =
        jobs.iter().flat_map(|j| j.hosts.iter().copied()).collect();
    let marked: Vec<usize> = (0..network.ports.len())
        .filter(|&i| {
            let p = &network.ports[i];
            s.record_idle_intervals
                || job_hosts.contains(&p.node)
                || job_hosts.contains(&network.ports[p.peer.index()].node)
        })
        .collect();
    for i in marked {
        network.ports[i].record_idle_intervals();
    }
}

/// The measurement window, checked: it starts before it ends, and ends by the run's end.
fn measure_window(s: &Scenario) -> Result<Option<MeasureWindow>> {
    let Some(m) = s.measure else { return Ok(None) };
    let duration = s.duration.map(|d| d.0);
    let Some(until) = m.until.map(|u| u.0).or(duration) else {
        return Err(ScenarioError::at(
            "measure.until",
            "missing; expected the window's end (or a `duration` for the run, which it defaults to)",
        ));
    };
    if until <= m.from.0 {
        return Err(ScenarioError::at(
            "measure.until",
            format!("{until} must be later than measure.from ({})", m.from.0),
        ));
    }
    if let Some(d) = duration.filter(|&d| until > d) {
        return Err(ScenarioError::at(
            "measure.until",
            format!("{until} is after the run's duration ({d}); expected at most the duration"),
        ));
    }
    Ok(Some(MeasureWindow::new(SimTime::ZERO + m.from.0, SimTime::ZERO + until)))
}

fn run_limits(s: &Scenario) -> Result<RunLimits> {
    if s.duration.is_some_and(|d| d.0 == Duration::ZERO) {
        return Err(ScenarioError::at("duration", "must be greater than 0 s"));
    }
    if s.max_events == Some(0) {
        return Err(ScenarioError::at("max_events", "must be at least 1"));
    }
    Ok(RunLimits { until: s.duration.map(|d| SimTime::ZERO + d.0), max_events: s.max_events })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenarios_beyond_the_size_limits_are_refused_before_anything_is_built() {
        let text = "[[hosts]]\nname = \"a\"\n[[apps]]\nkind = \"ping\"\nfrom = \"a\"\nto = \"a\"\ninterval = \"1 s\"\ncount = 1\n";
        let base = crate::scenario::load(text, &[]).unwrap();
        let mut many_hosts = base.clone();
        many_hosts.hosts = vec![base.hosts[0].clone(); MAX_NODES + 1];
        let e = build(&many_hosts).unwrap_err();
        assert_eq!(e.path, "hosts");
        assert!(e.message.contains("100001 hosts and switches exceed the limit of 100000"), "{e}");
        let mut wide = base.clone();
        wide.hosts = vec![base.hosts[0].clone(); 6_000];
        wide.switches = vec![
            crate::scenario::schema::SwitchSpec {
                name: "s".into(),
                port_buffer: crate::scenario::schema::BufferSpec {
                    bytes: None,
                    frames: Some(1),
                    counts_in_service: true
                },
                pause: crate::mechanisms::pause::scenario::schema::SwitchPauseSpec::default(),
            };
            5_000
        ];
        let e = build(&wide).unwrap_err();
        assert_eq!(e.path, "switches");
        assert!(e.message.contains("30000000 route-table entries"), "{e}");
        let mut many_apps = base.clone();
        many_apps.apps = vec![base.apps[0].clone(); MAX_APPS + 1];
        assert_eq!(build(&many_apps).unwrap_err().path, "apps");
    }
}

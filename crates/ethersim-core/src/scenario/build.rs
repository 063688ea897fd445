//! From a scenario that matches the schema to a runnable network: every consistency rule
//! the schema alone cannot express, then assembly. Each rule names the key path it
//! concerns and says what is expected.

use crate::app::{
    Arrivals, Endpoint, EndpointKind, FilePacing, FrameLengths, PacketSource, PingClient, PingResponder,
    SaturatingSource, TcpReceiver, TcpSender, TcpWorkload, UdpFileTransfer, UdpSink,
};
use crate::engine::{rng, RunLimits};
use crate::ids::{EndpointId, FlowId, LinkId, NodeId, PortId};
use crate::node::{
    headroom, Host, HostConfig, InterruptJitter, PauseInput, PauseReceiver, PeriodicPause, Port, QueueLimits,
    RateRange, Switch, ThresholdPause,
};
use crate::phy::csma::{Geometry, Medium};
use crate::phy::{
    AlrPolicy, Bus, CapacityProcess, Coalescing, IdleTimeout, Immediate, Link, LinkEee, LossModel, Lpi,
    LpiPolicyKind, LpiProfile, LpiUnit, Outage, OutageSchedule, Pending, PowerModel, PractRa,
    PractRaSettings, RatePolicyKind, RateSwitching, ScheduledRates, ScriptedLoss,
};
use crate::sim::{Flow, MeasureWindow, Network, Node, PortSeries, Subscriber, Trace};
use crate::stats::SeriesLimits;
use crate::time::{BitRate, Bytes, Duration, SimTime};
use crate::transport::tcp::{TcpConfig, TcpProfile};
use crate::wire::{ethernet, icmp, ip, mac_control, tcp, udp, Role as End};

use super::error::ScenarioError;
use super::schema::{
    AppSpec, BufferSpec, EeeSpec, EmptySpec, FlowDirection, HostSpec, LinkSpec, LossSpec, LpiPolicySpec,
    OnOffSpec, PhyType, PingSpec, PowerModelSpec, RatePolicySpec, RateSwitchingSpec, SaturatingSpec,
    Scenario, SegmentSpec, SourceSpec, TcpBulkSpec, TcpProfileName, TcpSpec, UdpFileSpec,
};
use super::topology::{Role, Topology};

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

type Result<T> = std::result::Result<T, ScenarioError>;

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
    let stations: usize = s.segments.iter().map(|g| g.stations.len()).sum();
    let pairs: usize = s.segments.iter().map(|g| g.stations.len().saturating_mul(g.stations.len())).sum();
    if stations > MAX_STATIONS_TOTAL || pairs > MAX_STATION_PAIRS {
        return Err(ScenarioError::at(
            "segments",
            format!(
                "{stations} stations ({pairs} station pairs) exceed the limits of {MAX_STATIONS_TOTAL} \
                 stations and {MAX_STATION_PAIRS} pairs on all segments"
            ),
        ));
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
    links.extend(segments(s, &topo, window.as_ref())?);
    let mut ports = ports(s, &topo)?;
    flow_control(s, &topo, &links, &mut ports)?;
    for l in &links {
        let rate = l.rate_switching.as_ref().filter(|r| r.policy.watches_queues());
        for (end, p) in l.ends.into_iter().enumerate() {
            // A policy scaling one output port watches that port's queue alone.
            if rate.is_some_and(|r| r.scales(end)) {
                ports[p.index()].hooks |= Port::HOOK_RATE;
            }
            if l.eee.is_some() {
                ports[p.index()].hooks |= Port::HOOK_LPI;
            }
        }
    }
    let nodes = nodes(s, &topo)?;
    interrupt_jitter(s, &topo, &mut ports)?;
    let (mut endpoints, mut flows) = apps(s, &topo)?;
    let timing = super::variability::hosts(s)?;
    let jobs = super::mpi::jobs(s, &topo, &timing, &mut endpoints, &mut flows)?;
    let trace = trace(s, &topo, &mut endpoints, &flows, &mut links)?;
    attach_losses(s, &topo, &flows, &mut links)?;
    let mut network = Network::new(topo.names.clone(), nodes, ports, links, endpoints, flows);
    network.trace = trace;
    record_idle_intervals(s, &jobs, &mut network);
    network.jobs = jobs;
    network.window = window.map(Box::new);
    super::captures::attach(s, &topo, &mut network)?;
    Ok(Built { network, limits, warnings: warnings(s) })
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

/// Scenarios that are valid but where nothing, or less than written, can happen.
fn warnings(s: &Scenario) -> Vec<String> {
    let mut out = Vec::new();
    if s.apps.is_empty() {
        out.push("the scenario has no applications: the run carries no traffic".to_owned());
    }
    if s.duration.is_none() {
        for (i, app) in s.apps.iter().enumerate() {
            let Some(end) = planned_end_ps(app) else { continue };
            if end > u128::from(SimTime::END.as_ps()) {
                out.push(format!(
                    "apps[{i}] plans to send until about {:.0} days of simulated time, beyond the \
                     engine's clock (about 213 days): the run will stop at the clock's end with \
                     the results up to there (stop_reason clock_overflow); give the scenario a \
                     `duration`, or fewer or closer packets",
                    end as f64 / 86_400e12
                ));
            }
        }
    }
    if let Some(end) = s.duration.map(|d| d.0) {
        for (i, app) in s.apps.iter().enumerate() {
            if app.start() >= end {
                out.push(format!(
                    "apps[{i}] starts at {}, at or after the run's duration ({end}): it sends nothing",
                    app.start()
                ));
            }
        }
    }
    for (h, host) in s.hosts.iter().enumerate() {
        let Some(timing) = &host.timing_variability else { continue };
        let mut jobs = s.mpi_jobs.iter().filter(|j| j.nodes.contains(&host.name)).peekable();
        if jobs.peek().is_none() {
            out.push(format!(
                "hosts[{h}].timing_variability: no MPI job runs on {:?}, so nothing it does sleeps or \
                 makes calls: the table changes nothing",
                host.name
            ));
        } else if timing.sleep_overshoot.is_some() && jobs.all(|j| j.synthetic.is_none()) {
            out.push(format!(
                "hosts[{h}].timing_variability.sleep_overshoot: only replayed traces run on {:?}, and a \
                 trace's compute times are not sleeps: it changes nothing",
                host.name
            ));
        }
    }
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

/// When an application plans to send its last packet, ps, if its settings say (an
/// estimate, used only to warn before a run that cannot end within the clock): a ping's
/// `count` requests `interval` apart; a constant-rate, Poisson (on average) or on/off
/// source's `count` packets of payload at its rate (an on/off source's only in its
/// bursts: `period / mean_burst` times longer); a UDP file at its `rate`; each cut short
/// by its `stop`. `None` for applications whose pace the network sets (TCP, saturating
/// sources, replays).
fn planned_end_ps(app: &AppSpec) -> Option<u128> {
    let per_packet = |payload: Bytes, rate: BitRate| {
        (u128::from(payload.get()) * 8 * 1_000_000_000_000).div_ceil(u128::from(rate.as_bps().max(1)))
    };
    let (span, stop) = match app {
        AppSpec::Ping(p) => (p.count.map(|n| u128::from(n) * u128::from(p.interval.0.as_ps())), p.stop),
        AppSpec::ConstantRate(s) | AppSpec::Poisson(s) => {
            (s.count.map(|n| u128::from(n) * per_packet(s.payload.0, s.rate.0)), s.stop)
        }
        AppSpec::OnOff(s) => {
            let busy = u128::from(s.mean_burst.0.as_ps().max(1));
            let span = s.count.map(|n| {
                u128::from(n) * per_packet(s.payload.0, s.rate.0) * u128::from(s.period.0.as_ps()) / busy
            });
            (span, s.stop)
        }
        AppSpec::UdpFile(f) => (f.rate.map(|r| per_packet(f.size.0, r.0)), None),
        _ => return None,
    };
    let start = u128::from(app.start().as_ps());
    let end = span.map(|d| start + d);
    match (end, stop) {
        (Some(end), Some(stop)) => Some(end.min(u128::from(stop.0.as_ps()))),
        (end, _) => end,
    }
}

/// One link object per `[[links]]` entry: link `i` joins ports `2i` and `2i + 1`.
fn links(s: &Scenario) -> Result<Vec<Link>> {
    s.links
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let ends = [PortId(2 * i as u32), PortId(2 * i as u32 + 1)];
            let outages = outages(spec, i)?;
            let mut link = Link::point_to_point(ends, spec.rate.0, spec.delay.0, outages);
            if let Some(eee) = &spec.eee {
                link.eee = Some(Box::new(link_eee(spec, eee, &format!("links[{i}].eee"))?));
            }
            if let Some(rs) = &spec.rate_switching {
                link.rate_switching =
                    Some(Box::new(rate_switching(spec, rs, &format!("links[{i}].rate_switching"))?));
            }
            if let Some(c) = capacity(s, spec, i)? {
                link.capacity = Some(Box::new(c));
            }
            Ok(link)
        })
        .collect()
}

/// Applies timing and power overrides at `path` to `profile`.
fn override_profile(
    profile: &mut LpiProfile,
    timing: [(&str, Option<super::units::DurationSpec>); 3],
    power: [(&str, Option<f64>); 2],
    path: &str,
) -> Result<()> {
    for (key, value) in timing {
        let Some(v) = value else { continue };
        if key == "tq" && v.0 == Duration::ZERO {
            return Err(ScenarioError::at(format!("{path}.tq"), "must be greater than 0 s"));
        }
        match key {
            "ts" => profile.ts = v.0,
            "tq" => profile.tq = v.0,
            _ => profile.tr = v.0,
        }
    }
    for (key, value) in power {
        let Some(v) = value else { continue };
        if !v.is_finite() || v < 0.0 || (key == "quiet_fraction" && v > 1.0) {
            let range =
                if key == "quiet_fraction" { "0 to 1" } else { "a finite number of watts, 0 or more" };
            return Err(ScenarioError::at(
                format!("{path}.{key}"),
                format!("{v} is out of range; expected {range}"),
            ));
        }
        if key == "quiet_fraction" {
            profile.quiet_fraction = v;
        } else {
            profile.active_w = v;
        }
    }
    Ok(())
}

/// A link's Low Power Idle PHYs, each setting checked.
fn link_eee(link: &LinkSpec, spec: &EeeSpec, path: &str) -> Result<LinkEee> {
    let mut profile = match spec.phy {
        PhyType::Base100Tx => LpiProfile::base_100_tx(),
        PhyType::Base1000T => LpiProfile::base_1000_t(),
        PhyType::Base10GT => LpiProfile::base_10g_t(),
    };
    if let Some(tw) = spec.tw {
        profile.tw = tw.0;
    }
    override_profile(
        &mut profile,
        [("ts", spec.ts), ("tq", spec.tq), ("tr", spec.tr)],
        [("active_power_w", spec.active_power_w), ("quiet_fraction", spec.quiet_fraction)],
        path,
    )?;
    let end_of = |name: &str, key: &str| -> Result<usize> {
        link.between.iter().position(|n| n == name).ok_or_else(|| {
            ScenarioError::at(
                format!("{path}.{key}.{name}"),
                format!(
                    "{name:?} is not an end of this link; expected {:?} or {:?}",
                    link.between[0], link.between[1]
                ),
            )
        })
    };
    let mut tw_ends = [profile.tw; 2];
    for (name, tw) in &spec.wake_time {
        tw_ends[end_of(name, "wake_time")?] = tw.0;
    }
    let profile = profile.agree(tw_ends);
    let symmetric = spec.symmetric.unwrap_or(spec.phy == PhyType::Base1000T);
    let default = spec.policy.clone().unwrap_or(LpiPolicySpec::Immediate(EmptySpec {}));
    // Per direction (transmitted by `between[d]`): its profile, policy and where it was set.
    let mut profiles = [profile; 2];
    let mut policies = [(default.clone(), format!("{path}.policy")), (default, format!("{path}.policy"))];
    for (name, end) in &spec.ends {
        let d = end_of(name, "ends")?;
        let epath = format!("{path}.ends.{name}");
        if symmetric {
            for (key, given) in [
                ("policy", end.policy.is_some()),
                ("ts", end.ts.is_some()),
                ("tq", end.tq.is_some()),
                ("tr", end.tr.is_some()),
            ] {
                if given {
                    return Err(ScenarioError::at(
                        format!("{epath}.{key}"),
                        "a symmetric link sleeps and wakes both directions together, with one policy and \
                         timing; set it on the link (or `symmetric = false`)",
                    ));
                }
            }
        }
        override_profile(
            &mut profiles[d],
            [("ts", end.ts), ("tq", end.tq), ("tr", end.tr)],
            [("active_power_w", end.active_power_w), ("quiet_fraction", end.quiet_fraction)],
            &epath,
        )?;
        if let Some(p) = &end.policy {
            policies[d] = (p.clone(), format!("{epath}.policy"));
        }
    }
    let units = if symmetric { 1 } else { 2 };
    let mut out = Vec::with_capacity(units);
    for (d, (p, key)) in policies.iter().take(units).enumerate() {
        out.push(LpiUnit {
            lpi: Lpi::new(profiles[d], spec.abort_sleep),
            policy: lpi_policy(p, key)?,
            timer: crate::engine::Timer::default(),
            pending: Pending::None,
        });
    }
    let power = profiles.map(|p| (p.active_w, p.quiet_fraction));
    Ok(LinkEee { units: out, power })
}

fn lpi_policy(spec: &LpiPolicySpec, path: &str) -> Result<LpiPolicyKind> {
    Ok(match spec {
        LpiPolicySpec::Immediate(_) => LpiPolicyKind::Immediate(Immediate),
        LpiPolicySpec::Timeout(t) => LpiPolicyKind::Timeout(IdleTimeout { timeout: t.timeout.0 }),
        LpiPolicySpec::Coalescing(c) => {
            if c.frames == 0 {
                return Err(ScenarioError::at(format!("{path}.frames"), "must be at least 1"));
            }
            LpiPolicyKind::Coalescing(Coalescing::new(c.frames as usize, c.timer.0))
        }
    })
}

/// A link's rates (slowest first), policy, scaled direction, minimum interval and power
/// model, each checked.
fn rate_switching(link: &LinkSpec, spec: &RateSwitchingSpec, path: &str) -> Result<RateSwitching> {
    let mut rates: Vec<BitRate> = spec.rates.iter().map(|r| r.0).collect();
    rates.sort_unstable();
    if rates.len() < 2 || rates.windows(2).any(|w| w[0] == w[1]) || rates[0].as_bps() == 0 {
        return Err(ScenarioError::at(
            format!("{path}.rates"),
            "expected at least two different rates, each greater than 0 b/s",
        ));
    }
    let index_of = |r: BitRate, key: &str| -> Result<usize> {
        rates.iter().position(|&x| x == r).ok_or_else(|| {
            let list: Vec<String> = rates.iter().map(ToString::to_string).collect();
            ScenarioError::at(key, format!("{r} is not one of the link's rates ({})", list.join(", ")))
        })
    };
    let initial = index_of(link.rate.0, &format!("{path}.rates"))?;
    let scaled_end = spec
        .from
        .as_deref()
        .map(|node| {
            link.between.iter().position(|n| n == node).ok_or_else(|| {
                ScenarioError::at(
                    format!("{path}.from"),
                    format!(
                        "{node:?} is not an end of this link; expected {:?} or {:?}",
                        link.between[0], link.between[1]
                    ),
                )
            })
        })
        .transpose()?;
    let switch_time = spec.switch_time.0;
    let policy = match &spec.policy {
        RatePolicySpec::Schedule(sched) => {
            let mut entries = Vec::with_capacity(sched.changes.len());
            for (k, c) in sched.changes.iter().enumerate() {
                let key = format!("{path}.policy.changes[{k}]");
                let at = SimTime::ZERO + c.at.0;
                if entries.last().is_some_and(|&(prev, _)| prev > at) {
                    return Err(ScenarioError::at(format!("{key}.at"), "changes must be in time order"));
                }
                entries.push((at, index_of(c.rate.0, &format!("{key}.rate"))?));
            }
            RatePolicyKind::Schedule(ScheduledRates::new(entries))
        }
        RatePolicySpec::Alr(alr) => {
            let (high, low) = (alr.high.0.get(), alr.low.0.get());
            if low >= high {
                return Err(ScenarioError::at(
                    format!("{path}.policy.low"),
                    format!("{low} B is not below high ({high} B); expected low < high"),
                ));
            }
            RatePolicyKind::Alr(AlrPolicy { high, low })
        }
        RatePolicySpec::Practra(p) => practra(p, scaled_end, switch_time, &rates, path)?,
        RatePolicySpec::Fixed(EmptySpec {}) => RatePolicyKind::Fixed,
    };
    let mut rs = RateSwitching::new(rates.clone(), initial, switch_time, policy);
    if let Some(end) = scaled_end {
        rs = rs.scaling_one_direction(end);
    }
    if let Some(min) = spec.min_interval.map(|d| d.0) {
        if min < switch_time {
            return Err(ScenarioError::at(
                format!("{path}.min_interval"),
                format!("{min} is below switch_time ({switch_time}); expected at least the dark time"),
            ));
        }
        rs = rs.with_min_interval(min);
    }
    if let Some(power) = &spec.power {
        rs = rs.with_power(&power_model(power, spec, &rates, &format!("{path}.power"))?);
    }
    Ok(rs)
}

/// practRA's settings, checked, with the defaults of docs/capacity-scaling.md.
fn practra(
    p: &super::schema::PractRaSpec,
    scaled_end: Option<usize>,
    switch_time: Duration,
    rates: &[BitRate],
    path: &str,
) -> Result<RatePolicyKind> {
    let Some(end) = scaled_end else {
        return Err(ScenarioError::at(
            format!("{path}.from"),
            "missing; practRA scales one output port: name the node whose port it is",
        ));
    };
    let delay_bound = p.delay_bound.map_or(Duration::from_ms(PRACTRA_DELAY_BOUND_MS), |d| d.0);
    if delay_bound <= switch_time {
        return Err(ScenarioError::at(
            format!("{path}.policy.delay_bound"),
            format!("{delay_bound} is not above switch_time ({switch_time}); expected d > δ"),
        ));
    }
    let weight = p.weight.unwrap_or(PRACTRA_WEIGHT);
    if !(weight > 0.0 && weight <= 1.0) {
        return Err(ScenarioError::at(
            format!("{path}.policy.weight"),
            format!("{weight} is not a weight; expected a number in (0, 1]"),
        ));
    }
    let sample = p.sample_interval.map_or(Duration::from_ms(PRACTRA_SAMPLE_MS), |d| d.0);
    if sample == Duration::ZERO {
        return Err(ScenarioError::at(format!("{path}.policy.sample_interval"), "must be greater than 0 s"));
    }
    let settings = PractRaSettings { delay_bound, dark: switch_time, weight, sample, end };
    Ok(RatePolicyKind::PractRa(Box::new(PractRa::new(settings, rates))))
}

/// practRA's default delay bound, ms (docs/capacity-scaling.md says why).
const PRACTRA_DELAY_BOUND_MS: u64 = 10;
/// practRA's default weight of the newest arrival-rate sample.
const PRACTRA_WEIGHT: f64 = 0.25;
/// practRA's default sampling interval, ms.
const PRACTRA_SAMPLE_MS: u64 = 10;

/// A power model, checked: finite, non-negative watts, Ps ≤ Pmax, φ ≥ 1, a table entry
/// per rate (reordered slowest first, as `rates` are).
fn power_model(
    spec: &PowerModelSpec,
    rs: &RateSwitchingSpec,
    rates: &[BitRate],
    path: &str,
) -> Result<PowerModel> {
    let watts_ok = |w: f64, key: &str| -> Result<f64> {
        if w.is_finite() && w >= 0.0 {
            Ok(w)
        } else {
            Err(ScenarioError::at(format!("{path}.{key}"), format!("{w} is not a power; expected watts ≥ 0")))
        }
    };
    let static_and_max = |st: f64, max: f64| -> Result<(f64, f64)> {
        let (st, max) = (watts_ok(st, "static_w")?, watts_ok(max, "max_w")?);
        if st > max {
            return Err(ScenarioError::at(
                format!("{path}.static_w"),
                format!("{st} W is above max_w ({max} W); expected Ps ≤ Pmax"),
            ));
        }
        Ok((st, max))
    };
    Ok(match spec {
        PowerModelSpec::Linear(l) => {
            let (static_w, max_w) = static_and_max(l.static_w, l.max_w)?;
            PowerModel::Linear { static_w, max_w }
        }
        PowerModelSpec::Cubic(c) => {
            let (static_w, max_w) = static_and_max(c.static_w, c.max_w)?;
            if !(c.max_scaling.is_finite() && c.max_scaling >= 1.0) {
                return Err(ScenarioError::at(
                    format!("{path}.max_scaling"),
                    format!("{} is not a scaling factor; expected φ ≥ 1", c.max_scaling),
                ));
            }
            PowerModel::Cubic { static_w, max_w, max_scaling: c.max_scaling }
        }
        PowerModelSpec::Table(t) => {
            if t.watts.len() != rs.rates.len() {
                return Err(ScenarioError::at(
                    format!("{path}.watts"),
                    format!("{} values for {} rates; expected one per rate", t.watts.len(), rs.rates.len()),
                ));
            }
            let mut by_rate = vec![0.0; rates.len()];
            for (k, (r, &w)) in rs.rates.iter().zip(&t.watts).enumerate() {
                let i = rates.iter().position(|&x| x == r.0).unwrap_or(0);
                by_rate[i] = watts_ok(w, &format!("watts[{k}]"))?;
            }
            PowerModel::Table(by_rate)
        }
    })
}

/// A link's varying capacity, checked.
fn capacity(s: &Scenario, spec: &LinkSpec, i: usize) -> Result<Option<CapacityProcess>> {
    let Some(c) = &spec.capacity else { return Ok(None) };
    let path = format!("links[{i}].capacity");
    if spec.rate_switching.is_some() {
        return Err(ScenarioError::at(path, "a link has rate_switching or a varying capacity, not both"));
    }
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
    let dirs = match c.from.as_deref() {
        None => [true, true],
        Some(node) => match spec.between.iter().position(|n| n == node) {
            Some(e) => [e == 0, e == 1],
            None => {
                return Err(ScenarioError::at(
                    format!("{path}.from"),
                    format!(
                        "{node:?} is not an end of this link; expected {:?} or {:?}",
                        spec.between[0], spec.between[1]
                    ),
                ))
            }
        },
    };
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

/// The flow of the application called `name`, or an error at `path`.
fn flow_named(flows: &[Flow], name: &str, path: &str) -> Result<FlowId> {
    flows.iter().position(|f| f.name == name).map(|i| FlowId(i as u32)).ok_or_else(|| {
        let known: Vec<&str> = flows.iter().map(|f| f.name.as_str()).collect();
        ScenarioError::at(path, format!("no application named {name:?}; known: {}", known.join(", ")))
    })
}

/// The time series the scenario asks for: port series subscribe to the trace path; a
/// TCP application's sender keeps its own.
fn trace(
    s: &Scenario,
    topo: &Topology,
    endpoints: &mut [Endpoint],
    flows: &[Flow],
    links: &mut [Link],
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
                if let Some(eee) =
                    links.get_mut(link).filter(|_| link < s.links.len()).and_then(|l| l.eee.as_deref_mut())
                {
                    let u = eee.unit_of(end);
                    eee.units[u].lpi.record_series(limits);
                }
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

/// Gives each link with a `loss` table its loss model.
fn attach_losses(s: &Scenario, topo: &Topology, flows: &[Flow], links: &mut [Link]) -> Result<()> {
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

fn run_limits(s: &Scenario) -> Result<RunLimits> {
    if s.duration.is_some_and(|d| d.0 == Duration::ZERO) {
        return Err(ScenarioError::at("duration", "must be greater than 0 s"));
    }
    if s.max_events == Some(0) {
        return Err(ScenarioError::at("max_events", "must be at least 1"));
    }
    Ok(RunLimits { until: s.duration.map(|d| SimTime::ZERO + d.0), max_events: s.max_events })
}

/// Two ports per link, in link order: port `2i` at `between[0]`, `2i + 1` at `between[1]`;
/// then one per station of each segment.
fn ports(s: &Scenario, topo: &Topology) -> Result<Vec<Port>> {
    let stations: usize = s.segments.iter().map(|g| g.stations.len()).sum();
    let mut ports: Vec<Option<Port>> = (0..2 * s.links.len() + stations).map(|_| None).collect();
    for (node, interfaces) in topo.interfaces.iter().enumerate() {
        let node = NodeId(node as u32);
        let limits = match topo.roles[node.index()] {
            // A host's NIC queue is bounded by the host's transmit buffers instead.
            Role::Host(_) => QueueLimits::default(),
            Role::Switch(w) => {
                let largest = interfaces
                    .iter()
                    .map(|&(link, _)| ethernet::max_frame_for_mtu(link_mtu(s, link)))
                    .max()
                    .unwrap_or(0);
                buffer_limits(&s.switches[w].port_buffer, &format!("switches[{w}].port_buffer"), largest)?
            }
        };
        for &(link, port) in interfaces {
            let p = if link < s.links.len() {
                let end = (port.0 % 2) as usize;
                let peer = PortId(2 * link as u32 + 1 - end as u32);
                Port::new(node, LinkId(link as u32), end, peer, limits)
            } else {
                // A station: it faces the whole segment (its results name the segment).
                Port::new(node, LinkId(link as u32), 0, port, limits)
            };
            ports[port.index()] = Some(p);
        }
    }
    // Every link has two ends, and every segment its stations, each attached above.
    Ok(ports.into_iter().map(|p| p.expect("every port attached")).collect())
}

/// The largest payload a frame on link `link` (a point-to-point link, or a segment after
/// them) carries.
pub(super) fn link_mtu(s: &Scenario, link: usize) -> u64 {
    match s.links.get(link) {
        Some(l) => l.mtu.0.get(),
        None => s.segments[link - s.links.len()].max_frame.0.get() - ethernet::HEADER_LEN - ethernet::FCS_LEN,
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
/// window, if there is one.
fn segments(s: &Scenario, topo: &Topology, window: Option<&MeasureWindow>) -> Result<Vec<Link>> {
    let mut out = Vec::with_capacity(s.segments.len());
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
        let mut receivers = vec![u16::MAX; s.hosts.len()];
        for dst in topo.hosts() {
            receivers[dst.index()] = match seg.nodes.iter().position(|&n| n == dst) {
                Some(j) => j as u16,
                None => seg
                    .nodes
                    .iter()
                    .enumerate()
                    .filter_map(|(j, &n)| topo.hops_to(n, dst).map(|d| (d, j)))
                    .filter(|&(_, j)| matches!(topo.roles[seg.nodes[j].index()], Role::Switch(_)))
                    .min()
                    .map_or(u16::MAX, |(_, j)| j as u16),
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
        out.push(Link::bus(bus, spec.rate.0));
    }
    Ok(out)
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

fn buffer_limits(buf: &BufferSpec, path: &str, largest_frame: u64) -> Result<QueueLimits> {
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

fn nodes(s: &Scenario, topo: &Topology) -> Result<Vec<Node>> {
    let hosts: Vec<NodeId> = topo.hosts().collect();
    (0..topo.names.len())
        .map(|idx| {
            let id = NodeId(idx as u32);
            Ok(match topo.roles[idx] {
                Role::Host(h) => {
                    Node::Host(Host::new(host_config(&s.hosts[h], h)?, topo.interfaces[idx][0].1))
                }
                Role::Switch(_) => {
                    // Destinations are hosts, whose node ids come first: one entry per host.
                    let mut forwarding = vec![None; s.hosts.len()];
                    for &dst in &hosts {
                        forwarding[dst.index()] = topo.next_hop(id, dst).map(|a| a.port);
                    }
                    let ports = topo.interfaces[idx].iter().map(|&(_, p)| p).collect();
                    Node::Switch(Switch { ports, forwarding })
                }
            })
        })
        .collect()
}

/// The variation of each host's interrupt service time, on its port (the controller's
/// hold after each frame is set there), each from its own stream.
fn interrupt_jitter(s: &Scenario, topo: &Topology, ports: &mut [Port]) -> Result<()> {
    for (node, role) in topo.roles.iter().enumerate() {
        let Role::Host(h) = *role else { continue };
        let spec = &s.hosts[h];
        let jitter = spec.tx_interrupt_jitter.0;
        if jitter == Duration::ZERO {
            continue;
        }
        if spec.tx_interrupt.0 == Duration::ZERO {
            return Err(ScenarioError::at(
                format!("hosts[{h}].tx_interrupt_jitter"),
                "varies the interrupt service time, but the host has none; give tx_interrupt too",
            ));
        }
        let stream = rng::stream(s.seed, &format!("host/{}/interrupt", spec.name));
        let port = topo.interfaces[node][0].1;
        ports[port.index()].interrupt_jitter = Some(Box::new(InterruptJitter::new(jitter, stream)));
    }
    Ok(())
}

/// Each port's IEEE 802.3x settings: whether it honours PAUSE, a switch's threshold
/// flow control on its outputs, and the periodic generators.
fn flow_control(s: &Scenario, topo: &Topology, links: &[Link], ports: &mut [Port]) -> Result<()> {
    for node in 0..topo.attachments.len() {
        let (honour, threshold) = match topo.roles[node] {
            Role::Host(h) => (s.hosts[h].pause.honour, None),
            Role::Switch(w) => (s.switches[w].pause.honour, threshold_pause(s, topo, links, w, node)?),
        };
        for &(link, port) in &topo.interfaces[node] {
            let p = &mut ports[port.index()];
            p.pause.rx = PauseReceiver::new(honour);
            // PAUSE is for full-duplex links (IEEE 802.3 Annex 31B): not on a segment.
            if let Some(t) = threshold.as_ref().filter(|_| link < s.links.len()) {
                p.pause.threshold = Some(t.clone());
                p.hooks |= Port::HOOK_THRESHOLD;
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
        if g.pause.0 == Duration::ZERO || mac_control::quanta_for(g.pause.0, rate).is_none() {
            return Err(ScenarioError::at(
                format!("{path}.pause"),
                format!(
                    "{} does not fit a PAUSE frame; expected more than 0 s and at most 65535 quanta \
                     of 512 bit times ({} at this link's {})",
                    g.pause.0,
                    mac_control::quanta_duration(mac_control::MAX_QUANTA, rate),
                    rate
                ),
            ));
        }
        let line = mac_control::frame_time(rate);
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
        let length =
            mac_control::quanta_duration(mac_control::quanta_for(g.pause.0, rate).unwrap_or(0), rate);
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
        let p = &mut ports[port.index()];
        if p.pause.periodic.is_some() {
            return Err(ScenarioError::at(
                format!("{path}.port"),
                format!("{:?} already has a PAUSE generator; give each port at most one", g.port),
            ));
        }
        p.pause.periodic = Some(PeriodicPause {
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
        .filter_map(|&(l, port)| s.links.get(l).map(|spec| pause_input(spec, &links[l], port)))
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
    let quanta = spec.quanta.unwrap_or(mac_control::MAX_QUANTA);
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
fn pause_input(spec: &LinkSpec, link: &Link, port: PortId) -> PauseInput {
    let switch_end = usize::from(link.ends[1] == port);
    let end_of = |node: &str| spec.between.iter().position(|n| n == node);
    // By the end that transmits on the direction.
    let mut rates = [RateRange::fixed(spec.rate.0); 2];
    let mut lockstep = true;
    let mut blocked = Duration::ZERO;
    if let Some(rs) = &spec.rate_switching {
        let range = RateRange {
            slowest: rs.rates.iter().map(|r| r.0).min().unwrap_or(spec.rate.0),
            fastest: rs.rates.iter().map(|r| r.0).max().unwrap_or(spec.rate.0),
        };
        match rs.from.as_deref().and_then(end_of) {
            // Both directions change together, frames on the wire first, both dark.
            None => rates = [range; 2],
            Some(scaled) => {
                rates[scaled] = range;
                lockstep = false;
                // The scaled direction alone goes dark: an XOFF there waits it out.
                if scaled == switch_end {
                    blocked = blocked + rs.switch_time.0;
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
    // One PHY per direction: the switch's may be asleep while the partner's sends; a
    // frame queued then waits for the sleep to finish (unless it aborts it) and the wake.
    if let Some(eee) = link.eee.as_deref().filter(|e| !e.symmetric()) {
        let lpi = &eee.units[eee.unit_of(switch_end)].lpi;
        let sleep = if lpi.abort_sleep { Duration::ZERO } else { lpi.profile.ts };
        blocked = blocked + sleep + lpi.profile.tw;
    }
    PauseInput {
        inbound: rates[1 - switch_end],
        outbound: rates[switch_end],
        lockstep,
        delay: spec.delay.0,
        max_frame: Bytes(ethernet::max_frame_for_mtu(spec.mtu.0.get())),
        blocked,
    }
}

/// Most transmit buffers or receive-ring slots a host may have.
const MAX_HOST_BUFFERS: u32 = 1 << 20;

fn host_config(spec: &HostSpec, h: usize) -> Result<HostConfig> {
    for (key, v) in [("tx_buffers", spec.tx_buffers), ("rx_buffers", spec.rx_buffers)] {
        if !(1..=MAX_HOST_BUFFERS).contains(&v) {
            return Err(ScenarioError::at(
                format!("hosts[{h}].{key}"),
                format!("{v} is out of range; expected 1 to {MAX_HOST_BUFFERS}"),
            ));
        }
    }
    Ok(HostConfig {
        tx_processing: spec.tx_processing.0,
        rx_processing: spec.rx_processing.0,
        tx_buffers: spec.tx_buffers,
        rx_buffers: spec.rx_buffers,
        tx_interrupt: spec.tx_interrupt.0,
    })
}

/// The endpoints and flows of the applications: application `i` opens flow `i` between
/// its source end and its sink end. Every ping flow to a host is answered by that host's
/// one echo responder (an endpoint with many peers), as a kernel answers them all.
fn apps(s: &Scenario, topo: &Topology) -> Result<(Vec<Endpoint>, Vec<Flow>)> {
    let mut endpoints = Vec::with_capacity(2 * s.apps.len());
    let mut flows: Vec<Flow> = Vec::with_capacity(s.apps.len());
    let mut seen = std::collections::HashSet::with_capacity(s.apps.len());
    let mut responders: std::collections::HashMap<NodeId, EndpointId> = std::collections::HashMap::new();
    for (i, spec) in s.apps.iter().enumerate() {
        let path = format!("apps[{i}]");
        let name = spec.name().map_or_else(|| path.clone(), str::to_owned);
        if !seen.insert(name.clone()) {
            let key = if spec.name().is_some() { format!("{path}.name") } else { path.clone() };
            return Err(ScenarioError::at(
                key,
                format!("application name {name:?} is used twice; names must be unique"),
            ));
        }
        let src = topo.host(spec.from(), &format!("{path}.from"))?;
        let dst = topo.host(spec.to(), &format!("{path}.to"))?;
        let route = if src == dst {
            // A station of a segment may send frames to itself: they cross its segment
            // (as in capacity studies, so that receivers cost nothing).
            let Some(link) = topo.segment_of(src) else {
                return Err(ScenarioError::at(
                    format!("{path}.to"),
                    "must differ from `from`; only a station of a shared-medium segment sends to itself",
                ));
            };
            vec![link]
        } else {
            topo.route(src, dst)
        };
        if route.is_empty() {
            return Err(ScenarioError::at(
                format!("{path}.to"),
                format!("{:?} cannot be reached from {:?} through the links given", spec.to(), spec.from()),
            ));
        }
        let path_mtu = route.iter().map(|&l| link_mtu(s, l)).min().unwrap_or(ethernet::STANDARD_MTU);
        let payload = check_payload(spec, &path, path_mtu)?;
        let start = SimTime::ZERO + spec.start();
        let (source, sink) = match spec {
            AppSpec::UdpFile(f) => (file_transfer(f, &path, payload)?, Some(EndpointKind::UdpSink(UdpSink))),
            AppSpec::ConstantRate(src_spec) => {
                (source(src_spec, &path, s, false, payload)?, Some(EndpointKind::UdpSink(UdpSink)))
            }
            AppSpec::Poisson(src_spec) => {
                (source(src_spec, &path, s, true, payload)?, Some(EndpointKind::UdpSink(UdpSink)))
            }
            AppSpec::OnOff(on_off) => {
                (on_off_source(on_off, &path, s, payload)?, Some(EndpointKind::UdpSink(UdpSink)))
            }
            AppSpec::Saturating(sat) => {
                (saturating(sat, &path, s, path_mtu)?, Some(EndpointKind::UdpSink(UdpSink)))
            }
            // Answered by the destination host's one responder.
            AppSpec::Ping(p) => (ping(p, &path, s, payload)?, None),
            AppSpec::TcpFile(t) => {
                if t.size.0.get() == 0 {
                    return Err(ScenarioError::at(format!("{path}.size"), "must be greater than 0 B"));
                }
                let cfg = tcp_config(&t.tcp, &format!("{path}.tcp"), path_mtu)?;
                let size = t.size.0.get();
                let sender = TcpSender::new(cfg, TcpWorkload::File { size });
                let read_rate =
                    t.read_rate.map(|r| positive_rate(r.0, &format!("{path}.read_rate"))).transpose()?;
                let receiver = TcpReceiver::new(cfg, start, Some(size), None, read_rate);
                (
                    EndpointKind::TcpSender(Box::new(sender)),
                    Some(EndpointKind::TcpReceiver(Box::new(receiver))),
                )
            }
            AppSpec::Replay(r) => {
                (super::replay::replay(r, &path, s, path_mtu)?, Some(EndpointKind::UdpSink(UdpSink)))
            }
            AppSpec::TcpBulk(t) => {
                let cfg = tcp_config(&t.tcp, &format!("{path}.tcp"), path_mtu)?;
                let (stop, window) = bulk_times(t, &path, s)?;
                let sender = TcpSender::new(cfg, TcpWorkload::Bulk { stop });
                let read_rate =
                    t.read_rate.map(|r| positive_rate(r.0, &format!("{path}.read_rate"))).transpose()?;
                let receiver = TcpReceiver::new(cfg, start, None, window, read_rate);
                (
                    EndpointKind::TcpSender(Box::new(sender)),
                    Some(EndpointKind::TcpReceiver(Box::new(receiver))),
                )
            }
        };
        let flow = FlowId(i as u32);
        // Each endpoint draws from its own stream, named after the application: a named
        // application keeps its random numbers when others are added or reordered.
        let stream = |end: &str| rng::stream(s.seed, &format!("app:{name}.{end}"));
        let source_end = EndpointId(endpoints.len() as u32);
        endpoints.push(Endpoint::new(src, flow, End::Source, start, source, stream("arrivals")));
        let sink_end = if let Some(kind) = sink {
            endpoints.push(Endpoint::new(dst, flow, End::Sink, SimTime::ZERO, kind, stream("sink")));
            EndpointId(endpoints.len() as u32 - 1)
        } else {
            *responders.entry(dst).or_insert_with(|| {
                let kind = EndpointKind::PingResponder(PingResponder::default());
                let stream = rng::stream(s.seed, &format!("host:{}.echo", spec.to()));
                endpoints.push(Endpoint::new(dst, flow, End::Sink, SimTime::ZERO, kind, stream));
                EndpointId(endpoints.len() as u32 - 1)
            })
        };
        flows.push(Flow::new(name, [source_end, sink_end], [src, dst], start));
    }
    Ok((endpoints, flows))
}

/// The payload per packet, checked against the path MTU less the headers the
/// application's protocol adds.
fn check_payload(spec: &AppSpec, path: &str, path_mtu: u64) -> Result<u32> {
    let (min, max, headers) = match spec {
        AppSpec::Ping(_) => (0, icmp::max_data_for_mtu(path_mtu), "IPv4 and ICMP echo headers"),
        _ => (1, udp::max_payload_for_mtu(path_mtu), "IPv4 and UDP headers"),
    };
    // TCP applications set no payload: their MSS is checked with the TCP settings.
    let Some(payload) = spec.payload() else { return Ok(0) };
    let payload = payload.get();
    if payload < min || payload > max {
        return Err(ScenarioError::at(
            format!("{path}.payload"),
            format!(
                "{payload} B does not fit; expected {min} B to {max} B \
                 (path MTU {path_mtu} B less 28 B of {headers})"
            ),
        ));
    }
    Ok(payload as u32)
}

/// A bulk flow's stop time and its goodput measurement window.
type BulkTimes = (Option<SimTime>, Option<(SimTime, SimTime)>);

/// A bulk flow's stop time and goodput measurement window.
fn bulk_times(t: &TcpBulkSpec, path: &str, s: &Scenario) -> Result<BulkTimes> {
    let start = t.start.0;
    let stop = check_stops(path, s, start, t.stop.map(|d| d.0), None)?;
    let from = t.measure_from.map_or(start, |d| d.0);
    let until = t.measure_until.map(|d| d.0).or(t.stop.map(|d| d.0)).or(s.duration.map(|d| d.0));
    let Some(until) = until else { return Ok((stop, None)) };
    if until <= from {
        let key = if t.measure_until.is_some() { "measure_until" } else { "measure_from" };
        return Err(ScenarioError::at(
            format!("{path}.{key}"),
            format!("the measurement window is empty: it runs from {from} to {until}; expected from < until"),
        ));
    }
    Ok((stop, Some((SimTime::ZERO + from, SimTime::ZERO + until))))
}

/// The TCP settings of an application, defaults filled in, each checked.
fn tcp_config(spec: &TcpSpec, path: &str, path_mtu: u64) -> Result<TcpConfig> {
    let profile = match spec.profile {
        None | Some(TcpProfileName::Rfc) => TcpProfile::Rfc,
        Some(TcpProfileName::Linux) => TcpProfile::Linux,
        Some(TcpProfileName::Ns3) => TcpProfile::Ns3,
        Some(TcpProfileName::Ns2) => TcpProfile::Ns2,
    };
    let d = profile.defaults();
    let max_mss = tcp::mss_for_mtu(path_mtu);
    let mss = spec.mss.map_or(profile.default_mss(max_mss), |m| m.0.get());
    if mss == 0 || mss > max_mss {
        return Err(ScenarioError::at(
            format!("{path}.mss"),
            format!("{mss} B does not fit; expected 1 B to {max_mss} B (path MTU {path_mtu} B less 40 B of IPv4 and TCP headers)"),
        ));
    }
    let positive =
        |v: Option<super::units::DurationSpec>, key: &str, default: Duration| -> Result<Duration> {
            match v {
                Some(x) if x.0 == Duration::ZERO => {
                    Err(ScenarioError::at(format!("{path}.{key}"), "must be greater than 0 s"))
                }
                Some(x) => Ok(x.0),
                None => Ok(default),
            }
        };
    let at_least_one = |v: Option<u32>, key: &str, default: u32| -> Result<u32> {
        match v {
            Some(0) => Err(ScenarioError::at(format!("{path}.{key}"), "must be at least 1")),
            Some(x) => Ok(x),
            None => Ok(default),
        }
    };
    let cfg = TcpConfig {
        mss: mss as u32,
        initial_window: at_least_one(spec.initial_window, "initial_window", 0)?,
        rto_min: positive(spec.rto_min, "rto_min", d.rto_min)?,
        rto_max: positive(spec.rto_max, "rto_max", d.rto_max)?,
        rto_initial: positive(spec.rto_initial, "rto_initial", d.rto_initial)?,
        max_retransmissions: at_least_one(
            spec.max_retransmissions,
            "max_retransmissions",
            d.max_retransmissions,
        )?,
        delayed_ack: spec.delayed_ack.unwrap_or(d.delayed_ack),
        delayed_ack_timeout: positive(
            spec.delayed_ack_timeout,
            "delayed_ack_timeout",
            d.delayed_ack_timeout,
        )?,
        dupack_threshold: at_least_one(spec.dupack_threshold, "dupack_threshold", d.dupack_threshold)?,
        limited_transmit: spec.limited_transmit.unwrap_or(d.limited_transmit),
        nagle: spec.nagle.unwrap_or(d.nagle),
        sack: spec.sack.unwrap_or(d.sack),
        window_scaling: spec.window_scaling.unwrap_or(d.window_scaling),
        send_buffer: spec.send_buffer.map_or(d.send_buffer, |b| b.0.get()),
        receive_buffer: spec.receive_buffer.map_or(d.receive_buffer, |b| b.0.get()),
        // 0: no limit (a profile that sets one, ns2, can be lifted).
        window_limit: spec.window_limit.unwrap_or(d.window_limit),
        clock_granularity: positive(spec.clock_granularity, "clock_granularity", d.clock_granularity)?,
        profile,
    };
    // Asked for explicitly, Limited Transmit under a one-segment window is a contradiction;
    // left at its default, it simply never finds room to send.
    if spec.limited_transmit == Some(true) && cfg.window_limit == 1 {
        return Err(ScenarioError::at(
            format!("{path}.limited_transmit"),
            "cannot send under a window limit of one segment (one segment outstanding brings no \
             duplicate ACKs); expected limited_transmit = false or a window_limit of at least 2",
        ));
    }
    if cfg.rto_max < cfg.rto_min {
        return Err(ScenarioError::at(
            format!("{path}.rto_max"),
            format!("{} is below rto_min ({}); expected rto_max >= rto_min", cfg.rto_max, cfg.rto_min),
        ));
    }
    for (key, v) in [("send_buffer", cfg.send_buffer), ("receive_buffer", cfg.receive_buffer)] {
        if v < mss {
            return Err(ScenarioError::at(
                format!("{path}.{key}"),
                format!("{v} B is smaller than one segment; expected at least the MSS ({mss} B)"),
            ));
        }
    }
    let max_window = if cfg.window_scaling { 0xffff_u64 << tcp::MAX_WINDOW_SHIFT } else { 0xffff };
    if cfg.receive_buffer > max_window {
        return Err(ScenarioError::at(
            format!("{path}.receive_buffer"),
            format!(
                "{} B exceeds the largest window TCP can offer ({max_window} B{}); expected at most that",
                cfg.receive_buffer,
                if cfg.window_scaling { ", RFC 7323" } else { " without window scaling" }
            ),
        ));
    }
    Ok(cfg)
}

fn positive_rate(r: BitRate, path: &str) -> Result<BitRate> {
    if r.as_bps() == 0 {
        Err(ScenarioError::at(path, "must be greater than 0 b/s"))
    } else {
        Ok(r)
    }
}

fn file_transfer(f: &UdpFileSpec, path: &str, payload: u32) -> Result<EndpointKind> {
    if f.size.0.get() == 0 {
        return Err(ScenarioError::at(format!("{path}.size"), "must be greater than 0 B"));
    }
    let pacing = match f.rate {
        Some(r) => FilePacing::Rate(positive_rate(r.0, &format!("{path}.rate"))?),
        None => FilePacing::Host,
    };
    Ok(EndpointKind::UdpFile(UdpFileTransfer::new(f.size.0, payload, pacing)))
}

/// Checks that an open-loop sender stops: by `stop`, `count`, or the scenario's limits.
pub(super) fn check_stops(
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

fn ping(spec: &PingSpec, path: &str, s: &Scenario, payload: u32) -> Result<EndpointKind> {
    let interval = spec.interval.0;
    if interval == Duration::ZERO {
        return Err(ScenarioError::at(format!("{path}.interval"), "must be greater than 0 s"));
    }
    let stop = check_stops(path, s, spec.start.0, spec.stop.map(|d| d.0), spec.count)?;
    let clock = PacketSource::new(Arrivals::Constant { interval }, stop, spec.count, payload);
    Ok(EndpointKind::PingClient(PingClient::new(clock)))
}

fn source(spec: &SourceSpec, path: &str, s: &Scenario, poisson: bool, payload: u32) -> Result<EndpointKind> {
    let rate = positive_rate(spec.rate.0, &format!("{path}.rate"))?;
    // One packet's payload at the payload rate: the (mean) time between packets.
    let interval = rate.time_to_send(Bytes(spec.payload.0.get()));
    let arrivals =
        if poisson { Arrivals::Poisson { mean_interval: interval } } else { Arrivals::Constant { interval } };
    let stop = check_stops(path, s, spec.start.0, spec.stop.map(|d| d.0), spec.count)?;
    Ok(EndpointKind::Source(PacketSource::new(arrivals, stop, spec.count, payload)))
}

fn on_off_source(spec: &OnOffSpec, path: &str, s: &Scenario, payload: u32) -> Result<EndpointKind> {
    let rate = positive_rate(spec.rate.0, &format!("{path}.rate"))?;
    let interval = rate.time_to_send(Bytes(spec.payload.0.get()));
    for (key, d) in [("mean_burst", spec.mean_burst.0), ("period", spec.period.0)] {
        if d == Duration::ZERO {
            return Err(ScenarioError::at(format!("{path}.{key}"), "must be greater than 0 s"));
        }
    }
    let arrivals = Arrivals::OnOff { interval, period: spec.period.0, mean_burst: spec.mean_burst.0 };
    let stop = check_stops(path, s, spec.start.0, spec.stop.map(|d| d.0), spec.count)?;
    Ok(EndpointKind::Source(PacketSource::new(arrivals, stop, spec.count, payload)))
}

fn saturating(spec: &SaturatingSpec, path: &str, s: &Scenario, path_mtu: u64) -> Result<EndpointKind> {
    // A frame length as UDP payload: the frame less Ethernet (header and FCS), IPv4 and
    // UDP headers; at most what the path MTU carries.
    let overhead = ethernet::HEADER_LEN + ethernet::FCS_LEN + ip::IPV4_HEADER_LEN + udp::UDP_HEADER_LEN;
    let largest = udp::max_payload_for_mtu(path_mtu) + overhead;
    let payload_of = |length: Bytes, key: String| -> Result<u32> {
        let length = length.get();
        if length < overhead || length > largest {
            return Err(ScenarioError::at(
                key,
                format!(
                    "{length} B does not fit; expected {overhead} B (Ethernet, IPv4 and UDP headers) \
                     to {largest} B (path MTU {path_mtu} B)"
                ),
            ));
        }
        Ok((length - overhead) as u32)
    };
    let given = [spec.frame.is_some(), spec.mix.is_some(), spec.frames.is_some()];
    if given.iter().filter(|&&g| g).count() != 1 {
        return Err(ScenarioError::at(path, "give exactly one of `frame`, `mix` and `frames`"));
    }
    let lengths = if let Some(frame) = spec.frame {
        FrameLengths::Fixed(payload_of(frame.0, format!("{path}.frame"))?)
    } else if let Some(mix) = &spec.mix {
        let [shorts, longs] = mix.ratio;
        if shorts == 0 || longs == 0 || u64::from(shorts) + u64::from(longs) > 1_000_000 {
            return Err(ScenarioError::at(
                format!("{path}.mix.ratio"),
                format!("[{shorts}, {longs}] is not a mix; expected two counts of at least 1 (at most a million frames a block)"),
            ));
        }
        FrameLengths::Mix {
            short: payload_of(mix.short.0, format!("{path}.mix.short"))?,
            long: payload_of(mix.long.0, format!("{path}.mix.long"))?,
            shorts,
            longs,
        }
    } else {
        let frames = spec.frames.as_deref().unwrap_or_default();
        if frames.is_empty() {
            return Err(ScenarioError::at(
                format!("{path}.frames"),
                "is empty; expected at least one length",
            ));
        }
        let mut payloads = Vec::with_capacity(frames.len());
        let mut weights = Vec::with_capacity(frames.len());
        for (i, f) in frames.iter().enumerate() {
            payloads.push(payload_of(f.length.0, format!("{path}.frames[{i}].length"))?);
            if f.weight == 0 || f.weight > 1 << 40 {
                return Err(ScenarioError::at(
                    format!("{path}.frames[{i}].weight"),
                    format!("{} is not a weight; expected a whole number from 1 to 2^40", f.weight),
                ));
            }
            weights.push(f.weight);
        }
        FrameLengths::weighted(payloads, &weights)
    };
    let stop = check_stops(path, s, spec.start.0, spec.stop.map(|d| d.0), spec.count)?;
    Ok(EndpointKind::Saturating(Box::new(SaturatingSource::new(lengths, stop, spec.count))))
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
                pause: crate::scenario::schema::SwitchPauseSpec::default(),
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

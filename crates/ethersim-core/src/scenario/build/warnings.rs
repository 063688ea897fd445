//! What is valid but pointless in a scenario (no traffic, an application that never
//! starts or outlives the clock; each mechanism's own, after these, from its builder):
//! warnings shown to the user, never errors.

use crate::scenario::schema::{AppSpec, Scenario};
use crate::time::{BitRate, Bytes, SimTime};

/// Scenarios that are valid but where nothing, or less than written, can happen.
pub(super) fn warnings(s: &Scenario) -> Vec<String> {
    let mut out = Vec::new();
    // MPI jobs are traffic too: their ranks send without an `[[apps]]` entry.
    if s.apps.is_empty() && s.mpi_jobs.is_empty() {
        out.push("the scenario has no applications and no MPI jobs: the run carries no traffic".to_owned());
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

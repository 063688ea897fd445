//! Hosts' timing variability: each host's table checked and made into the distributions
//! its ranks draw from.

use crate::node::{Empirical, HostTiming, Variability};
use crate::time::Duration;

use super::error::ScenarioError;
use super::schema::{Scenario, VariabilityKind, VariabilitySpec};

type Result<T> = std::result::Result<T, ScenarioError>;

/// The longest time a distribution may be given: host noise beyond a second is not
/// noise but work, and belongs in the program.
pub const MAX_VARIABILITY: Duration = Duration::from_secs(1);

/// Each host's timing, by host index (`None`: exact).
pub fn hosts(s: &Scenario) -> Result<Vec<Option<HostTiming>>> {
    s.hosts
        .iter()
        .enumerate()
        .map(|(h, host)| {
            let Some(spec) = &host.timing_variability else { return Ok(None) };
            let path = format!("hosts[{h}].timing_variability");
            let one = |v: &Option<VariabilitySpec>, key: &str| {
                v.as_ref().map(|v| distribution(v, &format!("{path}.{key}"))).transpose()
            };
            Ok(Some(HostTiming {
                sleep_overshoot: one(&spec.sleep_overshoot, "sleep_overshoot")?,
                call_overhead: one(&spec.call_overhead, "call_overhead")?,
            }))
        })
        .collect()
}

/// The distribution `spec` at `path`.
fn distribution(spec: &VariabilitySpec, path: &str) -> Result<Variability> {
    let (kind, keys): (&str, &[&str]) = match spec.kind {
        VariabilityKind::Exponential => ("exponential", &["offset", "mean"]),
        VariabilityKind::Lognormal => ("lognormal", &["mean", "std"]),
        VariabilityKind::Empirical => ("empirical", &["points"]),
    };
    let given = [
        ("offset", spec.offset.is_some()),
        ("mean", spec.mean.is_some()),
        ("std", spec.std.is_some()),
        ("points", spec.points.is_some()),
    ];
    if let Some((key, _)) = given.iter().find(|&&(key, set)| set && !keys.contains(&key)) {
        return Err(ScenarioError::at(
            format!("{path}.{key}"),
            format!("kind {kind:?} takes no {key}; it takes {}", keys.join(" and ")),
        ));
    }
    let time = |d: Option<&super::units::DurationSpec>, key: &str| -> Result<Duration> {
        let d = d.ok_or_else(|| {
            ScenarioError::at(
                format!("{path}.{key}"),
                format!("missing; kind {kind:?} needs {}", keys.join(" and ")),
            )
        })?;
        bounded(d.0, &format!("{path}.{key}"))
    };
    Ok(match spec.kind {
        VariabilityKind::Exponential => Variability::Exponential {
            offset: spec
                .offset
                .as_ref()
                .map_or(Ok(Duration::ZERO), |d| bounded(d.0, &format!("{path}.offset")))?,
            mean: time(spec.mean.as_ref(), "mean")?,
        },
        VariabilityKind::Lognormal => {
            let mean = time(spec.mean.as_ref(), "mean")?;
            if mean == Duration::ZERO {
                return Err(ScenarioError::at(
                    format!("{path}.mean"),
                    "0 s; a lognormal's mean must be above 0 (for no extra time, leave the key out)",
                ));
            }
            Variability::lognormal(mean, time(spec.std.as_ref(), "std")?)
        }
        VariabilityKind::Empirical => {
            let key = format!("{path}.points");
            let points = spec.points.as_deref().ok_or_else(|| {
                ScenarioError::at(&key, "missing; kind \"empirical\" needs points, e.g. [{ value = \"0 us\", p = 0 }, { value = \"50 us\", p = 1 }]")
            })?;
            let mut table = Vec::with_capacity(points.len());
            for (k, q) in points.iter().enumerate() {
                table.push((bounded(q.value.0, &format!("{key}[{k}].value"))?, q.p));
            }
            let table = Empirical::new(&table).map_err(|e| {
                let at = match e.point {
                    Some(k) => format!("{key}[{k}].{}", if e.in_p { "p" } else { "value" }),
                    None => key.clone(),
                };
                ScenarioError::at(at, e.message)
            })?;
            Variability::Empirical(table)
        }
    })
}

fn bounded(d: Duration, path: &str) -> Result<Duration> {
    if d > MAX_VARIABILITY {
        return Err(ScenarioError::at(
            path,
            format!("{d}; expected at most {MAX_VARIABILITY} (a longer time is work: put it in the program)"),
        ));
    }
    Ok(d)
}

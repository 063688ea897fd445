//! Link-rate switching (RPS/ALR, practRA): the rates, the switching time, the policy
//! and the power model of a link that changes its rate, checked, and attached to the
//! link (`LinkMechanismSpec`).

use crate::mechanisms::rate::phy::practra::{PractRa, PractRaSettings};
use crate::mechanisms::rate::phy::switching::{AlrPolicy, RatePolicyKind, RateSwitching, ScheduledRates};
use crate::mechanisms::rate::scenario::schema::{
    PowerModelSpec, PractRaSpec, RatePolicySpec, RateSwitchingSpec,
};
use crate::node::Port;
use crate::phy::PowerModel;
use crate::scenario::common::{LinkMechanismSpec, LinkSite, Result};
use crate::scenario::error::ScenarioError;
use crate::scenario::schema::{EmptySpec, LinkSpec};
use crate::sim::attach::{AttachedState, PortAttachment};
use crate::time::{BitRate, Duration, SimTime};

impl LinkMechanismSpec for RateSwitchingSpec {
    /// The link's rate switching, beside the links; the ends whose queues its policy
    /// watches are attached to it (a policy scaling one output port watches that port's
    /// queue alone).
    fn attach(
        &self,
        path: &str,
        site: &LinkSite<'_>,
        ports: &mut [Port],
        attached: &mut AttachedState,
    ) -> Result<()> {
        if site.spec.capacity.is_some() {
            // Both would set the link's rate: one at a time.
            return Err(ScenarioError::at(
                format!("links[{}].capacity", site.id.index()),
                "a link has rate_switching or a varying capacity, not both",
            ));
        }
        let rs = rate_switching(site.spec, self, path)?;
        if rs.policy.watches_queues() {
            for (end, port) in site.link.ends.into_iter().enumerate() {
                if rs.scales(end) {
                    PortAttachment::RateSwitching.attach_to(&mut ports[port.index()].attachments);
                }
            }
        }
        attached.rate_switching.insert(site.id, rs);
        Ok(())
    }
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
    p: &PractRaSpec,
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

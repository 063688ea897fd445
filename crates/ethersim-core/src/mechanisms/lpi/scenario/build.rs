//! Energy-Efficient Ethernet (802.3az Low Power Idle) on a link: PHY profiles, their
//! timing and power overrides, and each direction's LPI policy.

use crate::mechanisms::lpi::phy::machine::{LinkEee, Lpi, LpiProfile, LpiUnit, Pending};
use crate::mechanisms::lpi::phy::policy::{Coalescing, IdleTimeout, Immediate, LpiPolicyKind};
use crate::mechanisms::lpi::scenario::schema::{EeeSpec, LpiPolicySpec};
use crate::node::Port;
use crate::scenario::common::{LinkMechanismSpec, LinkSite, Result};
use crate::scenario::error::ScenarioError;
use crate::scenario::schema::{EmptySpec, LinkSpec, PhyType};
use crate::sim::attach::{AttachedState, PortAttachment};
use crate::time::Duration;

impl LinkMechanismSpec for EeeSpec {
    /// The link's LPI PHYs, beside the links; both its ports are attached to them (an
    /// idle port may let its PHY sleep, a frame queued at a sleeping one wakes it).
    fn attach(
        &self,
        path: &str,
        site: &LinkSite<'_>,
        ports: &mut [Port],
        attached: &mut AttachedState,
    ) -> Result<()> {
        attached.eee.insert(site.id, link_eee(site.spec, self, path)?);
        for port in site.link.ends {
            PortAttachment::LowPowerIdle.attach_to(&mut ports[port.index()].attachments);
        }
        Ok(())
    }
}

/// Applies timing and power overrides at `path` to `profile`.
fn override_profile(
    profile: &mut LpiProfile,
    timing: [(&str, Option<crate::scenario::units::DurationSpec>); 3],
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

//! TCP settings of an application: a profile, then each option checked against the
//! path's MTU.

use crate::scenario::error::ScenarioError;
use crate::scenario::schema::{TcpProfileName, TcpSpec};
use crate::time::Duration;
use crate::transport::tcp::{TcpConfig, TcpProfile};
use crate::wire::tcp;

use crate::scenario::common::Result;

/// The TCP settings of an application, defaults filled in, each checked.
pub(super) fn tcp_config(spec: &TcpSpec, path: &str, path_mtu: u64) -> Result<TcpConfig> {
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
        |v: Option<crate::scenario::units::DurationSpec>, key: &str, default: Duration| -> Result<Duration> {
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
        congestion_control: spec.congestion_control.map_or(d.congestion_control, Into::into),
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

//! Applications: one flow each, its endpoints at both ends, and each kind's settings
//! checked against the path it takes.

use crate::app::{
    Arrivals, Endpoint, EndpointKind, FilePacing, FrameLengths, PacketSource, PingClient, PingResponder,
    SaturatingSource, TcpReceiver, TcpSender, TcpWorkload, UdpFileTransfer, UdpSink,
};

use crate::app::voip::{codec, CallSettings, PlayoutPolicy, TalkSpurts, VoipCall, RAMJEE_ALPHA};
use crate::app::web::{CountLaw, Pages, SizeLaw, WebClient, WebServer, WebSettings};
use crate::engine::rng;
use crate::ids::{EndpointId, FlowId, NodeId};
use crate::scenario::error::ScenarioError;
use crate::scenario::schema::{
    AppSpec, CodecName, JitterBufferSpec, OnOffSpec, PageSpec, PingSpec, SaturatingSpec, Scenario,
    SourceSpec, TcpBulkSpec, UdpFileSpec, VoipSpec, WebSpec,
};

use crate::scenario::topology::Topology;
use crate::sim::Flow;
use crate::time::{Bytes, Duration, SimTime};
use crate::wire::{ethernet, icmp, ip, udp, Role as End};

use super::tcp::tcp_config;
use crate::scenario::common::{check_stops, link_mtu, positive_rate, Result};
use crate::scenario::replay::replay;

/// The endpoints and flows of the applications: application `i` opens flow `i` between
/// its source end and its sink end. Every ping flow to a host is answered by that host's
/// one echo responder (an endpoint with many peers), as a kernel answers them all.
pub(super) fn apps(s: &Scenario, topo: &Topology) -> Result<(Vec<Endpoint>, Vec<Flow>)> {
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
        let (source, sink) = endpoint_kinds(spec, &path, s, payload, path_mtu, start)?;
        let flow = FlowId::new(i as u32);
        // Each endpoint draws from its own stream, named after the application: a named
        // application keeps its random numbers when others are added or reordered.
        let stream = |end: &str| rng::stream(s.seed, &format!("app:{name}.{end}"));
        let source_end = EndpointId(endpoints.len() as u32);
        endpoints.push(Endpoint::new(src, Some(flow), End::Source, start, source, stream("arrivals")));
        // A sink only answers, from the beginning; a call's callee talks from the call's start.
        let sink_start = if matches!(spec, AppSpec::Voip(_)) { start } else { SimTime::ZERO };
        let sink_end = if let Some(kind) = sink {
            endpoints.push(Endpoint::new(dst, Some(flow), End::Sink, sink_start, kind, stream("sink")));
            EndpointId(endpoints.len() as u32 - 1)
        } else {
            *responders.entry(dst).or_insert_with(|| {
                let kind = EndpointKind::PingResponder(PingResponder::default());
                let stream = rng::stream(s.seed, &format!("host:{}.echo", spec.to()));
                endpoints.push(Endpoint::new(dst, Some(flow), End::Sink, SimTime::ZERO, kind, stream));
                EndpointId(endpoints.len() as u32 - 1)
            })
        };
        flows.push(Flow::new(name, [source_end, sink_end], [src, dst], start));
    }
    Ok((endpoints, flows))
}

/// The endpoints application `spec` puts at its source end and at its sink end (`None`:
/// the destination host's echo responder answers).
fn endpoint_kinds(
    spec: &AppSpec,
    path: &str,
    s: &Scenario,
    payload: u32,
    path_mtu: u64,
    start: SimTime,
) -> Result<(EndpointKind, Option<EndpointKind>)> {
    Ok(match spec {
        AppSpec::UdpFile(f) => (file_transfer(f, path, payload)?, Some(EndpointKind::UdpSink(UdpSink))),
        AppSpec::ConstantRate(src_spec) => {
            (source(src_spec, path, s, false, payload)?, Some(EndpointKind::UdpSink(UdpSink)))
        }
        AppSpec::Poisson(src_spec) => {
            (source(src_spec, path, s, true, payload)?, Some(EndpointKind::UdpSink(UdpSink)))
        }
        AppSpec::OnOff(on_off) => {
            (on_off_source(on_off, path, s, payload)?, Some(EndpointKind::UdpSink(UdpSink)))
        }
        AppSpec::Saturating(sat) => {
            (saturating(sat, path, s, path_mtu)?, Some(EndpointKind::UdpSink(UdpSink)))
        }
        // Answered by the destination host's one responder.
        AppSpec::Ping(p) => (ping(p, path, s, payload)?, None),
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
            (EndpointKind::TcpSender(Box::new(sender)), Some(EndpointKind::TcpReceiver(Box::new(receiver))))
        }
        AppSpec::Replay(r) => (replay(r, path, s, path_mtu)?, Some(EndpointKind::UdpSink(UdpSink))),
        AppSpec::Voip(v) => {
            let settings = call_settings(v, path)?;
            (
                EndpointKind::Voip(Box::new(VoipCall::new(settings, End::Sink))),
                Some(EndpointKind::Voip(Box::new(VoipCall::new(settings, End::Source)))),
            )
        }
        AppSpec::Web(w) => {
            let settings = web_settings(w, path, path_mtu)?;
            let server = WebServer::new(settings.tcp, settings.request_bytes, settings.persistent);
            (
                EndpointKind::WebClient(Box::new(WebClient::new(settings))),
                Some(EndpointKind::WebServer(Box::new(server))),
            )
        }
        AppSpec::TcpBulk(t) => {
            let cfg = tcp_config(&t.tcp, &format!("{path}.tcp"), path_mtu)?;
            let (stop, window) = bulk_times(t, path, s)?;
            let sender = TcpSender::new(cfg, TcpWorkload::Bulk { stop });
            let read_rate =
                t.read_rate.map(|r| positive_rate(r.0, &format!("{path}.read_rate"))).transpose()?;
            let receiver = TcpReceiver::new(cfg, start, None, window, read_rate);
            (EndpointKind::TcpSender(Box::new(sender)), Some(EndpointKind::TcpReceiver(Box::new(receiver))))
        }
    })
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

pub(super) fn ping(spec: &PingSpec, path: &str, s: &Scenario, payload: u32) -> Result<EndpointKind> {
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

/// A call's settings, checked: a call that lasts, a jitter buffer that plans forward,
/// talk spurts and silences of some length.
fn call_settings(v: &VoipSpec, path: &str) -> Result<CallSettings> {
    if v.duration.0 == Duration::ZERO {
        return Err(ScenarioError::at(format!("{path}.duration"), "must be greater than 0 s"));
    }
    let playout = match v.jitter_buffer {
        JitterBufferSpec::Fixed { depth } => PlayoutPolicy::Fixed { depth: depth.0 },
        JitterBufferSpec::Adaptive { beta } => {
            if !(beta.is_finite() && (0.0..=100.0).contains(&beta)) {
                return Err(ScenarioError::at(
                    format!("{path}.jitter_buffer.beta"),
                    format!("{beta} is not a number of variations; expected 0 to 100"),
                ));
            }
            PlayoutPolicy::Adaptive { alpha: RAMJEE_ALPHA, beta }
        }
    };
    for (key, d) in
        [("mean_spurt", v.talk_spurts.mean_spurt.0), ("mean_silence", v.talk_spurts.mean_silence.0)]
    {
        if d == Duration::ZERO {
            return Err(ScenarioError::at(format!("{path}.talk_spurts.{key}"), "must be greater than 0 s"));
        }
    }
    let codec = match v.codec {
        CodecName::G711 => codec::G711,
        CodecName::G711NoPlc => codec::G711_NO_PLC,
        CodecName::G729A => codec::G729A,
    };
    Ok(CallSettings {
        codec,
        spurts: TalkSpurts {
            mean_spurt: v.talk_spurts.mean_spurt.0,
            mean_silence: v.talk_spurts.mean_silence.0,
        },
        playout,
        stop: SimTime::ZERO + v.start.0 + v.duration.0,
    })
}

/// A web client's settings, checked: pages to load, connections to open, requests and
/// objects of at least a byte, and size laws that can be drawn from.
fn web_settings(w: &WebSpec, path: &str, path_mtu: u64) -> Result<WebSettings> {
    if w.pages == 0 {
        return Err(ScenarioError::at(format!("{path}.pages"), "must be at least 1"));
    }
    if !(1..=MAX_WEB_CONNECTIONS).contains(&w.connections) {
        return Err(ScenarioError::at(
            format!("{path}.connections"),
            format!("{} is not a number of connections; expected 1 to {MAX_WEB_CONNECTIONS}", w.connections),
        ));
    }
    let request_bytes = object_bytes(w.request_size.0, &format!("{path}.request_size"))?;
    if let Some(stop) = w.stop.filter(|stop| stop.0 <= w.start.0) {
        return Err(ScenarioError::at(
            format!("{path}.stop"),
            format!("{} must be later than start ({})", stop.0, w.start.0),
        ));
    }
    let mut tcp_spec = w.tcp.clone();
    // Web servers and browsers set TCP_NODELAY: a response's last partial segment
    // does not wait for the client's delayed ACK.
    tcp_spec.nagle = tcp_spec.nagle.or(Some(false));
    let tcp = tcp_config(&tcp_spec, &format!("{path}.tcp"), path_mtu)?;
    Ok(WebSettings {
        pages: pages(&w.page, &format!("{path}.page"))?,
        page_count: w.pages,
        connections: w.connections,
        persistent: w.persistent,
        request_bytes,
        think_time: w.think_time.0,
        parse_time: w.parse_time.0,
        stop: w.stop.map(|d| SimTime::ZERO + d.0),
        tcp,
    })
}

/// Most connections a web client may open at once.
const MAX_WEB_CONNECTIONS: u16 = 256;

/// A size of an object or request: at least 1 B, at most what a request names (4 GiB − 1 B).
fn object_bytes(b: Bytes, key: &str) -> Result<u32> {
    match u32::try_from(b.get()) {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(ScenarioError::at(
            key,
            format!("{} B is not an object size; expected 1 B to {} B", b.get(), u32::MAX),
        )),
    }
}

/// The page model, checked.
fn pages(p: &PageSpec, path: &str) -> Result<Pages> {
    Ok(match p {
        PageSpec::Fixed { main, embedded } => Pages::Fixed {
            main: object_bytes(main.0, &format!("{path}.main"))?,
            embedded: embedded
                .iter()
                .enumerate()
                .map(|(i, b)| object_bytes(b.0, &format!("{path}.embedded[{i}]")))
                .collect::<Result<_>>()?,
        },
        PageSpec::ThreeGpp2 {
            main_mu,
            main_sigma,
            main_min,
            main_max,
            embedded_mu,
            embedded_sigma,
            embedded_min,
            embedded_max,
            count_alpha,
            count_k,
            count_m,
        } => {
            let law = |prefix: &str, mu: f64, sigma: f64, min: Bytes, max: Bytes| -> Result<SizeLaw> {
                if !mu.is_finite() || !(-50.0..=50.0).contains(&mu) {
                    return Err(ScenarioError::at(
                        format!("{path}.{prefix}_mu"),
                        format!("{mu} is not a log-size; expected -50 to 50"),
                    ));
                }
                if !(sigma.is_finite() && sigma > 0.0 && sigma <= 20.0) {
                    return Err(ScenarioError::at(
                        format!("{path}.{prefix}_sigma"),
                        format!("{sigma} is not a spread; expected more than 0, at most 20"),
                    ));
                }
                let min = object_bytes(min, &format!("{path}.{prefix}_min"))?;
                let max = object_bytes(max, &format!("{path}.{prefix}_max"))?;
                if max < min {
                    return Err(ScenarioError::at(
                        format!("{path}.{prefix}_max"),
                        format!("{max} B is below {prefix}_min ({min} B); expected at least {min} B"),
                    ));
                }
                let law = SizeLaw { mu, sigma, min, max };
                // The truncation must keep some of the law, or drawing never ends.
                if law.mass() < 1e-6 {
                    return Err(ScenarioError::at(
                        format!("{path}.{prefix}_min"),
                        format!("the law keeps almost nothing between {min} B and {max} B; widen the bounds or move {prefix}_mu"),
                    ));
                }
                Ok(law)
            };
            let main = law("main", *main_mu, *main_sigma, main_min.0, main_max.0)?;
            let embedded = law("embedded", *embedded_mu, *embedded_sigma, embedded_min.0, embedded_max.0)?;
            let (alpha, k, m) = (*count_alpha, *count_k, *count_m);
            if !(alpha.is_finite() && alpha > 0.0) {
                return Err(ScenarioError::at(
                    format!("{path}.count_alpha"),
                    format!("{alpha} is not a shape; expected more than 0"),
                ));
            }
            if !(k.is_finite() && k > 0.0) {
                return Err(ScenarioError::at(
                    format!("{path}.count_k"),
                    format!("{k} is not a scale; expected more than 0"),
                ));
            }
            if !(m.is_finite() && m >= k && m - k <= 10_000.0) {
                return Err(ScenarioError::at(
                    format!("{path}.count_m"),
                    format!("{m} is not a cap; expected count_k ({k}) to count_k + 10000"),
                ));
            }
            Pages::Drawn { main, embedded, count: CountLaw { alpha, k, m } }
        }
    })
}

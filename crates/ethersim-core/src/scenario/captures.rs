//! Packet captures: each `[[captures]]` entry checked and turned into a port's capture.

use std::collections::HashSet;
use std::path::{Component, Path};

use crate::capture::{CaptureFormat, CaptureSettings, Direction, Interface, PortCapture, Resolution};
use crate::sim::Network;

use super::error::ScenarioError;
use super::schema::{CaptureDirectionSpec, CaptureFormatSpec, ResolutionSpec, Scenario};
use super::topology::Topology;

type Result<T> = std::result::Result<T, ScenarioError>;

/// Gives the network a capture for each entry of `captures`, and marks the ports.
pub(super) fn attach(s: &Scenario, topo: &Topology, network: &mut Network) -> Result<()> {
    let mut files = HashSet::new();
    for (i, spec) in s.captures.iter().enumerate() {
        let path = format!("captures[{i}]");
        let port = topo.port_named(&spec.port, &format!("{path}.port"))?;
        // Ports of point-to-point links come first, two per link.
        let (link, end) = (port.index() / 2, port.index() % 2);
        if link >= s.links.len() {
            return Err(ScenarioError::at(
                format!("{path}.port"),
                format!(
                    "{:?} is a station of a shared-medium segment; captures are of point-to-point ports",
                    spec.port
                ),
            ));
        }
        let format = match spec.format {
            CaptureFormatSpec::Pcapng => CaptureFormat::PcapNg,
            CaptureFormatSpec::Pcap => CaptureFormat::Pcap,
        };
        let resolution =
            match spec.resolution {
                ResolutionSpec::Us => Resolution::Micro,
                ResolutionSpec::Ns => Resolution::Nano,
                ResolutionSpec::Ps if format == CaptureFormat::Pcap => return Err(ScenarioError::at(
                    format!("{path}.resolution"),
                    "a pcap file's timestamps are us or ns; expected us or ns, or format = \"pcapng\" for ps",
                )),
                ResolutionSpec::Ps => Resolution::Pico,
            };
        let snaplen = spec.snaplen.0.get();
        if snaplen < 64 {
            return Err(ScenarioError::at(
                format!("{path}.snaplen"),
                format!("{snaplen} keeps less than the headers of a frame; expected at least 64"),
            ));
        }
        // A file's snap length is 32 bits; any larger value keeps whole frames as well.
        let snaplen = u32::try_from(snaplen).unwrap_or(u32::MAX);
        let max_bytes = spec.max_bytes.0.get();
        if max_bytes < 1000 {
            return Err(ScenarioError::at(
                format!("{path}.max_bytes"),
                format!(
                    "{} leaves no room for the file's header and a frame; expected at least 1 kB",
                    spec.max_bytes.0
                ),
            ));
        }
        let name = network.port_name(port);
        let file = if let Some(f) = &spec.file {
            checked_file(f, &format!("{path}.file"))?
        } else {
            let ext = if format == CaptureFormat::Pcap { "pcap" } else { "pcapng" };
            format!("captures/{}.{ext}", file_stem(&name))
        };
        if !files.insert(file.clone()) {
            return Err(ScenarioError::at(
                format!("{path}.file"),
                format!("{file:?} is already the file of another capture; expected a file of its own"),
            ));
        }
        let direction = match spec.direction {
            CaptureDirectionSpec::Both => Direction::Both,
            CaptureDirectionSpec::Out => Direction::Out,
            CaptureDirectionSpec::In => Direction::In,
        };
        let speed_bps = network.links[link].dirs[end].rate().as_bps();
        network.ports[port.index()].captured = true;
        network.trace.capture_frames();
        network.captures.push(PortCapture::new(CaptureSettings {
            port,
            file,
            format,
            resolution,
            snaplen,
            max_bytes,
            direction,
            interface: Interface { name, speed_bps },
        }));
    }
    Ok(())
}

/// The default file name of the capture of port `name` (`node->peer`): node names are
/// free text, so anything but letters, digits, `-`, `_` and `.` becomes `-`, and the name
/// stays one plain file in `captures/` whatever the nodes are called.
fn file_stem(name: &str) -> String {
    name.replace("->", "-")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '-' })
        .collect()
}

/// A capture's file: a plain file name, in the output folder's `captures` folder.
fn checked_file(file: &str, path: &str) -> Result<String> {
    let mut parts = Path::new(file).components();
    let plain = matches!((parts.next(), parts.next()), (Some(Component::Normal(_)), None));
    if !plain || file.ends_with('/') {
        return Err(ScenarioError::at(
            path,
            format!("{file:?} is not a plain file name; expected a name such as \"server.pcapng\" (captures go to the output folder's captures/ folder)"),
        ));
    }
    Ok(format!("captures/{file}"))
}

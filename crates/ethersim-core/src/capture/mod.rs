//! Packet capture: the frames a port sends and receives, as real bytes in a pcap or
//! pcapng file that Wireshark and tshark read; and packet traces read back as frame
//! times and lengths, for trace-driven traffic.
//!
//! A captured port writes each frame it starts sending (timestamped at its first bit,
//! as a driver stamps a frame it hands to the NIC) and each frame it receives whole
//! (timestamped when its last bit arrives, as a NIC stamps a frame it received), in
//! event order, so the file is in time order. Frames lost on the cable are not received;
//! frames cut off while being sent were sent. The frame path asks the trace path's
//! listening byte (`sim::Trace`) whether anything wants frames, so a run without captures
//! pays one test of that byte per frame received; the simulation is the same with or
//! without captures (no event is added).

pub mod encode;
pub mod read;
pub mod writer;

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::ids::PortId;
use crate::time::SimTime;
use crate::wire::{Packet, TcpHeader};

pub use encode::FrameEncoder;
pub use read::{read_trace, read_trace_from, Trace, TraceError, TraceFrame, MAX_RECORD_BYTES};
pub use writer::{CaptureFormat, CaptureWriter, Interface, Resolution};

/// Which frames of the port a capture keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Sent and received.
    Both,
    /// Sent only.
    Out,
    /// Received only.
    In,
}

/// How one port is captured.
#[derive(Clone, Debug)]
pub struct CaptureSettings {
    /// The port.
    pub port: PortId,
    /// The file, relative to the run's output folder.
    pub file: String,
    /// Its format.
    pub format: CaptureFormat,
    /// Its timestamp resolution.
    pub resolution: Resolution,
    /// Bytes kept of each frame (the rest is counted in its original length).
    pub snaplen: u32,
    /// Which frames.
    pub direction: Direction,
    /// The interface the file describes.
    pub interface: Interface,
}

/// One port's capture while the run goes.
#[derive(Debug)]
pub struct PortCapture {
    /// How it captures.
    pub settings: CaptureSettings,
    out: Option<CaptureWriter<BufWriter<File>>>,
    encoder: FrameEncoder,
    frames: u64,
    bytes: u64,
    error: Option<String>,
}

/// What a capture wrote, as the results report it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CaptureResult {
    /// The port, `node->peer`.
    pub port: String,
    /// The file, relative to the output folder.
    pub file: String,
    /// `pcap` or `pcapng`.
    pub format: &'static str,
    /// Frames written.
    pub frames: u64,
    /// Their lengths on the wire (FCS included), summed.
    pub frame_bytes: u64,
}

impl PortCapture {
    /// A capture with these settings, not yet writing (see [`PortCapture::open`]).
    pub fn new(settings: CaptureSettings) -> Self {
        PortCapture {
            settings,
            out: None,
            encoder: FrameEncoder::default(),
            frames: 0,
            bytes: 0,
            error: None,
        }
    }

    /// Creates its file in `dir` and writes the file's header.
    pub fn open(&mut self, dir: &Path) -> Result<(), String> {
        let path: PathBuf = dir.join(&self.settings.file);
        let fail = |e: &dyn std::fmt::Display| format!("cannot write capture {}: {e}", path.display());
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| fail(&e))?;
        }
        let file = File::create(&path).map_err(|e| fail(&e))?;
        let s = &self.settings;
        let w = CaptureWriter::new(BufWriter::new(file), s.format, s.resolution, s.snaplen, &s.interface)
            .map_err(|e| fail(&e))?;
        self.out = Some(w);
        Ok(())
    }

    /// Writes `pkt` (with its TCP header, for a segment), seen at `now`, sent by the
    /// port (`outbound`) or received by it. A write error stops the capture; it is
    /// reported when the run finishes.
    pub fn record(&mut self, now: SimTime, outbound: bool, pkt: &Packet, tcp: Option<&TcpHeader>) {
        let wanted = match self.settings.direction {
            Direction::Both => true,
            Direction::Out => outbound,
            Direction::In => !outbound,
        };
        if !wanted || self.error.is_some() {
            return;
        }
        let Some(out) = self.out.as_mut() else { return };
        let data = self.encoder.encode(pkt, tcp);
        if let Err(e) = out.write(now, outbound, data) {
            self.error = Some(format!("cannot write capture {}: {e}", self.settings.file));
            return;
        }
        self.frames += 1;
        self.bytes += u64::from(pkt.frame_len);
    }

    /// Flushes the file; reports what was written, or the first error.
    pub fn finish(&mut self, port_name: &str) -> Result<CaptureResult, String> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if let Some(out) = self.out.take() {
            out.finish().map_err(|e| format!("cannot write capture {}: {e}", self.settings.file))?;
        }
        Ok(self.result(port_name))
    }

    /// What the capture has written so far.
    pub fn result(&self, port_name: &str) -> CaptureResult {
        CaptureResult {
            port: port_name.to_owned(),
            file: self.settings.file.clone(),
            format: match self.settings.format {
                CaptureFormat::Pcap => "pcap",
                CaptureFormat::PcapNg => "pcapng",
            },
            frames: self.frames,
            frame_bytes: self.bytes,
        }
    }
}

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
pub use writer::{CaptureFormat, CaptureWriter, Interface, Recorded, Resolution};

/// The default bound of a capture file's size: 1 GiB. About 0.9 s of a saturated
/// 10 Gb/s port's frames both ways, or 700 000 full frames: more than Wireshark opens
/// comfortably, and a bound on the disk a forgotten `--pcap` on a long run can fill
/// (unbounded, a 10 Gb/s capture writes 2.5 GB a simulated second).
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;

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
    /// The file's size bound, bytes: frames whose records would take it past the bound
    /// are not kept (see [`CaptureWriter`]).
    pub max_bytes: u64,
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
    /// The file's path as the errors name it (the output folder joined, once opened).
    path: PathBuf,
    encoder: FrameEncoder,
    frames: u64,
    bytes: u64,
    not_kept: u64,
    /// Reached its bound: the file is closed.
    full: bool,
    file_bytes: u64,
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
    /// Whether the file reached its size bound, so that later frames were not kept.
    pub truncated: bool,
    /// Frames the capture would have written after it reached its bound.
    pub frames_not_kept: u64,
    /// The file's size, bytes.
    pub file_bytes: u64,
    /// Its size bound, bytes.
    pub max_bytes: u64,
}

impl PortCapture {
    /// A capture with these settings, not yet writing (see [`PortCapture::open`]).
    pub fn new(settings: CaptureSettings) -> Self {
        let path = PathBuf::from(&settings.file);
        PortCapture {
            settings,
            out: None,
            path,
            encoder: FrameEncoder::default(),
            frames: 0,
            bytes: 0,
            not_kept: 0,
            full: false,
            file_bytes: 0,
            error: None,
        }
    }

    /// Creates its file in `dir` and writes the file's header.
    pub fn open(&mut self, dir: &Path) -> Result<(), String> {
        self.path = dir.join(&self.settings.file);
        let path = &self.path;
        let fail = |e: &dyn std::fmt::Display| format!("cannot write capture {}: {e}", path.display());
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| fail(&e))?;
        }
        let file = File::create(path).map_err(|e| fail(&e))?;
        let s = &self.settings;
        let w = CaptureWriter::new(
            BufWriter::new(file),
            s.format,
            s.resolution,
            s.snaplen,
            s.max_bytes,
            &s.interface,
        )
        .map_err(|e| fail(&e))?;
        self.file_bytes = w.bytes();
        self.out = Some(w);
        Ok(())
    }

    /// Writes `pkt` (with its TCP header, for a segment), seen at `now`, sent by the
    /// port (`outbound`) or received by it. A write error stops the capture; it is
    /// reported when the run finishes. Once the file reaches its bound, frames are counted
    /// (`frames_not_kept`), not written, and the file is closed.
    pub fn record(&mut self, now: SimTime, outbound: bool, pkt: &Packet, tcp: Option<&TcpHeader>) {
        let wanted = match self.settings.direction {
            Direction::Both => true,
            Direction::Out => outbound,
            Direction::In => !outbound,
        };
        if !wanted || self.error.is_some() {
            return;
        }
        if self.full {
            self.not_kept += 1;
            return;
        }
        let Some(out) = self.out.as_mut() else { return };
        let data = self.encoder.encode(pkt, tcp);
        match out.write(now, outbound, data) {
            Ok(Recorded::Kept) => {
                self.frames += 1;
                self.bytes += u64::from(pkt.frame_len);
                self.file_bytes = out.bytes();
            }
            Ok(Recorded::Full) => {
                self.not_kept += 1;
                self.full = true;
                // Closed at once: the file is complete while the run goes on.
                if let Some(out) = self.out.take() {
                    if let Err(e) = out.finish() {
                        self.error = Some(self.cannot_write(&e));
                    }
                }
            }
            Err(e) => self.error = Some(self.cannot_write(&e)),
        }
    }

    fn cannot_write(&self, e: &std::io::Error) -> String {
        format!("cannot write capture {}: {e}", self.path.display())
    }

    /// Flushes the file; reports what was written, or the first error.
    pub fn finish(&mut self, port_name: &str) -> Result<CaptureResult, String> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if let Some(out) = self.out.take() {
            out.finish().map_err(|e| self.cannot_write(&e))?;
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
            truncated: self.full,
            frames_not_kept: self.not_kept,
            file_bytes: self.file_bytes,
            max_bytes: self.settings.max_bytes,
        }
    }
}

//! Capture files: classic pcap and pcapng, written with the `pcap-file` crate.
//!
//! Timestamps are simulated time from the run's start (0 s = 1970-01-01 00:00:00 UTC, as a
//! capture has no other epoch), truncated to the file's resolution: microseconds or
//! nanoseconds in pcap (its two magic numbers), microseconds, nanoseconds or
//! picoseconds in pcapng (the interface's `if_tsresol`, pcapng section 4.2). Picoseconds
//! keep the simulator's every instant; Wireshark shows nanoseconds.
//!
//! A file has a size bound: a record that would take it past the bound is not written,
//! nor is any after it, so the file ends cleanly after its last whole record and holds a
//! prefix in time of the frames. Errors are the operating system's (`std::io::Error`:
//! "No space left on device"), not the pcap crate's generic "Error reading bytes".

use std::borrow::Cow;
use std::io::Write;
use std::time::Duration as StdDuration;

use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::pcapng::blocks::enhanced_packet::{EnhancedPacketBlock, EnhancedPacketOption};
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::blocks::section_header::{SectionHeaderBlock, SectionHeaderOption};
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::{DataLink, Endianness, PcapError, TsResolution};

use crate::time::SimTime;

/// The file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureFormat {
    /// Classic libpcap format.
    Pcap,
    /// pcapng (RFC draft-ietf-opsawg-pcapng): an interface block naming the port, and the
    /// direction of each frame.
    PcapNg,
}

/// Timestamp resolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// 10^-6 s.
    Micro,
    /// 10^-9 s.
    Nano,
    /// 10^-12 s (pcapng only).
    Pico,
}

impl Resolution {
    /// Picoseconds per tick.
    pub const fn tick_ps(self) -> u64 {
        match self {
            Resolution::Micro => 1_000_000,
            Resolution::Nano => 1_000,
            Resolution::Pico => 1,
        }
    }
    /// The pcapng `if_tsresol` value: the tick is 10^-value s.
    const fn tsresol(self) -> u8 {
        match self {
            Resolution::Micro => 6,
            Resolution::Nano => 9,
            Resolution::Pico => 12,
        }
    }
}

/// The port a capture file describes (pcapng's interface description).
#[derive(Clone, Debug)]
pub struct Interface {
    /// Its name, `node->peer`.
    pub name: String,
    /// Its link's rate, bit/s.
    pub speed_bps: u64,
}

/// The writer of one capture file.
pub struct CaptureWriter<W: Write> {
    inner: Inner<W>,
    resolution: Resolution,
    snaplen: u32,
    /// The file's size so far, bytes.
    bytes: u64,
    max_bytes: u64,
    full: bool,
}

impl<W: Write> std::fmt::Debug for CaptureWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaptureWriter")
            .field("resolution", &self.resolution)
            .field("max_bytes", &self.max_bytes)
            .field("full", &self.full)
            .finish_non_exhaustive()
    }
}

enum Inner<W: Write> {
    Pcap(PcapWriter<W>),
    PcapNg(PcapNgWriter<W>),
}

/// What became of a frame handed to [`CaptureWriter::write`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// Its record is in the file.
    Kept,
    /// The file has reached its size bound: neither this frame nor any later one is kept.
    Full,
}

/// The operating system's error inside a pcap crate error (its own `Display` says only
/// "Error reading bytes", even of a write).
fn io_error(e: PcapError) -> std::io::Error {
    match e {
        PcapError::IoError(e) => e,
        other => std::io::Error::other(other.to_string()),
    }
}

/// pcapng `epb_flags` direction bits (pcapng section 4.3.1): inbound, outbound.
const INBOUND: u32 = 0b01;
const OUTBOUND: u32 = 0b10;

impl<W: Write> CaptureWriter<W> {
    /// Starts a capture file on `out`: its header (and for pcapng its interface block).
    /// Frames longer than `snaplen` bytes keep their first `snaplen` bytes. The file grows
    /// to at most `max_bytes` (or its header, if that is larger).
    pub fn new(
        out: W,
        format: CaptureFormat,
        resolution: Resolution,
        snaplen: u32,
        max_bytes: u64,
        interface: &Interface,
    ) -> Result<Self, std::io::Error> {
        Self::start(out, format, resolution, snaplen, interface)
            .map(|(inner, bytes)| CaptureWriter { inner, resolution, snaplen, bytes, max_bytes, full: false })
            .map_err(io_error)
    }

    /// The file's header, and its size.
    fn start(
        out: W,
        format: CaptureFormat,
        resolution: Resolution,
        snaplen: u32,
        interface: &Interface,
    ) -> Result<(Inner<W>, u64), PcapError> {
        let inner = match format {
            CaptureFormat::Pcap => {
                let ts_resolution = match resolution {
                    Resolution::Micro => TsResolution::MicroSecond,
                    Resolution::Nano => TsResolution::NanoSecond,
                    Resolution::Pico => {
                        return Err(PcapError::InvalidField("pcap timestamps are micro- or nanoseconds"))
                    }
                };
                let header = PcapHeader {
                    snaplen,
                    datalink: DataLink::ETHERNET,
                    ts_resolution,
                    endianness: Endianness::Little,
                    ..PcapHeader::default()
                };
                // The pcap file header is 24 bytes.
                (Inner::Pcap(PcapWriter::with_header(out, header)?), 24)
            }
            CaptureFormat::PcapNg => {
                let section = SectionHeaderBlock {
                    endianness: Endianness::Little,
                    options: vec![SectionHeaderOption::UserApplication(Cow::Owned(format!(
                        "ethersim {}",
                        env!("CARGO_PKG_VERSION")
                    )))],
                    ..SectionHeaderBlock::default()
                };
                // The section header's size, measured once (its options' lengths vary).
                let section_len =
                    PcapNgWriter::with_section_header(Vec::new(), section.clone())?.into_inner().len();
                let mut w = PcapNgWriter::with_section_header(out, section)?;
                let interface_len = w.write_pcapng_block(InterfaceDescriptionBlock {
                    linktype: DataLink::ETHERNET,
                    snaplen,
                    options: vec![
                        InterfaceDescriptionOption::IfName(Cow::Owned(interface.name.clone())),
                        InterfaceDescriptionOption::IfSpeed(interface.speed_bps),
                        InterfaceDescriptionOption::IfTsResol(resolution.tsresol()),
                        InterfaceDescriptionOption::IfFcsLen(0),
                    ],
                })?;
                (Inner::PcapNg(w), (section_len + interface_len) as u64)
            }
        };
        Ok(inner)
    }

    /// The file's size so far, bytes.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Whether the file has reached its size bound (no frame is kept any more).
    pub fn is_full(&self) -> bool {
        self.full
    }

    /// The size of the record of a frame of which `kept` bytes are stored: a pcap record
    /// header (16 B) and the bytes; a pcapng enhanced packet block (section 4.3: 32 B of
    /// fields, the bytes padded to 4, the `epb_flags` option (8 B) and the end of options
    /// (4 B)).
    fn record_len(&self, kept: usize) -> u64 {
        let kept = kept as u64;
        match self.inner {
            Inner::Pcap(_) => 16 + kept,
            Inner::PcapNg(_) => 44 + kept.next_multiple_of(4),
        }
    }

    /// Writes a frame seen at `at`, sent by the port (`outbound`) or received by it, if its
    /// record fits within the file's bound. `data` is the whole frame without its FCS.
    pub fn write(&mut self, at: SimTime, outbound: bool, data: &[u8]) -> Result<Recorded, std::io::Error> {
        if self.full {
            return Ok(Recorded::Full);
        }
        let orig_len = data.len() as u32;
        let kept = &data[..data.len().min(self.snaplen as usize)];
        if self.bytes + self.record_len(kept.len()) > self.max_bytes {
            self.full = true;
            return Ok(Recorded::Full);
        }
        let written = self.write_record(at, outbound, orig_len, kept).map_err(io_error)?;
        self.bytes += written as u64;
        Ok(Recorded::Kept)
    }

    /// Writes one record; returns its size.
    fn write_record(
        &mut self,
        at: SimTime,
        outbound: bool,
        orig_len: u32,
        kept: &[u8],
    ) -> Result<usize, PcapError> {
        let ticks = at.as_ps() / self.resolution.tick_ps();
        match &mut self.inner {
            Inner::Pcap(w) => {
                // pcap-file takes the instant and truncates it to the file's resolution.
                let timestamp = StdDuration::from_nanos(at.as_ps() / 1000);
                w.write_packet(&PcapPacket { timestamp, orig_len, data: Cow::Borrowed(kept) })
            }
            Inner::PcapNg(w) => {
                // pcap-file writes the Duration's nanoseconds as the raw 64-bit count of
                // ticks, whatever the interface's resolution: hand it the count of ticks.
                let flags = if outbound { OUTBOUND } else { INBOUND };
                w.write_pcapng_block(EnhancedPacketBlock {
                    interface_id: 0,
                    timestamp: StdDuration::from_nanos(ticks),
                    original_len: orig_len,
                    data: Cow::Borrowed(kept),
                    options: vec![EnhancedPacketOption::Flags(flags)],
                })
            }
        }
    }

    /// Flushes and returns the underlying writer.
    pub fn finish(self) -> Result<W, std::io::Error> {
        let mut out = match self.inner {
            Inner::Pcap(w) => w.into_writer(),
            Inner::PcapNg(w) => w.into_inner(),
        };
        out.flush()?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interface() -> Interface {
        Interface { name: "a->b".to_owned(), speed_bps: 1_000_000_000 }
    }

    /// Writes `frames` frames of `len` bytes, 1 us apart; returns the file and what became of each.
    fn capture(
        out: impl Write,
        format: CaptureFormat,
        snaplen: u32,
        max_bytes: u64,
        frames: usize,
        len: usize,
    ) -> Result<(Vec<Recorded>, u64), std::io::Error> {
        let mut w = CaptureWriter::new(out, format, Resolution::Nano, snaplen, max_bytes, &interface())?;
        let frame = vec![0u8; len];
        let mut seen = Vec::new();
        for i in 0..frames {
            seen.push(w.write(SimTime(i as u64 * 1_000_000), i % 2 == 0, &frame)?);
        }
        let bytes = w.bytes();
        w.finish()?;
        Ok((seen, bytes))
    }

    #[test]
    fn a_bounded_file_keeps_whole_records_up_to_its_bound_then_none() {
        for format in [CaptureFormat::Pcap, CaptureFormat::PcapNg] {
            let mut file = Vec::new();
            let (seen, bytes) = capture(&mut file, format, 262_144, 10_000, 100, 1514).unwrap();
            let kept = seen.iter().take_while(|r| **r == Recorded::Kept).count();
            assert!(kept > 0 && seen[kept..].iter().all(|r| *r == Recorded::Full), "{format:?}: {seen:?}");
            assert_eq!(bytes, file.len() as u64, "{format:?}: the count is the file's size");
            assert!(file.len() <= 10_000, "{format:?}: {} bytes", file.len());
            // One more record would not have fitted.
            let record = if format == CaptureFormat::Pcap { 16 + 1514 } else { 44 + 1516 };
            assert!(file.len() + record > 10_000, "{format:?}: {} bytes", file.len());
            // The file parses whole: every record kept, none cut.
            let records = crate::capture::read_trace_from(std::io::Cursor::new(file)).unwrap().frames.len();
            assert_eq!(records, kept, "{format:?}");
        }
    }

    #[test]
    fn a_frame_refused_by_the_bound_stops_the_capture_even_if_a_later_one_would_fit() {
        let mut w = CaptureWriter::new(
            Vec::new(),
            CaptureFormat::Pcap,
            Resolution::Nano,
            262_144,
            24 + 16 + 100,
            &interface(),
        )
        .unwrap();
        assert_eq!(w.write(SimTime(0), true, &[0; 200]).unwrap(), Recorded::Full);
        assert_eq!(w.write(SimTime(1), true, &[0; 60]).unwrap(), Recorded::Full);
        assert!(w.is_full());
        assert_eq!(w.finish().unwrap().len(), 24, "the header alone");
    }

    #[test]
    fn the_record_size_predicted_is_the_size_written() {
        for format in [CaptureFormat::Pcap, CaptureFormat::PcapNg] {
            for len in [60, 61, 62, 63, 64, 1514] {
                let mut w =
                    CaptureWriter::new(Vec::new(), format, Resolution::Nano, 96, u64::MAX, &interface())
                        .unwrap();
                let before = w.bytes();
                w.write(SimTime(0), false, &vec![0; len]).unwrap();
                assert_eq!(w.bytes() - before, w.record_len(len.min(96)), "{format:?}, {len} B");
            }
        }
    }

    #[test]
    fn a_snap_length_keeps_the_first_bytes_and_the_frame_length() {
        for format in [CaptureFormat::Pcap, CaptureFormat::PcapNg] {
            let mut file = Vec::new();
            capture(&mut file, format, 96, u64::MAX, 3, 1514).unwrap();
            let trace = crate::capture::read_trace_from(std::io::Cursor::new(file)).unwrap();
            assert_eq!(trace.frames.len(), 3);
            // A trace's frame length is the length on the wire: the original, FCS included.
            assert!(trace.frames.iter().all(|f| f.frame_len == 1518), "{format:?}");
        }
    }

    /// A writer on a full disk.
    struct FullDisk;
    impl Write for FullDisk {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::from_raw_os_error(28)) // ENOSPC
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_full_disk_is_the_operating_systems_error_not_a_read_error() {
        let e =
            CaptureWriter::new(FullDisk, CaptureFormat::PcapNg, Resolution::Nano, 96, u64::MAX, &interface())
                .unwrap_err();
        assert_eq!(e.raw_os_error(), Some(28), "{e}");
        assert!(e.to_string().contains("No space left on device"), "{e}");
    }
}

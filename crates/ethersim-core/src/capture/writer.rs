//! Capture files: classic pcap and pcapng, written with the `pcap-file` crate.
//!
//! Timestamps are simulated time from the run's start (0 s = 1970-01-01 00:00:00 UTC, as a
//! capture has no other epoch), truncated to the file's resolution: microseconds or
//! nanoseconds in pcap (its two magic numbers), microseconds, nanoseconds or
//! picoseconds in pcapng (the interface's `if_tsresol`, pcapng section 4.2). Picoseconds
//! keep the simulator's every instant; Wireshark shows nanoseconds.

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
}

impl<W: Write> std::fmt::Debug for CaptureWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaptureWriter").field("resolution", &self.resolution).finish_non_exhaustive()
    }
}

enum Inner<W: Write> {
    Pcap(PcapWriter<W>),
    PcapNg(PcapNgWriter<W>),
}

/// pcapng `epb_flags` direction bits (pcapng section 4.3.1): inbound, outbound.
const INBOUND: u32 = 0b01;
const OUTBOUND: u32 = 0b10;

impl<W: Write> CaptureWriter<W> {
    /// Starts a capture file on `out`: its header (and for pcapng its interface block).
    /// Frames longer than `snaplen` bytes keep their first `snaplen` bytes.
    pub fn new(
        out: W,
        format: CaptureFormat,
        resolution: Resolution,
        snaplen: u32,
        interface: &Interface,
    ) -> Result<Self, PcapError> {
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
                Inner::Pcap(PcapWriter::with_header(out, header)?)
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
                let mut w = PcapNgWriter::with_section_header(out, section)?;
                w.write_pcapng_block(InterfaceDescriptionBlock {
                    linktype: DataLink::ETHERNET,
                    snaplen,
                    options: vec![
                        InterfaceDescriptionOption::IfName(Cow::Owned(interface.name.clone())),
                        InterfaceDescriptionOption::IfSpeed(interface.speed_bps),
                        InterfaceDescriptionOption::IfTsResol(resolution.tsresol()),
                        InterfaceDescriptionOption::IfFcsLen(0),
                    ],
                })?;
                Inner::PcapNg(w)
            }
        };
        Ok(CaptureWriter { inner, resolution, snaplen })
    }

    /// Writes a frame seen at `at`, sent by the port (`outbound`) or received by it.
    /// `data` is the whole frame without its FCS.
    pub fn write(&mut self, at: SimTime, outbound: bool, data: &[u8]) -> Result<(), PcapError> {
        let orig_len = data.len() as u32;
        let kept = &data[..data.len().min(self.snaplen as usize)];
        let ticks = at.as_ps() / self.resolution.tick_ps();
        match &mut self.inner {
            Inner::Pcap(w) => {
                // pcap-file takes the instant and truncates it to the file's resolution.
                let timestamp = StdDuration::from_nanos(at.as_ps() / 1000);
                w.write_packet(&PcapPacket { timestamp, orig_len, data: Cow::Borrowed(kept) })?;
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
                })?;
            }
        }
        Ok(())
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

//! Reading a packet trace (pcap or pcapng, parsed by the `pcap-file` crate) into frame
//! times and lengths, for trace-driven traffic.
//!
//! A frame's length on the wire is recovered from the captured packet's original length
//! and the file's link type: an Ethernet capture holds frames without their FCS (what a
//! NIC's driver hands to the capture; a pcapng interface with `if_fcslen` 4 holds them
//! with it), so 4 bytes are added; Linux cooked captures (SLL, SLL2) and raw IP captures
//! carry the IP packet, to which the Ethernet header and FCS (18 B) are added. Frames
//! shorter than 64 B are padded to 64 B, as a NIC pads them on the wire. Timestamps keep
//! the file's resolution (pcapng's `if_tsresol`, decimal or binary, and `if_tsoffset`).

use pcap_file::pcap::PcapParser;
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::{Block, PcapNgParser};
use pcap_file::{DataLink, PcapError};

use crate::wire::ethernet;

/// One frame of a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceFrame {
    /// Its timestamp, picoseconds after the trace's first frame.
    pub offset_ps: u64,
    /// Its length on the wire (destination address through FCS), bytes.
    pub frame_len: u32,
}

/// A trace: its frames in timestamp order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// The first frame's timestamp, picoseconds since the file's epoch.
    pub first_ps: u128,
    /// The frames, in timestamp order (a capture's occasional out-of-order timestamps,
    /// from a NIC's several queues, are sorted; frames with equal timestamps keep the
    /// file's order).
    pub frames: Vec<TraceFrame>,
}

/// Why a trace could not be read: the record (1-based, counting every record of the file
/// after its header: packets in pcap, blocks in pcapng) and its byte offset, if one is to blame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// The record and its byte offset.
    pub record: Option<(u64, usize)>,
    /// What was wrong.
    pub message: String,
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.record {
            Some((n, offset)) => write!(f, "record {n} (byte {offset}): {}", self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

fn at(record: u64, offset: usize, message: impl Into<String>) -> TraceError {
    TraceError { record: Some((record, offset)), message: message.into() }
}

fn describe(e: &PcapError) -> String {
    match e {
        PcapError::IncompleteBuffer => "the file ends inside this record (truncated)".to_owned(),
        other => other.to_string(),
    }
}

const PCAPNG_MAGIC: [u8; 4] = [0x0A, 0x0D, 0x0D, 0x0A];

/// Reads a pcap or pcapng file's frames (told apart by the magic number).
pub fn read_trace(bytes: &[u8]) -> Result<Trace, TraceError> {
    let mut frames: Vec<(u128, u32)> = if bytes.starts_with(&PCAPNG_MAGIC) {
        read_pcapng(bytes)?
    } else if bytes.len() >= 4
        && matches!(
            u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
            0xA1B2_C3D4 | 0xD4C3_B2A1 | 0xA1B2_3C4D | 0x4D3C_B2A1
        )
    {
        read_pcap(bytes)?
    } else {
        return Err(TraceError {
            record: None,
            message: "not a pcap or pcapng file (its first bytes are no capture file's magic number)"
                .to_owned(),
        });
    };
    if frames.is_empty() {
        return Err(TraceError { record: None, message: "the trace has no frames".to_owned() });
    }
    frames.sort_by_key(|&(t, _)| t);
    let first_ps = frames[0].0;
    let mut out = Vec::with_capacity(frames.len());
    for (t, frame_len) in frames {
        let offset_ps = u64::try_from(t - first_ps).map_err(|_| TraceError {
            record: None,
            message: "the trace spans more than the engine's clock (about 213 days)".to_owned(),
        })?;
        out.push(TraceFrame { offset_ps, frame_len });
    }
    Ok(Trace { first_ps, frames: out })
}

/// The wire length of a captured packet of `orig_len` bytes on a link of `link`; `fcs`
/// says whether an Ethernet capture includes the FCS.
fn wire_len(link: DataLink, orig_len: u32, fcs: bool) -> Result<u32, String> {
    // Ethernet header and FCS around an IP packet.
    let around_ip = (ethernet::HEADER_LEN + ethernet::FCS_LEN) as u32;
    let len = match link {
        DataLink::ETHERNET if fcs => orig_len,
        DataLink::ETHERNET => orig_len + ethernet::FCS_LEN as u32,
        // Linux cooked capture: a 16-byte (SLL) or 20-byte (SLL2) pseudo-header.
        DataLink::LINUX_SLL => orig_len.saturating_sub(16) + around_ip,
        DataLink::LINUX_SLL2 => orig_len.saturating_sub(20) + around_ip,
        DataLink::RAW | DataLink::IPV4 | DataLink::IPV6 => orig_len + around_ip,
        other => {
            return Err(format!(
                "link type {other:?} is not one whose frame lengths ethersim knows; expected \
                 Ethernet, Linux cooked (SLL, SLL2) or raw IP"
            ))
        }
    };
    Ok(len.max(ethernet::MIN_FRAME as u32))
}

fn read_pcap(bytes: &[u8]) -> Result<Vec<(u128, u32)>, TraceError> {
    let (mut rest, parser) = PcapParser::new(bytes).map_err(|e| TraceError {
        record: None,
        message: format!("the pcap file header is unreadable: {}", describe(&e)),
    })?;
    let link = parser.header().datalink;
    let mut frames = Vec::new();
    let mut record = 0u64;
    while !rest.is_empty() {
        record += 1;
        let offset = bytes.len() - rest.len();
        let (next, packet) = parser.next_packet(rest).map_err(|e| at(record, offset, describe(&e)))?;
        let len = wire_len(link, packet.orig_len, false).map_err(|m| at(record, offset, m))?;
        // The parser hands the instant as a Duration at the file's resolution.
        frames.push((packet.timestamp.as_nanos() * 1000, len));
        rest = next;
    }
    Ok(frames)
}

/// An interface's timestamp unit in picoseconds, as a fraction (numerator, denominator),
/// its offset in picoseconds, and whether its frames include the FCS.
#[derive(Clone, Copy, Debug)]
struct InterfaceClock {
    link: DataLink,
    num: u128,
    den: u128,
    offset_ps: u128,
    fcs: bool,
}

fn interface_clock(idb: &InterfaceDescriptionBlock<'_>) -> Result<InterfaceClock, String> {
    // pcapng section 4.2: without if_tsresol the unit is 10^-6 s.
    let mut clock = InterfaceClock { link: idb.linktype, num: 1_000_000, den: 1, offset_ps: 0, fcs: false };
    for option in &idb.options {
        match *option {
            InterfaceDescriptionOption::IfTsResol(r) => {
                let (num, den) = if r & 0x80 == 0 {
                    // 10^-r s per tick.
                    if r > 38 {
                        return Err(format!("if_tsresol {r} is beyond any clock; expected 0 to 38"));
                    }
                    let r = u32::from(r);
                    if r <= 12 {
                        (10u128.pow(12 - r), 1)
                    } else {
                        (1, 10u128.pow(r - 12))
                    }
                } else {
                    // 2^-k s per tick.
                    let k = u32::from(r & 0x7F);
                    if k > 100 {
                        return Err(format!(
                            "if_tsresol 2^-{k} is beyond any clock; expected at most 2^-100"
                        ));
                    }
                    (1_000_000_000_000, 1u128 << k)
                };
                clock.num = num;
                clock.den = den;
            }
            InterfaceDescriptionOption::IfTsOffset(s) => clock.offset_ps = u128::from(s) * 1_000_000_000_000,
            InterfaceDescriptionOption::IfFcsLen(n) => clock.fcs = n == 4,
            _ => {}
        }
    }
    Ok(clock)
}

fn read_pcapng(bytes: &[u8]) -> Result<Vec<(u128, u32)>, TraceError> {
    let (mut rest, mut parser) = PcapNgParser::new(bytes).map_err(|e| TraceError {
        record: Some((1, 0)),
        message: format!("the section header block is unreadable: {}", describe(&e)),
    })?;
    let mut clocks: Vec<InterfaceClock> = Vec::new();
    let mut frames = Vec::new();
    let mut record = 1u64;
    while !rest.is_empty() {
        record += 1;
        let offset = bytes.len() - rest.len();
        let (next, block) = parser.next_block(rest).map_err(|e| at(record, offset, describe(&e)))?;
        match block {
            // A new section starts its own list of interfaces.
            Block::SectionHeader(_) => clocks.clear(),
            Block::InterfaceDescription(idb) => {
                clocks.push(interface_clock(&idb).map_err(|m| at(record, offset, m))?);
            }
            Block::EnhancedPacket(epb) => {
                let Some(clock) = clocks.get(epb.interface_id as usize) else {
                    return Err(at(
                        record,
                        offset,
                        format!("the packet names interface {}, which no block described", epb.interface_id),
                    ));
                };
                // pcap-file hands the raw 64-bit timestamp as nanoseconds, whatever the
                // interface's unit: it is a count of ticks.
                let ticks = epb.timestamp.as_nanos();
                let ps = clock.offset_ps + ticks * clock.num / clock.den;
                let len =
                    wire_len(clock.link, epb.original_len, clock.fcs).map_err(|m| at(record, offset, m))?;
                frames.push((ps, len));
            }
            Block::SimplePacket(_) => {
                return Err(at(
                    record,
                    offset,
                    "a simple packet block has no timestamp; expected enhanced packet blocks",
                ))
            }
            _ => {}
        }
        rest = next;
    }
    Ok(frames)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::writer::{CaptureFormat, CaptureWriter, Interface, Resolution};
    use crate::time::SimTime;

    fn capture(format: CaptureFormat, resolution: Resolution, frames: &[(u64, usize)]) -> Vec<u8> {
        let iface = Interface { name: "a->b".into(), speed_bps: 1_000_000_000 };
        let mut w = CaptureWriter::new(Vec::new(), format, resolution, 65535, &iface).unwrap();
        for &(ps, len) in frames {
            w.write(SimTime(ps), true, &vec![0u8; len]).unwrap();
        }
        w.finish().unwrap()
    }

    #[test]
    fn a_written_capture_reads_back_its_times_and_wire_lengths() {
        let frames = [(1_234_567_000, 1514), (2_000_000_000, 60), (2_000_001_000, 100)];
        for (format, res) in [
            (CaptureFormat::PcapNg, Resolution::Pico),
            (CaptureFormat::PcapNg, Resolution::Nano),
            (CaptureFormat::Pcap, Resolution::Nano),
        ] {
            let t = read_trace(&capture(format, res, &frames)).unwrap();
            assert_eq!(t.first_ps, 1_234_567_000);
            let got: Vec<(u64, u32)> = t.frames.iter().map(|f| (f.offset_ps, f.frame_len)).collect();
            assert_eq!(got, vec![(0, 1518), (765_433_000, 64), (765_434_000, 104)], "{format:?} {res:?}");
        }
    }

    #[test]
    fn resolution_truncates_to_whole_ticks() {
        let t = read_trace(&capture(
            CaptureFormat::PcapNg,
            Resolution::Micro,
            &[(1_999_999, 60), (3_000_001, 60)],
        ))
        .unwrap();
        assert_eq!(t.first_ps, 1_000_000);
        assert_eq!(t.frames[1].offset_ps, 2_000_000);
        let t = read_trace(&capture(CaptureFormat::PcapNg, Resolution::Pico, &[(7, 60), (9, 60)])).unwrap();
        assert_eq!((t.first_ps, t.frames[1].offset_ps), (7, 2));
    }

    #[test]
    fn a_truncated_file_names_the_record_it_ends_in() {
        for format in [CaptureFormat::Pcap, CaptureFormat::PcapNg] {
            let bytes = capture(format, Resolution::Nano, &[(0, 60), (10, 60), (20, 60)]);
            let err = read_trace(&bytes[..bytes.len() - 5]).unwrap_err();
            // pcap: three packets; pcapng: the section and interface blocks, then three packets.
            let record = if format == CaptureFormat::Pcap { 3 } else { 5 };
            assert_eq!(err.record.map(|r| r.0), Some(record), "{format:?}: {err}");
            assert!(err.to_string().contains("truncated"), "{err}");
        }
    }

    #[test]
    fn anything_else_is_refused() {
        assert!(read_trace(b"hello world").unwrap_err().to_string().contains("not a pcap"));
        let empty = capture(CaptureFormat::PcapNg, Resolution::Nano, &[]);
        assert!(read_trace(&empty).unwrap_err().to_string().contains("no frames"));
    }
}

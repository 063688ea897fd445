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
//!
//! The file is read record by record: a trace costs each frame's time and length, never
//! the file's bytes, and a record's declared length is checked before it is read. A
//! capture made with a snap length (`tcpdump -s 96`) keeps only the start of each frame;
//! its original length is the frame's length, as for any record.

use std::io::{self, BufRead, BufReader, Read};

use pcap_file::pcap::PcapHeader;
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::{Block, PcapNgParser};
use pcap_file::{DataLink, Endianness, PcapError, TsResolution};

use crate::wire::ethernet;

/// The most bytes one record may hold (a pcap record's captured length, a pcapng block's
/// length): 16 MiB. libpcap keeps at most 256 KiB of an Ethernet frame, so a larger value
/// is a corrupt length, refused before anything is allocated for it.
pub const MAX_RECORD_BYTES: u32 = 16 << 20;

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
    pub record: Option<(u64, u64)>,
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

fn at(record: u64, offset: u64, message: impl Into<String>) -> TraceError {
    TraceError { record: Some((record, offset)), message: message.into() }
}

fn whole(message: impl Into<String>) -> TraceError {
    TraceError { record: None, message: message.into() }
}

fn describe(e: &PcapError) -> String {
    match e {
        PcapError::IncompleteBuffer => TRUNCATED.to_owned(),
        other => other.to_string(),
    }
}

const TRUNCATED: &str = "the file ends inside this record (truncated)";

fn describe_io(e: &io::Error) -> String {
    if e.kind() == io::ErrorKind::UnexpectedEof {
        TRUNCATED.to_owned()
    } else {
        format!("cannot read the file: {e}")
    }
}

const PCAPNG_MAGIC: [u8; 4] = [0x0A, 0x0D, 0x0D, 0x0A];

/// The file, read in order through a buffer, and how far it has been read.
struct Source<R: Read> {
    inner: BufReader<R>,
    offset: u64,
}

impl<R: Read> Source<R> {
    fn read_exact(&mut self, buf: &mut [u8]) -> io::Result<()> {
        self.inner.read_exact(buf)?;
        self.offset += buf.len() as u64;
        Ok(())
    }

    /// Reads as much of `buf` as the file has; returns how much.
    fn read_up_to(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            match self.inner.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.offset += n as u64;
        Ok(n)
    }

    /// Passes over `n` bytes without keeping them.
    fn skip(&mut self, n: u64) -> io::Result<()> {
        let skipped = io::copy(&mut (&mut self.inner).take(n), &mut io::sink())?;
        self.offset += skipped;
        if skipped < n {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        Ok(())
    }

    fn at_end(&mut self) -> io::Result<bool> {
        loop {
            match self.inner.fill_buf() {
                Ok(buf) => return Ok(buf.is_empty()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// The frames as they are read: each one's timestamp kept as 64 bits relative to the
/// first frame's (wrapping), and the earliest and latest timestamps, so that a trace
/// costs 16 bytes a frame however its timestamps are ordered.
#[derive(Default)]
struct Collected {
    base: Option<u128>,
    min: u128,
    max: u128,
    frames: Vec<TraceFrame>,
}

impl Collected {
    fn push(&mut self, ps: u128, frame_len: u32) {
        let base = *self.base.get_or_insert_with(|| {
            self.min = ps;
            self.max = ps;
            ps
        });
        self.min = self.min.min(ps);
        self.max = self.max.max(ps);
        self.frames.push(TraceFrame { offset_ps: ps.wrapping_sub(base) as u64, frame_len });
    }

    fn finish(self) -> Result<Trace, TraceError> {
        let Collected { base: Some(base), min, max, mut frames } = self else {
            return Err(whole("the trace has no frames"));
        };
        if max - min > u128::from(u64::MAX) {
            return Err(whole("the trace spans more than the engine's clock (about 213 days)"));
        }
        // Every frame's offset from the earliest fits in 64 bits (checked above), so the
        // wrapping offsets from the first frame, shifted by the earliest's, are exact.
        let shift = min.wrapping_sub(base) as u64;
        for f in &mut frames {
            f.offset_ps = f.offset_ps.wrapping_sub(shift);
        }
        if !frames.is_sorted_by_key(|f| f.offset_ps) {
            frames.sort_by_key(|f| f.offset_ps);
        }
        frames.shrink_to_fit();
        Ok(Trace { first_ps: min, frames })
    }
}

/// Reads a pcap or pcapng file's frames (told apart by the magic number), held whole in
/// memory (see [`read_trace_from`]).
pub fn read_trace(bytes: &[u8]) -> Result<Trace, TraceError> {
    read_trace_from(bytes)
}

/// Reads a pcap or pcapng file's frames from `reader`, record by record: what is kept
/// is each frame's time and length (16 bytes), never the file, and a record's length is
/// checked (against [`MAX_RECORD_BYTES`]) before its bytes are read.
pub fn read_trace_from<R: Read>(reader: R) -> Result<Trace, TraceError> {
    let mut src = Source { inner: BufReader::with_capacity(1 << 16, reader), offset: 0 };
    let mut magic = [0u8; 4];
    let n = src.read_up_to(&mut magic).map_err(|e| whole(describe_io(&e)))?;
    let frames = if n == 4 && magic == PCAPNG_MAGIC {
        read_pcapng(&mut src, magic)?
    } else if n == 4
        && matches!(u32::from_le_bytes(magic), 0xA1B2_C3D4 | 0xD4C3_B2A1 | 0xA1B2_3C4D | 0x4D3C_B2A1)
    {
        read_pcap(&mut src, magic)?
    } else {
        return Err(whole("not a pcap or pcapng file (its first bytes are no capture file's magic number)"));
    };
    frames.finish()
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

fn read_pcap<R: Read>(src: &mut Source<R>, magic: [u8; 4]) -> Result<Collected, TraceError> {
    let mut header = [0u8; 24];
    header[..4].copy_from_slice(&magic);
    src.read_exact(&mut header[4..])
        .map_err(|e| whole(format!("the pcap file header is unreadable: {}", describe_io(&e))))?;
    let (_, parsed) = PcapHeader::from_slice(&header)
        .map_err(|e| whole(format!("the pcap file header is unreadable: {}", describe(&e))))?;
    let big = parsed.endianness == Endianness::Big;
    let word = |b: &[u8]| {
        let b = [b[0], b[1], b[2], b[3]];
        if big {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        }
    };
    // The link-type word: the link type in its low 16 bits; bit 28 says whether bits
    // 29-31 give the FCS's length in 16-bit words (draft-ietf-opsawg-pcap, section 4).
    let link_word = word(&header[20..]);
    let link = DataLink::from(link_word & 0xFFFF);
    let fcs = link_word & (1 << 28) != 0 && (link_word >> 29) == 2;
    let (frac_per_s, ps_per_frac) = match parsed.ts_resolution {
        TsResolution::MicroSecond => (1_000_000, 1_000_000),
        TsResolution::NanoSecond => (1_000_000_000, 1000),
    };
    let mut frames = Collected::default();
    let mut record = 0u64;
    let mut head = [0u8; 16];
    // Records are parsed here rather than by pcap-file, which refuses a record longer on
    // the wire than the header's snap length: exactly what `tcpdump -s 96` writes (each
    // record keeps 96 bytes of a longer frame). The snap length is not checked at all;
    // each record's original length is the frame's.
    while !src.at_end().map_err(|e| at(record + 1, src.offset, describe_io(&e)))? {
        record += 1;
        let offset = src.offset;
        let fail = |m: String| at(record, offset, m);
        src.read_exact(&mut head).map_err(|e| fail(describe_io(&e)))?;
        let (secs, frac, incl_len, orig_len) =
            (word(&head[0..]), word(&head[4..]), word(&head[8..]), word(&head[12..]));
        if frac >= frac_per_s {
            return Err(fail(format!(
                "the timestamp's fraction of a second, {frac}, is not below {frac_per_s}"
            )));
        }
        if incl_len > MAX_RECORD_BYTES {
            return Err(fail(format!(
                "the record claims {incl_len} captured bytes, more than any capture keeps \
                 (at most 16 MiB); the file is corrupt"
            )));
        }
        if incl_len > orig_len {
            return Err(fail(format!(
                "the captured length ({incl_len} bytes) is more than the frame's original \
                 length ({orig_len} bytes)"
            )));
        }
        src.skip(u64::from(incl_len)).map_err(|e| fail(describe_io(&e)))?;
        let len = wire_len(link, orig_len, fcs).map_err(fail)?;
        frames.push(u128::from(secs) * 1_000_000_000_000 + u128::from(frac) * ps_per_frac, len);
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

/// Reads one pcapng block whole into `buf` (its first `have` bytes are there already),
/// after checking its length; `big` says the section's byte order.
fn read_block<R: Read>(src: &mut Source<R>, buf: &mut Vec<u8>, have: usize, big: bool) -> Result<(), String> {
    let word = [buf[4], buf[5], buf[6], buf[7]];
    let len = if big { u32::from_be_bytes(word) } else { u32::from_le_bytes(word) };
    if len > MAX_RECORD_BYTES {
        return Err(format!(
            "the block claims {len} bytes, more than any capture's block holds (at most 16 MiB); \
             the file is corrupt"
        ));
    }
    if len % 4 != 0 || (len as usize) < have.max(12) {
        return Err(format!("the block's length, {len}, is not a multiple of 4 bytes, at least 12"));
    }
    buf.resize(len as usize, 0);
    src.read_exact(&mut buf[have..]).map_err(|e| describe_io(&e))
}

/// A section header block's byte order, from its byte-order magic (bytes 8 to 11).
fn section_is_big(head: &[u8]) -> Result<bool, String> {
    match head[8..12] {
        [0x1A, 0x2B, 0x3C, 0x4D] => Ok(true),
        [0x4D, 0x3C, 0x2B, 0x1A] => Ok(false),
        _ => Err("the section header's byte-order magic is neither 0x1A2B3C4D nor its reverse".to_owned()),
    }
}

fn read_pcapng<R: Read>(src: &mut Source<R>, magic: [u8; 4]) -> Result<Collected, TraceError> {
    // Each block is read whole into one buffer (bounded by MAX_RECORD_BYTES) and parsed
    // there by pcap-file.
    let mut buf = Vec::with_capacity(4096);
    buf.extend_from_slice(&magic);
    buf.resize(12, 0);
    let first = |m: String| at(1, 0, format!("the section header block is unreadable: {m}"));
    src.read_exact(&mut buf[4..12]).map_err(|e| first(describe_io(&e)))?;
    let mut big = section_is_big(&buf).map_err(first)?;
    read_block(src, &mut buf, 12, big).map_err(first)?;
    let (_, mut parser) = PcapNgParser::new(&buf).map_err(|e| first(describe(&e)))?;
    let mut clocks: Vec<InterfaceClock> = Vec::new();
    let mut frames = Collected::default();
    let mut record = 1u64;
    while !src.at_end().map_err(|e| at(record + 1, src.offset, describe_io(&e)))? {
        record += 1;
        let offset = src.offset;
        let fail = |m: String| at(record, offset, m);
        buf.resize(8, 0);
        src.read_exact(&mut buf[..8]).map_err(|e| fail(describe_io(&e)))?;
        let mut have = 8;
        if buf[..4] == PCAPNG_MAGIC {
            // A new section, perhaps in the other byte order.
            buf.resize(12, 0);
            src.read_exact(&mut buf[8..12]).map_err(|e| fail(describe_io(&e)))?;
            have = 12;
            big = section_is_big(&buf).map_err(fail)?;
        } else {
            big = parser.section().endianness == Endianness::Big;
        }
        read_block(src, &mut buf, have, big).map_err(fail)?;
        let (_, block) = parser.next_block(&buf).map_err(|e| fail(describe(&e)))?;
        match block {
            // A new section starts its own list of interfaces.
            Block::SectionHeader(_) => clocks.clear(),
            Block::InterfaceDescription(idb) => {
                clocks.push(interface_clock(&idb).map_err(fail)?);
            }
            Block::EnhancedPacket(epb) => {
                let Some(clock) = clocks.get(epb.interface_id as usize) else {
                    return Err(fail(format!(
                        "the packet names interface {}, which no block described",
                        epb.interface_id
                    )));
                };
                // pcap-file hands the raw 64-bit timestamp as nanoseconds, whatever the
                // interface's unit: it is a count of ticks.
                let ticks = epb.timestamp.as_nanos();
                let ps = clock.offset_ps + ticks * clock.num / clock.den;
                // The original length, not the captured one: a capture with a snap
                // length keeps only the start of each frame.
                let len = wire_len(clock.link, epb.original_len, clock.fcs).map_err(fail)?;
                frames.push(ps, len);
            }
            Block::SimplePacket(_) => {
                return Err(fail(
                    "a simple packet block has no timestamp; expected enhanced packet blocks".to_owned(),
                ))
            }
            _ => {}
        }
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
        let mut w = CaptureWriter::new(Vec::new(), format, resolution, 65535, u64::MAX, &iface).unwrap();
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

    /// A classic pcap (little-endian, microseconds, Ethernet) with header snap length
    /// `snaplen` and records `(us, incl_len, orig_len)`, each holding `incl_len` bytes.
    fn classic(snaplen: u32, records: &[(u32, u32, u32)]) -> Vec<u8> {
        let mut out = Vec::new();
        for word in [0xA1B2_C3D4u32, 0x0004_0002, 0, 0, snaplen, 1] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        for &(us, incl, orig) in records {
            for word in [0, us, incl, orig] {
                out.extend_from_slice(&word.to_le_bytes());
            }
            out.resize(out.len() + incl as usize, 0);
        }
        out
    }

    fn lengths(t: &Trace) -> Vec<(u64, u32)> {
        t.frames.iter().map(|f| (f.offset_ps, f.frame_len)).collect()
    }

    #[test]
    fn a_capture_cut_to_its_snap_length_keeps_the_original_lengths() {
        // tcpdump -s 96: the header's snap length is 96 and each record keeps 96 bytes of
        // a 1514-byte frame (orig_len > snaplen, which pcap-file's reader refuses).
        let cut = read_trace(&classic(96, &[(0, 96, 1514), (10, 96, 1514), (30, 60, 60)])).unwrap();
        let whole = read_trace(&classic(65535, &[(0, 1514, 1514), (10, 1514, 1514), (30, 60, 60)])).unwrap();
        assert_eq!(lengths(&cut), vec![(0, 1518), (10_000_000, 1518), (30_000_000, 64)]);
        assert_eq!(cut, whole);
        // pcapng: an enhanced packet block's original length, likewise.
        let iface = Interface { name: "a->b".into(), speed_bps: 1_000_000_000 };
        let mut w =
            CaptureWriter::new(Vec::new(), CaptureFormat::PcapNg, Resolution::Nano, 96, u64::MAX, &iface)
                .unwrap();
        w.write(SimTime(0), true, &[0u8; 1514]).unwrap();
        let t = read_trace(&w.finish().unwrap()).unwrap();
        assert_eq!(lengths(&t), vec![(0, 1518)]);
    }

    #[test]
    fn a_corrupt_huge_record_length_is_refused_before_it_is_read() {
        // A record claiming 4 GiB - 1 captured bytes, in a file of a few dozen: refused by
        // its declared length (nothing allocated for it), naming the record.
        let bytes = classic(65535, &[(0, 60, 60), (1, 0, 0)]);
        let mut bytes = bytes;
        let at = 24 + 16 + 60 + 8;
        bytes[at..at + 8].copy_from_slice(&[0xFF; 8]);
        let err = read_trace(&bytes).unwrap_err();
        assert_eq!(err.record, Some((2, 100)), "{err}");
        assert!(err.message.contains("4294967295 captured bytes"), "{err}");
        // pcapng: a block claiming 4 GiB.
        let mut ng = capture(CaptureFormat::PcapNg, Resolution::Nano, &[(0, 60)]);
        let n = ng.len();
        ng.extend_from_slice(&[6, 0, 0, 0, 0xFC, 0xFF, 0xFF, 0xFF]);
        let err = read_trace(&ng).unwrap_err();
        assert_eq!(err.record.map(|r| r.1), Some(n as u64), "{err}");
        assert!(err.message.contains("4294967292 bytes"), "{err}");
    }

    #[test]
    fn out_of_order_timestamps_are_sorted_from_the_earliest() {
        let t = read_trace(&classic(65535, &[(50, 60, 60), (20, 100, 100), (70, 60, 60)])).unwrap();
        assert_eq!(t.first_ps, 20_000_000);
        assert_eq!(lengths(&t), vec![(0, 104), (30_000_000, 64), (50_000_000, 64)]);
    }

    #[test]
    fn anything_else_is_refused() {
        assert!(read_trace(&vec![0u8; 1 << 16]).unwrap_err().to_string().contains("not a pcap"));
        assert!(read_trace(b"").unwrap_err().to_string().contains("not a pcap"));
        assert!(read_trace(b"hello world").unwrap_err().to_string().contains("not a pcap"));
        let empty = capture(CaptureFormat::PcapNg, Resolution::Nano, &[]);
        assert!(read_trace(&empty).unwrap_err().to_string().contains("no frames"));
    }
}

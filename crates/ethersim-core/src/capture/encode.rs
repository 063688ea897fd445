//! The bytes of a frame, built from its descriptor: Ethernet II, IPv4, UDP, TCP, ICMP
//! echo and MAC control (PAUSE), with valid checksums (etherparse computes them).
//!
//! The simulator carries no payload bytes, so payloads are zeros; every header field the
//! simulation decides (addresses, ports, sequence and acknowledgement numbers, flags,
//! window, options, a MAC control frame's opcode and parameter) is what the simulation used. Fields it
//! does not model get fixed, documented values:
//!
//! - node `n` (its id plus one, so that no address is all zeros) has the MAC address
//!   `02:00:00:nn:nn:nn` (locally administered, unicast) and the IPv4 address
//!   `10.nn.nn.nn`; the frame carries its sending and receiving *hosts'* addresses, as
//!   switches forward at layer 2;
//! - flow `f` runs from port `49152 + f mod 16384` at its source end to port
//!   [`SERVICE_PORT`] at its sink end (UDP and TCP; a flow's further TCP connections,
//!   numbered by [`TcpHeader::port`], from that port plus their number); an ICMP echo's identifier is `f`
//!   and its sequence number the request's, modulo 2^16;
//! - IPv4: TTL 64, don't-fragment set, identification 0 (RFC 6864 section 4.1: an
//!   atomic datagram's identification has no meaning);
//! - TCP sequence numbers start at 0 (the simulator's initial sequence number) and wrap
//!   modulo 2^32; options are laid out as common stacks do (MSS, NOP, window scale,
//!   NOP, NOP, SACK-permitted on a SYN; NOP, NOP, SACK blocks on an ACK).
//!
//! A capture holds the frame without its FCS (link type `ETHERNET`, as captures from a
//! NIC's driver do); a frame shorter than the 64 B minimum is padded with zeros to 60 B.

use etherparse::{EtherType, Ethernet2Header, PacketBuilder, TcpOptionElement};

use crate::ids::{FlowId, NodeId};
use crate::wire::{ethernet, mac_control, Packet, Protocol, Role, TcpFlags, TcpHeader};

/// The port of a flow's sink end (the iperf default).
pub const SERVICE_PORT: u16 = 5001;
/// The first port of the IANA dynamic range (RFC 6335 section 6), where a flow's source
/// end takes its port.
pub const EPHEMERAL_BASE: u16 = 49152;
/// Ports in the dynamic range.
const EPHEMERAL_PORTS: u32 = 16384;
/// The IPv4 time to live of every packet (a common default).
const TTL: u8 = 64;

/// The MAC address of `node`.
pub fn mac_address(node: NodeId) -> [u8; 6] {
    let n = node.0.wrapping_add(1).to_be_bytes();
    [0x02, 0x00, 0x00, n[1], n[2], n[3]]
}

/// The IPv4 address of `node`.
pub fn ipv4_address(node: NodeId) -> [u8; 4] {
    let n = node.0.wrapping_add(1).to_be_bytes();
    [10, n[1], n[2], n[3]]
}

/// The port of `flow`'s source end.
pub fn source_port(flow: FlowId) -> u16 {
    // The remainder is below 16384, so the sum stays within u16.
    EPHEMERAL_BASE + (flow.number() % EPHEMERAL_PORTS) as u16
}

/// Builds frame bytes, reusing its buffers from frame to frame.
#[derive(Debug, Default)]
pub struct FrameEncoder {
    frame: Vec<u8>,
    zeros: Vec<u8>,
}

impl FrameEncoder {
    /// The bytes of `pkt` (FCS excluded, padded to 60 B); `tcp` is its TCP header, for a
    /// TCP segment.
    pub fn encode(&mut self, pkt: &Packet, tcp: Option<&TcpHeader>) -> &[u8] {
        self.frame.clear();
        let payload = pkt.payload as usize;
        if self.zeros.len() < payload {
            self.zeros.resize(payload, 0);
        }
        let data = &self.zeros[..payload];
        match (pkt.protocol, tcp) {
            (Protocol::MacControl, _) => self.mac_control(pkt),
            (Protocol::Tcp, Some(h)) => {
                let (src, dst) = tcp_ports(pkt, h);
                let builder = ip_builder(pkt).tcp_header(tcp_header(src, dst, pkt.seq, h));
                builder.write(&mut self.frame, data).expect("writing to a Vec cannot fail");
            }
            (Protocol::IcmpEcho, _) => {
                let id = pkt.flow.map_or(0, FlowId::number) as u16;
                let seq = pkt.seq as u16;
                let builder = ip_builder(pkt);
                let builder = if pkt.to == Role::Sink {
                    builder.icmpv4_echo_request(id, seq)
                } else {
                    builder.icmpv4_echo_reply(id, seq)
                };
                builder.write(&mut self.frame, data).expect("writing to a Vec cannot fail");
            }
            // UDP, and a TCP segment without its header (never made by the simulator).
            (Protocol::Udp | Protocol::Tcp, _) => {
                let (src, dst) = ports(pkt);
                let builder = ip_builder(pkt).udp(src, dst);
                builder.write(&mut self.frame, data).expect("writing to a Vec cannot fail");
            }
        }
        let len = (pkt.frame_len as usize).saturating_sub(ethernet::FCS_LEN as usize);
        if self.frame.len() < len {
            self.frame.resize(len, 0);
        }
        &self.frame
    }

    /// A MAC control frame (802.3 Annex 31A): the reserved multicast destination,
    /// EtherType 0x8808, the opcode and its first parameter (for PAUSE the pause time in
    /// quanta, Annex 31B).
    fn mac_control(&mut self, pkt: &Packet) {
        let header = Ethernet2Header {
            source: mac_address(pkt.src),
            destination: mac_control::DESTINATION,
            ether_type: EtherType(mac_control::ETHERTYPE),
        };
        self.frame.extend_from_slice(&header.to_bytes());
        let (opcode, parameter) = mac_control::operation(pkt).unwrap_or_default();
        self.frame.extend_from_slice(&opcode.to_be_bytes());
        self.frame.extend_from_slice(&parameter.to_be_bytes());
    }
}

fn ip_builder(pkt: &Packet) -> etherparse::PacketBuilderStep<etherparse::IpHeaders> {
    let (src, dst) = (pkt.src, pkt.dst);
    PacketBuilder::ethernet2(mac_address(src), mac_address(dst)).ipv4(
        ipv4_address(src),
        ipv4_address(dst),
        TTL,
    )
}

/// The (source, destination) ports of a packet of a flow: the source end's ephemeral
/// port and the service port, swapped for packets travelling to the source end.
fn ports(pkt: &Packet) -> (u16, u16) {
    // A packet with ports (UDP, TCP) belongs to a flow.
    let ephemeral = pkt.flow.map_or(EPHEMERAL_BASE, source_port);
    match pkt.to {
        Role::Sink => (ephemeral, SERVICE_PORT),
        Role::Source => (SERVICE_PORT, ephemeral),
    }
}

/// A TCP segment's ports: connection `port` of a flow that opens several (a web
/// client's) runs from the flow's ephemeral port plus `port`, within the ephemeral range.
fn tcp_ports(pkt: &Packet, h: &TcpHeader) -> (u16, u16) {
    let shift = |p: u16| {
        if p == SERVICE_PORT || h.port == 0 {
            return p;
        }
        let offset = (u32::from(p - EPHEMERAL_BASE) + u32::from(h.port)) % EPHEMERAL_PORTS;
        EPHEMERAL_BASE + offset as u16
    };
    let (src, dst) = ports(pkt);
    (shift(src), shift(dst))
}

fn tcp_header(src: u16, dst: u16, seq: u64, h: &TcpHeader) -> etherparse::TcpHeader {
    // RFC 9293 section 3.4: sequence numbers are 32-bit and wrap.
    let mut t = etherparse::TcpHeader::new(src, dst, seq as u32, h.window);
    t.fin = h.flags.has(TcpFlags::FIN);
    t.syn = h.flags.has(TcpFlags::SYN);
    t.rst = h.flags.has(TcpFlags::RST);
    t.psh = h.flags.has(TcpFlags::PSH);
    t.ack = h.flags.has(TcpFlags::ACK);
    if t.ack {
        t.acknowledgment_number = h.ack as u32;
    }
    let mut options: [TcpOptionElement; 10] = std::array::from_fn(|_| TcpOptionElement::Noop);
    let mut n = 0;
    let mut push = |o| {
        options[n] = o;
        n += 1;
    };
    if h.mss != 0 {
        push(TcpOptionElement::MaximumSegmentSize(h.mss));
    }
    if let Some(shift) = h.window_shift {
        push(TcpOptionElement::Noop);
        push(TcpOptionElement::WindowScale(shift));
    }
    if h.sack_permitted {
        push(TcpOptionElement::Noop);
        push(TcpOptionElement::Noop);
        push(TcpOptionElement::SelectiveAcknowledgementPermitted);
    }
    if let Some((first, rest)) = h.sack_blocks().split_first() {
        let block = |b: &crate::wire::SackBlock| (b.start as u32, b.end as u32);
        let mut more = [None; 3];
        for (slot, b) in more.iter_mut().zip(rest) {
            *slot = Some(block(b));
        }
        push(TcpOptionElement::Noop);
        push(TcpOptionElement::Noop);
        push(TcpOptionElement::SelectiveAcknowledgement(block(first), more));
    }
    // The simulator's options never exceed the 40 bytes a header can carry
    // (`TcpHeader::options_len`).
    t.set_options(&options[..n]).expect("options fit a TCP header");
    t
}

#[cfg(test)]
mod tests {
    use etherparse::{NetSlice, SlicedPacket, TransportSlice};

    use super::*;
    use crate::time::SimTime;
    use crate::wire::{self, PacketKind, SackBlock};

    fn packet(protocol: Protocol, payload: u32, to: Role) -> Packet {
        let frame_len = wire::frame_len(protocol, u64::from(payload), 0) as u32;
        Packet {
            kind: PacketKind::Data,
            protocol,
            to,
            flow: Some(FlowId::new(3)),
            src: NodeId(0),
            dst: NodeId(1),
            seq: (1 << 32) + 1000,
            frame_len,
            payload,
            created: SimTime::ZERO,
            echo: SimTime::NEVER,
        }
    }

    #[test]
    fn a_udp_datagram_has_its_addresses_ports_length_and_a_valid_checksum() {
        let mut enc = FrameEncoder::default();
        let p = packet(Protocol::Udp, 1472, Role::Sink);
        let bytes = enc.encode(&p, None).to_vec();
        assert_eq!(bytes.len(), 1514, "a 1518-byte frame without its FCS");
        let s = SlicedPacket::from_ethernet(&bytes).unwrap();
        let Some(NetSlice::Ipv4(ip)) = &s.net else { panic!("IPv4") };
        assert_eq!(ip.header().source(), [10, 0, 0, 1]);
        assert_eq!(ip.header().destination(), [10, 0, 0, 2]);
        let Some(TransportSlice::Udp(udp)) = &s.transport else { panic!("UDP") };
        assert_eq!((udp.source_port(), udp.destination_port()), (49155, SERVICE_PORT));
        assert_eq!(udp.length(), 1480);
        let header = udp.to_header();
        let expected = header.calc_checksum_ipv4(&ip.header().to_header(), udp.payload()).unwrap();
        assert_eq!(udp.checksum(), expected);
        assert_ne!(udp.checksum(), 0, "a checksum was computed");
    }

    #[test]
    fn short_frames_are_padded_to_the_minimum_without_fcs() {
        let mut enc = FrameEncoder::default();
        let p = packet(Protocol::Udp, 1, Role::Sink);
        assert_eq!(enc.encode(&p, None).len(), 60);
        // A PAUSE frame (802.3 Annex 31B: opcode 0x0001, then the quanta).
        let control = mac_control::frame(NodeId(4), NodeId(5), 0x0001, 0xBEEF, SimTime::ZERO);
        let bytes = enc.encode(&control, None);
        assert_eq!(bytes.len(), 60);
        assert_eq!(bytes[..6], [0x01, 0x80, 0xC2, 0x00, 0x00, 0x01]);
        assert_eq!(bytes[12..18], [0x88, 0x08, 0x00, 0x01, 0xBE, 0xEF], "EtherType, opcode, quanta");
    }

    #[test]
    fn a_tcp_segment_carries_its_numbers_flags_window_and_options() {
        let mut enc = FrameEncoder::default();
        let h = TcpHeader {
            ack: 77,
            flags: TcpFlags::ACK,
            window: 512,
            sack_len: 2,
            sack: [
                SackBlock { start: 3000, end: 4000 },
                SackBlock { start: 5000, end: 6000 },
                SackBlock::default(),
                SackBlock::default(),
            ],
            ..TcpHeader::default()
        };
        let mut p = packet(Protocol::Tcp, 0, Role::Source);
        p.frame_len = wire::frame_len(Protocol::Tcp, 0, h.options_len()) as u32;
        let bytes = enc.encode(&p, Some(&h)).to_vec();
        assert_eq!(bytes.len() as u32, p.frame_len - 4);
        let s = SlicedPacket::from_ethernet(&bytes).unwrap();
        let Some(TransportSlice::Tcp(tcp)) = &s.transport else { panic!("TCP") };
        assert_eq!((tcp.source_port(), tcp.destination_port()), (SERVICE_PORT, 49155));
        assert_eq!(tcp.sequence_number(), 1000, "wrapped modulo 2^32");
        assert_eq!((tcp.acknowledgment_number(), tcp.ack(), tcp.syn()), (77, true, false));
        assert_eq!(tcp.window_size(), 512);
        assert_eq!(tcp.options().len() as u64, h.options_len());
        let Some(NetSlice::Ipv4(ip)) = &s.net else { panic!("IPv4") };
        let expected = tcp.to_header().calc_checksum_ipv4(&ip.header().to_header(), tcp.payload()).unwrap();
        assert_eq!(tcp.checksum(), expected);
    }

    #[test]
    fn a_syn_lays_out_its_options_in_twelve_bytes() {
        let mut enc = FrameEncoder::default();
        let h = TcpHeader {
            flags: TcpFlags::SYN,
            window: 65535,
            mss: 1460,
            window_shift: Some(7),
            sack_permitted: true,
            ..TcpHeader::default()
        };
        let mut p = packet(Protocol::Tcp, 0, Role::Sink);
        p.frame_len = wire::frame_len(Protocol::Tcp, 0, h.options_len()) as u32;
        let bytes = enc.encode(&p, Some(&h)).to_vec();
        let s = SlicedPacket::from_ethernet(&bytes).unwrap();
        let Some(TransportSlice::Tcp(tcp)) = &s.transport else { panic!("TCP") };
        assert_eq!(tcp.options(), [2, 4, 0x05, 0xB4, 1, 3, 3, 7, 1, 1, 4, 2]);
    }

    #[test]
    fn a_flows_further_connections_have_ports_of_their_own() {
        // A web client's connection 3 of flow 3: the flow's ephemeral port plus 3, at
        // the client end of both directions; the service port stays.
        let mut enc = FrameEncoder::default();
        let h = TcpHeader { flags: TcpFlags::ACK, port: 3, ..TcpHeader::default() };
        for (to, want) in [(Role::Sink, (49158, SERVICE_PORT)), (Role::Source, (SERVICE_PORT, 49158))] {
            let mut p = packet(Protocol::Tcp, 0, to);
            p.frame_len = wire::frame_len(Protocol::Tcp, 0, 0) as u32;
            let bytes = enc.encode(&p, Some(&h)).to_vec();
            let s = SlicedPacket::from_ethernet(&bytes).unwrap();
            let Some(TransportSlice::Tcp(tcp)) = &s.transport else { panic!("TCP") };
            assert_eq!((tcp.source_port(), tcp.destination_port()), want);
        }
    }
}

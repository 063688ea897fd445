//! MAC control frames (IEEE 802.3 clause 31, Annex 31A): the frame of the MAC control
//! sublayer, whatever operation it carries (PAUSE, Annex 31B, is the one modelled today,
//! in `mechanisms/pause/`; priority flow control, IEEE 802.1Q clause 36, is another).
//!
//! A MAC control frame goes to the reserved multicast address 01-80-C2-00-00-01 (a bridge
//! never forwards it), with EtherType 0x8808, a two-byte opcode and the operation's
//! parameters, padded to the minimum frame of 64 bytes. The descriptor carries the opcode
//! in `payload` and the first two-byte parameter in `seq`; a pcap writer encodes the
//! bytes from them.

use crate::ids::NodeId;
use crate::time::SimTime;

use super::ethernet::MIN_FRAME;
use super::packet::{Packet, PacketKind, Protocol};

/// EtherType of MAC control frames (802.3 clause 31.4.1.3).
pub const ETHERTYPE: u16 = 0x8808;
/// Destination of MAC control frames of flow control: the reserved multicast address a
/// bridge never forwards (802.3 Annex 31B.1; IEEE 802.1Q table 8-1).
pub const DESTINATION: [u8; 6] = [0x01, 0x80, 0xC2, 0x00, 0x00, 0x01];
/// A MAC control frame is padded to the minimum frame length (802.3 clause 31.4.1.5).
pub const FRAME_LEN: u32 = MIN_FRAME as u32;

/// A MAC control frame from `src` to its link partner `dst`, made at `now`, carrying
/// `opcode` and its first parameter `parameter`.
pub fn frame(src: NodeId, dst: NodeId, opcode: u16, parameter: u16, now: SimTime) -> Packet {
    let mut p = Packet::control(src, dst, FRAME_LEN, now);
    p.payload = u32::from(opcode);
    p.seq = u64::from(parameter);
    p
}

/// The opcode and first parameter of `p`, if it is a MAC control frame.
pub fn operation(p: &Packet) -> Option<(u16, u16)> {
    let is_control = p.kind == PacketKind::Control && p.protocol == Protocol::MacControl;
    // `frame` stores a u16 in each field.
    is_control.then(|| (p.payload as u16, u16::try_from(p.seq).unwrap_or(u16::MAX)))
}

/// Sets the first parameter of the MAC control frame `p` (a request still waiting to
/// be sent is brought up to date rather than followed by another).
pub fn set_parameter(p: &mut Packet, parameter: u16) {
    p.seq = u64::from(parameter);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_control_frame_carries_its_opcode_and_parameter_and_is_a_minimum_frame() {
        let mut p = frame(NodeId(0), NodeId(1), 0x0101, 1234, SimTime::ZERO);
        assert_eq!((operation(&p), p.frame_len), (Some((0x0101, 1234)), 64));
        set_parameter(&mut p, 7);
        assert_eq!(operation(&p), Some((0x0101, 7)));
        let data = Packet { kind: PacketKind::Data, protocol: Protocol::Udp, ..p };
        assert_eq!(operation(&data), None, "not a MAC control frame");
    }
}

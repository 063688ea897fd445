//! A file transfer over UDP: N bytes cut into datagrams, sent either as fast as the host
//! takes them (the host paces it) or at a set payload rate. The sender blocks, like a
//! blocking socket, while the host has no free transmit buffer; nothing is lost at the
//! sender. The receiver does not recover losses.

use crate::time::{BitRate, Bytes, SimTime};
use crate::wire::{PacketKind, Protocol, Role};

use super::{Next, Outgoing};

/// How the sender paces the datagrams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilePacing {
    /// As fast as the host accepts them.
    Host,
    /// At this payload rate (datagram payload bits per second), or slower if the host blocks.
    Rate(BitRate),
}

/// Sender state of a UDP file transfer.
#[derive(Clone, Copy, Debug)]
pub struct UdpFileTransfer {
    /// How datagrams are paced.
    pub pacing: FilePacing,
    /// Payload per datagram (the last may be shorter).
    pub payload: u32,
    remaining: u64,
    next_at: SimTime,
    next_seq: u64,
}

impl UdpFileTransfer {
    /// A transfer of `size` bytes in datagrams of `payload` bytes.
    pub fn new(size: Bytes, payload: u32, pacing: FilePacing) -> Self {
        UdpFileTransfer { pacing, payload, remaining: size.get(), next_at: SimTime::ZERO, next_seq: 0 }
    }

    /// Bytes not yet handed to the host.
    pub fn remaining(&self) -> u64 {
        self.remaining
    }

    pub(super) fn poll(&mut self, now: SimTime, buffer_free: bool) -> Next {
        if self.remaining == 0 {
            return Next::Finished;
        }
        if now < self.next_at {
            return Next::SleepUntil(self.next_at);
        }
        if buffer_free {
            Next::Send
        } else {
            Next::WaitForBuffer
        }
    }

    pub(super) fn take(&mut self, now: SimTime) -> Outgoing {
        let payload = self.remaining.min(u64::from(self.payload)) as u32;
        self.remaining -= u64::from(payload);
        if let FilePacing::Rate(rate) = self.pacing {
            self.next_at = now + rate.time_to_send(Bytes(u64::from(payload)));
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        Outgoing {
            flow: None,
            to: Role::Sink,
            kind: PacketKind::Data,
            protocol: Protocol::Udp,
            payload,
            seq,
            echo: SimTime::NEVER,
        }
    }
}

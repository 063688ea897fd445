//! One HTTP connection as either end drives it: a TCP connection numbered within its
//! flow ([`TcpHeader::port`]), the segment planned at the last poll, and the request in
//! progress, whose object size rides on every segment the connection sends
//! ([`TcpHeader::asks`]).

use crate::time::SimTime;
use crate::transport::tcp::{Arriving, Connection, Plan, State, TcpConfig};
use crate::wire::{Packet, Role, TcpHeader};

use crate::app::Outgoing;

/// One connection of a web application.
#[derive(Clone, Debug)]
pub(super) struct HttpConn {
    pub(super) conn: Connection,
    /// Its number within the flow.
    pub(super) port: u16,
    /// The object size its messages ask for (a client's request in progress).
    pub(super) asks: u32,
    plan: Option<Plan>,
}

impl HttpConn {
    /// A client's new connection, numbered `port`: it sends its SYN when polled.
    pub(super) fn connect(cfg: TcpConfig, port: u16) -> Self {
        HttpConn { conn: Connection::connect(cfg), port, asks: 0, plan: None }
    }

    /// A server's connection for a client's SYN on `port`.
    pub(super) fn accept(cfg: TcpConfig, port: u16) -> Self {
        HttpConn { conn: Connection::listen(cfg), port, asks: 0, plan: None }
    }

    /// Whether the connection has a segment to send now; if so it is planned.
    pub(super) fn plan(&mut self, now: SimTime) -> bool {
        self.plan = self.conn.plan(now);
        self.plan.is_some()
    }

    /// The segment planned at the last poll, sent to the end `to`, with its header.
    pub(super) fn take(&mut self, now: SimTime, to: Role) -> (Outgoing, TcpHeader) {
        let plan = self.plan.take().expect("a planned segment");
        let seg = self.conn.dispatch(now, plan);
        let header = TcpHeader { port: self.port, asks: self.asks, ..seg.header };
        (crate::app::tcp::outgoing(&seg, to), header)
    }

    /// A segment of this connection arrived.
    pub(super) fn on_segment(&mut self, now: SimTime, pkt: &Packet, h: &TcpHeader) {
        self.conn.on_segment(now, Arriving { seq: pkt.seq, len: pkt.payload, header: h });
    }

    /// Whether it is over for this end: nothing more will be sent or answered.
    pub(super) fn is_done(&self) -> bool {
        matches!(self.conn.state(), State::TimeWait | State::Closed)
    }
}

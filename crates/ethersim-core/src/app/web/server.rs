//! The web server: accepts the client's connections, reads each request whole, and
//! answers it with the object it names (its size rides on the request's segments,
//! [`crate::wire::TcpHeader::asks`]). Requests on a connection are answered in order.
//! Without persistent connections the server closes a connection after its response
//! (HTTP/1.0); with them it closes when the client has closed.
//!
//! A connection that has reached TIME-WAIT is kept, to answer a retransmitted FIN, until
//! [`TIME_WAIT_KEPT`] newer ones have (2·MSL is not modelled); a SYN for its number
//! opens a new connection in its place (RFC 9293 section 3.10.7.4 lets a SYN reopen a
//! connection in TIME-WAIT).

use crate::time::SimTime;
use crate::transport::tcp::TcpConfig;
use crate::wire::{Packet, Role, TcpFlags, TcpHeader};

use super::conn::HttpConn;
use crate::app::{Next, Outgoing};

/// Connections in TIME-WAIT kept at most.
pub const TIME_WAIT_KEPT: usize = 64;

/// One accepted connection and the response it owes.
#[derive(Clone, Debug)]
struct Served {
    http: HttpConn,
    /// Bytes of the current request read.
    request_read: u64,
    /// The object the client's latest request names, bytes.
    asked: u32,
    /// Response bytes not yet written.
    to_write: u64,
    /// Whether a response has been written in full (a non-persistent connection then
    /// closes).
    answered: bool,
}

/// The server end of a web application.
#[derive(Clone, Debug)]
pub struct WebServer {
    tcp: TcpConfig,
    request_bytes: u64,
    persistent: bool,
    served: Vec<Served>,
    sending: usize,
    last: TcpHeader,
}

impl WebServer {
    /// A server of requests of `request_bytes`, over connections with `tcp`.
    pub fn new(tcp: TcpConfig, request_bytes: u32, persistent: bool) -> Self {
        WebServer {
            tcp,
            request_bytes: u64::from(request_bytes),
            persistent,
            served: Vec::new(),
            sending: 0,
            last: TcpHeader::default(),
        }
    }

    #[inline(never)]
    pub(in crate::app) fn poll(&mut self, now: SimTime, buffer_free: bool) -> Next {
        for s in &mut self.served {
            s.http.conn.on_timer(now);
            serve(s, self.request_bytes, self.persistent);
        }
        self.forget_old();
        if let Some(i) = self.served.iter_mut().position(|s| s.http.plan(now)) {
            if buffer_free {
                self.sending = i;
                return Next::Send;
            }
            return Next::WaitForBuffer;
        }
        match self.served.iter().filter_map(|s| s.http.conn.poll_at()).min() {
            Some(t) => Next::SleepUntil(t),
            None => Next::Idle,
        }
    }

    #[inline(never)]
    pub(in crate::app) fn take(&mut self, now: SimTime) -> Outgoing {
        let (out, header) = self.served[self.sending].http.take(now, Role::Source);
        self.last = header;
        out
    }

    pub(in crate::app) fn last_header(&self) -> &TcpHeader {
        &self.last
    }

    #[inline(never)]
    pub(in crate::app) fn on_packet(&mut self, now: SimTime, pkt: &Packet, h: Option<&TcpHeader>) {
        let Some(h) = h else { return };
        let opens = h.flags.has(TcpFlags::SYN) && !h.flags.has(TcpFlags::ACK);
        let i = match self.served.iter().position(|s| s.http.port == h.port) {
            Some(i) if opens && self.served[i].http.is_done() => {
                self.served.remove(i);
                None
            }
            found => found,
        };
        let i = match i {
            Some(i) => i,
            None if opens => {
                let http = HttpConn::accept(self.tcp, h.port);
                self.served.push(Served { http, request_read: 0, asked: 0, to_write: 0, answered: false });
                self.served.len() - 1
            }
            // A segment for no connection here is ignored (a real stack would answer
            // with a RST).
            None => return,
        };
        let s = &mut self.served[i];
        if pkt.payload > 0 {
            s.asked = h.asks;
        }
        s.http.on_segment(now, pkt, h);
    }

    /// Whether a connection holds work the network has not seen.
    pub(in crate::app) fn has_pending(&self) -> bool {
        self.served.iter().any(|s| s.to_write > 0 || s.http.conn.has_unfinished_output())
    }

    /// Drops closed connections, and the oldest in TIME-WAIT beyond [`TIME_WAIT_KEPT`].
    fn forget_old(&mut self) {
        self.served.retain(|s| s.http.conn.state() != crate::transport::tcp::State::Closed);
        let waiting = self.served.iter().filter(|s| s.http.is_done()).count();
        let mut excess = waiting.saturating_sub(TIME_WAIT_KEPT);
        self.served.retain(|s| {
            if excess > 0 && s.http.is_done() {
                excess -= 1;
                return false;
            }
            true
        });
    }
}

/// Reads requests on `s` and writes their responses as the send buffer takes them.
fn serve(s: &mut Served, request_bytes: u64, persistent: bool) {
    let conn = &mut s.http.conn;
    let n = conn.read(conn.readable());
    s.request_read += n;
    while s.request_read >= request_bytes {
        s.request_read -= request_bytes;
        s.to_write += u64::from(s.asked);
        s.answered = false;
    }
    if s.to_write > 0 && conn.is_established() && !conn.is_closing() {
        let w = s.to_write.min(conn.send_space());
        conn.write(w);
        s.to_write -= w;
        s.answered = s.to_write == 0;
    }
    let done_answering = !persistent && s.answered;
    let client_gone = conn.peer_closed() && conn.readable() == 0 && s.to_write == 0;
    if (done_answering || client_gone) && !conn.is_closing() {
        conn.close();
    }
}

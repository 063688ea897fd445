//! The settings of a TCP connection, with defaults and the document that sets each.

use crate::time::Duration;

/// Every setting of one TCP connection end.
// Each switch is an independent option of the protocol, named as the RFCs name it.
#[allow(clippy::struct_excessive_bools)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpConfig {
    /// Sender maximum segment size, bytes: the largest payload of a segment. The
    /// scenario layer derives it from the path MTU (MTU − 40, RFC 9293 section 3.7.1)
    /// unless set. The effective value is the smaller of this and the peer's MSS option.
    pub mss: u32,
    /// Initial congestion window in segments; 0 picks RFC 6928's
    /// `min(10·MSS, max(2·MSS, 14600))` bytes.
    pub initial_window: u32,
    /// Lower bound of the retransmission timeout. RFC 6298 section 2.4 says 1 s (Linux
    /// uses 200 ms).
    pub rto_min: Duration,
    /// Upper bound of the retransmission timeout: RFC 6298 section 2.5 allows a maximum
    /// of at least 60 s; 60 s is the common value.
    pub rto_max: Duration,
    /// Retransmission timeout before the first RTT sample: 1 s (RFC 6298 section 2.1).
    pub rto_initial: Duration,
    /// Retransmissions of one segment before the connection is given up (Linux's
    /// `tcp_retries2` is 15; RFC 9293 section 3.8.3 asks for at least 100 s, which 15
    /// doublings from 1 s exceed).
    pub max_retransmissions: u32,
    /// Acknowledge every second full-sized segment rather than every segment
    /// (RFC 5681 section 4.2, RFC 1122 section 4.2.3.2).
    pub delayed_ack: bool,
    /// Longest an acknowledgement is delayed: 200 ms, the classic BSD value; RFC 5681
    /// section 4.2 requires less than 500 ms (Linux uses 40 ms at least).
    pub delayed_ack_timeout: Duration,
    /// Duplicate ACKs that trigger fast retransmit: 3 (RFC 5681 section 3.2).
    pub dupack_threshold: u32,
    /// Nagle's algorithm: hold a partial segment while data is unacknowledged, unless
    /// the application has closed (RFC 9293 section 3.7.4, RFC 1122 section 4.2.3.4).
    pub nagle: bool,
    /// Offer and use selective acknowledgements (RFC 2018) with RFC 6675 loss recovery.
    pub sack: bool,
    /// Offer and use window scaling (RFC 7323 section 2), so windows above 64 KiB work.
    pub window_scaling: bool,
    /// Send buffer, bytes: data written by the application and not yet acknowledged
    /// (Linux's `tcp_wmem` maximum, 4 MiB, as autotuning reaches it).
    pub send_buffer: u64,
    /// Receive buffer, bytes: the largest window offered (Linux's `tcp_rmem` maximum,
    /// 6 MiB). Data held out of order and data not yet read take from it.
    pub receive_buffer: u64,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1460,
            initial_window: 0,
            rto_min: Duration::from_secs(1),
            rto_max: Duration::from_secs(60),
            rto_initial: Duration::from_secs(1),
            max_retransmissions: 15,
            delayed_ack: true,
            delayed_ack_timeout: Duration::from_ms(200),
            dupack_threshold: 3,
            nagle: true,
            sack: false,
            window_scaling: true,
            send_buffer: 4 << 20,
            receive_buffer: 6 << 20,
        }
    }
}

impl TcpConfig {
    /// The initial window in bytes for a sender maximum segment size `smss`
    /// (RFC 6928 section 2 unless set).
    pub fn initial_window_bytes(&self, smss: u64) -> u64 {
        if self.initial_window == 0 {
            (10 * smss).min((2 * smss).max(14_600))
        } else {
            u64::from(self.initial_window) * smss
        }
    }

    /// The smallest window shift that lets `receive_buffer` be offered whole
    /// (RFC 7323 section 2.3), or `None` when window scaling is off.
    pub fn window_shift(&self) -> Option<u8> {
        if !self.window_scaling {
            return None;
        }
        let mut shift = 0u8;
        while shift < crate::wire::tcp::MAX_WINDOW_SHIFT && (self.receive_buffer >> shift) > 0xffff {
            shift += 1;
        }
        Some(shift)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_initial_window_follows_rfc_6928() {
        let c = TcpConfig::default();
        assert_eq!(c.initial_window_bytes(1460), 14_600, "10 segments of 1460 B");
        assert_eq!(c.initial_window_bytes(536), 5360);
        assert_eq!(c.initial_window_bytes(8960), 2 * 8960, "at least 2 segments");
        let two = TcpConfig { initial_window: 2, ..c };
        assert_eq!(two.initial_window_bytes(1460), 2920);
    }

    #[test]
    fn the_window_shift_is_the_smallest_that_covers_the_buffer() {
        let mut c = TcpConfig::default();
        assert_eq!(c.window_shift(), Some(7), "6 MiB needs a shift of 7");
        c.receive_buffer = 65_535;
        assert_eq!(c.window_shift(), Some(0));
        c.receive_buffer = 65_536;
        assert_eq!(c.window_shift(), Some(1));
        c.window_scaling = false;
        assert_eq!(c.window_shift(), None);
    }
}

//! The settings of a TCP connection, with defaults and the document that sets each, and
//! the profiles that set them as another implementation does ([`TcpProfile`]).

use super::cc::CcAlgorithm;
use crate::time::Duration;

/// A named set of TCP defaults: the RFCs' (ethersim's own), or those of the stacks and
/// simulators whose results a study compares with. Any setting given explicitly
/// overrides its profile's value. Each value's source is in [`TcpProfile::defaults`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TcpProfile {
    /// The RFCs' defaults (RFC 6298, 5681, 6928, 9293): ethersim's own.
    #[default]
    Rfc,
    /// Linux 6.12's defaults (`include/net/tcp.h`, `net/ipv4/tcp_ipv4.c`, `tcp.c`).
    Linux,
    /// ns-3.48's `TcpSocket`/`TcpSocketBase` attribute defaults.
    Ns3,
    /// ns-2.30's `Agent/TCP/Newreno` with `Agent/TCPSink` (`tcl/lib/ns-default.tcl`).
    Ns2,
}

impl TcpProfile {
    /// Every profile, in the order the documentation lists them.
    pub const ALL: [TcpProfile; 4] = [TcpProfile::Rfc, TcpProfile::Linux, TcpProfile::Ns3, TcpProfile::Ns2];

    /// The profile's name in a scenario (`tcp.profile`).
    pub fn name(self) -> &'static str {
        match self {
            TcpProfile::Rfc => "rfc",
            TcpProfile::Linux => "linux",
            TcpProfile::Ns3 => "ns3",
            TcpProfile::Ns2 => "ns2",
        }
    }

    /// The payload per segment the profile uses when the scenario sets none, given the
    /// largest the path allows (`path_mss`, the path MTU less 40 B): the path's for the
    /// RFCs and Linux; ns-3's `SegmentSize` (536 B) and ns-2's `packetSize_` (1000 B),
    /// each at most the path's.
    pub fn default_mss(self, path_mss: u64) -> u64 {
        match self {
            TcpProfile::Rfc | TcpProfile::Linux => path_mss,
            // ns-3.48 src/internet/model/tcp-socket.cc: SegmentSize, UintegerValue(536).
            TcpProfile::Ns3 => path_mss.min(536),
            // ns-2.30 tcl/lib/ns-default.tcl: Agent/TCP set packetSize_ 1000.
            TcpProfile::Ns2 => path_mss.min(1000),
        }
    }

    /// The profile's value of every setting (the MSS: see [`TcpProfile::default_mss`]).
    /// What a profile's implementation does and ethersim does not model is in docs/tcp.md
    /// (congestion control: a profile never changes it; NewReno unless the settings
    /// choose CUBIC).
    pub fn defaults(self) -> TcpConfig {
        let rfc = TcpConfig { profile: self, ..TcpConfig::default() };
        match self {
            TcpProfile::Rfc => rfc,
            TcpProfile::Linux => TcpConfig {
                // include/net/tcp.h: TCP_INIT_CWND 10.
                initial_window: 10,
                // include/net/tcp.h: TCP_RTO_MIN (HZ / 5), TCP_RTO_MAX (120 * HZ),
                // TCP_TIMEOUT_INIT (1 * HZ).
                rto_min: Duration::from_ms(200),
                rto_max: Duration::from_secs(120),
                rto_initial: Duration::from_secs(1),
                // Documentation/networking/ip-sysctl.rst: tcp_retries2 15.
                max_retransmissions: 15,
                // include/net/tcp.h: TCP_DELACK_MIN (HZ / 25) = 40 ms, the first delayed-ACK
                // timeout (the ATO grows towards TCP_DELACK_MAX, 200 ms, not modelled).
                delayed_ack: true,
                delayed_ack_timeout: Duration::from_ms(40),
                // tcp_ipv4.c: sysctl_tcp_reordering = TCP_FASTRETRANS_THRESH (3).
                dupack_threshold: 3,
                // tcp_input.c: duplicate ACKs raise sacked_out, so tcp_cwnd_test lets one
                // new segment out on each of the first two (RFC 3042's effect).
                limited_transmit: true,
                nagle: true,
                // tcp_ipv4.c: sysctl_tcp_sack = 1, sysctl_tcp_window_scaling = 1.
                sack: true,
                window_scaling: true,
                // tcp.c: tcp_wmem[2] 4 MiB, tcp_rmem[2] 6 MiB (the autotuning maxima).
                send_buffer: 4 << 20,
                receive_buffer: 6 << 20,
                // Timers run in jiffies: 1 ms at HZ = 1000.
                clock_granularity: Duration::from_ms(1),
                ..rfc
            },
            TcpProfile::Ns3 => TcpConfig {
                // ns-3.48 src/internet/model/tcp-socket.cc and tcp-socket-base.cc.
                initial_window: 10,                          // InitialCwnd
                rto_min: Duration::from_secs(1),             // MinRto
                rto_max: Duration::from_secs(60),            // the RTO's cap in TcpSocketBase
                rto_initial: Duration::from_secs(1),         // RttEstimator InitialEstimation
                max_retransmissions: 6,                      // DataRetries
                delayed_ack: true,                           // DelAckCount 2
                delayed_ack_timeout: Duration::from_ms(200), // DelAckTimeout
                dupack_threshold: 3,                         // ReTxThreshold
                limited_transmit: true,                      // LimitedTransmit
                nagle: false,                                // TcpNoDelay true
                sack: true,                                  // Sack
                window_scaling: true,                        // WindowScaling
                send_buffer: 131_072,                        // SndBufSize
                receive_buffer: 131_072,                     // RcvBufSize
                clock_granularity: Duration::from_ms(1),     // ClockGranularity
                ..rfc
            },
            TcpProfile::Ns2 => TcpConfig {
                // ns-2.30 tcl/lib/ns-default.tcl, Agent/TCP unless noted.
                initial_window: 2,                           // windowInit_ 2
                rto_min: Duration::from_ms(200),             // minrto_ 0.2
                rto_max: Duration::from_secs(100_000),       // maxrto_ 100000
                rto_initial: Duration::from_secs(3),         // rtxcur_init_ 3.0
                max_retransmissions: u32::MAX,               // ns-2's agents never give up
                delayed_ack: false,                          // Agent/TCPSink ACKs every packet
                delayed_ack_timeout: Duration::from_ms(100), // TCPSink/DelAck interval_ 100ms
                dupack_threshold: 3,                         // numdupacks_ 3
                limited_transmit: true,                      // singledup_ 1
                nagle: false,                                // agents send whole packets
                sack: false,                                 // Agent/TCP/Newreno
                window_limit: 20,                            // window_ 20 (packets)
                clock_granularity: Duration::from_ms(10),    // tcpTick_ 0.01
                ..rfc
            },
        }
    }
}

impl std::str::FromStr for TcpProfile {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TcpProfile::ALL.into_iter().find(|p| p.name() == s).ok_or_else(|| {
            let names: Vec<&str> = TcpProfile::ALL.iter().map(|p| p.name()).collect();
            format!("{s:?} is no TCP profile; expected one of {}", names.join(", "))
        })
    }
}

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
    /// Limited Transmit (RFC 3042): on each of the first two duplicate ACKs, send one
    /// segment of new data beyond the congestion window (at most two in all), cwnd
    /// unchanged, so that a small window still draws the duplicate ACKs fast retransmit
    /// needs. On by default: RFC 5681 section 3.2 step 1 says a sender SHOULD, and
    /// ns-3, ns-2 (`singledup_ 1`) and Linux all do it.
    pub limited_transmit: bool,
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
    /// A sender-side cap on the segments outstanding, whatever the peer offers (ns-2's
    /// `window_`); 0: none. Limited Transmit stays within it too.
    pub window_limit: u32,
    /// The clock granularity G of RFC 6298 section 2: RTO = SRTT + max(G, 4·RTTVAR).
    /// 1 ps, ethersim's clock, unless a profile sets its stack's tick.
    pub clock_granularity: Duration,
    /// The profile these defaults came from (reported in the run's summary).
    pub profile: TcpProfile,
    /// The congestion control algorithm: NewReno (RFC 5681, RFC 6582) unless set. No
    /// profile changes it, so that every profile's results stay NewReno's unless CUBIC
    /// (RFC 9438, Linux's and ns-3's default) is asked for.
    pub congestion_control: CcAlgorithm,
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
            limited_transmit: true,
            nagle: true,
            sack: false,
            window_scaling: true,
            send_buffer: 4 << 20,
            receive_buffer: 6 << 20,
            window_limit: 0,
            clock_granularity: Duration(1),
            profile: TcpProfile::Rfc,
            congestion_control: CcAlgorithm::NewReno,
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
    fn each_profile_has_the_defaults_its_sources_give() {
        use crate::time::Duration as D;
        let rfc = TcpConfig::default();
        // The RFCs: RFC 6928 (IW), RFC 6298 2.1/2.4/2.5 (RTO 1 s, at least 1 s, 60 s),
        // RFC 5681 4.2 (delayed ACKs, 200 ms), RFC 9293 3.7.4 (Nagle), RFC 5681 3.2 step 1
        // (Limited Transmit, SHOULD).
        assert_eq!(
            (rfc.initial_window, rfc.rto_min, rfc.rto_max, rfc.rto_initial, rfc.delayed_ack_timeout),
            (0, D::from_secs(1), D::from_secs(60), D::from_secs(1), D::from_ms(200))
        );
        assert!(rfc.limited_transmit && rfc.nagle && !rfc.sack && rfc.delayed_ack);
        assert_eq!((rfc.window_limit, rfc.clock_granularity, rfc.profile), (0, D(1), TcpProfile::Rfc));
        let expected = [
            // Linux 6.12: TCP_INIT_CWND, TCP_RTO_MIN, TCP_RTO_MAX, TCP_TIMEOUT_INIT,
            // tcp_retries2, TCP_DELACK_MIN, tcp_reordering, tcp_sack, tcp_window_scaling,
            // tcp_wmem[2], tcp_rmem[2], a jiffy at HZ = 1000.
            TcpConfig {
                initial_window: 10,
                rto_min: D::from_ms(200),
                rto_max: D::from_secs(120),
                rto_initial: D::from_secs(1),
                max_retransmissions: 15,
                delayed_ack_timeout: D::from_ms(40),
                limited_transmit: true,
                sack: true,
                clock_granularity: D::from_ms(1),
                profile: TcpProfile::Linux,
                ..rfc
            },
            // ns-3.48: InitialCwnd, MinRto, the 60 s cap, InitialEstimation, DataRetries,
            // DelAckCount 2, DelAckTimeout, ReTxThreshold, LimitedTransmit, TcpNoDelay,
            // Sack, WindowScaling, SndBufSize, RcvBufSize, ClockGranularity.
            TcpConfig {
                initial_window: 10,
                max_retransmissions: 6,
                limited_transmit: true,
                nagle: false,
                sack: true,
                send_buffer: 131_072,
                receive_buffer: 131_072,
                clock_granularity: D::from_ms(1),
                profile: TcpProfile::Ns3,
                ..rfc
            },
            // ns-2.30: windowInit_ 2, minrto_ 0.2, maxrto_ 100000, rtxcur_init_ 3.0, no
            // give-up, Agent/TCPSink's ACK per packet (DelAck interval_ 100 ms),
            // numdupacks_ 3, singledup_ 1, whole packets, Newreno without SACK,
            // window_ 20, tcpTick_ 0.01.
            TcpConfig {
                initial_window: 2,
                rto_min: D::from_ms(200),
                rto_max: D::from_secs(100_000),
                rto_initial: D::from_secs(3),
                max_retransmissions: u32::MAX,
                delayed_ack: false,
                delayed_ack_timeout: D::from_ms(100),
                limited_transmit: true,
                nagle: false,
                window_limit: 20,
                clock_granularity: D::from_ms(10),
                profile: TcpProfile::Ns2,
                ..rfc
            },
        ];
        for want in expected {
            assert_eq!(want.profile.defaults(), want, "{}", want.profile.name());
        }
        // SegmentSize 536 (ns-3), packetSize_ 1000 (ns-2), the path's otherwise.
        let mss: Vec<u64> = TcpProfile::ALL.iter().map(|p| p.default_mss(1460)).collect();
        assert_eq!(mss, vec![1460, 1460, 536, 1000]);
        assert_eq!(TcpProfile::Ns2.default_mss(900), 900, "never more than the path allows");
        for p in TcpProfile::ALL {
            assert_eq!(p.name().parse::<TcpProfile>(), Ok(p));
        }
        assert!("ns4".parse::<TcpProfile>().unwrap_err().contains("rfc, linux, ns3, ns2"));
        assert_eq!(TcpProfile::default().defaults(), TcpConfig::default());
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

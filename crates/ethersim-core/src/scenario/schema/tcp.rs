//! TCP applications and the TCP settings of a connection.

use crate::scenario::units::{DurationSpec, RateSpec, SizeSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::common::zero_time;

/// A file transfer over TCP: connection set-up, the data, and the close.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpFileSpec {
    /// Unique name, used in reports. Default `apps[i]`.
    #[serde(default)]
    pub name: Option<String>,
    /// Sending host (it opens the connection).
    pub from: String,
    /// Receiving host: another host, or the sending host itself when that is a station of a
    /// segment (its frames cross the segment and come back).
    pub to: String,
    /// File size.
    pub size: SizeSpec,
    /// When the sender sends its SYN. Default 0 s.
    #[serde(default = "zero_time")]
    pub start: DurationSpec,
    /// How fast the receiving application reads, payload bits per second; when it falls
    /// behind, its buffer fills and the window closes. Default: as fast as data arrives.
    #[serde(default)]
    pub read_rate: Option<RateSpec>,
    /// TCP settings of both ends. Default: every setting at its default.
    #[serde(default)]
    pub tcp: TcpSpec,
}

/// A long-lived TCP flow: writes as much as the connection takes from `start` until
/// `stop`, then closes. Reports goodput over a measurement window.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpBulkSpec {
    /// Unique name, used in reports. Default `apps[i]`.
    #[serde(default)]
    pub name: Option<String>,
    /// Sending host (it opens the connection).
    pub from: String,
    /// Receiving host: another host, or the sending host itself when that is a station of a
    /// segment (its frames cross the segment and come back).
    pub to: String,
    /// When the sender sends its SYN. Default 0 s.
    #[serde(default = "zero_time")]
    pub start: DurationSpec,
    /// When the application stops writing and closes. Default: never (give the
    /// scenario a `duration`).
    #[serde(default)]
    pub stop: Option<DurationSpec>,
    /// Start of the goodput measurement window. Default: `start`.
    #[serde(default)]
    pub measure_from: Option<DurationSpec>,
    /// End of the goodput measurement window. Default: `stop`, or the scenario's
    /// `duration`.
    #[serde(default)]
    pub measure_until: Option<DurationSpec>,
    /// How fast the receiving application reads, payload bits per second; when it falls
    /// behind, its buffer fills and the window closes. Default: as fast as data arrives.
    #[serde(default)]
    pub read_rate: Option<RateSpec>,
    /// TCP settings of both ends. Default: every setting at its default.
    #[serde(default)]
    pub tcp: TcpSpec,
}

/// Whose defaults a TCP application's unset settings take (docs/tcp.md lists each
/// profile's values and their sources).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TcpProfileName {
    /// The RFCs' defaults: ethersim's own.
    Rfc,
    /// Linux 6.12's defaults.
    Linux,
    /// ns-3.48's TcpSocket and TcpSocketBase attribute defaults.
    Ns3,
    /// ns-2.30's Agent/TCP/Newreno with Agent/TCPSink.
    Ns2,
}

/// A TCP congestion control algorithm (docs/tcp.md describes each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CongestionControlName {
    /// NewReno (RFC 5681, RFC 6582).
    NewReno,
    /// CUBIC (RFC 9438), Linux's and ns-3's default.
    Cubic,
}

impl From<CongestionControlName> for crate::transport::tcp::CcAlgorithm {
    fn from(name: CongestionControlName) -> Self {
        match name {
            CongestionControlName::NewReno => Self::NewReno,
            CongestionControlName::Cubic => Self::Cubic,
        }
    }
}

/// TCP settings; each is optional and has the default stated, with the document that
/// sets it, unless `profile` names another implementation's defaults.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// Whose defaults the settings left out take: `rfc` (the default: the RFCs'), `linux`,
    /// `ns3` or `ns2`. A setting given here overrides its profile's value. The profile in
    /// force is in the flow's summary (`tcp_profile`).
    #[serde(default)]
    pub profile: Option<TcpProfileName>,
    /// Congestion control: `newreno` (RFC 5681, RFC 6582) or `cubic` (RFC 9438). Default
    /// newreno, under every profile (Linux and ns-3 run CUBIC by default: choose it
    /// here).
    #[serde(default)]
    pub congestion_control: Option<CongestionControlName>,
    /// Maximum segment size (payload per segment). Default: the path MTU less 40 B of
    /// IPv4 and TCP headers (RFC 9293 section 3.7.1): 1460 B on a 1500 B MTU.
    #[serde(default)]
    pub mss: Option<SizeSpec>,
    /// Initial congestion window, segments. Default min(10·MSS, max(2·MSS, 14600 B))
    /// (RFC 6928).
    #[serde(default)]
    pub initial_window: Option<u32>,
    /// Minimum retransmission timeout. Default 1 s (RFC 6298 section 2.4; Linux uses 200 ms).
    #[serde(default)]
    pub rto_min: Option<DurationSpec>,
    /// Maximum retransmission timeout. Default 60 s (RFC 6298 section 2.5).
    #[serde(default)]
    pub rto_max: Option<DurationSpec>,
    /// Retransmission timeout before the first RTT sample. Default 1 s (RFC 6298 section 2.1).
    #[serde(default)]
    pub rto_initial: Option<DurationSpec>,
    /// Timer expiries for one segment before the connection is given up and reset.
    /// Default 15 (Linux `tcp_retries2`).
    #[serde(default)]
    pub max_retransmissions: Option<u32>,
    /// Acknowledge every second full-sized segment (RFC 5681 section 4.2). Default true.
    #[serde(default)]
    pub delayed_ack: Option<bool>,
    /// Longest delay of an acknowledgement. Default 200 ms (RFC 5681 section 4.2
    /// requires less than 500 ms).
    #[serde(default)]
    pub delayed_ack_timeout: Option<DurationSpec>,
    /// Duplicate ACKs that trigger fast retransmit. Default 3 (RFC 5681 section 3.2).
    #[serde(default)]
    pub dupack_threshold: Option<u32>,
    /// Limited Transmit (RFC 3042): one new segment beyond the congestion window on each
    /// of the first two duplicate ACKs, so that a small window still brings the duplicate
    /// ACKs fast retransmit needs (RFC 5681 section 3.2: SHOULD; ns-3, ns-2 and Linux do
    /// it). Default true.
    #[serde(default)]
    pub limited_transmit: Option<bool>,
    /// Nagle's algorithm (RFC 9293 section 3.7.4). Default true.
    #[serde(default)]
    pub nagle: Option<bool>,
    /// Selective acknowledgements (RFC 2018) with RFC 6675 loss recovery. Default false.
    #[serde(default)]
    pub sack: Option<bool>,
    /// Window scaling (RFC 7323), so windows above 64 KiB work. Default true.
    #[serde(default)]
    pub window_scaling: Option<bool>,
    /// Send buffer: data written and not yet acknowledged. Default 4 MiB (Linux
    /// `tcp_wmem` maximum).
    #[serde(default)]
    pub send_buffer: Option<SizeSpec>,
    /// Receive buffer: the largest window offered. Default 6 MiB (Linux `tcp_rmem`
    /// maximum).
    #[serde(default)]
    pub receive_buffer: Option<SizeSpec>,
    /// A sender-side cap on the segments outstanding, whatever the receiver offers (ns-2's
    /// `window_`); 0 for none. Default: none (the `ns2` profile: 20).
    #[serde(default)]
    pub window_limit: Option<u32>,
    /// The clock granularity G of the retransmission timeout, RTO = SRTT + max(G,
    /// 4·RTTVAR) (RFC 6298 section 2). Default 1 ps, ethersim's clock (`linux` and
    /// `ns3`: 1 ms; `ns2`: 10 ms, its `tcpTick_`).
    #[serde(default)]
    pub clock_granularity: Option<DurationSpec>,
}

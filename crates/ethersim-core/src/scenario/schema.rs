//! The scenario file's schema: the one definition of what a scenario may say.
//!
//! These serde types are the single source of truth: defaults and documentation live
//! here, the JSON Schema is generated from them (`ethersim schema`), and unknown keys
//! are errors everywhere.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::units::{ByteCountSpec, DurationSpec, RateSpec, SizeSpec};
use crate::time::{BitRate, Bytes, Duration};

/// A whole scenario: the network, the traffic and the run's limits.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Name used in reports.
    #[serde(default = "default_name")]
    pub name: String,
    /// Free text describing the scenario.
    #[serde(default)]
    pub description: String,
    /// Seed of every random stream of the run.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Simulated time limit. Without it, the run ends when every application has
    /// finished and every packet has left the network.
    #[serde(default)]
    pub duration: Option<DurationSpec>,
    /// Stop after this many events (a safety budget).
    #[serde(default)]
    pub max_events: Option<u64>,
    /// A measurement window: counters are also read over it alone (`measured_*` columns of
    /// ports and flows), leaving out a warm-up and a cool-down.
    #[serde(default)]
    pub measure: Option<MeasureSpec>,
    /// End hosts.
    #[serde(default)]
    pub hosts: Vec<HostSpec>,
    /// Store-and-forward switches.
    #[serde(default)]
    pub switches: Vec<SwitchSpec>,
    /// Full-duplex point-to-point links.
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    /// Shared-medium segments (classic half-duplex Ethernet with CSMA/CD): stations on a
    /// coaxial cable at positions in metres, with real propagation between every pair.
    #[serde(default)]
    pub segments: Vec<SegmentSpec>,
    /// Applications (one flow each).
    #[serde(default)]
    pub apps: Vec<AppSpec>,
    /// Record the idle intervals of every port (the silences between its transmissions,
    /// which an LPI PHY could sleep in): the `idle_*` columns of the ports table and the
    /// `idle_intervals` table. The ports of MPI jobs' hosts and their link partners always
    /// record them. Default false.
    #[serde(default)]
    pub record_idle_intervals: bool,
    /// MPI-like parallel jobs: ranks on hosts running a synthetic collective benchmark or
    /// a replayed trace (see docs/mpi.md).
    #[serde(default)]
    pub mpi_jobs: Vec<MpiJobSpec>,
    /// Time series to record: a port's buffer occupancy and gate over time.
    #[serde(default)]
    pub series: Vec<SeriesSpec>,
    /// Periodic PAUSE generators: ports that send PAUSE to their link partner at a fixed
    /// interval (IEEE 802.3x).
    #[serde(default)]
    pub pause_generators: Vec<PauseGeneratorSpec>,
    /// Packet captures: the frames ports send and receive, as real bytes in pcap or pcapng
    /// files in the run's output folder (see docs/captures.md).
    #[serde(default)]
    pub captures: Vec<CaptureSpec>,
}

/// A packet capture of one port of a point-to-point link: the frames it sends
/// (timestamped at their first bit) and receives (at their last bit), with real headers
/// (Ethernet II, IPv4, UDP, TCP, ICMP echo, MAC control PAUSE) and valid checksums, in
/// time order; payload bytes are zeros. The frame is stored without its FCS, as a NIC's
/// driver captures it.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaptureSpec {
    /// The port, as `node->peer`, e.g. `"server->switch"`.
    pub port: String,
    /// The file's name, in the output folder's `captures/` folder. Default
    /// `NODE-PEER.pcapng` (`.pcap` for that format).
    #[serde(default)]
    pub file: Option<String>,
    /// `pcapng` (the port's name, rate and each frame's direction are in the file) or
    /// `pcap`. Default pcapng.
    #[serde(default)]
    pub format: CaptureFormatSpec,
    /// Timestamp resolution: `us`, `ns` or `ps` (pcapng only: every instant exactly).
    /// Default ns.
    #[serde(default)]
    pub resolution: ResolutionSpec,
    /// Bytes kept of each frame, a number (`96`) or a size (`"96 B"`), at least 64 B; a
    /// longer frame keeps its first `snaplen` bytes and its length. Default 262144 (whole
    /// frames, as Wireshark's default).
    #[serde(default = "default_snaplen")]
    pub snaplen: ByteCountSpec,
    /// The file's size bound: once the next frame's record would take the file past it,
    /// the capture keeps no more frames and closes the file (a valid file of whole
    /// records); the run goes on, and its summary says the capture was `truncated` and
    /// how many frames it did not keep. At least 1 kB. Default 1 GiB (about 0.9 s of a
    /// saturated 10 Gb/s port, both ways).
    #[serde(default = "default_capture_max_bytes")]
    pub max_bytes: SizeSpec,
    /// Frames kept: `both`, `out` (sent) or `in` (received). Default both.
    #[serde(default)]
    pub direction: CaptureDirectionSpec,
}

const fn default_snaplen() -> ByteCountSpec {
    ByteCountSpec(Bytes(262_144))
}

const fn default_capture_max_bytes() -> SizeSpec {
    SizeSpec(Bytes(crate::capture::DEFAULT_MAX_BYTES))
}

/// A capture file's format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CaptureFormatSpec {
    /// pcapng.
    #[default]
    Pcapng,
    /// Classic pcap.
    Pcap,
}

/// A capture's timestamp resolution.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResolutionSpec {
    /// Microseconds.
    Us,
    /// Nanoseconds.
    #[default]
    Ns,
    /// Picoseconds (pcapng only).
    Ps,
}

/// Which frames of a port a capture keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CaptureDirectionSpec {
    /// Sent and received.
    #[default]
    Both,
    /// Sent.
    Out,
    /// Received.
    In,
}

const fn yes() -> bool {
    true
}

/// How a host's NIC treats IEEE 802.3x PAUSE frames.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HostPauseSpec {
    /// Stop sending data frames for the pause time a PAUSE frame asks for (the frame on
    /// the wire finishes first). Otherwise PAUSE is counted and ignored. Default true.
    #[serde(default = "yes")]
    pub honour: bool,
}

impl Default for HostPauseSpec {
    fn default() -> Self {
        HostPauseSpec { honour: true }
    }
}

/// IEEE 802.3x flow control of a switch's ports.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwitchPauseSpec {
    /// Honour PAUSE frames received from link partners. Default true.
    #[serde(default = "yes")]
    pub honour: bool,
    /// Send PAUSE when an output buffer reaches `high_water`: to each link partner whose
    /// frames arrive into that buffer, re-sent when half the pause has run while the
    /// buffer stays above `low_water`, and released (pause time 0) at or below
    /// `low_water`. Default false.
    #[serde(default)]
    pub send: bool,
    /// Buffer occupancy that triggers PAUSE. Default: the port buffer less the headroom
    /// for what can still arrive once it is reached, from every input but the smallest
    /// (each: the frame that reaches the mark; what its partner sends while the XOFF waits
    /// behind a maximum frame at the switch's rate towards it; the link's round trip, the
    /// partner's response time of IEEE 802.3 Annex 31B.3.7 and one more maximum frame, at
    /// the partner's rate; see docs/pause-and-rate-switching.md).
    #[serde(default)]
    pub high_water: Option<SizeSpec>,
    /// Buffer occupancy at or below which the paused partners are released. Default half
    /// of `high_water`.
    #[serde(default)]
    pub low_water: Option<SizeSpec>,
    /// Pause time sent, in quanta of 512 bit times (1 to 65535). Default 65535, the
    /// largest, as switch chips send (33.6 ms at 1 Gb/s).
    #[serde(default)]
    pub quanta: Option<u16>,
    /// Release a paused partner at the low-water mark with a pause time of 0 (XON).
    /// With false, the switch only stops re-sending PAUSE and the partner's pause runs
    /// its full length (switches that send no XON). Default true.
    #[serde(default)]
    pub release: Option<bool>,
}

impl Default for SwitchPauseSpec {
    fn default() -> Self {
        SwitchPauseSpec {
            honour: true,
            send: false,
            high_water: None,
            low_water: None,
            quanta: None,
            release: None,
        }
    }
}

/// A port that sends PAUSE to its link partner at a fixed interval (how a link-rate
/// switch was emulated on real hardware).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PauseGeneratorSpec {
    /// The sending port, as `node->peer` (its node and the node at the other end of its
    /// link), e.g. `"client->switch"`.
    pub port: String,
    /// Time between PAUSE frames.
    pub every: DurationSpec,
    /// Pause asked for by each frame: rounded up to whole quanta of 512 bit times at the
    /// link's rate when sent (10 ms at 1 Gb/s is 19532 quanta, 10.000384 ms); at most
    /// 65535 quanta.
    pub pause: DurationSpec,
    /// The first PAUSE. Default 0 s.
    #[serde(default = "zero_time")]
    pub start: DurationSpec,
    /// No PAUSE at or after this instant. Default: none.
    #[serde(default)]
    pub stop: Option<DurationSpec>,
    /// Most PAUSE frames to send. Default: no limit.
    #[serde(default)]
    pub count: Option<u64>,
}

fn default_name() -> String {
    "scenario".to_owned()
}
const fn default_seed() -> u64 {
    1
}
const fn zero_time() -> DurationSpec {
    DurationSpec(Duration::ZERO)
}
const fn default_buffers() -> u32 {
    256
}
const fn default_mtu() -> SizeSpec {
    SizeSpec(Bytes(1500))
}
const fn default_payload() -> SizeSpec {
    SizeSpec(Bytes(1472))
}

/// A measurement window.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MeasureSpec {
    /// Its start.
    pub from: DurationSpec,
    /// Its end. Default: the run's duration.
    #[serde(default)]
    pub until: Option<DurationSpec>,
}

/// An end host with finite speed.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    /// Unique node name.
    pub name: String,
    /// CPU time to send one packet (its network stack and driver). Default 0 s.
    #[serde(default = "zero_time")]
    pub tx_processing: DurationSpec,
    /// CPU time to receive one packet. Default 0 s.
    #[serde(default = "zero_time")]
    pub rx_processing: DurationSpec,
    /// Interrupt service time of the transmit path: the controller holds one frame at a
    /// time and, after each frame's last bit, waits this long for the host before it can
    /// start the next (the hosts of the CSMA/CD capacity study: 100 us). Default 0 s: a
    /// NIC that sends from its queue back to back.
    #[serde(default = "zero_time")]
    pub tx_interrupt: DurationSpec,
    /// Variation of the interrupt service time: each service takes `tx_interrupt` plus a
    /// time drawn uniformly in [0, this), from the random stream `host/<name>/interrupt`
    /// (real hosts' service times vary; identical fixed ones can lock hosts into step).
    /// Needs a `tx_interrupt`. Default 0 s: every service takes exactly `tx_interrupt`.
    #[serde(default = "zero_time")]
    pub tx_interrupt_jitter: DurationSpec,
    /// Transmit buffers: packets accepted from applications and not yet off the wire.
    /// Default 256.
    #[serde(default = "default_buffers")]
    pub tx_buffers: u32,
    /// Receive ring slots: frames received and not yet processed. Default 256.
    #[serde(default = "default_buffers")]
    pub rx_buffers: u32,
    /// How the NIC treats PAUSE frames. Default: honours them.
    #[serde(default)]
    pub pause: HostPauseSpec,
    /// Timing variability of the host's software: how much longer than asked the sleeps
    /// and MPI calls of the ranks it runs take (see docs/mpi.md). Default none: every
    /// time is exact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing_variability: Option<TimingVariabilitySpec>,
}

/// What a host's software adds to the times it is asked for, each a distribution drawn
/// from every rank's own random streams (`host/<host>/sleep_overshoot/<job>/<i>` and
/// `host/<host>/call_overhead/<job>/<i>`, `i` the rank's place on the host from 0). Either
/// may be left out: that time is then exact.
///
/// Suggested values (docs/mpi.md gives the sources): a Linux thread's timer fires up to
/// its timer slack late, never early, and the slack every process inherits is 50 us
/// (`PR_SET_TIMERSLACK(2const)`); with nothing else waking an idle host, a sleep ends
/// about the slack late, so `sleep_overshoot = { kind = "exponential", offset = "50 us",
/// mean = "5 us" }` (the 5 us wake-up latency is an assumption: measure yours), or
/// `kind = "empirical"` from a measured histogram.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimingVariabilitySpec {
    /// Added to every sleep of a rank: the synthetic benchmark's `sleep` after each call
    /// and at the end (a zero sleep is none). Not to a replayed trace's compute times,
    /// which were measured with the real host's noise in them.
    #[serde(default)]
    pub sleep_overshoot: Option<VariabilitySpec>,
    /// Added to the software overhead of every MPI call (`mpi_jobs[].overhead`), before
    /// its first message leaves.
    #[serde(default)]
    pub call_overhead: Option<VariabilitySpec>,
}

/// A distribution of extra time. `kind` chooses it and says which other keys it takes:
/// `exponential` (`offset`, `mean`): `offset` plus an exponential of mean `mean`, so a
/// mean of `offset + mean` (`mean = "0 s"` is the constant `offset`); `lognormal`
/// (`mean`, `std`): the lognormal of that mean and standard deviation (not the
/// parameters of its logarithm); `empirical` (`points`): a table of its cumulative
/// distribution, linear between points. Each time is at most 1 s.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VariabilitySpec {
    /// The distribution.
    pub kind: VariabilityKind,
    /// `exponential`: the fixed part, added to every draw. Default 0 s.
    #[serde(default)]
    pub offset: Option<DurationSpec>,
    /// `exponential`: the mean of the exponential part; `lognormal`: the mean (above 0).
    #[serde(default)]
    pub mean: Option<DurationSpec>,
    /// `lognormal`: the standard deviation.
    #[serde(default)]
    pub std: Option<DurationSpec>,
    /// `empirical`: points of the cumulative distribution function in order, from the
    /// smallest value (`p = 0`) to the largest (`p = 1`), `p` rising strictly and values
    /// never falling. A draw takes a uniform `U` in [0, 1) and interpolates linearly
    /// between the values of the two points whose `p` surround it; two points at one
    /// value make a step (that value is drawn with the difference of their `p`).
    #[serde(default)]
    pub points: Option<Vec<QuantileSpec>>,
}

/// The distributions a timing variability may follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VariabilityKind {
    /// A constant plus an exponential.
    Exponential,
    /// Lognormal, by its mean and standard deviation.
    Lognormal,
    /// A table of the cumulative distribution function.
    Empirical,
}

/// One point of a cumulative distribution function.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuantileSpec {
    /// The time.
    pub value: DurationSpec,
    /// The fraction of draws at or below it, 0 to 1.
    pub p: f64,
}

/// A store-and-forward, output-queued switch.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwitchSpec {
    /// Unique node name.
    pub name: String,
    /// Buffer of each output port. Default: 1 MiB per port, no frame limit.
    #[serde(default = "default_port_buffer")]
    pub port_buffer: BufferSpec,
    /// IEEE 802.3x flow control. Default: PAUSE honoured, never sent.
    #[serde(default)]
    pub pause: SwitchPauseSpec,
}

fn default_port_buffer() -> BufferSpec {
    BufferSpec { bytes: Some(SizeSpec(Bytes(1 << 20))), frames: None, counts_in_service: true }
}

/// Limits of one output queue; a frame that would exceed either is dropped (drop-tail).
/// At least one limit must be given.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BufferSpec {
    /// Most bytes (frame lengths) held at once.
    #[serde(default)]
    pub bytes: Option<SizeSpec>,
    /// Most frames held at once.
    #[serde(default)]
    pub frames: Option<u32>,
    /// Whether the frame being sent counts toward the limits until its last bit has left.
    /// true (default): the limits are the port's packet memory; `frames = N` is also
    /// ns-2's `DropTail` with `limit_` N (N packets in all). false: only the frames
    /// waiting behind it count; `frames = N` is ns-3's `DropTailQueue` with `MaxSize` N
    /// on a point-to-point device (N waiting, one more being sent).
    #[serde(default = "yes")]
    pub counts_in_service: bool,
}

/// A full-duplex point-to-point link; each direction has the same rate and delay.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// The two nodes it joins, by name.
    pub between: [String; 2],
    /// Data rate of each direction.
    pub rate: RateSpec,
    /// Propagation delay. Default 0 s.
    #[serde(default = "zero_time")]
    pub delay: DurationSpec,
    /// Largest payload of a frame: 1500 B (standard) up to 9000 B (jumbo). Default 1500 B.
    #[serde(default = "default_mtu")]
    pub mtu: SizeSpec,
    /// Scheduled outages: intervals during which the link carries nothing in either
    /// direction. A frame whose last bit has not left when an outage starts is lost;
    /// queued frames wait for the end (a full queue drops as usual). In time order, not
    /// overlapping. Default none.
    #[serde(default)]
    pub outages: Vec<OutageSpec>,
    /// Frame loss on the link: random, scripted, or both. Default none.
    #[serde(default)]
    pub loss: Option<LossSpec>,
    /// Energy Efficient Ethernet (802.3az Low Power Idle) on the link's PHYs. Default
    /// none: the PHYs never sleep.
    #[serde(default)]
    pub eee: Option<EeeSpec>,
    /// Link-rate switching (Rapid PHY Selection, Adaptive Link Rate): the rates the link
    /// can run at, the time it is dark at each change, and the policy that decides.
    /// `rate` is the initial rate. Default none: the link keeps `rate`.
    #[serde(default)]
    pub rate_switching: Option<RateSwitchingSpec>,
    /// Available capacity that varies at random: the rate is redrawn uniformly in a
    /// range after exponentially distributed holding times, from the link's own random
    /// stream (the same trajectory whatever the traffic). Default none: the link keeps
    /// `rate`. Not with `rate_switching`.
    #[serde(default)]
    pub capacity: Option<CapacitySpec>,
}

/// Capacity redrawn at random: uniform over [`min`, `max`] (whole bit/s), held for
/// exponential times of mean `mean_hold`. The link starts at its `rate`; the first redraw
/// comes after the first holding time.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CapacitySpec {
    /// Lowest capacity.
    pub min: RateSpec,
    /// Highest capacity.
    pub max: RateSpec,
    /// Mean time between redraws.
    pub mean_hold: DurationSpec,
    /// Vary only the direction sent by this node (one end of the link). Default: both
    /// directions, at the same rate.
    #[serde(default)]
    pub from: Option<String>,
}

/// The PHY types with Low Power Idle profiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum PhyType {
    /// 100 Mb/s over twisted pair.
    #[serde(rename = "100BASE-TX")]
    Base100Tx,
    /// 1 Gb/s over twisted pair: both directions sleep and wake together.
    #[serde(rename = "1000BASE-T")]
    Base1000T,
    /// 10 Gb/s over twisted pair.
    #[serde(rename = "10GBASE-T")]
    Base10GT,
}

/// Low Power Idle on a link. Timing and power come from the PHY type's profile (see
/// docs/eee.md); every value can be overridden.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EeeSpec {
    /// The PHY type.
    pub phy: PhyType,
    /// Both directions sleep and wake together (as 1000BASE-T requires). Default: true
    /// for 1000BASE-T, false otherwise.
    #[serde(default)]
    pub symmetric: Option<bool>,
    /// When to sleep and wake: for both ends, or for the link in the symmetric mode.
    /// Default `{ kind = "immediate" }`.
    #[serde(default)]
    pub policy: Option<LpiPolicySpec>,
    /// Settings of one end's transmitter (its port), by node name, overriding the link's:
    /// its policy and timing (each direction apart only) and its power (any mode).
    #[serde(default)]
    pub ends: std::collections::BTreeMap<String, EeeEndSpec>,
    /// A frame that arrives while the PHY goes to sleep aborts the sleep (true) or waits
    /// for it to finish (false). Default false.
    #[serde(default)]
    pub abort_sleep: bool,
    /// The wake time each end asks for, by node name; the link uses the larger of its
    /// two ends' (802.3az's data-link-layer agreement). Default: the profile's Tw.
    #[serde(default)]
    pub wake_time: std::collections::BTreeMap<String, DurationSpec>,
    /// Time to go to sleep. Default: the profile's.
    #[serde(default)]
    pub ts: Option<DurationSpec>,
    /// Time to wake. Default: the profile's.
    #[serde(default)]
    pub tw: Option<DurationSpec>,
    /// Quiet time between refreshes. Default: the profile's.
    #[serde(default)]
    pub tq: Option<DurationSpec>,
    /// Refresh time. Default: the profile's.
    #[serde(default)]
    pub tr: Option<DurationSpec>,
    /// Power of one direction's PHY while Active, W. Default: the profile's.
    #[serde(default)]
    pub active_power_w: Option<f64>,
    /// Power while Quiet as a fraction of Active power. Default 0.1.
    #[serde(default)]
    pub quiet_fraction: Option<f64>,
}

/// One end's own EEE settings (each optional: the link's apply otherwise).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EeeEndSpec {
    /// This transmitter's policy (not in the symmetric mode, which has one).
    #[serde(default)]
    pub policy: Option<LpiPolicySpec>,
    /// Time to go to sleep (not in the symmetric mode).
    #[serde(default)]
    pub ts: Option<DurationSpec>,
    /// Quiet time between refreshes (not in the symmetric mode).
    #[serde(default)]
    pub tq: Option<DurationSpec>,
    /// Refresh time (not in the symmetric mode).
    #[serde(default)]
    pub tr: Option<DurationSpec>,
    /// Power of this end's transmitting PHY while Active, W.
    #[serde(default)]
    pub active_power_w: Option<f64>,
    /// Its power while Quiet as a fraction of Active power.
    #[serde(default)]
    pub quiet_fraction: Option<f64>,
}

/// When an LPI PHY sleeps and wakes.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LpiPolicySpec {
    /// Sleep as soon as the transmitter is idle; wake for the first frame.
    Immediate(EmptySpec),
    /// Sleep after `timeout` of idle; wake for the first frame.
    Timeout(TimeoutSpec),
    /// Sleep as soon as idle; hold frames until `frames` wait or `timer` has passed since
    /// the first, then wake and send the burst.
    Coalescing(CoalescingSpec),
}

/// No settings.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EmptySpec {}

/// The idle-timeout policy's setting.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimeoutSpec {
    /// Idle time before sleeping.
    pub timeout: DurationSpec,
}

/// The coalescing policy's settings.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CoalescingSpec {
    /// Frames that wake the PHY at once.
    pub frames: u32,
    /// The longest the first held frame waits before the PHY starts waking.
    pub timer: DurationSpec,
}

/// A link with several rates. At a change no new frame starts; the frames on the wire
/// finish at the old rate; then both directions (or, with `from`, the one scaled port)
/// are dark for `switch_time` and carry frames at the new rate. Frames wait in their
/// ports' queues meanwhile. With `from`, this is capacity scaling of a router's output
/// port (the practRA policy's setting).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RateSwitchingSpec {
    /// The rates, at least two, all different, in any order; they include the link's
    /// `rate`.
    pub rates: Vec<RateSpec>,
    /// How long the link (or the scaled port) is dark at each change: δ.
    pub switch_time: DurationSpec,
    /// Who decides when to change.
    pub policy: RatePolicySpec,
    /// Scale only the direction sent by this node (its output port); the other direction
    /// keeps `rate`. Default: the whole link (both directions, as PHYs retrain together).
    #[serde(default)]
    pub from: Option<String>,
    /// The least time between the requests of two changes (practRA's minimum rate-change
    /// interval, mRCI); a change asked for sooner is asked again when it is over. At
    /// least `switch_time` when given. Default 0 s.
    #[serde(default)]
    pub min_interval: Option<DurationSpec>,
    /// Power as a function of rate, for the energy of the scaled ports. Default none.
    #[serde(default)]
    pub power: Option<PowerModelSpec>,
}

/// Power as a function of rate, P(r) = Ps + f(r) (see docs/capacity-scaling.md).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PowerModelSpec {
    /// f linear in the rate (frequency scaling): Ps + (Pmax − Ps)·r/rmax.
    Linear(LinearPowerSpec),
    /// f cubic in the rate (voltage scaling) down to a largest scaling factor φ, below
    /// which it stays flat: Ps + (Pmax − Ps)·(max(r, rmax/φ)/rmax)³.
    Cubic(CubicPowerSpec),
    /// The watts at each rate.
    Table(PowerTableSpec),
}

/// A linear power model.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinearPowerSpec {
    /// Ps: the power drawn at any rate, W.
    pub static_w: f64,
    /// Pmax: the power at the fastest rate, W.
    pub max_w: f64,
}

/// A cubic power model.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CubicPowerSpec {
    /// Ps: the power drawn at any rate, W.
    pub static_w: f64,
    /// Pmax: the power at the fastest rate, W.
    pub max_w: f64,
    /// φ ≥ 1: the largest factor the supply can be scaled down by.
    pub max_scaling: f64,
}

/// Power read from a table.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PowerTableSpec {
    /// The watts at each rate, in the order of `rates` as written.
    pub watts: Vec<f64>,
}

/// The policy that changes a link's rate.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RatePolicySpec {
    /// Changes at fixed instants.
    Schedule(RateScheduleSpec),
    /// Adaptive Link Rate's dual-threshold buffer policy: the fastest rate when either
    /// end's output queue reaches `high`, the slowest when both are at or below `low`.
    Alr(AlrSpec),
    /// practRA (Nedevschi et al., NSDI 2008): scales the output port of `from` one rate
    /// step at a time to keep its queueing delay under a bound, predicting the arrival
    /// rate by a moving average. Needs `from`.
    Practra(PractRaSpec),
    /// None: the link keeps its rate. The mechanism's accounting (power, time at each
    /// rate) without its changes: the run a capacity-scaling run is compared with.
    Fixed(EmptySpec),
}

/// practRA's settings (defaults and their sources in docs/capacity-scaling.md).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PractRaSpec {
    /// The delay bound d: the queueing delay the port keeps under. Default 10 ms.
    #[serde(default)]
    pub delay_bound: Option<DurationSpec>,
    /// The weight of the newest arrival-rate sample in the moving average, in (0, 1].
    /// Default 0.25.
    #[serde(default)]
    pub weight: Option<f64>,
    /// The interval over which each arrival-rate sample is measured. Default 10 ms.
    #[serde(default)]
    pub sample_interval: Option<DurationSpec>,
}

/// A fixed schedule of rate changes.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RateScheduleSpec {
    /// The changes, in time order. A change due while a switch is under way happens when
    /// it ends.
    pub changes: Vec<RateChangeSpec>,
}

/// One scheduled rate change.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RateChangeSpec {
    /// When the change is requested.
    pub at: DurationSpec,
    /// The new rate: one of the link's `rates`.
    pub rate: RateSpec,
}

/// Thresholds of the ALR dual-threshold policy, in bytes waiting at an end's output
/// (not counting the frame being sent).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AlrSpec {
    /// Either end's queue at or above this: the fastest rate.
    pub high: SizeSpec,
    /// Both ends' queues at or below this: the slowest rate.
    pub low: SizeSpec,
}

/// Frame loss on a link. A lost frame takes its line time and is discarded by the
/// receiver (as a frame with a bad checksum), so the receiving node never sees it.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LossSpec {
    /// Probability that a frame is lost, independently of every other frame, drawn from
    /// the link's own random stream. Default 0.
    #[serde(default)]
    pub probability: f64,
    /// Apply `probability` only to frames sent by this node (one end of the link).
    /// Default: both directions.
    #[serde(default)]
    pub from: Option<String>,
    /// Chosen frames of chosen flows to lose.
    #[serde(default)]
    pub drop: Vec<DropSpec>,
}

/// Which way a flow's frames travel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FlowDirection {
    /// From the application's `from` host to its `to` host: data.
    Forward,
    /// Back to `from`: acknowledgements and replies.
    Reverse,
}

const fn forward() -> FlowDirection {
    FlowDirection::Forward
}

/// Lose chosen frames of one application's flow on this link.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DropSpec {
    /// The application, by name.
    pub app: String,
    /// Which of its directions. Default `forward`.
    #[serde(default = "forward")]
    pub direction: FlowDirection,
    /// Which frames: ordinals counted from 1 among that direction's frames arriving over
    /// this link (retransmissions count as frames), e.g. `[10, 11]`.
    pub frames: Vec<u64>,
}

fn default_segment_rate() -> RateSpec {
    RateSpec(BitRate::mbps(10))
}
const fn default_velocity() -> f64 {
    0.77
}
const fn default_max_frame() -> SizeSpec {
    SizeSpec(Bytes(1518))
}

/// A shared-medium segment: a coaxial cable (with repeaters) on which every station hears
/// every other after the signal's propagation time, and each station's MAC follows IEEE
/// 802.3 clause 4 (CSMA/CD: 1-persistent deference, 96-bit gap, collision detection, 32-bit
/// jam, truncated binary exponential backoff over 512-bit slots, 16 attempts). See
/// docs/csma.md.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SegmentSpec {
    /// Its name: results name its ports `node->name`, and port names in the scenario may
    /// too. Must differ from every node's name.
    pub name: String,
    /// The signalling rate. Default 10 Mb/s.
    #[serde(default = "default_segment_rate")]
    pub rate: RateSpec,
    /// Signal speed on the cable as a fraction of c. Default 0.77 (thick coax).
    #[serde(default = "default_velocity")]
    pub velocity: f64,
    /// Each station's transceiver delay, crossed at both the sending and the receiving
    /// station (a multiport transceiver's delay goes here). Default 0 s.
    #[serde(default = "zero_time")]
    pub tap_delay: DurationSpec,
    /// The largest frame (header to FCS) the stations may send. Default 1518 B (the
    /// standard's maximum); up to 9018 B when configured (longer frames than the standard
    /// allows, as capacity studies used).
    #[serde(default = "default_max_frame")]
    pub max_frame: SizeSpec,
    /// The stations: hosts or switches (a switch on a segment bridges it to the rest of
    /// the network), each at a position along the cable. At least one.
    pub stations: Vec<StationSpec>,
    /// In-line repeaters: a signal passing one is delayed by its delay. Default none.
    #[serde(default)]
    pub repeaters: Vec<RepeaterSpec>,
}

/// A station of a segment.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StationSpec {
    /// The node, by name.
    pub node: String,
    /// Its position along the cable, metres.
    pub at: f64,
}

/// A repeater on a segment.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepeaterSpec {
    /// Its position along the cable, metres.
    pub at: f64,
    /// The delay it adds to a signal passing through it.
    pub delay: DurationSpec,
}

/// One scheduled outage of a link.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutageSpec {
    /// When the link goes dark.
    pub start: DurationSpec,
    /// How long it stays dark.
    pub duration: DurationSpec,
}

/// A time series, as change points: of a port, its buffer occupancy (`queue_bytes`,
/// `queue_frames`), whether its transmit gate is open for data (`gate_open`), the PAUSE
/// frames it received so far (`pause_received`), its rate (`rate_bps`) and the bytes
/// offered to it so far, queued or dropped (`offered_bytes`: the arrival rate over any
/// interval); of a
/// TCP application, its sender's state. Costs nothing for what is not asked for.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SeriesSpec {
    /// The port, as `node->peer` (the node that owns it and the node at the other end
    /// of its link), e.g. `"switch->client"`. Give `port` or `app`.
    #[serde(default)]
    pub port: Option<String>,
    /// A TCP application, by name: its sender's cwnd, ssthresh, SRTT, RTO and FlightSize
    /// over time (the `tcp_series` table). Give `port` or `app`.
    #[serde(default)]
    pub app: Option<String>,
    /// Most change points kept per quantity, at least 12. Past it the series is
    /// decimated, never cut: time is split into buckets, each keeping its lowest, highest
    /// and last level, so peaks and pauses still show; the series' `bucket_ps` and
    /// `dropped_points` say so. Default 100000.
    #[serde(default = "default_max_points")]
    pub max_points: u32,
    /// Keep changes from this instant on; the level at that instant is the first point.
    /// Default 0 s.
    #[serde(default)]
    pub from: Option<DurationSpec>,
    /// Keep no change at or after this instant. Default: the end of the run.
    #[serde(default)]
    pub until: Option<DurationSpec>,
}

const fn default_max_points() -> u32 {
    100_000
}

/// An application: one flow from `from` to `to`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AppSpec {
    /// A file sent over UDP; the receiver does not recover losses.
    UdpFile(UdpFileSpec),
    /// Packets at a constant rate.
    ConstantRate(SourceSpec),
    /// Packets as a Poisson process.
    Poisson(SourceSpec),
    /// Bursty on/off traffic: a burst of exponential length at the start of every period,
    /// at `rate` while it lasts.
    OnOff(OnOffSpec),
    /// A source that always has a frame ready: it sends whenever its host has a free
    /// transmit buffer (a capacity study's load).
    Saturating(SaturatingSpec),
    /// ICMP echo requests at a fixed interval, answered by the destination: round-trip times.
    Ping(PingSpec),
    /// A file sent over TCP: its completion time.
    TcpFile(TcpFileSpec),
    /// A long-lived TCP flow sending as fast as TCP allows until its stop time.
    TcpBulk(TcpBulkSpec),
    /// A packet trace (pcap or pcapng) replayed: its frames' times and lengths, as UDP
    /// datagrams from `from` to `to`.
    Replay(ReplaySpec),
}

/// Trace-driven traffic: the frames of a pcap or pcapng file, each handed to the sending
/// host at its timestamp as a UDP datagram whose frame has the traced frame's length (an
/// Ethernet capture's frames lack their FCS, so 4 B are added; cooked and raw IP captures
/// get the Ethernet header and FCS; short frames are padded to 64 B). A frame longer than
/// the path carries (a capture of offloaded segments) is sent as several frames at its
/// instant. A frame due while the host has no transmit buffer is lost at the sender.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplaySpec {
    /// Unique name, used in reports. Default `apps[i]`.
    #[serde(default)]
    pub name: Option<String>,
    /// Sending host.
    pub from: String,
    /// Receiving host.
    pub to: String,
    /// The trace: a pcap or pcapng file (relative to the scenario file's folder).
    pub file: String,
    /// Multiplies the time between frames: 0.5 replays twice as fast. Default 1.
    #[serde(default = "one_f64")]
    pub time_scale: f64,
    /// Passes over the trace, each one pass length after the previous (the trace's span
    /// plus its mean gap between frames, scaled). Default 1.
    #[serde(default)]
    pub repeat: Option<u64>,
    /// Replay the trace over and over until `stop` or the run's end (instead of `repeat`).
    /// Default false.
    #[serde(default, rename = "loop")]
    pub loop_: bool,
    /// `first_frame`: the trace's first frame goes at `start`; `capture`: each frame at its
    /// timestamp in the file plus `start` (a capture ethersim wrote replays at its own
    /// instants). Default first_frame.
    #[serde(default)]
    pub align: ReplayAlign,
    /// When the replay starts. Default 0 s.
    #[serde(default = "zero_time")]
    pub start: DurationSpec,
    /// No frame at or after this instant.
    #[serde(default)]
    pub stop: Option<DurationSpec>,
}

const fn one_f64() -> f64 {
    1.0
}

/// Where a replayed trace's timestamps are counted from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReplayAlign {
    /// The trace's first frame.
    #[default]
    FirstFrame,
    /// The capture file's epoch (simulated time 0 for a capture ethersim wrote).
    Capture,
}

/// A file transfer over TCP (NewReno): connection set-up, the data, and the close.
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

const fn default_ping_payload() -> SizeSpec {
    SizeSpec(Bytes(56))
}

/// Ping: echo requests every `interval`, each answered by the destination host through
/// its own transmit path; reports round-trip times (mean, deviation, percentiles).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PingSpec {
    /// Unique name, used in reports and to name the application's random stream.
    /// Default `apps[i]`.
    #[serde(default)]
    pub name: Option<String>,
    /// The pinging host.
    pub from: String,
    /// The answering host.
    pub to: String,
    /// Time between requests (sent whether or not earlier ones were answered).
    pub interval: DurationSpec,
    /// Echo data per request and reply. Default 56 B (a 102 B frame).
    #[serde(default = "default_ping_payload")]
    pub payload: SizeSpec,
    /// Requests to send.
    #[serde(default)]
    pub count: Option<u64>,
    /// When the first request is sent. Default 0 s.
    #[serde(default = "zero_time")]
    pub start: DurationSpec,
    /// No request at or after this instant.
    #[serde(default)]
    pub stop: Option<DurationSpec>,
}

/// A UDP file transfer.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UdpFileSpec {
    /// Unique name, used in reports and to name the application's random stream (so its
    /// numbers do not change when other applications are added). Default `apps[i]`.
    #[serde(default)]
    pub name: Option<String>,
    /// Sending host.
    pub from: String,
    /// Receiving host: another host, or the sending host itself when that is a station of a
    /// segment (its frames cross the segment and come back).
    pub to: String,
    /// File size.
    pub size: SizeSpec,
    /// UDP payload per datagram. Default 1472 B (a full 1500 B MTU).
    #[serde(default = "default_payload")]
    pub payload: SizeSpec,
    /// Payload rate to send at. Default: as fast as the sending host takes datagrams.
    #[serde(default)]
    pub rate: Option<RateSpec>,
    /// When the transfer starts. Default 0 s.
    #[serde(default = "zero_time")]
    pub start: DurationSpec,
}

/// A constant-rate or Poisson packet source.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SourceSpec {
    /// Unique name, used in reports and to name the application's random stream (so its
    /// numbers do not change when other applications are added). Default `apps[i]`.
    #[serde(default)]
    pub name: Option<String>,
    /// Sending host.
    pub from: String,
    /// Receiving host: another host, or the sending host itself when that is a station of a
    /// segment (its frames cross the segment and come back).
    pub to: String,
    /// Payload rate (mean rate for Poisson): payload bits per second.
    pub rate: RateSpec,
    /// UDP payload per packet. Default 1472 B.
    #[serde(default = "default_payload")]
    pub payload: SizeSpec,
    /// When the source starts. Default 0 s.
    #[serde(default = "zero_time")]
    pub start: DurationSpec,
    /// No packet at or after this instant.
    #[serde(default)]
    pub stop: Option<DurationSpec>,
    /// Stop after this many packets.
    #[serde(default)]
    pub count: Option<u64>,
}

/// An on/off source: one burst at the start of every `period` (from `start`), lasting an
/// exponential time of mean `mean_burst` (at most the period), sending UDP packets at
/// `rate` while it lasts; a packet that starts within the burst is sent whole.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OnOffSpec {
    /// Unique name, used in reports and to name the application's random stream.
    /// Default `apps[i]`.
    #[serde(default)]
    pub name: Option<String>,
    /// Sending host.
    pub from: String,
    /// Receiving host.
    pub to: String,
    /// Payload rate during a burst: payload bits per second.
    pub rate: RateSpec,
    /// Mean length of a burst.
    pub mean_burst: DurationSpec,
    /// Time from one burst's start to the next's. Default 1 s.
    #[serde(default = "one_second")]
    pub period: DurationSpec,
    /// UDP payload per packet. Default 1472 B.
    #[serde(default = "default_payload")]
    pub payload: SizeSpec,
    /// When the first burst starts. Default 0 s.
    #[serde(default = "zero_time")]
    pub start: DurationSpec,
    /// No packet at or after this instant.
    #[serde(default)]
    pub stop: Option<DurationSpec>,
    /// Stop after this many packets.
    #[serde(default)]
    pub count: Option<u64>,
}

fn one_second() -> DurationSpec {
    DurationSpec(Duration::from_secs(1))
}

/// A saturating source's frames: give exactly one of `frame`, `mix` and `frames`. Lengths
/// are Ethernet frame lengths, header and FCS included (UDP over IPv4 inside: 46 B of
/// headers); a frame shorter than 64 B is padded to 64 B on the wire.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SaturatingSpec {
    /// Unique name, used in reports and to name the application's random stream.
    /// Default `apps[i]`.
    #[serde(default)]
    pub name: Option<String>,
    /// Sending host.
    pub from: String,
    /// Receiving host: another host, or the sending host itself when that is a station of a
    /// segment (its frames cross the segment and come back).
    pub to: String,
    /// Every frame this long.
    #[serde(default)]
    pub frame: Option<SizeSpec>,
    /// A bimodal mix: in every block of `ratio[0] + ratio[1]` frames, `ratio[0]` short
    /// and `ratio[1]` long ones, in random order.
    #[serde(default)]
    pub mix: Option<FrameMixSpec>,
    /// Lengths drawn independently with integer weights.
    #[serde(default)]
    pub frames: Option<Vec<WeightedFrameSpec>>,
    /// When the source starts. Default 0 s.
    #[serde(default = "zero_time")]
    pub start: DurationSpec,
    /// No frame at or after this instant.
    #[serde(default)]
    pub stop: Option<DurationSpec>,
    /// Stop after this many frames.
    #[serde(default)]
    pub count: Option<u64>,
}

/// A bimodal mix of frame lengths.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FrameMixSpec {
    /// The short frame's length.
    pub short: SizeSpec,
    /// The long frame's length.
    pub long: SizeSpec,
    /// Short and long frames per block, such as `[7, 1]`.
    pub ratio: [u32; 2],
}

/// One length of a weighted list.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WeightedFrameSpec {
    /// The frame's length.
    pub length: SizeSpec,
    /// Its weight (a positive integer): drawn with probability weight / sum of weights.
    pub weight: u64,
}

impl AppSpec {
    /// The kinds an application may be, as written in `kind`.
    pub const KINDS: &'static [&'static str] = &[
        "udp_file",
        "constant_rate",
        "poisson",
        "on_off",
        "saturating",
        "ping",
        "tcp_file",
        "tcp_bulk",
        "replay",
    ];

    /// The sending host's name.
    pub fn from(&self) -> &str {
        match self {
            AppSpec::UdpFile(f) => &f.from,
            AppSpec::ConstantRate(s) | AppSpec::Poisson(s) => &s.from,
            AppSpec::OnOff(s) => &s.from,
            AppSpec::Saturating(s) => &s.from,
            AppSpec::Ping(p) => &p.from,
            AppSpec::TcpFile(t) => &t.from,
            AppSpec::TcpBulk(t) => &t.from,
            AppSpec::Replay(r) => &r.from,
        }
    }
    /// The receiving host's name.
    pub fn to(&self) -> &str {
        match self {
            AppSpec::UdpFile(f) => &f.to,
            AppSpec::ConstantRate(s) | AppSpec::Poisson(s) => &s.to,
            AppSpec::OnOff(s) => &s.to,
            AppSpec::Saturating(s) => &s.to,
            AppSpec::Ping(p) => &p.to,
            AppSpec::TcpFile(t) => &t.to,
            AppSpec::TcpBulk(t) => &t.to,
            AppSpec::Replay(r) => &r.to,
        }
    }
    /// The name given, if any.
    pub fn name(&self) -> Option<&str> {
        match self {
            AppSpec::UdpFile(f) => f.name.as_deref(),
            AppSpec::ConstantRate(s) | AppSpec::Poisson(s) => s.name.as_deref(),
            AppSpec::OnOff(s) => s.name.as_deref(),
            AppSpec::Saturating(s) => s.name.as_deref(),
            AppSpec::Ping(p) => p.name.as_deref(),
            AppSpec::TcpFile(t) => t.name.as_deref(),
            AppSpec::TcpBulk(t) => t.name.as_deref(),
            AppSpec::Replay(r) => r.name.as_deref(),
        }
    }
    /// Payload per packet, for applications that set one (not TCP: see its MSS).
    pub fn payload(&self) -> Option<Bytes> {
        match self {
            AppSpec::UdpFile(f) => Some(f.payload.0),
            AppSpec::ConstantRate(s) | AppSpec::Poisson(s) => Some(s.payload.0),
            AppSpec::OnOff(s) => Some(s.payload.0),
            AppSpec::Ping(p) => Some(p.payload.0),
            // A saturating source's frame lengths are checked with its frames.
            // A replay's frame lengths come from its trace.
            AppSpec::Saturating(_) | AppSpec::TcpFile(_) | AppSpec::TcpBulk(_) | AppSpec::Replay(_) => None,
        }
    }
    /// Start time.
    pub fn start(&self) -> Duration {
        match self {
            AppSpec::UdpFile(f) => f.start.0,
            AppSpec::ConstantRate(s) | AppSpec::Poisson(s) => s.start.0,
            AppSpec::OnOff(s) => s.start.0,
            AppSpec::Saturating(s) => s.start.0,
            AppSpec::Ping(p) => p.start.0,
            AppSpec::TcpFile(t) => t.start.0,
            AppSpec::TcpBulk(t) => t.start.0,
            AppSpec::Replay(r) => r.start.0,
        }
    }
}

const fn one() -> u32 {
    1
}

/// An MPI-like parallel job. `processes_per_node` consecutive ranks run on each host of
/// `nodes` (rank r on `nodes[r / processes_per_node]`). Messages between ranks of one host
/// never touch the network; messages between hosts go as UDP datagrams of at most
/// `segment` payload bytes, one flow per ordered pair of hosts whose ranks exchange
/// messages, over a fabric assumed lossless (a lost frame stalls the job). Give exactly
/// one of `synthetic` and `trace`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MpiJobSpec {
    /// Unique name, used in reports; its flows are named `NAME:A->B` after their hosts.
    pub name: String,
    /// The hosts the ranks run on, in rank order.
    pub nodes: Vec<String>,
    /// Ranks per host. Default 1.
    #[serde(default = "one")]
    pub processes_per_node: u32,
    /// The synthetic benchmark: a collective, then a sleep, repeated.
    #[serde(default)]
    pub synthetic: Option<MpiSyntheticSpec>,
    /// A trace to replay: a CSV file of per-rank operations (docs/mpi.md gives the
    /// format). A relative path is relative to the scenario file when it is run from a
    /// file, else to the working directory.
    #[serde(default)]
    pub trace: Option<String>,
    /// The software overhead of each MPI call.
    #[serde(default)]
    pub overhead: MpiOverheadSpec,
    /// Payload bytes per frame (at most the path's largest UDP payload). Default 1472 B.
    #[serde(default = "default_payload")]
    pub segment: SizeSpec,
    /// When the ranks start. Default 0 s.
    #[serde(default = "zero_time")]
    pub start: DurationSpec,
}

/// The synthetic MPI benchmark: `iterations` times the collective and then `sleep`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MpiSyntheticSpec {
    /// The collective each iteration makes.
    pub collective: CollectiveSpec,
    /// Its size: per pair of ranks for alltoall, the vector for allreduce, nothing for
    /// barrier. Default 0 B.
    #[serde(default)]
    pub bytes: Option<SizeSpec>,
    /// Compute (sleep) time after each collective. Default 0 s.
    #[serde(default = "zero_time")]
    pub sleep: DurationSpec,
    /// Iterations.
    pub iterations: u64,
}

/// The collectives of the synthetic benchmark (the algorithms are in docs/mpi.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CollectiveSpec {
    /// `MPI_Alltoall`, pairwise exchange.
    Alltoall,
    /// `MPI_Allreduce`, ring (reduce-scatter then allgather).
    Allreduce,
    /// `MPI_Barrier`, dissemination.
    Barrier,
}

/// The software overhead of an MPI call: `fixed + per_byte × bytes the rank sends in the
/// call`, spent before its first message leaves. Defaults 0 s (the network alone).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MpiOverheadSpec {
    /// Per call.
    #[serde(default)]
    pub fixed: Option<DurationSpec>,
    /// Per byte sent (e.g. "0.5 ns": a 2 GB/s copy).
    #[serde(default)]
    pub per_byte: Option<DurationSpec>,
}

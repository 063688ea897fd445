"""The capacity-scaling study's grid and options: where the scenario's pieces are, the TCP
profiles and buffer conventions it knows, :class:`Options` (what a reproduction runs), and
the routers' one-BDP buffer (:func:`buffer_limit`). Re-exported by
:mod:`ethersim.studies.capacity_scaling`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ethersim.sizing import bdp_bytes, bdp_frames

SETTINGS = ("single", "background", "bottleneck")
#: The scaled port's rates, Mb/s, and the largest.
RATES_MBPS = tuple(range(1, 11))
MAX_MBPS = 10
#: Where the scenario's pieces are (the order of `scenario`'s links and apps).
SCALED_PORT = "n1->n2"
BOTTLENECK_PORT = "n2->n3"
POLICY_KEY = "links[1].rate_switching.policy"
#: The TCP profiles a run may take its defaults from (the scenario key `tcp.profile`).
TCP_PROFILES = ("rfc", "linux", "ns3", "ns2")
#: How a buffer of one bandwidth-delay product becomes a port's limit: ``packets``, an
#: ns-2 queue limit of BDP / 1500-B packets counting the one being sent (the paper's
#: ns-2.30; see :func:`ethersim.sizing.bdp_frames`); ``bytes``, the BDP in bytes of
#: switch memory (:func:`ethersim.sizing.bdp_bytes`).
QUEUES = ("packets", "bytes")
#: The packet an ns-2 queue limit counts: the paper's MTU (§5: 'The MTU length is 1500
#: bytes', 'transmit maximum size packets').
NS2_PACKET_BYTES = 1500
#: Replications per cell and simulated seconds per run where not given: (full grid,
#: quick grid).
REPLICATIONS = (5, 2)
DURATION_S = (300.0, 20.0)


@dataclass(frozen=True)
class Options:
    """What a reproduction runs."""

    #: A small grid, short runs, two replications (seconds).
    quick: bool = False
    #: The base seed every run's seed is derived from.
    seed: int = 1
    #: Runs at once (default: every core).
    jobs: int | None = None
    #: Replications per cell (default: 5, or 2 with ``quick``).
    replications: int | None = None
    #: Simulated seconds per run (default: 300, or 20 with ``quick``).
    duration_s: float | None = None
    #: The background's payload rate during a burst, Mb/s (the specification leaves it
    #: open; half the port's largest rate).
    burst_rate_mbps: float = 5.0
    #: Power at any rate as a fraction of the power at 10 Mb/s (linear power model):
    #: P(r) = Pmax * (s + (1 - s) * r / 10 Mb/s). An assumption, stated in the summary.
    static_fraction: float = 0.5
    #: The delay bound, the dark time δ of a change, and practRA's moving average.
    delay_bound_ms: float = 10.0
    dark_ms: float = 1.0
    ewma_weight: float = 0.25
    sample_ms: float = 10.0
    #: The results database (default: beside the output folder).
    db: Path | None = None
    #: A Dask scheduler's address, or a local Dask cluster.
    scheduler: str | None = None
    dask_local: bool = False
    #: The TCP profile of the study's own run (``tcp.profile``): ns-2's, the paper's tool.
    tcp_profile: str = "ns2"
    #: Profiles run again over the same grid and shown beside it (not by sensitivity points).
    also_profiles: tuple[str, ...] = ("linux",)
    #: How the routers' one-BDP buffers are counted (see :data:`QUEUES`).
    queue: str = "packets"

    def rtts_ms(self) -> list[int]:
        return [10, 50] if self.quick else [1, 10, 50, 100]

    def mrcis_ms(self) -> list[int]:
        return [50, 500] if self.quick else [10, 50, 100, 500, 1000]

    def b_ons_ms(self) -> list[int]:
        return [10] if self.quick else [1, 10, 50, 100]

    def bns_s(self) -> list[float]:
        return [0.5] if self.quick else [0.005, 0.05, 0.5, 5.0]

    @property
    def reps(self) -> int:
        return self.replications or REPLICATIONS[self.quick]

    @property
    def seconds(self) -> float:
        return self.duration_s or DURATION_S[self.quick]

    def timeseries_cells(self) -> list[tuple[int, int]]:
        """(RTT, mRCI) of the single-flow cells whose time series are recorded."""
        return [(50, 50), (50, 500)] if self.quick else [(50, 10), (50, 1000)]

    @property
    def timeseries_s(self) -> float:
        """Seconds of each recorded time series."""
        return min(self.seconds, 60.0)


def buffer_limit(options: Options, rtt_ms: float) -> tuple[str, int | str]:
    """The routers' buffer at ``rtt_ms`` as (``port_buffer`` key, value): one BDP at
    10 Mb/s, as an ns-2 queue limit in packets or as bytes (``options.queue``)."""
    if options.queue == "packets":
        return "frames", bdp_frames(MAX_MBPS * 1e6, rtt_ms / 1e3, NS2_PACKET_BYTES)
    return "bytes", f"{bdp_bytes(MAX_MBPS * 1e6, rtt_ms / 1e3)} B"


def check(options: Options) -> None:
    """Raises ``ScenarioError`` naming the option for a profile or queue convention the
    study does not know."""
    from ethersim.errors import ScenarioError

    for name, value in (
        ("--tcp-profile", options.tcp_profile),
        *(("--also-profile", p) for p in options.also_profiles),
    ):
        if value not in TCP_PROFILES:
            raise ScenarioError(
                f"{value!r} is no TCP profile; expected one of {', '.join(TCP_PROFILES)}", name
            )
    if options.queue not in QUEUES:
        raise ScenarioError(
            f"{options.queue!r} is no queue convention; expected one of {', '.join(QUEUES)}",
            "--queue",
        )

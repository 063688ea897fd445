"""``ethersim reproduce csma``: the measured capacity of a CSMA/CD Ethernet.

The study (see the project specification, "csma"; Boggs, Mogul and Kent, "Measured
Capacity of an Ethernet: Myths and Reality", 1988): up to 24 hosts on one 10 Mb/s
coaxial Ethernet, every one of them saturating the network with frames addressed to
itself for 20 s; statistics over the middle 10 s (5 s to 15 s). Frames of a fixed
length L in {64, 128, 256, 512, 1024, 1536, 2048, 3072, 4000} bytes (the last three
beyond the standard's maximum), and bimodal mixes of 64- and 1536-byte frames in
short/long ratios 7/1, 6/2, 4/4 and 2/6 (in every block of eight frames, that many of
each, in random order).

Accounting: the study's length L counts the header but not the CRC, and charges each
frame 24 bytes more (gap 12, preamble 8, CRC 4), so back-to-back frames make exactly
10 Mb/s. A study length L is therefore a simulated frame of L + 4 bytes (header to FCS),
and the study's (L + 24)·8 bits per frame are the simulator's wire bits (frame, preamble
and gap): the stations' ``bit_rate_bps``.

Hosts: 15 transmit buffers and a transmit service time after each frame's last bit (the
controller holds one frame at a time and is restarted by the interrupt routine), so that
one host alone sends a frame every (8 + L + 4)·8 bit times + the service time. The study
states that an interrupt takes "about 100 microseconds from assertion of interrupt to
resumption of user code", and that the interrupt routine restarts the transmitter before
that point; the restart's latency itself is not stated. It is **calibrated** at
reproduce time (:func:`calibrate`): the service time for which two hosts on the long net
send 64-byte frames at the study's "about 13,500 packets per second" (§3.5, text under
Fig. 3-5; the rate it says peaks at two hosts), by secant iterations on the simulated
rate. ``--tx-service`` sets it instead (the sensitivity run varies it from 60 to
100 us). The segment runs at 10 Mb/s with signals at
0.77 c, frames up to 4004 B, and each station's transceiver delay ``tap_delay`` = 0.5 us
(the multiport transceiver's), crossed at both the sending and the receiving end.

Layouts (positions along the cable, metres):

- ``long``: 3000 ft (914.4 m) of coax with four multiport repeaters 1000 ft apart, at
  0, 304.8, 609.6 and 914.4 m; host i (from 0) sits at repeater i mod 4, so hosts spread
  over the cable as they are added, at most six per repeater; 1 to 24 hosts. End-to-end
  round trip 2·(914.4 m / 0.77 c + 2 · 0.5 us) = 9.92 us.
- ``short``: the hosts present spread evenly over 20 ft (6.096 m), ends included;
  1 to 23 hosts.
- ``two-cluster``: host i at 0 m if i is even, else at 914.4 m; 1 to 24 hosts.

``csma.csv`` has one row per (layout, length, hosts). ``length`` is a string: the study
length (``64``) or the mix's short/long ratio (``7/1``). Totals are over the hosts:
``bit_rate_std_percent`` is the sample standard deviation (ddof = 1) of the per-host
bit rates as a percentage of their mean (0 with one host). Delays run from the MAC
taking a frame to the last bit of its successful attempt; ``delay_mean_ms`` and
``delay_std_ms`` are over every frame of every host, pooled exactly from the per-host
counts, means and sample deviations; ``excess_delay_ms`` is the delay less the frame's
collision-free transmission time, averaged over every frame.

The Metcalfe-Boggs estimate (``metcalfe_boggs_mbps``): with Q hosts always ready,
A = (1 - 1/Q)^(Q-1) is the chance that exactly one acquires a slot, W = (1 - A)/A the
mean slots wasted per frame, and the efficiency E = (P/C) / (P/C + W·T), with P the
bits per frame ((L + 24)·8; a mix's mean over its block), C = 10 Mb/s and T the slot
time, 512 bit times = 51.2 us. The estimate is E · 10 Mb/s (Q = 1: A = 1, W = 0, E = 1).

Every number comes from simulation, one run per cell, all with the same seed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ethersim.batch import Progress, default_jobs, run_many
from ethersim.studies.study import Option, Study, TableFile

if TYPE_CHECKING:
    from collections.abc import Mapping

    import pandas as pd
    from rich.table import Table

    from ethersim.studies.contract import Findings, Published

__all__ = [
    "LAYOUTS",
    "LENGTHS",
    "RATIOS",
    "STUDY",
    "Frames",
    "Layout",
    "Options",
    "Reproduction",
    "metcalfe_boggs_mbps",
    "pool",
    "reproduce",
    "scenario",
]

#: The study's fixed frame lengths (header, no CRC), bytes.
LENGTHS = (64, 128, 256, 512, 1024, 1536, 2048, 3072, 4000)
#: The bimodal mixes: short/long frames per block of eight.
RATIOS = ((7, 1), (6, 2), (4, 4), (2, 6))
SHORT, LONG = 64, 1536
#: A study length L is a simulated frame of L + FCS bytes, charged L + CHARGE bytes.
FCS = 4
CHARGE = 24
RATE_BPS = 10e6
#: Slot time: 512 bit times at 10 Mb/s.
SLOT_S = 512 / RATE_BPS
TX_BUFFERS = 15
#: The calibration's bracket for the transmit service time, us: at the low end two hosts
#: saturate the wire, at the high end each host sends far below it.
TX_SERVICE_BRACKET_US = (60.0, 150.0)
#: Calibration stops when the simulated rate is this close to the target, packets/s.
CALIBRATION_TOLERANCE_PPS = 1.0
CALIBRATION_MAX_RUNS = 20
TAP_DELAY_US = 0.5
VELOCITY = 0.77
C_M_PER_S = 299_792_458.0
MAX_FRAME = 4004
FOOT_M = 0.3048


@dataclass(frozen=True)
class Frames:
    """One curve of the study: a fixed length, or a mix of :data:`SHORT` and
    :data:`LONG` frames."""

    #: ``"64"``, or the mix's ratio ``"7/1"``.
    label: str
    #: The study lengths of one block of frames (a fixed length: one).
    block: tuple[int, ...]

    @classmethod
    def fixed(cls, length: int) -> Frames:
        """Every frame ``length`` bytes (study length)."""
        return cls(str(length), (length,))

    @classmethod
    def mix(cls, short: int, long: int) -> Frames:
        """``short`` 64-byte and ``long`` 1536-byte frames in every block."""
        return cls(f"{short}/{long}", (SHORT,) * short + (LONG,) * long)

    @property
    def bits(self) -> float:
        """Bits charged per frame, (L + 24)·8, averaged over the block."""
        return sum((n + CHARGE) * 8 for n in self.block) / len(self.block)

    def toml(self) -> str:
        """The saturating source's frame key."""
        if len(set(self.block)) == 1:
            return f'frame = "{self.block[0] + FCS} B"'
        short = self.block.count(SHORT)
        return (
            f'mix = {{ short = "{SHORT + FCS} B", long = "{LONG + FCS} B", '
            f"ratio = [{short}, {len(self.block) - short}] }}"
        )


@dataclass(frozen=True)
class Layout:
    """Where the hosts sit on the cable."""

    name: str
    max_hosts: int
    #: The cable's length end to end, m.
    cable_m: float
    #: Host i of n: its position, m.
    place: Callable[[int, int], float]
    #: One line for the summary.
    about: str

    def positions(self, hosts: int) -> list[float]:
        """The positions of hosts 0 to ``hosts`` - 1."""
        return [self.place(i, hosts) for i in range(hosts)]

    @property
    def round_trip_us(self) -> float:
        """The round trip end to end: cable both ways, four transceiver crossings."""
        return 2 * (self.cable_m / (VELOCITY * C_M_PER_S) * 1e6 + 2 * TAP_DELAY_US)


LONG_M = 3000 * FOOT_M
SHORT_M = 20 * FOOT_M
LAYOUTS = (
    Layout(
        "long",
        24,
        LONG_M,
        lambda i, n: (i % 4) * 1000 * FOOT_M,
        "3000 ft (914.4 m) of coax, four multiport repeaters at 0, 304.8, 609.6 and "
        "914.4 m; host i at repeater i mod 4 (at most six per repeater)",
    ),
    Layout(
        "short",
        23,
        SHORT_M,
        lambda i, n: 0.0 if n == 1 else SHORT_M * i / (n - 1),
        "the hosts present spread evenly over 20 ft (6.096 m) of cable, ends included",
    ),
    Layout(
        "two-cluster",
        24,
        LONG_M,
        lambda i, n: 0.0 if i % 2 == 0 else LONG_M,
        "3000 ft (914.4 m) of coax, host i at 0 m if i is even, else at 914.4 m",
    ),
)


@dataclass(frozen=True)
class Options:
    """What a reproduction runs."""

    #: The long and short nets, three curves, seven host counts, 2 s runs.
    quick: bool = False
    #: Seed of every run.
    seed: int = 1
    #: Runs at once (default: every core).
    jobs: int | None = None
    #: The hosts' transmit service time after each frame, us; ``None``: calibrated to
    #: ``calibration_target_pps`` (see the module notes).
    tx_service_us: float | None = None
    #: The two-host 64-byte packet rate the calibration aims at, packets/s (the study's
    #: "about 13,500", read from its published findings by the command).
    calibration_target_pps: float = 13_500.0

    def layouts(self) -> list[Layout]:
        """The layouts run."""
        return [x for x in LAYOUTS if not self.quick or x.name in ("long", "short")]

    def frames(self) -> list[Frames]:
        """The curves: fixed lengths, then mixes."""
        if self.quick:
            return [Frames.fixed(SHORT), Frames.fixed(LONG), Frames.mix(7, 1)]
        return [Frames.fixed(n) for n in LENGTHS] + [Frames.mix(s, n) for s, n in RATIOS]

    def hosts(self, layout: Layout) -> list[int]:
        """Host counts run on ``layout``."""
        if self.quick:
            return sorted({min(n, layout.max_hosts) for n in (1, 2, 3, 4, 8, 16, 24)})
        return list(range(1, layout.max_hosts + 1))

    @property
    def window_s(self) -> tuple[float, float, float]:
        """A run's duration and its measurement window (from, until), s."""
        return (2.0, 0.5, 1.5) if self.quick else (20.0, 5.0, 15.0)


@dataclass(frozen=True)
class Calibration:
    """The hosts' transmit service time, found or given."""

    #: The service time used, ps.
    tx_service_ps: int
    #: The two-host 64-byte packet rate aimed at (``None``: the time was given).
    target_pps: float | None
    #: The rate that time gives on the long net, packets/s.
    simulated_pps: float
    #: Every (service time ps, rate) tried, in order.
    history: tuple[tuple[int, float], ...] = ()


@dataclass
class Reproduction:
    """What a reproduction found."""

    options: Options
    #: ``csma.csv``: one row per (layout, length, hosts).
    table: pd.DataFrame
    runs: int
    wall_s: float
    jobs: int
    calibration: Calibration | None = None

    @property
    def tx_service_ps(self) -> int:
        """The hosts' transmit service time of every run, ps."""
        assert self.calibration is not None
        return self.calibration.tx_service_ps


def metcalfe_boggs_mbps(bits: float, hosts: int) -> float:
    """Metcalfe and Boggs's estimate of the total bit rate of ``hosts`` stations always
    ready to send frames of ``bits`` bits (with gap, preamble and CRC), Mb/s."""
    a = (1 - 1 / hosts) ** (hosts - 1)
    w = (1 - a) / a
    p = bits / RATE_BPS
    return p / (p + w * SLOT_S) * RATE_BPS / 1e6


def scenario(
    layout: Layout, frames: Frames, hosts: int, options: Options, tx_service_ps: int
) -> str:
    """One run as TOML text: ``hosts`` hosts on ``layout``, each saturating the net with
    ``frames`` sent to itself, with a transmit service time of ``tx_service_ps``."""
    duration, start, until = options.window_s
    host_text = "".join(
        f'[[hosts]]\nname = "h{i}"\ntx_buffers = {TX_BUFFERS}\n'
        f'tx_interrupt = "{tx_service_ps} ps"\n\n'
        for i in range(hosts)
    )
    stations = ",\n".join(
        f'  {{ node = "h{i}", at = {x:.4f} }}' for i, x in enumerate(layout.positions(hosts))
    )
    apps = "".join(
        f'[[apps]]\nkind = "saturating"\nfrom = "h{i}"\nto = "h{i}"\n{frames.toml()}\n\n'
        for i in range(hosts)
    )
    return f"""# CSMA/CD capacity study, one run: {hosts} hosts on the {layout.name} net,
# frames {frames.label} (study lengths; a frame here is 4 B longer: the FCS).
# Written by `ethersim reproduce csma`.
name = "csma-{layout.name}-{frames.label.replace("/", "-")}-{hosts}"
seed = {options.seed}
duration = "{duration:g} s"
measure = {{ from = "{start:g} s", until = "{until:g} s" }}

{host_text}[[segments]]
name = "coax"
rate = "10 Mb/s"
velocity = {VELOCITY}
tap_delay = "{TAP_DELAY_US} us"     # the multiport transceiver, crossed at both ends
max_frame = "{MAX_FRAME} B"
stations = [
{stations},
]

{apps}"""


def pool(stations: Sequence[dict[str, Any]]) -> dict[str, float]:
    """The totals of one run from its stations' rows: rates summed; delays over every
    frame of every host (per-host counts, means and sample deviations pooled exactly)."""
    import numpy as np

    n = np.array([s["frames_sent"] for s in stations], dtype=float)
    rates = np.array([s["bit_rate_bps"] for s in stations], dtype=float)
    frames = float(n.sum())
    spread = 0.0
    if len(rates) > 1 and rates.mean() > 0:
        spread = float(rates.std(ddof=1) / rates.mean() * 100)
    sent = n > 0
    k = n[sent]
    mean = np.array([s["delay_mean_s"] for s in stations], dtype=float)[sent]
    # A host with one frame has no sample deviation; it adds nothing within hosts.
    std = np.nan_to_num(np.array([s["delay_std_s"] for s in stations], dtype=float)[sent])
    excess = np.array([s["excess_delay_mean_s"] for s in stations], dtype=float)[sent]
    mu = float((k * mean).sum() / frames) if frames else float("nan")
    var = ((k - 1) * std**2).sum() + (k * (mean - mu) ** 2).sum()
    collisions = sum(int(s["collisions"]) for s in stations)
    drops = sum(int(s["drops"]) for s in stations)
    return {
        "bit_rate_mbps": float(rates.sum()) / 1e6,
        "packet_rate_pps": float(sum(s["frame_rate_per_s"] for s in stations)),
        "bit_rate_std_percent": spread,
        "delay_mean_ms": mu * 1e3,
        "delay_std_ms": float(np.sqrt(var / (frames - 1))) * 1e3 if frames > 1 else 0.0,
        "excess_delay_ms": float((k * excess).sum() / frames) * 1e3 if frames else float("nan"),
        "collisions_per_frame": collisions / (frames + drops) if frames + drops else float("nan"),
        "drops": drops,
        "frames": int(frames),
        "collisions": collisions,
    }


def _two_host_rate(options: Options, tx_service_ps: int) -> float:
    text = scenario(LAYOUTS[0], Frames.fixed(SHORT), 2, options, tx_service_ps)
    stations = run_many([text], jobs=1)[0].summary["stations"]
    return float(sum(s["frame_rate_per_s"] for s in stations))


def calibrate(options: Options) -> Calibration:
    """The transmit service time: given (``options.tx_service_us``), or the one for which
    two hosts on the long net send 64-byte frames at ``options.calibration_target_pps``
    (secant iterations within :data:`TX_SERVICE_BRACKET_US`; the rate falls as the
    service time grows once the two hosts no longer fill the wire)."""
    if options.tx_service_us is not None:
        ps = round(options.tx_service_us * 1e6)
        return Calibration(ps, None, _two_host_rate(options, ps))
    target = options.calibration_target_pps
    # Two hosts that interleave without collision: 2 frames per (frame time + service).
    sending_ps = (8 + SHORT + FCS) * 8 * 100_000
    guess = 2e12 / target - sending_ps
    lo, hi = (round(b * 1e6) for b in TX_SERVICE_BRACKET_US)
    p = min(hi, max(lo, round(guess)))
    history: list[tuple[int, float]] = []
    for _ in range(CALIBRATION_MAX_RUNS):
        rate = _two_host_rate(options, p)
        history.append((p, rate))
        if abs(rate - target) <= CALIBRATION_TOLERANCE_PPS:
            break
        if len(history) >= 2 and history[-1][1] != history[-2][1]:
            (p0, r0), (p1, r1) = history[-2], history[-1]
            nxt = p1 + (target - r1) * (p1 - p0) / (r1 - r0)
        else:
            nxt = p * rate / target  # the rate goes as 1 / (sending + service)
        p = min(hi, max(lo, round(nxt)))
        if any(p == tried for tried, _ in history):
            break
    best_p, best_rate = min(history, key=lambda h: abs(h[1] - target))
    return Calibration(best_p, target, best_rate, tuple(history))


def reproduce(options: Options, progress: bool = False) -> Reproduction:
    """Runs the study and returns what it found (nothing is written)."""
    import pandas as pd

    started = time.perf_counter()
    jobs = options.jobs or default_jobs()
    calibration = calibrate(options)
    cells = [
        (layout, frames, hosts)
        for layout in options.layouts()
        for frames in options.frames()
        for hosts in options.hosts(layout)
    ]
    texts = [
        scenario(layout, frames, hosts, options, calibration.tx_service_ps)
        for layout, frames, hosts in cells
    ]
    show = Progress(progress)
    try:
        results = run_many(texts, jobs, show.phase("csma"))
    finally:
        show.close()
    rows = []
    for (layout, frames, hosts), result in zip(cells, results, strict=True):
        totals = pool(result.summary["stations"])
        # The contracted columns first, in their order; then the extras.
        extra = {k: totals.pop(k) for k in ("frames", "collisions")}
        rows.append(
            {
                "layout": layout.name,
                "length": frames.label,
                "hosts": hosts,
                **totals,
                "seed": options.seed,
                **extra,
                "utilization": totals["bit_rate_mbps"] * 1e6 / RATE_BPS,
                "metcalfe_boggs_mbps": metcalfe_boggs_mbps(frames.bits, hosts),
                "bits_per_frame": frames.bits,
                "round_trip_us": layout.round_trip_us,
            }
        )
    table = pd.DataFrame(rows)
    table["length"] = table["length"].astype("str")
    runs = len(texts) + max(1, len(calibration.history))
    return Reproduction(options, table, runs, time.perf_counter() - started, jobs, calibration)


class _Csma(Study[Options, Reproduction]):
    """The CSMA/CD capacity study's command, runs and files."""

    name = "csma"
    title = "CSMA/CD capacity (Boggs, Mogul and Kent): up to 24 hosts on a 10 Mb/s Ethernet."
    description = (
        "CSMA/CD capacity (Boggs, Mogul and Kent): up to 24 hosts saturating a 10 Mb/s "
        "Ethernet, bit rate, packet rate, delay and collisions against the number of hosts, "
        "for fixed frame lengths and bimodal mixes, on three cable layouts."
    )
    examples = (
        "ethersim reproduce csma --quick",
        "ethersim reproduce csma --jobs 2 --out results/csma",
    )
    quick_help = "The long and short nets, three lengths, seven host counts, 2 s runs."
    out_help = "Folder for the table, figures and summary."
    options = (
        Option(
            "tx_service_us",
            "--tx-service",
            float | None,
            None,
            "The hosts' transmit service time after each frame, us (default: calibrated so "
            "two hosts send 64-byte frames at the study's 13,500 packets/s).",
            metavar="US",
            min=0.0,
            max=100_000.0,
            finite=True,
        ),
    )

    def configure(self, values: Mapping[str, Any]) -> Options:
        return Options(
            quick=values["quick"],
            seed=values["seed"],
            jobs=values["jobs"],
            tx_service_us=values["tx_service_us"],
        )

    def reproduce(self, options: Options, progress: bool) -> Reproduction:
        return reproduce(options, progress)

    def tables(self, rep: Reproduction) -> list[TableFile]:
        return [TableFile("csma", rep.table)]

    def figures(self, rep: Reproduction, folder: Path, published: Published) -> None:
        from ethersim.studies import csma_report

        csma_report.figures(rep, folder, published)

    def summary(self, rep: Reproduction) -> str:
        from ethersim.studies import csma_report

        return csma_report.summary(rep)

    def scenario_files(self, rep: Reproduction) -> dict[str, str]:
        long = LAYOUTS[0]
        return {
            f"scenarios/long-{long.max_hosts}-hosts-{frames.label.replace('/', '-')}.toml": (
                scenario(long, frames, long.max_hosts, rep.options, rep.tx_service_ps)
            )
            for frames in (Frames.fixed(SHORT), Frames.mix(7, 1))
        }

    def marker(self, rep: Reproduction) -> dict[str, Any]:
        calibration = rep.calibration
        return {
            "quick": rep.options.quick,
            "seed": rep.options.seed,
            "runs": rep.runs,
            "jobs": rep.jobs,
            "wall_time_s": rep.wall_s,
            "tx_service_ps": rep.tx_service_ps,
            "calibration": None
            if calibration is None
            else {
                "target_pps": calibration.target_pps,
                "simulated_pps": calibration.simulated_pps,
                "history": [list(h) for h in calibration.history],
            },
        }

    def main_table(self, rep: Reproduction) -> Table:
        from ethersim.studies import csma_report

        return csma_report.main_table(rep)

    def findings(self) -> Findings[Reproduction]:
        from ethersim.studies.csma_findings import FINDINGS

        return FINDINGS


#: The study, as :mod:`ethersim.studies.registry` lists it.
STUDY = _Csma()

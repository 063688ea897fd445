"""``ethersim reproduce rps``: IEEE 802.3x PAUSE against link-rate switching.

The study (Rapid PHY Selection, see the project specification, "rps"): a server sends a
500 MB file to a client through a 1 Gb/s switch, over TCP and, separately, over UDP
(whose receiver recovers nothing). Once a second the client sends the switch a PAUSE of
T in {0 (control), 1, 10, 20} ms, blocking the switch→client link as a link-rate switch
would; the switch sends PAUSE to the server when its buffer fills, and the server
honours or ignores it. The study measured the transfer time of every cell and the UDP
loss.

What this module does, all of it from simulation:

1. **Calibration.** The study's hosts, not its links, limited the transfer: with no
   pauses the file took 15.64 s over TCP and 28.08 s over UDP. The server's per-packet
   transmit time (its network stack and driver, ``hosts[].tx_processing``) is the
   unknown; for each protocol it is found by running the control cell and solving
   T_sim(p) = T_study by the secant method (T_sim is close to linear in p) until the
   simulated control time is within :data:`CALIBRATION_TOLERANCE_S` of the study's. With
   ``--quick`` the file is smaller and the targets shrink in proportion (same
   throughput).
2. **The grid**: protocol x pause time x server honours/ignores PAUSE, one run each.
3. **Buffer sweep**: UDP loss against the switch's port buffer with PAUSE ignored, for
   each pause time (the study does not give its switch's buffer).
4. **Burst loss**: the analytic model (:mod:`ethersim.models.burst`) for T = 10 ms,
   B = 10 MB, R = 2, 4, 6 Gb/s on a 10 Gb/s link, against simulated bursts into a link
   that switches rate (dark for T) behind the same buffers.
5. **One pause event** of the TCP transfer, with PAUSE honoured and ignored: cwnd, the
   switch's queue and the PAUSE frames the server receives.

The switch's buffer: the study's switch (Linksys EG005W, a 5-port unmanaged gigabit
switch) has a packet buffer shared by its ports whose size the study does not give.
Switch chips of that class hold from 1 Mbit (Realtek RTL8305S, 5-port Fast Ethernet) to
256 KB (Broadcom BCM5396, 16-port gigabit) on chip; :data:`DEFAULT_BUFFER_BYTES` takes
128 KiB, all of it usable by the one congested port, and ``rps_buffer.csv`` shows how
UDP loss depends on the choice.

TCP runs with the settings of the study's Linux hosts where they differ from the RFC
defaults: SACK on and a 200 ms minimum RTO.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ethersim.batch import Progress, Tick, default_jobs, run_many
from ethersim.studies.rps_bursts import (
    BURST_BYTES,
    BURST_DARK_MS,
    BURST_RATES_GBPS,
    FRAME_BYTES,
    burst_scenario,
    burst_table,
)
from ethersim.studies.study import Option, Study, TableFile

if TYPE_CHECKING:
    from collections.abc import Mapping

    import pandas as pd
    from rich.table import Table

    from ethersim.results import Result
    from ethersim.studies.contract import Findings, Published

__all__ = [
    "DEFAULT_BUFFER_BYTES",
    "HOST_BOTTLENECKS",
    "PAUSES_MS",
    "STUDY",
    "STUDY_CONTROL_S",
    "Calibration",
    "Options",
    "Reproduction",
    "burst_scenario",
    "check",
    "reproduce",
    "scenario",
]

#: Where the server's calibrated per-packet time is spent, and the host key it sets:
#: ``cpu``, the network stack's time per packet before the transmit buffers
#: (``tx_processing``); ``nic``, the controller's service time after each frame
#: (``tx_interrupt``: the next frame starts no sooner than this after the last bit).
HOST_BOTTLENECKS = {"cpu": "tx_processing", "nic": "tx_interrupt"}

#: The study's measured transfer times with no pauses (the calibration targets), s.
STUDY_CONTROL_S = {"tcp": 15.64, "udp": 28.08}
#: The study's file.
STUDY_FILE_BYTES = 500_000_000
#: The file of ``--quick`` runs.
QUICK_FILE_BYTES = 50_000_000
#: Pause times the client sends once a second, ms (0: the control, no PAUSE at all).
PAUSES_MS = (0, 1, 10, 20)
#: Default buffer of the switch's output port (see the module notes).
DEFAULT_BUFFER_BYTES = 128 * 1024
#: Calibration stops when the control transfer is this close to the study's time, s.
CALIBRATION_TOLERANCE_S = 1e-4
#: Most calibration runs per protocol.
CALIBRATION_MAX_RUNS = 12
#: Payload per packet: a TCP segment (MSS on a 1500 B MTU) and a UDP datagram.
PAYLOAD_BYTES = {"tcp": 1460, "udp": 1472}
#: The client's first PAUSE, and the time between them, s.
PAUSE_START_S = 1
PAUSE_EVERY_S = 1
#: The time series of the pause-event runs are kept over this window, ms.
SERIES_WINDOW_MS = (980, 1100)
#: 802.3x pause quantum at 1 Gb/s: 512 bit times, ps.
QUANTUM_PS_1G = 512_000


@dataclass(frozen=True)
class Options:
    """What a reproduction runs."""

    #: A smaller grid that runs in seconds (a 50 MB file, fewer buffers).
    quick: bool = False
    #: The switch's output buffer in the main grid, bytes.
    buffer_bytes: int = DEFAULT_BUFFER_BYTES
    #: Seed of every run (the study's runs draw no random numbers; it is recorded).
    seed: int = 1
    #: Runs at once (default: every core).
    jobs: int | None = None
    #: Whether the switch releases a paused server with a pause time of 0 (XON) when
    #: its buffer drains, or lets the pause (65535 quanta, 33.6 ms) run out.
    switch_releases: bool = True
    #: Where the server's per-packet time is spent (the calibrated host model, see
    #: :data:`HOST_BOTTLENECKS`): ``"cpu"``, before its transmit buffers, so the CPU keeps
    #: preparing packets while the NIC is paused; or ``"nic"``, in the controller after
    #: each frame, so a paused NIC stops the host's whole pipeline.
    host_bottleneck: str = "cpu"

    @property
    def file_bytes(self) -> int:
        """The file each transfer sends."""
        return QUICK_FILE_BYTES if self.quick else STUDY_FILE_BYTES

    def target_s(self, protocol: str) -> float:
        """The control transfer time to calibrate to: the study's, scaled to the file."""
        return STUDY_CONTROL_S[protocol] * self.file_bytes / STUDY_FILE_BYTES

    def sweep_buffers(self) -> list[int]:
        """Buffers of the UDP loss sweep, bytes: one maximum frame (the least a
        store-and-forward switch holds; the sweep's "0") up to 256 KiB."""
        step = 64 if self.quick else 16
        return [FRAME_BYTES] + [k * 1024 for k in range(step, 256 + 1, step)]

    def burst_buffers(self) -> list[int]:
        """Buffers of the simulated bursts: whole maximum frames near 0 to 8 MB."""
        step = 2 if self.quick else 1
        return [
            max(1, round(mb * 1_000_000 / FRAME_BYTES)) * FRAME_BYTES for mb in range(0, 9, step)
        ]


@dataclass(frozen=True)
class Calibration:
    """The host model found for one protocol."""

    protocol: str
    #: The control transfer time aimed at, s.
    target_s: float
    #: The server's per-packet time found, ps (its ``host_key``: the stack's time per
    #: packet, or the controller's service time after each frame).
    tx_processing_ps: int
    #: The control transfer time it gives, s.
    simulated_s: float
    #: Runs it took.
    runs: int
    #: Every (tx_processing_ps, simulated_s) tried, in order.
    history: list[tuple[int, float]] = field(default_factory=list)
    #: The host key the time was found for (:data:`HOST_BOTTLENECKS`).
    host_key: str = "tx_processing"


@dataclass
class Reproduction:
    """Everything a reproduction found."""

    options: Options
    calibrations: list[Calibration]
    #: ``rps.csv``: one row per cell.
    cells: pd.DataFrame
    #: ``rps_buffer.csv``: UDP loss against buffer, PAUSE ignored.
    buffers: pd.DataFrame
    #: ``rps_release.csv``: PAUSE honoured behind a switch that releases it early (XON)
    #: and one that lets it run out, side by side.
    release: pd.DataFrame
    #: ``burst_loss.csv``: the analytic curves and the simulated points.
    bursts: pd.DataFrame
    #: The pause-event runs (honoured, ignored), for the figure.
    events: dict[str, Result]
    #: The scenario of every cell, by file name.
    scenarios: dict[str, str]
    runs: int = 0
    wall_s: float = 0.0
    jobs: int = 1


def _pause_generator(pause_ms: int) -> str:
    if pause_ms == 0:
        return ""
    return f"""
# The client pauses the switch once a second, as a link-rate switch would block it.
[[pause_generators]]
port = "client->switch"
every = "{PAUSE_EVERY_S} s"
pause = "{pause_ms} ms"
start = "{PAUSE_START_S} s"
"""


def scenario(
    protocol: str,
    pause_ms: int,
    honours: bool,
    tx_processing_ps: int,
    *,
    file_bytes: int,
    buffer_bytes: int = DEFAULT_BUFFER_BYTES,
    switch_sends_pause: bool = True,
    switch_releases: bool = True,
    series: bool = False,
    seed: int = 1,
    host_bottleneck: str = "cpu",
) -> str:
    """The scenario of one cell, as TOML text (``ethersim run`` takes it as it is);
    ``tx_processing_ps`` is the server's calibrated per-packet time, spent where
    ``host_bottleneck`` says (:data:`HOST_BOTTLENECKS`)."""
    honour = "true" if honours else "false"
    app = "tcp_file" if protocol == "tcp" else "udp_file"
    tcp = '\n# Linux hosts: SACK on, 200 ms minimum RTO.\ntcp = { sack = true, rto_min = "200 ms" }'
    window = f'from = "{SERIES_WINDOW_MS[0]} ms"\nuntil = "{SERIES_WINDOW_MS[1]} ms"\n'
    series_text = (
        "\n# Around the first pause event.\n"
        + "".join(
            f"[[series]]\n{what}\nmax_points = 1000000\n{window}"
            for what in ('port = "switch->client"', 'port = "server->switch"', 'app = "file"')
        )
        if series
        else ""
    )
    return f"""# Rapid PHY Selection study, one cell: {protocol.upper()}, pause {pause_ms} ms,
# server {"honours" if honours else "ignores"} PAUSE. Written by `ethersim reproduce rps`.
name = "rps-{protocol}-{pause_ms}ms-{"honour" if honours else "ignore"}"
seed = {seed}

[[hosts]]
name = "server"
# Calibrated to the study's control time:
{HOST_BOTTLENECKS[host_bottleneck]} = "{tx_processing_ps} ps"
pause = {{ honour = {honour} }}

[[hosts]]
name = "client"

[[switches]]
name = "switch"
port_buffer = {{ bytes = "{buffer_bytes} B" }}
pause = {{ {_switch_pause(switch_sends_pause, switch_releases)} }}

[[links]]
between = ["server", "switch"]
rate = "1 Gb/s"
delay = "500 ns"

[[links]]
between = ["switch", "client"]
rate = "1 Gb/s"
delay = "500 ns"

[[apps]]
kind = "{app}"
name = "file"
from = "server"
to = "client"
size = "{file_bytes} B"{tcp if protocol == "tcp" else ""}
{_pause_generator(pause_ms)}{series_text}"""


def _switch_pause(sends: bool, releases: bool) -> str:
    if not sends:
        return "send = false"
    return "send = true" if releases else "send = true, release = false"


def _flow(result: Result) -> dict[str, Any]:
    flow: dict[str, Any] = result.summary["flows"][0]
    return flow


def _port(result: Result, node: str, peer: str) -> dict[str, Any]:
    for p in result.summary["ports"]:
        if p["node"] == node and p["peer"] == peer:
            port: dict[str, Any] = p
            return port
    raise KeyError(f"{node}->{peer}")


def _transfer_time(result: Result) -> float:
    done = _flow(result)["completion_time_s"]
    if done is None:
        raise RuntimeError(f"the transfer of {result.summary['scenario']} did not finish")
    return float(done)


def check(options: Options) -> None:
    """Raises :class:`~ethersim.errors.ScenarioError` (naming the option) if a cell of
    the grid would not be a valid scenario, before anything runs."""
    from ethersim import _core
    from ethersim.errors import ScenarioError

    if options.host_bottleneck not in HOST_BOTTLENECKS:
        raise ScenarioError(
            f"{options.host_bottleneck!r}; expected one of {', '.join(HOST_BOTTLENECKS)}",
            "--host-bottleneck",
        )
    text = scenario(
        "tcp",
        max(PAUSES_MS),
        True,
        1,
        file_bytes=options.file_bytes,
        buffer_bytes=options.buffer_bytes,
        switch_releases=options.switch_releases,
        seed=options.seed,
    )
    try:
        _core.validate(text)
    except ScenarioError as e:
        raise ScenarioError(
            f"{options.buffer_bytes} B does not make a valid switch: {e}", "--buffer"
        ) from None


def calibrate(
    protocol: str, options: Options, tick: Tick | None = None, target_s: float | None = None
) -> Calibration:
    """The server's per-packet time (spent where ``options.host_bottleneck`` says) that
    makes the control transfer last the study's time, scaled to the file (or
    ``target_s``): secant iterations on T_sim(p) - T_target."""
    target = options.target_s(protocol) if target_s is None else target_s
    packets = math.ceil(options.file_bytes / PAYLOAD_BYTES[protocol])
    p = target / packets * 1e12
    if options.host_bottleneck == "nic":
        # The controller's time follows the frame's own time on the wire (1538 B at 1 Gb/s).
        p -= 1538 * 8 * 1000
    p = max(1, round(p))
    history: list[tuple[int, float]] = []
    for _ in range(CALIBRATION_MAX_RUNS):
        text = scenario(
            protocol,
            0,
            True,
            p,
            file_bytes=options.file_bytes,
            seed=options.seed,
            host_bottleneck=options.host_bottleneck,
        )
        t = _transfer_time(run_many([text], jobs=1)[0])
        history.append((p, t))
        if tick is not None:
            tick(len(history), CALIBRATION_MAX_RUNS)
        if abs(t - target) <= CALIBRATION_TOLERANCE_S:
            break
        if len(history) >= 2 and history[-1][1] != history[-2][1]:
            (p0, t0), (p1, t1) = history[-2], history[-1]
            step = (target - t1) * (p1 - p0) / (t1 - t0)
        else:
            step = p * (target / t - 1)
        p = max(1, round(p + step))
        if any(p == tried for tried, _ in history):
            break  # the picosecond grid allows no closer value
    best_p, best_t = min(history, key=lambda h: abs(h[1] - target))
    key = HOST_BOTTLENECKS[options.host_bottleneck]
    return Calibration(protocol, target, best_p, best_t, len(history), history, key)


def _pause_length_s(pause_ms: int) -> float:
    """The pause a PAUSE frame of ``pause_ms`` gives at 1 Gb/s: whole quanta, rounded up."""
    quanta = math.ceil(pause_ms * 1_000_000_000 / QUANTUM_PS_1G)
    return quanta * QUANTUM_PS_1G * 1e-12


def _cell_row(
    protocol: str,
    pause_ms: int,
    honours: bool,
    result: Result,
    control_s: float,
    options: Options,
    switch_releases: bool,
) -> dict[str, Any]:
    flow = _flow(result)
    server = _port(result, "server", "switch")
    client = _port(result, "client", "switch")
    to_client = _port(result, "switch", "client")
    transfer = _transfer_time(result)
    pauses = client["pause_sent"]
    tcp = protocol == "tcp"
    return {
        "protocol": protocol,
        "pause_ms": pause_ms,
        "server_honours_pause": honours,
        "transfer_time_s": transfer,
        "loss_percent": 100.0 * float(flow["loss_fraction"]),
        "pause_frames_to_server": server["pause_received"],
        "seed": options.seed,
        "switch_releases_pause": switch_releases,
        "buffer_bytes": options.buffer_bytes,
        "extra_time_s": transfer - control_s,
        "client_pauses": pauses,
        "pause_total_s": pauses * _pause_length_s(pause_ms),
        "server_paused_s": server["paused_s"],
        "switch_drops": to_client["drops"],
        "switch_max_queue_bytes": to_client["max_queue_bytes"],
        "retransmissions": flow.get("retransmissions") if tcp else None,
        "timeouts": flow.get("timeouts") if tcp else None,
        "fast_retransmits": flow.get("fast_retransmits") if tcp else None,
        "events": result.summary["events"],
    }


def reproduce(options: Options, progress: bool = False) -> Reproduction:
    """Runs the whole study and returns what it found (nothing is written)."""
    import pandas as pd

    started = time.perf_counter()
    jobs = options.jobs or default_jobs()
    show = Progress(progress)
    runs = 0
    scenarios: dict[str, str] = {}
    try:
        # 1. Calibration, both protocols at once.
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(2, jobs)) as pool:
            futures = {
                p: pool.submit(calibrate, p, options, show.phase(f"calibrating {p.upper()}"))
                for p in ("tcp", "udp")
            }
            calibrations = {p: f.result() for p, f in futures.items()}
        runs += sum(c.runs for c in calibrations.values())

        # 2. The grid.
        cells = [
            (protocol, pause, honours)
            for protocol in ("tcp", "udp")
            for pause in PAUSES_MS
            for honours in (True, False)
        ]
        texts = []
        for protocol, pause, honours in cells:
            text = scenario(
                protocol,
                pause,
                honours,
                calibrations[protocol].tx_processing_ps,
                file_bytes=options.file_bytes,
                host_bottleneck=options.host_bottleneck,
                buffer_bytes=options.buffer_bytes,
                switch_releases=options.switch_releases,
                seed=options.seed,
            )
            texts.append(text)
            scenarios[f"{protocol}-{pause}ms-{'honour' if honours else 'ignore'}.toml"] = text
        results = run_many(texts, jobs, show.phase("grid"))
        runs += len(texts)
        control = {
            (p, h): _transfer_time(r)
            for (p, pause, h), r in zip(cells, results, strict=True)
            if pause == 0
        }
        grid = pd.DataFrame(
            [
                _cell_row(p, pause, h, r, control[(p, h)], options, options.switch_releases)
                for (p, pause, h), r in zip(cells, results, strict=True)
            ]
        )

        # 2b. PAUSE honoured behind the other kind of switch: with XON if the grid ran
        # without, and without if it ran with.
        other = not options.switch_releases
        whatif = [(p, pause) for p in ("tcp", "udp") for pause in PAUSES_MS if pause]
        texts = [
            scenario(
                p,
                pause,
                True,
                calibrations[p].tx_processing_ps,
                file_bytes=options.file_bytes,
                host_bottleneck=options.host_bottleneck,
                buffer_bytes=options.buffer_bytes,
                switch_releases=other,
                seed=options.seed,
            )
            for p, pause in whatif
        ]
        results = run_many(texts, jobs, show.phase("switch without XON" if not other else "XON"))
        runs += len(texts)
        same = grid[grid["server_honours_pause"]]
        release = pd.concat(
            [
                same,
                pd.DataFrame(
                    [
                        _cell_row(p, pause, True, r, control[(p, True)], options, other)
                        for (p, pause), r in zip(whatif, results, strict=True)
                    ]
                ),
            ],
            ignore_index=True,
        )
        release = release[release["pause_ms"] > 0].sort_values(
            ["protocol", "pause_ms", "switch_releases_pause"], ignore_index=True
        )

        # 3. UDP loss against buffer, PAUSE ignored.
        sweep = [(b, pause) for b in options.sweep_buffers() for pause in PAUSES_MS if pause]
        texts = [
            scenario(
                "udp",
                pause,
                False,
                calibrations["udp"].tx_processing_ps,
                file_bytes=options.file_bytes,
                host_bottleneck=options.host_bottleneck,
                buffer_bytes=b,
                switch_sends_pause=False,
                seed=options.seed,
            )
            for b, pause in sweep
        ]
        results = run_many(texts, jobs, show.phase("buffer sweep"))
        runs += len(texts)
        buffers = pd.DataFrame(
            [
                {
                    "buffer_bytes": b,
                    "pause_ms": pause,
                    "loss_percent": 100.0 * float(_flow(r)["loss_fraction"]),
                    "transfer_time_s": _transfer_time(r),
                    "switch_drops": _port(r, "switch", "client")["drops"],
                    "seed": options.seed,
                }
                for (b, pause), r in zip(sweep, results, strict=True)
            ]
        )

        # 4. Bursts into a link that goes dark.
        points = [(rate, b) for rate in BURST_RATES_GBPS for b in options.burst_buffers()]
        frames = math.ceil(BURST_BYTES / FRAME_BYTES)
        made = [
            burst_scenario(rate * 10**9, frames, b, BURST_DARK_MS, options.seed)
            for rate, b in points
        ]
        results = run_many([m[0] for m in made], jobs, show.phase("bursts"))
        runs += len(made)
        simulated = {
            pt: 100.0 * _flow(r)["lost"] / frames for pt, r in zip(points, results, strict=True)
        }
        for (rate, b), (text, _) in zip(points, made, strict=True):
            if b == options.burst_buffers()[0]:
                scenarios[f"burst-{rate}gbps-{b}B.toml"] = text
        bursts = burst_table(simulated)

        # 5. One pause event, TCP, with time series: the longest pause, a file that ends
        # soon after the first event.
        longest = max(PAUSES_MS)
        size = min(options.file_bytes, round(options.file_bytes * 1.5 / options.target_s("tcp")))
        texts = [
            scenario(
                "tcp",
                longest,
                honours,
                calibrations["tcp"].tx_processing_ps,
                file_bytes=size,
                host_bottleneck=options.host_bottleneck,
                buffer_bytes=options.buffer_bytes,
                switch_releases=options.switch_releases,
                series=True,
                seed=options.seed,
            )
            for honours in (True, False)
        ]
        honoured, ignored = run_many(texts, jobs, show.phase("pause event"))
        runs += 2
    finally:
        show.close()
    return Reproduction(
        options=options,
        calibrations=[calibrations["tcp"], calibrations["udp"]],
        cells=grid,
        buffers=buffers,
        release=release,
        bursts=bursts,
        events={"honoured": honoured, "ignored": ignored},
        scenarios=scenarios,
        runs=runs,
        wall_s=time.perf_counter() - started,
        jobs=jobs,
    )


class _Rps(Study[Options, Reproduction]):
    """The Rapid PHY Selection study's command, runs and files."""

    name = "rps"
    title = "Rapid PHY Selection: 802.3x PAUSE against link-rate switching."
    description = (
        "Rapid PHY Selection: TCP and UDP transfers through a switch paused once a second, "
        "with the server honouring or ignoring PAUSE; the burst-loss model against bursts "
        "into a link that switches rate."
    )
    examples = (
        "ethersim reproduce rps --quick",
        'ethersim reproduce rps --buffer "256 KiB" --out results/rps-256k',
        "ethersim reproduce rps --sensitivity",
    )
    quick_help = "A smaller grid (a 50 MB file) that runs in seconds."
    out_help = "Folder for the tables, figures and summary."
    options = (
        Option(
            "buffer",
            "--buffer",
            str,
            "128 KiB",
            "The switch's port buffer in the grid (default 128 KiB).",
            metavar="SIZE",
        ),
        Option(
            "no_xon",
            "--no-xon",
            bool,
            False,
            "The switch lets its PAUSE to the server run out instead of releasing it.",
        ),
        Option(
            "host_bottleneck",
            "--host-bottleneck",
            str,
            "cpu",
            "Where the server's calibrated per-packet time is spent: cpu (before its transmit "
            "buffers; it keeps preparing packets while paused) or nic (in the controller "
            "after each frame; a pause stops it).",
            metavar="cpu|nic",
        ),
    )

    def configure(self, values: Mapping[str, Any]) -> Options:
        from ethersim import _core

        return Options(
            quick=values["quick"],
            buffer_bytes=_core.parse_quantity("size", values["buffer"], "--buffer"),
            seed=values["seed"],
            jobs=values["jobs"],
            switch_releases=not values["no_xon"],
            host_bottleneck=values["host_bottleneck"],
        )

    def check(self, options: Options) -> None:
        check(options)

    def reproduce(self, options: Options, progress: bool) -> Reproduction:
        return reproduce(options, progress)

    def tables(self, rep: Reproduction) -> list[TableFile]:
        import pandas as pd

        calibration = [
            {k: v for k, v in asdict(c).items() if k != "history"} for c in rep.calibrations
        ]
        return [
            TableFile("rps", rep.cells),
            TableFile("rps_buffer", rep.buffers, ("csv",)),
            TableFile("rps_release", rep.release, ("csv",)),
            TableFile("burst_loss", rep.bursts, ("csv",)),
            TableFile("calibration", pd.DataFrame(calibration), ("csv",)),
        ]

    def figures(self, rep: Reproduction, folder: Path, published: Published) -> None:
        from ethersim.studies import rps_report

        rps_report.figures(rep, folder, published)

    def summary(self, rep: Reproduction) -> str:
        from ethersim.studies import rps_report

        return rps_report.summary(rep)

    def scenario_files(self, rep: Reproduction) -> dict[str, str]:
        return {f"scenarios/{name}": text for name, text in sorted(rep.scenarios.items())}

    def marker(self, rep: Reproduction) -> dict[str, Any]:
        return {
            "quick": rep.options.quick,
            "buffer_bytes": rep.options.buffer_bytes,
            "switch_releases_pause": rep.options.switch_releases,
            "seed": rep.options.seed,
            "runs": rep.runs,
            "jobs": rep.jobs,
            "wall_time_s": rep.wall_s,
            "calibration": [asdict(c) for c in rep.calibrations],
        }

    def main_table(self, rep: Reproduction) -> Table:
        from ethersim.studies import rps_report

        return rps_report.main_table(rep)

    def notes(self, rep: Reproduction) -> list[str]:
        return [
            f"calibrated {c.protocol.upper()}: server {c.tx_processing_ps / 1e6:.3f} us per "
            f"packet gives {c.simulated_s:.4f} s (study: {c.target_s:.4f} s)"
            for c in rep.calibrations
        ]

    def findings(self) -> Findings[Reproduction]:
        from ethersim.studies.rps_findings import FINDINGS

        return FINDINGS


#: The study, as :mod:`ethersim.studies.registry` lists it.
STUDY = _Rps()

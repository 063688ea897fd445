"""The runs of ``ethersim reproduce rps`` (:mod:`ethersim.studies.rps`): both
calibrations, the grid, the switch with and without XON, the buffer sweep, the bursts
and the pause event, gathered into a :class:`Reproduction` with a row per cell."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ethersim.batch import Progress, default_jobs, run_many
from ethersim.studies.rps_bursts import (
    BURST_BYTES,
    BURST_DARK_MS,
    BURST_RATES_GBPS,
    FRAME_BYTES,
    burst_scenario,
    burst_table,
)
from ethersim.studies.rps_scenario import (
    PAUSES_MS,
    QUANTUM_PS_1G,
    Calibration,
    Options,
    _flow,
    _transfer_time,
    calibrate,
    port_summary,
    scenario,
)

if TYPE_CHECKING:
    import pandas as pd

    from ethersim.results import Result

__all__ = ["Reproduction", "reproduce"]


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
    server = port_summary(result, "server", "switch")
    client = port_summary(result, "client", "switch")
    to_client = port_summary(result, "switch", "client")
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
                    "switch_drops": port_summary(r, "switch", "client")["drops"],
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

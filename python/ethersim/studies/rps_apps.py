"""``ethersim reproduce rps-apps``: would a person notice link-rate switching?

The Rapid PHY Selection study (``ethersim reproduce rps``; §III.D of its paper) also had
two people surf the web and make a Skype call while the client's link was paused for 1,
10 or 20 ms once a second; neither noticed a difference. This reproduction asks the same
question of the simulator, objectively: the RPS setup (server, switch, client, 1 Gb/s,
the client pausing the switch once a second, the switch pausing the server when its
buffer fills, the server honouring or ignoring PAUSE), with the file transfer replaced by

- a two-way G.711 call between the client and the server, rated by the ITU-T G.107
  E-model (docs/voip.md); a person notices when the call falls into a worse
  user-satisfaction band than without pauses;
- page loads by a browser on the client from a web server on the server (3GPP2
  C.R1002-0's page model, six persistent connections, docs/web.md); a person notices
  when the median or the 95th-percentile page-load time moves into another of Nielsen's
  response-time bands (:mod:`ethersim.perception`: 0.1 s, 1 s, 10 s).

Every cell runs with the same seed, so the call's talk spurts and the pages are the same
in every cell and a page's load time is compared with the same page's in the control.
The server's per-packet time is the RPS study's calibration for TCP (its Table I's
control transfer, :func:`ethersim.studies.rps_scenario.calibrate`), run here.

The code: this module (options, scenarios, runs, the command),
:mod:`ethersim.studies.rps_apps_report` (tables, summary, figure) and
:mod:`ethersim.studies.rps_apps_findings` (the paper's trial).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ethersim.batch import Progress, default_jobs, run_many
from ethersim.studies.rps_scenario import (
    DEFAULT_BUFFER_BYTES,
    network,
    pause_generator,
    port_summary,
)
from ethersim.studies.study import Option, Study, TableFile

if TYPE_CHECKING:
    from collections.abc import Mapping

    import pandas as pd
    from rich.table import Table

    from ethersim.results import Result
    from ethersim.studies.contract import Findings, Published

__all__ = [
    "PAUSES_MS",
    "STUDY",
    "WORKLOADS",
    "Options",
    "Reproduction",
    "reproduce",
    "scenario",
]

#: Pause times the client sends once a second, ms (0: the control).
PAUSES_MS = (0, 1, 10, 20)
#: The applications, each run on its own as the paper's trial ran them.
WORKLOADS = ("call", "web")


@dataclass(frozen=True)
class Options:
    """What a reproduction runs."""

    #: A 30 s call and 30 pages instead of 300 s and 300 (a 50 MB calibration file).
    quick: bool = False
    #: Seed of every run (the same in every cell: paired comparisons).
    seed: int = 1
    #: Runs at once (default: every core).
    jobs: int | None = None
    #: The switch's output buffer, bytes (the RPS study's assumption).
    buffer_bytes: int = DEFAULT_BUFFER_BYTES
    #: The call's fixed jitter buffer, ms.
    jitter_buffer_ms: int = 40

    @property
    def call_s(self) -> int:
        """How long the call lasts, s."""
        return 30 if self.quick else 300

    @property
    def pages(self) -> int:
        """Pages the browser loads."""
        return 30 if self.quick else 300


@dataclass
class Reproduction:
    """What a reproduction found."""

    options: Options
    #: ``rps_apps.csv``: one row per (pause, server honours PAUSE).
    cells: pd.DataFrame
    #: ``rps_apps_pages.csv``: every page of every cell beside the same page's control.
    pages: pd.DataFrame
    #: The server's calibrated per-packet time, ps, and the control time it gives, s.
    tx_processing_ps: int
    calibrated_s: float
    target_s: float
    scenarios: dict[str, str] = field(default_factory=dict)
    runs: int = 0
    wall_s: float = 0.0
    jobs: int = 1


def _app(workload: str, options: Options) -> str:
    if workload == "call":
        return f"""[[apps]]
kind = "voip"
name = "call"
from = "client"
to = "server"
codec = "G.711"
duration = "{options.call_s} s"
jitter_buffer = {{ kind = "fixed", depth = "{options.jitter_buffer_ms} ms" }}
"""
    return f"""[[apps]]
kind = "web"
name = "browse"
from = "client"
to = "server"
pages = {options.pages}
# Linux hosts, as in `ethersim reproduce rps`: SACK on, 200 ms minimum RTO.
tcp = {{ sack = true, rto_min = "200 ms" }}
"""


def scenario(
    workload: str, pause_ms: int, honours: bool, tx_processing_ps: int, options: Options
) -> str:
    """One cell as TOML text (``ethersim run`` takes it as it is)."""
    honour = "true" if honours else "false"
    server = (
        "# The RPS study's server, calibrated to its TCP control transfer:\n"
        f'tx_processing = "{tx_processing_ps} ps"\n'
        f"pause = {{ honour = {honour} }}"
    )
    return f"""# Rapid PHY Selection with applications, one cell: {workload}, pause {pause_ms} ms,
# server {"honours" if honours else "ignores"} PAUSE. Written by `ethersim reproduce rps-apps`.
name = "rps-apps-{workload}-{pause_ms}ms-{"honour" if honours else "ignore"}"
seed = {options.seed}

{network(server, options.buffer_bytes, "send = true")}
{_app(workload, options)}{pause_generator(pause_ms)}"""


def check(options: Options) -> None:
    """Raises :class:`~ethersim.errors.ScenarioError` (naming the option) if a cell would
    not be a valid scenario, before anything runs."""
    from ethersim import _core
    from ethersim.errors import ScenarioError

    for workload in WORKLOADS:
        text = scenario(workload, max(PAUSES_MS), True, 1, options)
        try:
            _core.validate(text)
        except ScenarioError as e:
            # Any depth makes a valid buffer; only the switch's buffer can be refused.
            raise ScenarioError(
                f"{options.buffer_bytes} B does not make a valid switch: {e}", "--buffer"
            ) from None


def _flow(result: Result, name: str) -> dict[str, Any]:
    flow: dict[str, Any] = next(f for f in result.summary["flows"] if f["name"] == name)
    return flow


def _network(result: Result) -> dict[str, Any]:
    """What the pauses did in the network, from the ports."""
    server = port_summary(result, "server", "switch")
    to_client = port_summary(result, "switch", "client")
    return {
        "client_pauses": port_summary(result, "client", "switch")["pause_sent"],
        "pause_frames_to_server": server["pause_received"],
        "server_paused_s": server["paused_s"],
        "switch_drops": to_client["drops"],
        "switch_max_queue_bytes": to_client["max_queue_bytes"],
    }


def _call(result: Result) -> dict[str, Any]:
    """The call: what the client heard (through the paused port), what the server
    heard, and the call as the E-model rates its worse direction."""
    f = _flow(result, "call")
    return {
        "call_mos": f["mos"],
        "call_r_factor": f["r_factor"],
        "call_satisfaction": f["satisfaction"],
        "client_heard_mos": f["caller_mos"],
        "client_heard_late_percent": 100.0
        * f["caller_late_lost"]
        / max(1, f["caller_packets_received"] + f["caller_network_lost"]),
        "client_heard_loss_percent": f["caller_loss_percent"],
        "client_heard_jitter_ms": f["caller_jitter_ms"],
        "client_heard_mouth_to_ear_ms": f["caller_mouth_to_ear"]["mean_s"] * 1e3,
        "client_heard_mouth_to_ear_max_ms": f["caller_mouth_to_ear"]["max_s"] * 1e3,
        "client_heard_delay_max_ms": f["caller_one_way_delay"]["max_s"] * 1e3,
        "server_heard_mos": f["callee_mos"],
    }


def _web(result: Result) -> tuple[dict[str, Any], list[float]]:
    """The browser's page-load times, summarised, and each page's."""
    f = _flow(result, "browse")
    return (
        {
            "pages_loaded": f["pages_loaded"],
            "page_load_mean_s": f["page_load_mean_s"],
            "page_load_p50_s": f["page_load_p50_s"],
            "page_load_p95_s": f["page_load_p95_s"],
            "page_load_max_s": f["page_load_max_s"],
            "web_retransmissions": f["retransmissions"],
            "web_timeouts": f["timeouts"],
        },
        list(f["page_load_times_s"]),
    )


def reproduce(options: Options, progress: bool = False) -> Reproduction:
    """Runs the study and returns what it found (nothing is written)."""
    from ethersim.studies import rps_apps_report as report
    from ethersim.studies import rps_scenario

    started = time.perf_counter()
    jobs = options.jobs or default_jobs()
    show = Progress(progress)
    try:
        rps_options = rps_scenario.Options(quick=options.quick, seed=options.seed, jobs=jobs)
        fit = rps_scenario.calibrate("tcp", rps_options, show.phase("calibrating the server"))
        cells = [(w, p, h) for w in WORKLOADS for p in PAUSES_MS for h in (True, False)]
        texts = [scenario(w, p, h, fit.tx_processing_ps, options) for w, p, h in cells]
        results = run_many(texts, jobs, show.phase("grid"))
    finally:
        show.close()
    scenarios = {
        f"{w}-{p}ms-{'honour' if h else 'ignore'}.toml": t
        for (w, p, h), t in zip(cells, texts, strict=True)
    }
    by_cell = dict(zip(cells, results, strict=True))
    rows = []
    pages: dict[tuple[int, bool], list[float]] = {}
    for pause in PAUSES_MS:
        for honours in (True, False):
            call, web = by_cell[("call", pause, honours)], by_cell[("web", pause, honours)]
            summary, times = _web(web)
            pages[(pause, honours)] = times
            rows.append(
                {
                    "pause_ms": pause,
                    "server_honours_pause": honours,
                    **_call(call),
                    **summary,
                    **{f"web_{k}": v for k, v in _network(web).items()},
                    **{f"call_{k}": v for k, v in _network(call).items()},
                    "seed": options.seed,
                    "buffer_bytes": options.buffer_bytes,
                }
            )
    cells_table, pages_table = report.judge(rows, pages)
    return Reproduction(
        options,
        cells_table,
        pages_table,
        fit.tx_processing_ps,
        fit.simulated_s,
        fit.target_s,
        scenarios,
        runs=fit.runs + len(texts),
        wall_s=time.perf_counter() - started,
        jobs=jobs,
    )


class _RpsApps(Study[Options, Reproduction]):
    """The RPS study's application trial: its command, runs and files."""

    name = "rps-apps"
    title = "Rapid PHY Selection with a call and page loads: would a person notice?"
    description = (
        "The RPS setup with a two-way G.711 call and web page loads instead of the file "
        "transfer, the client's link paused 1, 10 or 20 ms once a second, the server "
        "honouring or ignoring PAUSE: MOS and page-load time against pause time, and whether "
        "a person would notice, beside the paper's two-person trial (§III.D)."
    )
    examples = (
        "ethersim reproduce rps-apps --quick",
        'ethersim reproduce rps-apps --buffer "16 KiB" --out results/rps-apps-16k',
    )
    quick_help = "A 30 s call and 30 pages per cell (300 s and 300 in the full run)."
    out_help = "Folder for the tables, figure and summary."
    options = (
        Option(
            "buffer",
            "--buffer",
            str,
            "128 KiB",
            "The switch's port buffer (default 128 KiB, as `reproduce rps`).",
            metavar="SIZE",
        ),
        Option(
            "jitter_buffer",
            "--jitter-buffer",
            str,
            "40 ms",
            "The call's fixed jitter buffer (default 40 ms).",
            metavar="TIME",
        ),
    )

    def configure(self, values: Mapping[str, Any]) -> Options:
        from ethersim import _core
        from ethersim.errors import ScenarioError

        depth_ps = _core.parse_quantity("duration", values["jitter_buffer"], "--jitter-buffer")
        depth_ms, rest = divmod(depth_ps, 10**9)
        if rest:
            raise ScenarioError(
                f"{values['jitter_buffer']!r} is not a whole number of milliseconds; "
                "expected a depth such as 40 ms",
                "--jitter-buffer",
            )
        return Options(
            quick=values["quick"],
            seed=values["seed"],
            jobs=values["jobs"],
            buffer_bytes=_core.parse_quantity("size", values["buffer"], "--buffer"),
            jitter_buffer_ms=depth_ms,
        )

    def check(self, options: Options) -> None:
        check(options)

    def reproduce(self, options: Options, progress: bool) -> Reproduction:
        return reproduce(options, progress)

    def tables(self, rep: Reproduction) -> list[TableFile]:
        return [TableFile("rps_apps", rep.cells), TableFile("rps_apps_pages", rep.pages)]

    def figures(self, rep: Reproduction, folder: Path, published: Published) -> None:
        from ethersim.studies import rps_apps_report

        rps_apps_report.figure(rep, folder)

    def summary(self, rep: Reproduction) -> str:
        from ethersim.studies import rps_apps_report

        return rps_apps_report.summary(rep)

    def scenario_files(self, rep: Reproduction) -> dict[str, str]:
        return {f"scenarios/{name}": text for name, text in sorted(rep.scenarios.items())}

    def marker(self, rep: Reproduction) -> dict[str, Any]:
        return {
            "quick": rep.options.quick,
            "buffer_bytes": rep.options.buffer_bytes,
            "jitter_buffer_ms": rep.options.jitter_buffer_ms,
            "seed": rep.options.seed,
            "runs": rep.runs,
            "jobs": rep.jobs,
            "wall_time_s": rep.wall_s,
            "tx_processing_ps": rep.tx_processing_ps,
        }

    def main_table(self, rep: Reproduction) -> Table:
        from ethersim.studies import rps_apps_report

        return rps_apps_report.main_table(rep)

    def notes(self, rep: Reproduction) -> list[str]:
        return [
            f"calibrated server: {rep.tx_processing_ps / 1e6:.3f} us per packet gives "
            f"{rep.calibrated_s:.4f} s for the RPS control transfer (study: {rep.target_s:.4f} s)"
        ]

    def findings(self) -> Findings[Reproduction]:
        from ethersim.studies.rps_apps_findings import FINDINGS

        return FINDINGS


#: The study, as :mod:`ethersim.studies.registry` lists it.
STUDY = _RpsApps()

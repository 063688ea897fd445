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

The code: :mod:`ethersim.studies.rps_scenario` (constants, options, the scenario of a
cell, calibration), :mod:`ethersim.studies.rps_grid` (the runs),
:mod:`ethersim.studies.rps_bursts`, :mod:`ethersim.studies.rps_report` and
:mod:`ethersim.studies.rps_findings`; this module holds the study's command.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ethersim.studies.rps_bursts import burst_scenario
from ethersim.studies.rps_grid import Reproduction, reproduce
from ethersim.studies.rps_grid import _pause_length_s as _pause_length_s
from ethersim.studies.rps_scenario import CALIBRATION_MAX_RUNS as CALIBRATION_MAX_RUNS
from ethersim.studies.rps_scenario import CALIBRATION_TOLERANCE_S as CALIBRATION_TOLERANCE_S
from ethersim.studies.rps_scenario import (
    DEFAULT_BUFFER_BYTES,
    HOST_BOTTLENECKS,
    PAUSES_MS,
    STUDY_CONTROL_S,
    Calibration,
    Options,
    check,
    scenario,
)
from ethersim.studies.rps_scenario import PAUSE_EVERY_S as PAUSE_EVERY_S
from ethersim.studies.rps_scenario import PAUSE_START_S as PAUSE_START_S
from ethersim.studies.rps_scenario import PAYLOAD_BYTES as PAYLOAD_BYTES
from ethersim.studies.rps_scenario import QUANTUM_PS_1G as QUANTUM_PS_1G
from ethersim.studies.rps_scenario import QUICK_FILE_BYTES as QUICK_FILE_BYTES
from ethersim.studies.rps_scenario import SERIES_WINDOW_MS as SERIES_WINDOW_MS
from ethersim.studies.rps_scenario import STUDY_FILE_BYTES as STUDY_FILE_BYTES
from ethersim.studies.rps_scenario import calibrate as calibrate
from ethersim.studies.study import Option, Study, TableFile

if TYPE_CHECKING:
    from collections.abc import Mapping

    from rich.table import Table

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

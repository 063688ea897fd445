"""``ethersim reproduce capacity-scaling``: what scaling a router's capacity to its load
(practRA) saves, and what it costs a TCP flow.

The study (see the project specification, "capacity-scaling"): nodes N0-N1-N2-N3. A
long-lived TCP NewReno flow (MTU 1500 B) goes from N0 to N3. N1's output port (at most
10 Mb/s) is scaled by practRA in steps of 1 Mb/s between 1 and 10 Mb/s; router buffers
are one bandwidth-delay product (10 Mb/s x  RTT), by default as the paper's ns-2 counts
them (a queue limit in 1500-B packets), and TCP takes the ``ns2`` profile's defaults; the
grid runs again under each of ``Options.also_profiles`` (default ``linux``). Each run is
paired with the same run without power control (the same seed, so the same background
traffic and bottleneck trajectory). Three settings:

* ``single``: the TCP flow alone;
* ``background``: plus on/off UDP traffic on the same path, one burst a second of
  exponential length with mean ``b_on``, at ``Options.burst_rate_mbps`` during a burst;
* ``bottleneck``: plus a bottleneck N2-N3 whose available capacity is uniform in
  [1, 10] Mb/s, redrawn after exponential intervals of mean ``BN``.

The grid: RTT ∈ {1, 10, 50, 100} ms, mRCI ∈ {10, 50, 100, 500, 1000} ms, ``b_on`` ∈
{1, 10, 50, 100} ms, ``BN`` ∈ {5 ms, 50 ms, 0.5 s, 5 s}; 300 s per run. The runs go
through the sweeps machinery (one sweep per setting, power control a paired parameter):
a DuckDB database keeps every finished run, so a stopped reproduction resumes, and runs
go to a local process pool or a Dask cluster.

Every number comes from simulation; the power model (``Options.static_fraction``) is an
assumption the summary states.

This module holds the study's command (:data:`STUDY`) and the contract's columns; the grid
and :class:`Options` are in ``capacity_scaling_options``, the scenario and sweep TOML in
``capacity_scaling_scenarios``, the runs and :class:`Reproduction` in
``capacity_scaling_run`` (all re-exported here).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ethersim.studies.capacity_scaling_options import BOTTLENECK_PORT as BOTTLENECK_PORT
from ethersim.studies.capacity_scaling_options import DURATION_S, REPLICATIONS, Options
from ethersim.studies.capacity_scaling_options import MAX_MBPS as MAX_MBPS
from ethersim.studies.capacity_scaling_options import NS2_PACKET_BYTES as NS2_PACKET_BYTES
from ethersim.studies.capacity_scaling_options import POLICY_KEY as POLICY_KEY
from ethersim.studies.capacity_scaling_options import QUEUES as QUEUES
from ethersim.studies.capacity_scaling_options import RATES_MBPS as RATES_MBPS
from ethersim.studies.capacity_scaling_options import SCALED_PORT as SCALED_PORT
from ethersim.studies.capacity_scaling_options import SETTINGS as SETTINGS
from ethersim.studies.capacity_scaling_options import TCP_PROFILES as TCP_PROFILES
from ethersim.studies.capacity_scaling_options import buffer_limit as buffer_limit
from ethersim.studies.capacity_scaling_options import check as check
from ethersim.studies.capacity_scaling_run import Reproduction, default_db, point_db, reproduce
from ethersim.studies.capacity_scaling_scenarios import _sweep_text as _sweep_text
from ethersim.studies.capacity_scaling_scenarios import scenario as scenario
from ethersim.studies.study import Option, Study, TableFile

if TYPE_CHECKING:
    import pandas as pd
    from rich.table import Table

    from ethersim.studies.contract import Findings, Published

__all__ = [
    "QUEUES",
    "SETTINGS",
    "STUDY",
    "TCP_PROFILES",
    "Options",
    "Reproduction",
    "buffer_limit",
    "check",
    "default_db",
    "reproduce",
    "scenario",
]

#: The contract's columns of ``capacity_scaling.csv``, in order (more follow).
COLUMNS = [
    "setting",
    "rtt_ms",
    "mrci_ms",
    "b_on_ms",
    "bn_s",
    "replications",
    "mean_service_rate_mbps",
    "mean_service_rate_ci_mbps",
    "throughput_reduction_percent",
    "throughput_reduction_ci_percent",
    "rate_changes",
    "loss_percent_pc",
    "loss_percent_nopc",
    "energy_saved_percent",
]

#: Figures: (metric column, its confidence column or None, axis label).
FIGURES = [
    ("mean_service_rate_mbps", "mean_service_rate_ci_mbps", "mean service rate (Mb/s)"),
    (
        "throughput_reduction_percent",
        "throughput_reduction_ci_percent",
        "TCP throughput reduction (%)",
    ),
    ("rate_changes", None, "rate changes per run"),
    ("loss_percent_pc", None, "TCP loss with power control (%)"),
    ("energy_saved_percent", "energy_saved_ci_percent", "energy saved (%)"),
]


def _ordered(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with the contract's :data:`COLUMNS` first."""
    return table[COLUMNS + [c for c in table.columns if c not in COLUMNS]]


class _CapacityScaling(Study[Options, Reproduction]):
    """The capacity-scaling study's command, runs and files."""

    name = "capacity-scaling"
    title = "Capacity scaling against TCP: what practRA saves, and what it costs a TCP flow."
    description = (
        "Capacity scaling against TCP: practRA scales a router's output port between 1 and "
        "10 Mb/s under a TCP NewReno flow (alone, with bursty background traffic, or behind "
        "a varying bottleneck); each run paired with the same run without power control. "
        "Runs on the sweeps machinery: resumable, on all cores or a Dask cluster."
    )
    examples = (
        "ethersim reproduce capacity-scaling --quick",
        "ethersim reproduce capacity-scaling --tcp-profile linux --also-profile none",
    )
    quick_help = "RTT 10 and 50 ms, mRCI 50 and 500 ms, one b_on and BN, 20 s runs, 2 replications."
    out_help = "Folder for the tables, time series, figures and summary."
    backend = "sweeps"
    options = (
        Option(
            "replications",
            "--replications",
            int | None,
            None,
            "Runs per cell",
            metavar="N",
            min=1,
            max=1000,
            grid_default=REPLICATIONS,
        ),
        Option(
            "duration_s",
            "--duration",
            float | None,
            None,
            "Simulated seconds per run",
            metavar="SECONDS",
            min=1.0,
            max=100_000.0,
            finite=True,
            grid_default=DURATION_S,
        ),
        Option(
            "burst_rate_mbps",
            "--burst-rate",
            float,
            5.0,
            "Background payload rate during a burst, Mb/s.",
            metavar="MBPS",
            min=0.01,
            max=100.0,
            finite=True,
        ),
        Option(
            "static_fraction",
            "--static-power",
            float,
            0.5,
            "Power at any rate as a fraction of the power at 10 Mb/s.",
            metavar="FRACTION",
            min=0.0,
            max=1.0,
            finite=True,
        ),
        Option(
            "delay_bound_ms",
            "--delay-bound",
            float,
            10.0,
            "practRA's delay bound d, ms.",
            metavar="MS",
            min=2.0,
            max=10_000.0,
            finite=True,
        ),
        Option(
            "tcp_profile",
            "--tcp-profile",
            str,
            "ns2",
            "TCP profile of the study's own run: rfc, linux, ns3 or ns2 (the paper's ns-2.30).",
            metavar="PROFILE",
        ),
        Option(
            "also_profiles",
            "--also-profile",
            list[str] | None,
            None,
            "Run the grid again under this profile and show it beside the study's own "
            "(repeatable; default linux; 'none' for none).",
            metavar="PROFILE",
        ),
        Option(
            "queue",
            "--queue",
            str,
            "packets",
            "Routers' one-BDP buffers as an ns-2 queue limit in packets ('packets') or in "
            "bytes ('bytes').",
            metavar="CONVENTION",
        ),
        Option(
            "db",
            "--db",
            Path | None,
            None,
            "Results database (default: OUT.duckdb beside the output folder); runs already "
            "in it are not run again.",
            metavar="FILE",
        ),
    )

    def configure(self, values: Mapping[str, Any]) -> Options:
        given = ["linux"] if values["also_profiles"] is None else values["also_profiles"]
        return Options(
            quick=values["quick"],
            seed=values["seed"],
            jobs=values["jobs"],
            replications=values["replications"],
            duration_s=values["duration_s"],
            burst_rate_mbps=values["burst_rate_mbps"],
            static_fraction=values["static_fraction"],
            delay_bound_ms=values["delay_bound_ms"],
            db=values["db"] or default_db(values["out"]),
            scheduler=values["scheduler"],
            dask_local=values["dask_local"],
            tcp_profile=values["tcp_profile"],
            also_profiles=tuple(p for p in given if p not in ("none", values["tcp_profile"])),
            queue=values["queue"],
        )

    def reproduce(self, options: Options, progress: bool) -> Reproduction:
        assert options.db is not None  # configure sets it
        return reproduce(options, options.db, progress)

    def run(self, options: Options, changes: Mapping[str, Any], progress: bool) -> Reproduction:
        """A sensitivity point runs the study's own profile only, and keeps its runs apart
        from the study's own (a database of its own, :func:`point_db`)."""
        if changes:
            changes = {"also_profiles": (), **changes}
        assert options.db is not None  # configure sets it
        changed = replace(options, **changes)
        return reproduce(changed, point_db(options.db, changes), progress)

    def tables(self, rep: Reproduction) -> list[TableFile]:
        from ethersim.studies.capacity_scaling_report import profile_comparison

        tables = [
            TableFile("capacity_scaling", _ordered(rep.table)),
            TableFile("capacity_scaling_pairs", rep.pairs),
            *(TableFile(f"timeseries/{n}", ts, ("parquet",)) for n, ts in rep.timeseries.items()),
        ]
        for profile, other in rep.profiles.items():
            tables += [
                TableFile(f"capacity_scaling_{profile}", _ordered(other.table)),
                TableFile(f"capacity_scaling_pairs_{profile}", other.pairs),
                *(
                    TableFile(f"timeseries/{profile}/{n}", ts, ("parquet",))
                    for n, ts in other.timeseries.items()
                ),
            ]
        if rep.profiles:
            tables.append(TableFile("profiles", profile_comparison(rep)))
        return tables

    def figures(self, rep: Reproduction, folder: Path, published: Published) -> None:
        from ethersim.studies import capacity_scaling_report

        capacity_scaling_report.figures(rep, folder, published)

    def summary(self, rep: Reproduction) -> str:
        from ethersim.studies import capacity_scaling_report as report

        text = report.summary(rep)
        if rep.profiles:
            text += "\n" + report.profiles_section(rep, report.profile_comparison(rep))
        return text

    def scenario_files(self, rep: Reproduction) -> dict[str, str]:
        return {f"sweeps/{name}": text for name, text in rep.sweep_files.items()}

    def marker(self, rep: Reproduction) -> dict[str, Any]:
        o = rep.options
        return {
            "quick": o.quick,
            "seed": o.seed,
            "tcp_profile": o.tcp_profile,
            "also_profiles": list(o.also_profiles),
            "queue": o.queue,
            "replications": o.reps,
            "duration_s": o.seconds,
            "runs": rep.runs,
            "skipped": rep.skipped,
            "jobs": rep.jobs,
            "wall_time_s": rep.wall_s,
            "database": str(rep.db),
        }

    def main_table(self, rep: Reproduction) -> Table:
        from ethersim.studies import capacity_scaling_report

        return capacity_scaling_report.main_table(rep)

    def findings(self) -> Findings[Reproduction]:
        from ethersim.studies.capacity_scaling_findings import FINDINGS

        return FINDINGS


#: The study, as :mod:`ethersim.studies.registry` lists it.
STUDY = _CapacityScaling()

"""``ethersim reproduce eee-hpc``: how much longer an MPI application runs on Energy
Efficient Ethernet, and how well the EEE performance model predicts it.

The study (see the project specification, "eee-hpc"): four nodes on one 1 Gb/s switch
whose links are 1000BASE-T with Low Power Idle under the ping-pong study's policy (sleep
after 1 ms of idle, a 60 us wake, a sleep in progress finishes). A synthetic MPI program
repeats an alltoall (pairwise exchange) with a sleep between calls, 0 to 1000 us, for
array sizes 256 B to 128 KiB (the block each pair of ranks exchanges), with 1 and 4
processes per node (4 and 16 ranks). Each call costs software overhead: a fixed part and
a part per byte the rank sends.

Each cell runs with EEE off and on, with the same number of iterations: enough for rank
0's time per iteration to converge (the 95% batch-means confidence interval within
``Options.tolerance`` of the mean), doubling from a first count. From the EEE-off run come
the profile (communications per node ``n``, mean bytes ``S``, and ``T_base``) and the
idle gaps of each node's link; the overhead is the on-run's extra time.

Two models are fitted per process count by least squares, on every other array size, and
judged on the held-out sizes: the mean-interval model of the specification (``f`` of
``I = T_base / n - 8 S / B``), and the distribution-aware variant (``f`` summed over the
idle gaps the EEE-off run measured on each node's link, per communication).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ethersim.batch import Progress, default_jobs, run_many
from ethersim.studies.study import Option, Study, TableFile

if TYPE_CHECKING:
    from collections.abc import Mapping

    import pandas as pd
    from rich.table import Table

    from ethersim.models.eee_perf import Fit
    from ethersim.results import Result
    from ethersim.studies.contract import Findings, Published

__all__ = ["ARRAY_READINGS", "STUDY", "Options", "Reproduction", "check", "reproduce", "scenario"]

#: The EEE policy of the ping-pong study: idle timeout, wake time, and 1000BASE-T's sleep time.
IDLE_TIMEOUT_US = 1000
WAKE_US = 60
SLEEP_US = 182
#: Link rate, b/s.
BANDWIDTH_BPS = 1e9
#: The readings of the paper's "array" (Options.array_reading).
ARRAY_READINGS = ("pair", "buffer")
NODES = 4


@dataclass(frozen=True)
class Options:
    """What a reproduction runs."""

    #: A small grid and fewer iterations (seconds).
    quick: bool = False
    #: Seed of every run (the workload draws nothing; it names the runs).
    seed: int = 1
    #: Runs at once (default: every core).
    jobs: int | None = None
    #: The idle timeout of the links' LPI policy, us.
    idle_timeout_us: int = IDLE_TIMEOUT_US
    #: Software overhead per MPI call, us (an assumption: a few microseconds of MPI and
    #: kernel work per call over TCP/IP sockets).
    overhead_fixed_us: float = 5.0
    #: Software overhead per byte a rank sends in a call, ns (a 2 GB/s copy into the
    #: socket buffer).
    overhead_per_byte_ns: float = 0.5
    #: Converged: the 95% confidence half-width of the time per iteration, relative.
    tolerance: float = 1e-3
    processes: tuple[int, ...] = (4, 16)
    #: What the paper's "array" of MPI_Alltoall is (an assumption: §5.2.1 says only
    #: "the array size varies from 256 B to 128 KB"): ``pair``, the block each pair of
    #: ranks exchanges (MPI_Alltoall's sendcount); or ``buffer``, the whole send buffer,
    #: of which each of the ``processes`` ranks receives an equal block.
    array_reading: str = "pair"

    def pair_bytes(self, array_bytes: int, processes: int) -> int:
        """The bytes each pair of ranks exchanges for an array of ``array_bytes``."""
        if self.array_reading == "buffer":
            return max(1, array_bytes // processes)
        return array_bytes

    def sleeps_us(self) -> list[int]:
        """Sleeps between calls: 0 to 1000 us, finer just below the timeout."""
        if self.quick:
            return [0, 600, 900, 950, 1000]
        return sorted({*range(0, 1001, 100), 950, 975})

    def sizes(self) -> list[int]:
        """Array sizes (as the paper gives them; see :meth:`pair_bytes`): 256 B to 128 KiB."""
        if self.quick:
            return [256, 1024, 4096]
        return [256, 1024, 4096, 16384, 65536, 131072]

    def first_iterations(self) -> int:
        """Iterations of a cell's first try."""
        return 20 if self.quick else 100

    def max_iterations(self) -> int:
        """The most iterations a cell doubles to."""
        return 80 if self.quick else 3200


@dataclass
class Reproduction:
    """What a reproduction found."""

    options: Options
    #: ``eee_hpc_points.csv``: one row per cell.
    points: pd.DataFrame
    #: ``eee_hpc_model.csv``: one row per (processes, model).
    models: pd.DataFrame
    #: ``eee_hpc_gaps.csv``: each point's idle-gap histogram (``point``, ``gap_us``,
    #: ``per_communication``), what ``ethersim model eee-fit --gaps`` reads.
    gaps: pd.DataFrame
    #: The fits, by (processes, model).
    fits: dict[tuple[int, str], Fit] = field(default_factory=dict)
    runs: int = 0
    wall_s: float = 0.0
    jobs: int = 1


def scenario(
    processes: int, sleep_us: int, size: int, eee: bool, iterations: int, options: Options
) -> str:
    """One run as TOML text (``size`` is the array, as the paper gives it)."""
    pair = options.pair_bytes(size, processes)
    eee_text = (
        "[links.eee]\n"
        'phy = "1000BASE-T"\n'
        f'policy = {{ kind = "timeout", timeout = "{options.idle_timeout_us} us" }}\n'
        f'wake_time = {{ switch = "{WAKE_US} us" }}\n'
        "abort_sleep = false\n"
        if eee
        else ""
    )
    links = "".join(
        f'[[hosts]]\nname = "n{i}"\n\n[[links]]\nbetween = ["switch", "n{i}"]\n'
        f'rate = "1 Gb/s"\ndelay = "500 ns"\n{eee_text}\n'
        for i in range(NODES)
    )
    state = "on" if eee else "off"
    return f"""# EEE-HPC study, one run: {processes} ranks, alltoall of {pair} B per pair,
# {sleep_us} us sleep, {iterations} iterations, EEE {state}.
# Written by `ethersim reproduce eee-hpc`.
name = "eee-hpc-{processes}p-{size}B-{sleep_us}us-{state}"
seed = {options.seed}

[[switches]]
name = "switch"

{links}[[mpi_jobs]]
name = "alltoall"
nodes = [{", ".join(f'"n{i}"' for i in range(NODES))}]
processes_per_node = {processes // NODES}
[mpi_jobs.overhead]
fixed = "{options.overhead_fixed_us} us"
per_byte = "{options.overhead_per_byte_ns} ns"

[mpi_jobs.synthetic]
collective = "alltoall"
bytes = "{pair} B"
sleep = "{sleep_us} us"
iterations = {iterations}
"""


def _half_width(batch_means: list[float]) -> float:
    """The 95% confidence half-width of the mean of batch means (Student t)."""
    from scipy import stats

    k = len(batch_means)
    if k < 2:
        return math.inf
    mean = sum(batch_means) / k
    var = sum((b - mean) ** 2 for b in batch_means) / (k - 1)
    return float(stats.t.ppf(0.975, k - 1)) * math.sqrt(var / k)


def _converged(result: Result, tolerance: float) -> tuple[bool, float, float]:
    job = result.summary["jobs"][0]
    mean = job["operation_mean_s"]
    half = _half_width(job["operation_batch_means_s"])
    return job["completed"] and half <= tolerance * mean, mean, half


def _run_cells(
    cells: list[tuple[int, int, int]], options: Options, jobs: int, show: Progress
) -> tuple[dict[tuple[int, int, int], tuple[Result, Result, int]], int]:
    """Runs every cell off and on, doubling the iterations of the cells whose time per
    iteration has not converged; returns each cell's final pair and iterations."""
    done: dict[tuple[int, int, int], tuple[Result, Result, int]] = {}
    pending = {cell: options.first_iterations() for cell in cells}
    runs = 0
    round_ = 0
    while pending:
        round_ += 1
        order = list(pending)
        texts = [
            scenario(p, s, b, eee, pending[(p, s, b)], options)
            for (p, s, b) in order
            for eee in (False, True)
        ]
        results = run_many(texts, jobs, show.phase(f"round {round_}"))
        runs += len(texts)
        retry = {}
        for k, cell in enumerate(order):
            off, on = results[2 * k], results[2 * k + 1]
            iterations = pending[cell]
            ok = all(_converged(r, options.tolerance)[0] for r in (off, on))
            if ok or iterations * 2 > options.max_iterations():
                done[cell] = (off, on, iterations)
            else:
                retry[cell] = iterations * 2
        pending = retry
    return done, runs


def _gaps(off: Result, communications: float) -> tuple[list[float], list[float]]:
    """The idle gaps of the nodes' links (host to switch) in the EEE-off run, as histogram
    values (bin mid-points, us) and gaps per communication of a node."""
    per_value: dict[float, float] = {}
    for row in off.summary["idle_intervals"]:
        if row["peer"] == "switch" and row["node"].startswith("n"):
            mid = (row["lower_s"] + row["upper_s"]) / 2 * 1e6
            per_value[mid] = per_value.get(mid, 0.0) + row["count"]
    values = sorted(per_value)
    return values, [per_value[v] / NODES / communications for v in values]


def _point(
    cell: tuple[int, int, int], off: Result, on: Result, iterations: int, options: Options
) -> dict[str, Any]:
    from ethersim.models.eee_perf import idle_interval_us

    processes, sleep_us, size = cell
    j_off, j_on = off.summary["jobs"][0], on.summary["jobs"][0]
    t_off, t_on = j_off["elapsed_s"], j_on["elapsed_s"]
    n, s = j_off["communications_per_node"], j_off["mean_bytes"]
    energy_on = sum(p["energy_j"] for p in on.summary["ports"])
    # The same links at Active power all through the EEE-off run.
    active_w = sum(p["energy_eee_off_j"] for p in on.summary["ports"]) / on.summary["sim_time_s"]
    energy_off = active_w * off.summary["sim_time_s"]
    host_ports = [p for p in on.summary["ports"] if p["peer"] == "switch"]
    gaps_off = [p for p in off.summary["ports"] if p["peer"] == "switch"]
    half_on = _half_width(j_on["operation_batch_means_s"])
    return {
        "processes": processes,
        "sleep_us": sleep_us,
        "array_bytes": size,
        "iterations": iterations,
        "communications_per_node": n,
        "mean_bytes": s,
        "idle_interval_us": idle_interval_us(t_off, n, s, BANDWIDTH_BPS),
        "elapsed_off_s": t_off,
        "elapsed_on_s": t_on,
        "overhead_percent": 100 * (t_on - t_off) / t_off,
        # Rounded to 1e-9 %: equal energies otherwise show float noise of 1e-14.
        "energy_saved_percent": round(100 * (energy_off - energy_on) / energy_off, 9),
        "overhead_us": (t_on - t_off) / n * 1e6,
        "iteration_off_us": j_off["operation_mean_s"] * 1e6,
        "iteration_on_us": j_on["operation_mean_s"] * 1e6,
        "iteration_on_ci95_us": half_on * 1e6,
        "measured_idle_mean_us": sum(p["idle"]["total_s"] for p in gaps_off)
        / max(1, sum(p["idle"]["count"] for p in gaps_off))
        * 1e6,
        "idle_gaps_per_node": sum(p["idle"]["count"] for p in gaps_off) / NODES,
        "lpi_sleeps_per_link": sum(p["lpi_sleeps"] for p in host_ports) / NODES,
        # What each pair of ranks exchanged (Options.array_reading).
        "pair_bytes": options.pair_bytes(size, processes),
    }


def _fit_models(
    points: pd.DataFrame,
    gaps: dict[tuple[int, int, int], tuple[list[float], list[float]]],
    options: Options,
) -> tuple[pd.DataFrame, dict[tuple[int, str], Fit]]:
    """Fits both models per process count on every other array size; errors on the rest."""
    import pandas as pd

    from ethersim.models.eee_perf import fit_gaps, fit_mean_interval, gaps_penalty_us

    sizes = options.sizes()
    fit_sizes = set(sizes[::2])
    rows = []
    fits: dict[tuple[int, str], Fit] = {}
    points["fitted"] = points.array_bytes.isin(fit_sizes)
    for processes in options.processes:
        cells = points[points.processes == processes]
        train, test = cells[cells.fitted], cells[~cells.fitted]
        for model in ("mean-interval", "distribution"):
            if model == "mean-interval":
                fit = fit_mean_interval(train.idle_interval_us, train.overhead_us)

                def predict(r: Any, fit: Fit = fit) -> float:
                    return float(fit.model.penalty_us(r.idle_interval_us))
            else:
                keys = [
                    (int(p), int(s), int(b))
                    for p, s, b in zip(
                        train.processes, train.sleep_us, train.array_bytes, strict=True
                    )
                ]
                fit = fit_gaps([gaps[k] for k in keys], train.overhead_us)

                def predict(r: Any, fit: Fit = fit) -> float:
                    v, w = gaps[(int(r.processes), int(r.sleep_us), int(r.array_bytes))]
                    return gaps_penalty_us(fit.model, v, w)

            fits[(processes, model)] = fit
            column = "predicted_on_s_" + model.replace("-", "_")
            for idx, r in cells.iterrows():
                pred = r.elapsed_off_s + r.communications_per_node * predict(r) * 1e-6
                points.loc[idx, column] = pred
            errors = (
                100 * (points.loc[test.index, column] - test.elapsed_on_s).abs() / test.elapsed_on_s
            )
            worst = errors.idxmax()
            w = points.loc[worst]
            in_sample = (
                100
                * (points.loc[train.index, column] - train.elapsed_on_s).abs()
                / train.elapsed_on_s
            )
            rows.append(
                {
                    "processes": processes,
                    "model": model,
                    "c": fit.model.c_us,
                    "alpha_per_us": fit.model.alpha_per_us,
                    "t_us": fit.model.t_us,
                    "mean_error_percent": float(errors.mean()),
                    "worst_error_percent": float(errors.max()),
                    "worst_cell": f"sleep {int(w.sleep_us)} us, {int(w.array_bytes)} B",
                    "fit_cells": len(train),
                    "heldout_cells": len(test),
                    "fit_mean_error_percent": float(in_sample.mean()),
                    "fit_rms_us": fit.rms_us,
                }
            )
    return pd.DataFrame(rows), fits


def check(options: Options) -> None:
    """Raises :class:`~ethersim.errors.ScenarioError` (naming the option) for an option
    the study cannot run, before anything runs."""
    from ethersim.errors import ScenarioError

    if options.array_reading not in ARRAY_READINGS:
        raise ScenarioError(
            f"{options.array_reading!r}; expected one of {', '.join(ARRAY_READINGS)}",
            "--array-reading",
        )


def reproduce(options: Options, progress: bool = False) -> Reproduction:
    """Runs the study and returns what it found (nothing is written)."""
    import pandas as pd

    started = time.perf_counter()
    jobs = options.jobs or default_jobs()
    cells = [
        (p, s, b) for p in options.processes for b in options.sizes() for s in options.sleeps_us()
    ]
    show = Progress(progress)
    try:
        done, runs = _run_cells(cells, options, jobs, show)
    finally:
        show.close()
    points = pd.DataFrame([_point(cell, *done[cell], options) for cell in cells])
    gaps = {
        cell: _gaps(done[cell][0], done[cell][0].summary["jobs"][0]["communications_per_node"])
        for cell in cells
    }
    models, fits = _fit_models(points, gaps, options)
    points.insert(11, "point", range(len(points)))
    gap_rows = [
        (k, value, weight)
        for k, cell in enumerate(cells)
        for value, weight in zip(*gaps[cell], strict=True)
    ]
    gap_table = pd.DataFrame(gap_rows, columns=["point", "gap_us", "per_communication"])
    elapsed = time.perf_counter() - started
    return Reproduction(options, points, models, gap_table, fits, runs, elapsed, jobs)


class _EeeHpc(Study[Options, Reproduction]):
    """The EEE-HPC study's command, runs and files."""

    name = "eee-hpc"
    title = "EEE-HPC: the time Low Power Idle adds to an MPI alltoall loop, and its model."
    description = (
        "EEE-HPC: the time Low Power Idle adds to an MPI alltoall loop on four nodes (4 and "
        "16 processes), and the EEE performance model fitted to it, mean-interval and "
        "distribution-aware, with their prediction errors."
    )
    examples = (
        "ethersim reproduce eee-hpc --quick",
        "ethersim reproduce eee-hpc --idle-timeout-us 500",
    )
    quick_help = "Three array sizes, five sleeps, 20 to 80 iterations."
    out_help = "Folder for the tables, figures and summary."
    options = (
        Option(
            "idle_timeout_us",
            "--idle-timeout-us",
            int,
            IDLE_TIMEOUT_US,
            "The LPI idle timeout of every link, us (study: 1000).",
            metavar="US",
            min=1,
        ),
        Option(
            "array_reading",
            "--array-reading",
            str,
            "pair",
            "What the paper's MPI_Alltoall array is: pair (the block each pair of ranks "
            "exchanges) or buffer (the whole send buffer, an equal block per rank).",
            metavar="READING",
        ),
    )

    def configure(self, values: Mapping[str, Any]) -> Options:
        return Options(
            quick=values["quick"],
            seed=values["seed"],
            jobs=values["jobs"],
            idle_timeout_us=values["idle_timeout_us"],
            array_reading=values["array_reading"],
        )

    def check(self, options: Options) -> None:
        check(options)

    def reproduce(self, options: Options, progress: bool) -> Reproduction:
        return reproduce(options, progress)

    def tables(self, rep: Reproduction) -> list[TableFile]:
        return [
            TableFile("eee_hpc_points", rep.points),
            TableFile("eee_hpc_model", rep.models),
            TableFile("eee_hpc_gaps", rep.gaps),
        ]

    def figures(self, rep: Reproduction, folder: Path, published: Published) -> None:
        from ethersim.studies import eee_hpc_report

        eee_hpc_report.figures(rep, folder, published)

    def summary(self, rep: Reproduction) -> str:
        from ethersim.studies import eee_hpc_report

        return eee_hpc_report.summary(rep)

    def scenario_files(self, rep: Reproduction) -> dict[str, str]:
        o = rep.options
        return {
            f"scenarios/16p-4096B-1000us-eee-{'on' if eee else 'off'}.toml": scenario(
                16, 1000, 4096, eee, o.first_iterations(), o
            )
            for eee in (False, True)
        }

    def marker(self, rep: Reproduction) -> dict[str, Any]:
        o = rep.options
        return {
            "quick": o.quick,
            "seed": o.seed,
            "idle_timeout_us": o.idle_timeout_us,
            "array_reading": o.array_reading,
            "overhead_fixed_us": o.overhead_fixed_us,
            "overhead_per_byte_ns": o.overhead_per_byte_ns,
            "runs": rep.runs,
            "jobs": rep.jobs,
            "wall_time_s": rep.wall_s,
        }

    def main_table(self, rep: Reproduction) -> Table:
        from ethersim.studies import eee_hpc_report

        return eee_hpc_report.main_table(rep)

    def findings(self) -> Findings[Reproduction]:
        from ethersim.studies.eee_hpc_findings import FINDINGS

        return FINDINGS


#: The study, as :mod:`ethersim.studies.registry` lists it.
STUDY = _EeeHpc()

"""Figures, the written summary and the printed table of ``ethersim reproduce eee-hpc``:
every number in them comes from the reproduction's runs
(:class:`ethersim.studies.eee_hpc.Reproduction`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ethersim.studies.eee_hpc import NODES, WAKE_US

if TYPE_CHECKING:
    from rich.table import Table

    from ethersim.studies.contract import Published
    from ethersim.studies.eee_hpc import Reproduction

__all__ = ["figures", "main_table", "summary"]


def main_table(rep: Reproduction) -> Table:
    """The table ``ethersim reproduce eee-hpc`` prints when it is done."""
    from rich.table import Table

    table = Table(title="EEE-HPC: the model's prediction errors on held-out cells")
    for column in ("processes", "model", "c", "alpha", "t", "mean error", "worst error"):
        table.add_column(column, justify="right")
    for r in rep.models.itertuples():
        table.add_row(
            str(r.processes),
            str(r.model),
            f"{r.c:.1f} us",
            f"{r.alpha_per_us:.3g}/us",
            f"{r.t_us:.1f} us",
            f"{r.mean_error_percent:.3f}%",
            f"{r.worst_error_percent:.3f}%",
        )
    return table


def figures(rep: Reproduction, folder: Path, published: Published) -> None:
    """Draws the study's figures into ``folder`` (PNG and SVG each)."""
    from ethersim.figures import prepare, write_figure

    prepare(folder)
    import matplotlib.pyplot as plt
    import numpy as np

    t = rep.points

    def save(fig: Any, name: str) -> None:
        write_figure(fig, folder, name)

    # The fitted curves over the simulated points, per process count and model.
    fig, axes = plt.subplots(
        1, len(rep.options.processes), figsize=(11, 4.2), layout="constrained", squeeze=False
    )
    for ax, processes in zip(axes[0], rep.options.processes, strict=True):
        cells = t[t.processes == processes]
        for fitted, marker in ((True, "o"), (False, "x")):
            sub = cells[cells.fitted == fitted]
            ax.scatter(
                sub.idle_interval_us,
                sub.overhead_us,
                marker=marker,
                s=18,
                label="simulated, fitted" if fitted else "simulated, held out",
            )
        fit = rep.fits[(processes, "mean-interval")]
        grid = np.linspace(0, float(cells.idle_interval_us.max()) * 1.05, 400)
        ax.plot(grid, fit.model.penalty_us(grid), "k-", lw=1, label="mean-interval model f(I)")
        ax.set_xlabel("mean idle interval I = T_base/n - 8S/B (us)")
        ax.set_ylabel("overhead per communication (us)")
        ax.set_title(f"{processes} processes ({processes // NODES} per node)")
        ax.legend(fontsize=7)
    save(fig, "fit_mean_interval")

    # Predicted against simulated elapsed time, both models.
    fig, ax = plt.subplots(figsize=(6, 5.5), layout="constrained")
    for model, marker in (("mean_interval", "o"), ("distribution", "^")):
        for processes in rep.options.processes:
            cells = t[(t.processes == processes) & ~t.fitted]
            ax.scatter(
                cells.elapsed_on_s,
                cells[f"predicted_on_s_{model}"],
                marker=marker,
                s=16,
                label=f"{model.replace('_', '-')}, {processes} processes (held out)",
            )
    lo, hi = float(t.elapsed_on_s.min()), float(t.elapsed_on_s.max())
    ax.plot([lo, hi], [lo, hi], "k:", lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("simulated elapsed time, EEE on (s)")
    ax.set_ylabel("predicted elapsed time (s)")
    ax.legend(fontsize=7)
    save(fig, "predicted_vs_simulated")

    # Overhead and energy saved against the sleep, a curve per array size.
    from ethersim.studies.contract import draw_published

    fig, axes = plt.subplots(
        2, len(rep.options.processes), figsize=(11, 7), layout="constrained", squeeze=False
    )
    for k, processes in enumerate(rep.options.processes):
        cells = t[t.processes == processes]
        for size in rep.options.sizes():
            c = cells[cells.array_bytes == size].sort_values("sleep_us")
            axes[0][k].plot(c.sleep_us, c.overhead_percent, "o-", ms=3, label=f"{size} B")
            axes[1][k].plot(c.sleep_us, c.energy_saved_percent, "o-", ms=3, label=f"{size} B")
        draw_published(axes[0][k], published, "overhead_and_energy", f"{processes} processes")
        axes[0][k].set_title(f"{processes} processes")
        axes[0][k].set_ylabel("elapsed time added by EEE (%)")
        axes[1][k].set_ylabel("link energy saved (%)")
        axes[1][k].set_xlabel("sleep between alltoalls (us)")
        axes[0][k].legend(fontsize=7)
    save(fig, "overhead_and_energy")


def summary(rep: Reproduction) -> str:
    """``summary.md``: the grid, where EEE costs time, and the models' errors."""
    t, m = rep.points, rep.models
    o = rep.options
    lines = [
        "# EEE-HPC: what Low Power Idle costs an MPI alltoall, and how well the model predicts it",
        "",
        f"{'Quick grid' if o.quick else 'Full grid'}: {len(t)} cells "
        f"({', '.join(map(str, o.processes))} "
        f"processes; sleeps {o.sleeps_us()[0]} to {o.sleeps_us()[-1]} us; arrays "
        f"{o.sizes()[0]} B to {o.sizes()[-1]} B "
        + ("per pair" if o.array_reading == "pair" else "per send buffer, an equal block per rank")
        + f"), EEE off and on; {rep.runs} simulations "
        f"on {rep.jobs} threads in {rep.wall_s:.1f} s; seed {o.seed}.",
        "",
        f"Links: 1000BASE-T LPI, idle timeout {o.idle_timeout_us} us, Tw {WAKE_US} us, a sleep in "
        f"progress finishes. MPI call overhead {o.overhead_fixed_us} us + "
        f"{o.overhead_per_byte_ns} ns "
        "per byte sent.",
        "",
        f"Iterations per cell: {int(t.iterations.min())} to {int(t.iterations.max())} "
        "(doubled from "
        f"{o.first_iterations()} until the 95% confidence half-width of the time per iteration was "
        f"within {o.tolerance:.1%} of its mean, at most {o.max_iterations()}); "
        "the largest half-width "
        f"with EEE on: {t.iteration_on_ci95_us.max():.3f} us, "
        f"{(t.iteration_on_ci95_us / t.iteration_on_us).max():.3%} of its iteration.",
        "",
        "## Where EEE costs time",
        "",
    ]
    for processes in o.processes:
        cells = t[t.processes == processes]
        hit = cells[cells.overhead_percent > 0]
        lines.append(
            f"- {processes} processes: EEE adds time in {len(hit)} of {len(cells)} cells"
            + (
                f", from {hit.overhead_percent.min():.3f}% to {hit.overhead_percent.max():.2f}% "
                f"(shortest sleep with any: {int(hit.sleep_us.min())} us); link energy saved "
                f"{cells.energy_saved_percent.min():.2f}% to "
                f"{cells.energy_saved_percent.max():.2f}%."
                if len(hit)
                else "."
            )
        )
    lines += [
        "",
        "## The models (fitted on every other array size, judged on the rest)",
        "",
        "| processes | model | c (us) | alpha (1/us) | t (us) | mean error | worst error "
        "| worst cell |",
        "|---:|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in m.itertuples():
        lines.append(
            f"| {r.processes} | {r.model} | {r.c:.2f} | {r.alpha_per_us:.4g} | {r.t_us:.1f} | "
            f"{r.mean_error_percent:.3f}% | {r.worst_error_percent:.3f}% | {r.worst_cell} |"
        )
    lines += [
        "",
        "Figures: `figures/fit_mean_interval.png`, `figures/predicted_vs_simulated.png`, "
        "`figures/overhead_and_energy.png` (and SVG). Tables: `eee_hpc_points.csv`, "
        "`eee_hpc_model.csv`, `eee_hpc_gaps.csv` (each point's idle gaps on the nodes' links "
        "with EEE off: `ethersim model eee-fit eee_hpc_points.csv --gaps eee_hpc_gaps.csv`).",
        "",
    ]
    return "\n".join(lines)

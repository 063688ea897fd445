"""Figures, the written summary and the printed table of ``ethersim reproduce capacity-scaling``:
every number in them comes from the reproduction's runs
(:class:`ethersim.studies.capacity_scaling.Reproduction`)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ethersim.studies.capacity_scaling import FIGURES, SETTINGS

if TYPE_CHECKING:
    import pandas as pd
    from rich.table import Table

    from ethersim.studies.capacity_scaling import Reproduction
    from ethersim.studies.contract import Published

__all__ = ["figures", "main_table", "profile_comparison", "profiles_section", "summary"]


def main_table(rep: Reproduction) -> Table:
    """The table ``ethersim reproduce capacity-scaling`` prints when it is done."""
    from rich.table import Table

    table = Table(title="Capacity scaling, single flow: throughput reduction and energy saved")
    for column in (
        "RTT",
        "mRCI",
        "service rate",
        "throughput reduction",
        "rate changes",
        "energy saved",
    ):
        table.add_column(column, justify="right")
    for r in rep.table[rep.table.setting == "single"].itertuples():
        table.add_row(
            f"{r.rtt_ms:g} ms",
            f"{r.mrci_ms:g} ms",
            f"{r.mean_service_rate_mbps:.2f} Mb/s",
            f"{r.throughput_reduction_percent:.1f} %",
            f"{r.rate_changes:.0f}",
            f"{r.energy_saved_percent:.1f} %",
        )
    return table


def _panels(table: pd.DataFrame, setting: str) -> list[tuple[str, pd.DataFrame]]:
    rows = table[table.setting == setting]
    if setting == "background":
        return [(f"b_on = {b:g} ms", g) for b, g in rows.groupby("b_on_ms")]
    if setting == "bottleneck":
        return [(f"BN = {b:g} s", g) for b, g in rows.groupby("bn_s")]
    return [("single flow", rows)]


def figures(rep: Reproduction, folder: Path, published: Published) -> None:
    """One figure per metric and setting: a curve per RTT against mRCI (a panel per
    ``b_on`` or ``BN``); and one per recorded time series."""
    from ethersim.figures import prepare, write_figure

    prepare(folder)
    import matplotlib.pyplot as plt

    from ethersim.studies.contract import draw_published

    for metric, ci, label in FIGURES:
        for setting in SETTINGS:
            panels = _panels(rep.table, setting)
            fig, axes = plt.subplots(
                1, len(panels), figsize=(4.2 * len(panels), 3.6), squeeze=False
            )
            for ax, (title, g) in zip(axes[0], panels, strict=True):
                for rtt, curve in g.groupby("rtt_ms"):
                    curve = curve.sort_values("mrci_ms")
                    yerr = curve[ci] if ci else None
                    ax.errorbar(
                        curve.mrci_ms,
                        curve[metric],
                        yerr=yerr,
                        marker="o",
                        capsize=3,
                        label=f"RTT {rtt:g} ms",
                    )
                    if metric == "loss_percent_pc":
                        ax.plot(curve.mrci_ms, curve.loss_percent_nopc, linestyle=":", color="grey")
                draw_published(ax, published, f"{metric}_{setting}", title)
                ax.set_xscale("log")
                ax.set_xlabel("mRCI (ms)")
                ax.set_title(title)
                ax.grid(True, alpha=0.3)
            axes[0][0].set_ylabel(label)
            axes[0][-1].legend(fontsize=8)
            fig.suptitle(f"capacity scaling, {setting}")
            fig.tight_layout()
            write_figure(fig, folder, f"{metric}_{setting}")
    for name, ts in rep.timeseries.items():
        fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 5.5), sharex=True)
        for pc, style in ((True, "-"), (False, "--")):
            s = ts[ts.power_control == pc]
            tag = "with" if pc else "without"
            top.plot(
                s.t_s,
                s.arrival_rate_mbps,
                style,
                lw=0.8,
                label=f"arrival rate, {tag} power control",
            )
            top.step(
                s.t_s,
                s.service_rate_mbps,
                style,
                where="post",
                lw=1.2,
                label=f"service rate, {tag} power control",
            )
            bottom.step(
                s.t_s, s.cwnd_bytes / 1e3, style, where="post", lw=0.8, label=f"cwnd, {tag}"
            )
        top.set_ylabel("Mb/s")
        bottom.set_ylabel("cwnd (kB)")
        bottom.set_xlabel("time (s)")
        top.legend(fontsize=7, ncol=2)
        bottom.legend(fontsize=7)
        top.set_title(name.replace("_", ", "))
        fig.tight_layout()
        write_figure(fig, folder, f"timeseries_{name}")


def _extra(row: Any) -> str:
    """The b_on or BN of a cell, for its description."""
    if not math.isnan(row.b_on_ms):
        return f", b_on {row.b_on_ms:g} ms"
    if not math.isnan(row.bn_s):
        return f", BN {row.bn_s:g} s"
    return ""


def summary(rep: Reproduction) -> str:
    """``summary.md``: the grid, the setup, what each setting saves and costs; with other
    TCP profiles, their findings side by side."""
    t = rep.table
    o = rep.options
    lines = [
        "# Capacity scaling against TCP congestion control",
        "",
        f"{'Quick grid' if o.quick else 'Full grid'}: {len(t)} cells, {o.reps} replications each, "
        f"{o.seconds:g} s per run, each run paired with the same run (same seed) without power "
        f"control; {rep.runs} runs ({rep.skipped} already in the results database) on {rep.jobs} "
        f"workers in {rep.wall_s:.1f} s; base seed {o.seed}.",
        "",
        f"TCP: the `{o.tcp_profile}` profile's defaults (docs/tcp.md), 1460-B segments, no "
        f"sender window limit. Router buffers: one BDP at 10 Mb/s, "
        + (
            "an ns-2 queue limit of BDP / 1500-B packets counting the one being sent."
            if o.queue == "packets"
            else "in bytes of switch memory."
        ),
        "",
        f"practRA: delay bound {o.delay_bound_ms:g} ms, dark time {o.dark_ms:g} ms per change, "
        f"moving-average weight {o.ewma_weight:g} on {o.sample_ms:g} ms samples. Power model "
        f"(an assumption): P(r) = Pmax·({o.static_fraction:g} + "
        f"{1 - o.static_fraction:g}·r/10 Mb/s). "
        f"Background bursts at {o.burst_rate_mbps:g} Mb/s.",
        "",
        "| setting | mean service rate (Mb/s) | throughput reduction (%) | rate changes "
        "| energy saved (%) |",
        "|---|---|---|---|---|",
    ]
    for setting in SETTINGS:
        g = t[t.setting == setting]

        def span(column: str, digits: int, g: pd.DataFrame = g) -> str:
            return f"{g[column].min():.{digits}f} to {g[column].max():.{digits}f}"

        lines.append(
            f"| {setting} | {span('mean_service_rate_mbps', 2)} "
            f"| {span('throughput_reduction_percent', 1)} | {span('rate_changes', 0)} "
            f"| {span('energy_saved_percent', 1)} |"
        )
    lines.append("")
    for setting in SETTINGS:
        g = t[t.setting == setting]
        worst = g.sort_values("throughput_reduction_percent").iloc[-1]
        harmless = g[g.throughput_reduction_percent < 2]
        by_rtt = g.groupby("rtt_ms")[
            ["throughput_reduction_percent", "energy_saved_percent"]
        ].mean()
        per_rtt = "; ".join(
            f"RTT {rtt:g} ms: {r.throughput_reduction_percent:.1f} % throughput, "
            f"{r.energy_saved_percent:.1f} % energy"
            for rtt, r in by_rtt.iterrows()
        )
        lines.append(f"- **{setting}** (means over the cells of each RTT): {per_rtt}.")
        lines.append(
            f"  Largest throughput reduction {worst.throughput_reduction_percent:.1f} % "
            f"(± {worst.throughput_reduction_ci_percent:.1f}) at RTT {worst.rtt_ms:g} ms, mRCI "
            f"{worst.mrci_ms:g} ms{_extra(worst)}, with {worst.rate_changes:.0f} rate changes."
        )
        if len(harmless):
            best = harmless.sort_values("energy_saved_percent").iloc[-1]
            lines.append(
                f"  {len(harmless)} of {len(g)} cells cost TCP under 2 % of its throughput; the "
                f"best of them saves {best.energy_saved_percent:.1f} % (RTT {best.rtt_ms:g} ms, "
                f"mRCI {best.mrci_ms:g} ms{_extra(best)}, TCP at {best.throughput_pc_mbps:.2f} "
                f"Mb/s against {best.throughput_nopc_mbps:.2f} without power control)."
            )
    lines += [
        "",
        "Table: `capacity_scaling.csv` (one row per cell; `capacity_scaling_pairs.csv` has every "
        "pair of runs). Figures: `figures/<metric>_<setting>.png`, time series in "
        "`timeseries/` and `figures/timeseries_*.png`. Sweep files: `sweeps/`.",
        "",
    ]
    return "\n".join(lines)


def profile_comparison(rep: Reproduction) -> pd.DataFrame:
    """``profiles.csv``: every published finding's verdict and simulated value under the
    study's own TCP profile and under each of ``also_profiles``, side by side (columns
    ``finding``, then ``verdict_<profile>`` and ``simulated_<profile>`` per profile)."""
    from ethersim.studies.capacity_scaling_findings import FINDINGS
    from ethersim.studies.contract import compare

    published = FINDINGS.published()
    out = None
    for profile, r in [(rep.options.tcp_profile, rep), *rep.profiles.items()]:
        c = compare(published, FINDINGS, r)[["finding", "verdict", "simulated"]]
        c = c.rename(columns={"verdict": f"verdict_{profile}", "simulated": f"simulated_{profile}"})
        out = c if out is None else out.merge(c, on="finding")
    assert out is not None
    return out


def profiles_section(rep: Reproduction, side: pd.DataFrame) -> str:
    """The summary's side-by-side paragraph: K of N under each profile, and every finding
    whose verdict the profile changes."""
    names = [rep.options.tcp_profile, *rep.profiles]
    lines = [
        "## TCP profiles side by side",
        "",
        f"The whole grid again under each profile, the routers' buffers as before "
        f"({rep.options.queue}); `profiles.csv` has every finding's verdict under each, "
        "`capacity_scaling_<profile>.csv` the other profiles' tables.",
        "",
    ]
    for p in names:
        k = int((side[f"verdict_{p}"] == "reproduced").sum())
        lines.append(f"- `{p}`: {k} of {len(side)} published findings reproduced.")
    changed = side[side[[f"verdict_{p}" for p in names]].nunique(axis=1) > 1]
    if len(changed):
        lines += ["", "Verdicts the profile changes:", ""]
        for row in changed.to_dict("records"):
            shown = "; ".join(
                f"{p}: {row[f'verdict_{p}']} ({row[f'simulated_{p}']})" for p in names
            )
            lines.append(f"- **{row['finding']}** — {shown}")
    return "\n".join(lines) + "\n"

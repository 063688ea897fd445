"""Figures, the written summary and the printed table of ``ethersim reproduce csma``:
every number in them comes from the reproduction's runs
(:class:`ethersim.studies.csma.Reproduction`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ethersim.studies.csma import CHARGE, RATE_BPS, SHORT, TAP_DELAY_US, TX_BUFFERS

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure
    from rich.table import Table

    from ethersim.studies.contract import Published
    from ethersim.studies.csma import Reproduction

__all__ = ["METRICS", "figures", "main_table", "summary"]


def main_table(rep: Reproduction) -> Table:
    """The table ``ethersim reproduce csma`` prints when it is done."""
    from rich.table import Table

    t = rep.table[rep.table.layout == "long"]
    hosts = [h for h in (1, 2, 4, 8, 16, 24) if h in set(t.hosts)]
    table = Table(title="CSMA/CD on the long net (3000 ft, 4 repeaters): total bit rate, Mb/s")
    names = [f"{h} host" if h == 1 else f"{h} hosts" for h in hosts]
    for column in ("length", *names, f"M-B, {hosts[-1]}"):
        table.add_column(column, justify="right")
    for label in dict.fromkeys(t.length):
        by = t[t.length == label].set_index("hosts")
        name = f"{label} B" if "/" not in label else f"mix {label}"
        table.add_row(
            name,
            *(f"{by.bit_rate_mbps[h]:.2f}" for h in hosts),
            f"{by.metcalfe_boggs_mbps[hosts[-1]]:.2f}",
        )
    return table


def _save(fig: Figure, folder: Path, name: str) -> None:
    from ethersim.figures import write_figure

    write_figure(fig, folder, name, dpi=110)


#: The figures: column, axis label, file name.
METRICS = (
    ("bit_rate_mbps", "total bit rate (Mb/s)", "bit_rate"),
    ("packet_rate_pps", "total packet rate (frames/s)", "packet_rate"),
    ("bit_rate_std_percent", "std of per-host bit rate (% of mean)", "bit_rate_std"),
    ("delay_mean_ms", "mean transmission delay (ms)", "delay_mean"),
    ("delay_std_ms", "std of transmission delay (ms)", "delay_std"),
    ("excess_delay_ms", "mean excess delay (ms)", "excess_delay"),
    ("collisions_per_frame", "collisions per frame (sent or dropped)", "collisions_per_frame"),
    ("drops", "frames dropped (16 collisions)", "drops"),
)


def _styles(labels: list[str]) -> dict[str, tuple[Any, str]]:
    """A colour and line style per curve: fixed lengths along a colour map, mixes dashed."""
    import matplotlib as mpl

    fixed = [x for x in labels if "/" not in x]
    cmap = mpl.colormaps["viridis"]
    styles: dict[str, tuple[Any, str]] = {
        x: (cmap(k / max(1, len(fixed) - 1) * 0.9), "o-") for k, x in enumerate(fixed)
    }
    mixes = [x for x in labels if "/" in x]
    cycle = ("tab:red", "tab:orange", "tab:pink", "tab:brown")
    styles.update({x: (cycle[k % len(cycle)], "s--") for k, x in enumerate(mixes)})
    return styles


def figures(rep: Reproduction, folder: Path, published: Published) -> None:
    """Draws the study's figures into ``folder`` (PNG and SVG each): every metric against
    the number of hosts, a panel per layout; the Metcalfe-Boggs estimate."""
    from ethersim.figures import prepare

    prepare(folder)
    import matplotlib.pyplot as plt

    from ethersim.studies.contract import draw_published

    t = rep.table
    layouts = rep.options.layouts()
    labels = [f.label for f in rep.options.frames()]
    styles = _styles(labels)
    for column, ylabel, name in METRICS:
        fig, axes = plt.subplots(
            1,
            len(layouts),
            figsize=(4.2 * len(layouts) + 1.6, 4),
            sharey=True,
            layout="constrained",
        )
        for ax, layout in zip(axes, layouts, strict=True):
            for label in labels:
                rows = t[(t.layout == layout.name) & (t.length == label)]
                color, style = styles[label]
                text = f"{label} B" if "/" not in label else f"mix {label}"
                ax.plot(rows.hosts, rows[column], style, ms=2.5, color=color, label=text)
            if column == "bit_rate_mbps":
                ax.axhline(RATE_BPS / 1e6, color="grey", ls=":")
            draw_published(ax, published, name, layout.name)
            ax.set_title(f"{layout.name} net (round trip {layout.round_trip_us:.1f} us)")
            ax.set_xlabel("hosts")
        axes[0].set_ylabel(ylabel)
        handles = dict(zip(*reversed(axes[0].get_legend_handles_labels()), strict=True))
        for ax in axes[1:]:
            for handle, text in zip(*ax.get_legend_handles_labels(), strict=True):
                handles.setdefault(text, handle)
        fig.legend(list(handles.values()), list(handles), loc="outside right upper", fontsize=8)
        _save(fig, folder, name)
    # The estimate against the long net's fixed lengths.
    fig, ax = plt.subplots(figsize=(8, 4.5), layout="constrained")
    long = t[t.layout == "long"]
    for label in labels:
        rows = long[long.length == label]
        color, style = styles[label]
        ax.plot(rows.hosts, rows.bit_rate_mbps, style[0], ms=3, color=color, label=label)
        ax.plot(rows.hosts, rows.metcalfe_boggs_mbps, ":", color=color)
    ax.plot([], [], "k:", label="Metcalfe-Boggs")
    ax.set_xlabel("hosts")
    ax.set_ylabel("total bit rate (Mb/s)")
    ax.set_title("long net: simulated (markers) against the Metcalfe-Boggs estimate (dotted)")
    ax.legend(fontsize=7, ncol=2)
    _save(fig, folder, "metcalfe_boggs")


def _hosts(n: int) -> str:
    return f"{n} host" if n == 1 else f"{n} hosts"


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---:|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines


def _by_hosts(
    t: pd.DataFrame, layout: str, column: str, shown: Sequence[int], fmt: str
) -> list[str]:
    """A markdown table of ``column`` on ``layout``: a row per curve, a column per host
    count in ``shown`` that ran."""
    rows = t[t.layout == layout]
    hosts = [h for h in shown if h in set(rows.hosts)]
    body = []
    for label in dict.fromkeys(rows.length):
        by = rows[rows.length == label].set_index("hosts")[column]
        body.append([label, *(format(by[h], fmt) for h in hosts)])
    return _md_table(["length", *(_hosts(h) for h in hosts)], body)


def summary(rep: Reproduction) -> str:
    """``summary.md``: the grid, the bit and packet rates, delays, the estimate."""
    o, t = rep.options, rep.table
    duration, start, until = o.window_s
    shown = (1, 2, 4, 8, 16, 24)
    max64 = RATE_BPS / ((SHORT + CHARGE) * 8)
    short64 = t[(t.length == str(SHORT)) & (t.hosts >= 2)]
    top = short64.iloc[int(short64.packet_rate_pps.to_numpy().argmax())]
    many = t[t.hosts >= 8]
    above = many[many.bit_rate_mbps >= many.metcalfe_boggs_mbps]
    worst = many.iloc[int((many.bit_rate_mbps - many.metcalfe_boggs_mbps).to_numpy().argmin())]
    lines = [
        "# CSMA/CD: the measured capacity of an Ethernet (Boggs, Mogul and Kent)",
        "",
        f"{'Quick grid' if o.quick else 'Full grid'}: {len(t)} (layout, length, hosts) cells, "
        f"each one run of {duration:g} s measured from {start:g} s to {until:g} s; "
        f"{rep.runs} simulations on {rep.jobs} threads in {rep.wall_s:.1f} s; seed {o.seed}.",
        "",
        "Every host saturates a 10 Mb/s segment (signals at 0.77 c, transceiver delay "
        f"{TAP_DELAY_US} us crossed at both ends) with frames to itself, through "
        f"{TX_BUFFERS} transmit buffers and a {rep.tx_service_ps / 1e6:.2f} us transmit service "
        "time after each frame ("
        + (
            "calibrated: two hosts then send 64-byte frames at "
            f"{rep.calibration.simulated_pps:,.0f} packets/s on the long net, the study's "
            f"about {rep.calibration.target_pps:,.0f}"
            if rep.calibration is not None and rep.calibration.target_pps is not None
            else "given"
        )
        + "). A study length L (header, no CRC) is a simulated frame of "
        "L + 4 B; each frame is charged (L + 24)·8 bits (gap 12, preamble 8, CRC 4 bytes), "
        "so back-to-back frames make exactly 10 Mb/s. Mixes are 64- and 1536-byte frames, "
        "short/long per block of eight, in random order.",
        "",
        "Layouts:",
        "",
        *(
            f"- `{x.name}` (1 to {x.max_hosts} hosts): {x.about}; end-to-end round trip "
            f"{x.round_trip_us:.2f} us."
            for x in o.layouts()
        ),
        "",
        "## Total bit rate on the long net, Mb/s",
        "",
        *_by_hosts(t, "long", "bit_rate_mbps", shown, ".2f"),
        "",
        f"At most 10e6 / ((L + 24)·8) frames/s fit: {max64:,.1f} frames/s for 64-byte frames. "
        f"With 2 hosts or more the 64-byte packet rate reaches {top.packet_rate_pps:,.1f} "
        f"frames/s ({top.layout} net, {int(top.hosts)} hosts); total packet rates, frames/s:",
        "",
        *_by_hosts(t, "long", "packet_rate_pps", shown, ",.0f"),
        "",
        "Mean excess delay on the long net, ms:",
        "",
        *_by_hosts(t, "long", "excess_delay_ms", shown, ".3f"),
        "",
        "## Against the Metcalfe-Boggs estimate",
        "",
        "With Q hosts always ready: A = (1 - 1/Q)^(Q-1), W = (1 - A)/A, "
        "E = (P/C) / (P/C + W·T), with P = (L + 24)·8 bits per frame (a mix: the mean over "
        "its block), C = 10 Mb/s and T = the slot time, 512 bit times = 51.2 us; the "
        "estimate is E · 10 Mb/s (Q = 1: E = 1). It assumes every host always has a frame "
        f"ready and every slot is contended; the hosts here take {rep.tx_service_ps / 1e6:.1f} "
        "us between frames, so with few hosts the network is idle part of the time and falls "
        "below it.",
        "",
        f"With 8 hosts or more, the simulated bit rate is at or above the estimate in "
        f"{len(above)} of {len(many)} cells; closest: {worst.layout} net, length "
        f"{worst.length}, {int(worst.hosts)} hosts, {worst.bit_rate_mbps:.3f} against "
        f"{worst.metcalfe_boggs_mbps:.3f} Mb/s. Long net, Mb/s (simulated / estimate):",
        "",
    ]
    long = t[t.layout == "long"]
    q = [h for h in (2, 8, 24) if h in set(long.hosts)]
    body = []
    for label in dict.fromkeys(long.length):
        by = long[long.length == label].set_index("hosts")
        body.append(
            [label, *(f"{by.bit_rate_mbps[h]:.2f} / {by.metcalfe_boggs_mbps[h]:.2f}" for h in q)]
        )
    lines += _md_table(["length", *(_hosts(h) for h in q)], body)
    lines += ["", "## Every layout at its most hosts, Mb/s", ""]
    body = []
    for label in dict.fromkeys(t.length):
        row = [label]
        for x in o.layouts():
            r = t[(t.layout == x.name) & (t.length == label) & (t.hosts == x.max_hosts)]
            row.append(f"{r.bit_rate_mbps.iloc[0]:.2f}" if len(r) else "")
        body.append(row)
    lines += _md_table(["length", *(f"{x.name} ({x.max_hosts})" for x in o.layouts())], body)
    lines += [
        "",
        f"Collisions per frame reach {t.collisions_per_frame.max():.2f}; "
        f"{int(t.drops.sum()):,} frames in all were dropped after 16 collisions "
        f"(most in one cell: {int(t.drops.max()):,}).",
        "",
        "Figures (`figures/`, PNG and SVG): "
        + ", ".join(f"`{name}`" for _, _, name in METRICS)
        + " against the number of hosts, one panel per layout; `metcalfe_boggs`. "
        "Table: `csma.csv` (and `csma.parquet`). Scenarios: `scenarios/`.",
        "",
    ]
    return "\n".join(lines)

"""Figures, the written summary and the printed table of ``ethersim reproduce rps``:
every number in them comes from the reproduction's runs
(:class:`ethersim.studies.rps.Reproduction`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from rich.table import Table

    from ethersim.results import Result
    from ethersim.studies.contract import Published
    from ethersim.studies.rps import Reproduction

__all__ = ["figures", "main_table", "summary"]

PS = 1e-12
#: Time shown around the first pause event (it starts at 1 s), s.
EVENT_WINDOW_S = (0.99, 1.09)


def main_table(rep: Reproduction) -> Table:
    """The table ``ethersim reproduce rps`` prints: every cell's transfer and loss."""
    from rich.table import Table

    table = Table(title="Rapid PHY Selection: 802.3x PAUSE against link-rate switching")
    for column in ("protocol", "pause", "server", "transfer", "extra", "loss", "PAUSE to server"):
        table.add_column(column, justify="left" if column in ("protocol", "server") else "right")
    for _, r in rep.cells.iterrows():
        table.add_row(
            r.protocol.upper(),
            f"{r.pause_ms} ms",
            "honours" if r.server_honours_pause else "ignores",
            f"{r.transfer_time_s:.3f} s",
            f"{r.extra_time_s:+.3f} s",
            f"{r.loss_percent:.3f} %",
            f"{r.pause_frames_to_server:,}",
        )
    return table


def _label(protocol: str, honours: bool) -> str:
    return f"{protocol.upper()}, server {'honours' if honours else 'ignores'} PAUSE"


def figures(rep: Reproduction, folder: Path, paper: Published) -> list[Path]:
    """Draws the study's figures into ``folder`` (PNG and SVG each), the paper's transfer
    times from its published findings ``paper`` beside the simulated ones; returns the
    PNGs."""
    from ethersim.figures import prepare, write_figure

    prepare(folder)
    # Each drawn, written and closed before the next is drawn.
    draws: list[tuple[str, Callable[[], Figure]]] = [
        ("transfer_time", lambda: _transfer_time(rep, paper)),
        ("udp_loss", lambda: _udp_loss(rep)),
        ("burst_loss", lambda: _burst_loss(rep)),
        ("pause_event", lambda: _pause_event(rep)),
    ]
    drawn = []
    for name, draw in draws:
        write_figure(draw(), folder, name)
        drawn.append(folder / f"{name}.png")
    return drawn


def _transfer_time(rep: Reproduction, paper: Published) -> Figure:
    import matplotlib.pyplot as plt

    cells = rep.cells
    fig, axes = plt.subplots(1, 2, figsize=(10, 5.2), layout="constrained")
    for ax, protocol in zip(axes, ("tcp", "udp"), strict=True):
        for honours, style in ((True, "o-"), (False, "s--")):
            rows = cells[(cells.protocol == protocol) & (cells.server_honours_pause == honours)]
            ax.plot(rows.pause_ms, rows.transfer_time_s, style, label=_label(protocol, honours))
        control = cells[(cells.protocol == protocol) & (cells.pause_ms == 0)]
        base = float(control.transfer_time_s.iloc[0])
        # The same cells behind the other kind of switch (with or without XON).
        other = rep.release[
            (rep.release.protocol == protocol)
            & (rep.release.switch_releases_pause != rep.options.switch_releases)
        ]
        xon = "with" if not rep.options.switch_releases else "without"
        ax.plot(
            [0, *other.pause_ms],
            [base, *other.transfer_time_s],
            "^-.",
            label=f"{protocol.upper()}, server honours PAUSE, switch {xon} XON",
        )
        rows = cells[(cells.protocol == protocol) & cells.server_honours_pause]
        ax.plot(
            rows.pause_ms,
            base + rows.pause_total_s,
            ":",
            color="grey",
            label="control + the pauses added up",
        )
        for honours, marker in ((True, "*"), (False, "P")):
            published = _published_times(paper, protocol, honours)
            if published and not rep.options.quick:
                ax.plot(
                    list(published),
                    list(published.values()),
                    marker,
                    color="black",
                    markersize=9,
                    linestyle="none",
                    label=f"paper, server {'honours' if honours else 'ignores'} "
                    f"(Table {'I' if protocol == 'tcp' else 'II'})",
                )
        ax.set_xlabel("pause time T (ms), once a second")
        ax.set_ylabel("transfer time (s)")
        ax.set_title(f"{protocol.upper()}: 500 MB" if not rep.options.quick else protocol.upper())
        # Below the axes: the paper's markers sit anywhere in them.
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
    return fig


def _published_times(paper: Published, protocol: str, honours: bool) -> dict[int, float]:
    """The paper's transfer times by pause time (its Tables I and II, from the study's
    published findings), for markers beside the simulated ones."""
    times = {}
    for f in paper.findings:
        w = f.where
        if (
            f.quantity == "transfer_time_s"
            and f.published is not None
            and w.get("protocol") == protocol
            and w.get("server_honours_pause") == honours
        ):
            times[int(w["pause_ms"])] = f.published
    return dict(sorted(times.items()))


def _udp_loss(rep: Reproduction) -> Figure:
    import matplotlib.pyplot as plt

    cells = rep.cells
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
    for honours, style in ((True, "o-"), (False, "s--")):
        rows = cells[(cells.protocol == "udp") & (cells.server_honours_pause == honours)]
        left.plot(rows.pause_ms, rows.loss_percent, style, label=_label("udp", honours))
    left.set_xlabel("pause time T (ms)")
    left.set_ylabel("UDP loss (%)")
    left.set_title(f"switch buffer {rep.options.buffer_bytes // 1024} KiB")
    left.legend(fontsize=8)
    for pause, rows in rep.buffers.groupby("pause_ms"):
        right.plot(rows.buffer_bytes / 1024, rows.loss_percent, "o-", ms=3, label=f"T = {pause} ms")
    right.axvline(rep.options.buffer_bytes / 1024, color="grey", ls=":", label="grid's buffer")
    right.set_xlabel("switch port buffer (KiB)")
    right.set_ylabel("UDP loss (%)")
    right.set_title("server ignores PAUSE")
    right.legend(fontsize=8)
    return fig


def _burst_loss(rep: Reproduction) -> Figure:
    import matplotlib.pyplot as plt

    b = rep.bursts
    fig, ax = plt.subplots(figsize=(6.5, 4.5), layout="constrained")
    for rate, rows in b.groupby("rate_gbps"):
        line = ax.plot(rows.buffer_bytes / 1e6, rows.lost_percent, "-", label=f"R = {rate} Gb/s")
        sim = rows.dropna(subset=["lost_percent_simulated"])
        ax.plot(
            sim.buffer_bytes / 1e6,
            sim.lost_percent_simulated,
            "o",
            mfc="none",
            color=line[0].get_color(),
        )
    ax.plot([], [], "ko", mfc="none", label="simulated")
    burst = int(b.burst_bytes.iloc[0])
    ax.set_title(f"burst of {burst / 1e6:.1f} MB into a 10 Gb/s link dark {b.dark_ms.iloc[0]} ms")
    ax.set_xlabel("buffer (MB)")
    ax.set_ylabel("burst lost (%)")
    ax.legend(fontsize=8)
    return fig


def _series(result: Result, port: str, quantity: str) -> pd.DataFrame:
    s = result.series
    return s[(s.port == port) & (s.quantity == quantity)]


def _window(points: pd.DataFrame, lo: float, hi: float) -> pd.DataFrame:
    """The change points of a step series within ``[lo, hi]``, starting with the level
    in force at ``lo`` (the last change before it, moved to ``lo``)."""
    before = points[points.t_s < lo].tail(1).assign(t_s=lo)
    inside = points[(points.t_s >= lo) & (points.t_s <= hi)]
    import pandas as pd

    return pd.concat([before, inside], ignore_index=True)


def _step(
    ax: Axes, points: pd.DataFrame, lo: float, hi: float, scale: float = 1.0, **kw: Any
) -> None:
    """Draws a step series over ``[lo, hi]``, held to ``hi``."""
    w = _window(points, lo, hi)
    if w.empty:
        return
    t = [*w.t_s, hi]
    v = [*(w.value * scale), float(w.value.iloc[-1]) * scale]
    ax.step(t, v, where="post", **kw)


def _pause_event(rep: Reproduction) -> Figure:
    import matplotlib.pyplot as plt

    lo, hi = EVENT_WINDOW_S
    fig, axes = plt.subplots(3, 2, figsize=(11, 7), sharex=True, layout="constrained")
    for col, key in enumerate(("honoured", "ignored")):
        result = rep.events[key]
        pause_ms = max(rep.cells.pause_ms)
        who = "honours" if key == "honoured" else "ignores"
        axes[0, col].set_title(f"server {who} PAUSE; client pauses switch {pause_ms} ms at 1 s")
        tcp = result.tcp_series
        kib = 1 / 1024
        _step(axes[0, col], tcp[tcp.quantity == "cwnd"], lo, hi, kib, label="cwnd")
        _step(axes[0, col], tcp[tcp.quantity == "flight"], lo, hi, kib, label="FlightSize")
        axes[0, col].set_yscale("log")
        axes[0, col].set_ylabel("TCP sender (KiB)")
        axes[0, col].legend(fontsize=8)
        queue = _series(result, "switch->client", "queue_bytes")
        _step(axes[1, col], queue, lo, hi, kib)
        axes[1, col].axhline(rep.options.buffer_bytes / 1024, color="grey", ls=":", label="buffer")
        axes[1, col].set_ylabel("switch→client queue (KiB)")
        axes[1, col].legend(fontsize=8)
        gate = _series(result, "server->switch", "gate_open")
        _step(axes[2, col], gate.assign(value=1 - gate.value), lo, hi, label="server paused")
        frames = _series(result, "server->switch", "pause_received")
        win = frames[(frames.t_s >= lo) & (frames.t_s <= hi)]
        axes[2, col].plot(win.t_s, [0.5] * len(win), "kv", label="PAUSE received")
        axes[2, col].set_ylim(-0.1, 1.1)
        axes[2, col].set_yticks([0, 1], ["sending", "paused"])
        axes[2, col].set_xlabel("time (s)")
        axes[2, col].legend(fontsize=8)
        axes[2, col].set_xlim(lo, hi)
    return fig


def _row(cells: pd.DataFrame, protocol: str, pause: int, honours: bool) -> Any:
    rows = cells[
        (cells.protocol == protocol)
        & (cells.pause_ms == pause)
        & (cells.server_honours_pause == honours)
    ]
    return rows.iloc[0]


def summary(rep: Reproduction) -> str:
    """``summary.md``: what the run found, in a few paragraphs and tables."""
    o = rep.options
    cells = rep.cells
    longest = max(cells.pause_ms)
    lines = [
        "# Rapid PHY Selection study: PAUSE against link-rate switching",
        "",
        f"{'Quick grid' if o.quick else 'Full grid'}: a {o.file_bytes / 1e6:.0f} MB file, "
        f"switch port buffer {o.buffer_bytes:,} B, switch "
        f"{'sends' if o.switch_releases else 'does not send'} XON, seed {o.seed}; "
        f"{rep.runs} simulations on {rep.jobs} threads in {rep.wall_s:.1f} s.",
        "",
        "## Calibration",
        "",
        "The server's per-packet transmit time was solved for so that the control transfer "
        "(no pauses) lasts the study's time"
        + (" (scaled to the smaller file)" if o.quick else "")
        + (
            ", spent by its CPU before the transmit buffers (`tx_processing`; host "
            "bottleneck `cpu`):"
            if o.host_bottleneck == "cpu"
            else ", spent by its controller after each frame (`tx_interrupt`; host bottleneck "
            "`nic`), so a paused NIC stops the whole pipeline:"
        ),
        "",
        "| protocol | target (s) | simulated (s) | server time per packet (us) | runs |",
        "|---|---|---|---|---|",
    ]
    for c in rep.calibrations:
        lines.append(
            f"| {c.protocol.upper()} | {c.target_s:.4f} | {c.simulated_s:.6f} | "
            f"{c.tx_processing_ps / 1e6:.3f} | {c.runs} |"
        )
    lines += [
        "",
        "## Transfer time and loss",
        "",
        "| protocol | pause (ms) | server | transfer (s) | extra (s) | pauses added up (s) "
        "| loss (%) | PAUSE to server | drops at switch |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for _, r in cells.iterrows():
        lines.append(
            f"| {r.protocol.upper()} | {r.pause_ms} | "
            f"{'honours' if r.server_honours_pause else 'ignores'} | {r.transfer_time_s:.3f} | "
            f"{r.extra_time_s:.3f} | {r.pause_total_s:.3f} | {r.loss_percent:.3f} | "
            f"{r.pause_frames_to_server} | {r.switch_drops} |"
        )
    tcp_h = _row(cells, "tcp", longest, True)
    tcp_i = _row(cells, "tcp", longest, False)
    udp_i = _row(cells, "udp", longest, False)
    udp_h = _row(cells, "udp", longest, True)
    rel = rep.release
    other = rel[(rel.protocol == "tcp") & (rel.pause_ms == longest)]
    xon = other[other.switch_releases_pause].iloc[0]
    no_xon = other[~other.switch_releases_pause].iloc[0]
    lines += ["", "## What the run found", ""]
    lines += _findings(rep, longest, udp_i, udp_h, tcp_i, tcp_h, xon, no_xon)
    b = rep.bursts.dropna(subset=["lost_percent_simulated"])
    diff = (b.lost_packets_simulated.astype(float) - b.lost_packets.astype(float)).abs()
    lines += [
        f"- **Burst loss.** {len(b)} simulated bursts into a link dark for "
        f"{int(b.dark_ms.iloc[0])} ms lose what the analytic model predicts to within "
        f"{int(diff.max())} packet(s) (`burst_loss.csv`).",
        "",
        "Figures: `figures/transfer_time.png`, `figures/udp_loss.png`, "
        "`figures/burst_loss.png`, `figures/pause_event.png` (and SVG). The scenario of "
        "every grid cell is in `scenarios/`; `ethersim run` runs any of them.",
        "",
    ]
    return "\n".join(lines)


def _compare(x: float, y: float) -> str:
    """How ``x`` stands against ``y``, in words (within 1 % or 1 ms is "about")."""
    if abs(x - y) <= max(1e-3, 0.01 * abs(y)):
        return "about as much as"
    return "more than" if x > y else "less than"


def _lost(percent: float) -> str:
    return "loses nothing" if percent == 0 else f"loses {percent:.3f} %"


def _findings(
    rep: Reproduction,
    longest: int,
    udp_i: Any,
    udp_h: Any,
    tcp_i: Any,
    tcp_h: Any,
    xon: Any,
    no_xon: Any,
) -> list[str]:
    """The findings, each worded from the numbers it states."""
    honoured = rep.cells[rep.cells.server_honours_pause]
    tcp_cal = next(c for c in rep.calibrations if c.protocol == "tcp")
    # The server produces a 1538-byte line frame (MSS segment) per calibrated time.
    host_bps = 1538 * 8 / (tcp_cal.tx_processing_ps * 1e-12)
    per_event = no_xon.server_paused_s / max(1, no_xon.client_pauses)
    out = [
        f"- **UDP.** Ignoring PAUSE {_lost(udp_i.loss_percent)} of the file with {longest} ms "
        f"pauses ({udp_i.switch_drops} frames dropped at the switch). Honouring PAUSE "
        f"{_lost(udp_h.loss_percent)}, with {udp_h.pause_frames_to_server} PAUSE frames to "
        "the server. `rps_buffer.csv` shows the loss against the buffer.",
        f"- **TCP, PAUSE ignored.** The switch drops {tcp_i.switch_drops} segments with "
        f"{longest} ms pauses; recovery ({tcp_i.fast_retransmits:.0f} fast retransmits, "
        f"{tcp_i.timeouts:.0f} timeouts) costs {tcp_i.extra_time_s:.3f} s, "
        f"{_compare(tcp_i.extra_time_s, tcp_i.pause_total_s)} the {tcp_i.pause_total_s:.3f} s "
        "the pauses add up to.",
        f"- **TCP, PAUSE honoured.** The transfer {_lost(tcp_h.loss_percent)} and takes "
        f"{tcp_h.extra_time_s:.3f} s longer: {_compare(tcp_h.extra_time_s, tcp_h.pause_total_s)} "
        f"the {tcp_h.pause_total_s:.3f} s the pauses add up to.",
    ]
    if tcp_h.extra_time_s < tcp_h.pause_total_s and rep.options.host_bottleneck == "cpu":
        out.append(
            "  The server's CPU keeps preparing segments while its NIC is paused, into its "
            "transmit buffers and the switch's buffer; when the pause ends, the 1 Gb/s links "
            f"drain that backlog {1e9 / host_bps:.1f} times faster than the host produces "
            f"({host_bps / 1e6:.0f} Mb/s of line rate), so only the part of a pause the "
            "buffers cannot absorb is lost time."
        )
    verb = "more" if no_xon.extra_time_s > no_xon.pause_total_s else "less"
    out.append(
        f"- **The switch's release.** Behind a switch that "
        f"{'lets its pause run out' if not no_xon.switch_releases_pause else 'sends XON'}, "
        f"honouring {longest} ms pauses costs TCP {no_xon.extra_time_s:.3f} s (server paused "
        f"{no_xon.server_paused_s:.3f} s in all, {1e3 * per_event:.1f} ms per event), against "
        f"{xon.extra_time_s:.3f} s behind one that "
        f"{'sends XON' if xon.switch_releases_pause else 'lets it run out'}: {verb} than the "
        f"{no_xon.pause_total_s:.3f} s the pauses add up to (`rps_release.csv`)."
    )
    if (honoured.loss_percent > 0).any():
        out.append("- Some cells lost frames although the server honoured PAUSE: see the table.")
    return out

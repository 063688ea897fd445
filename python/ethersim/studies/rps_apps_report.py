"""What ``ethersim reproduce rps-apps`` (:mod:`ethersim.studies.rps_apps`) shows: each
cell judged against its control as a person would (the call's E-model band, the page
loads' response-time bands), the summary in words beside the paper's trial, the table
the command prints and the figure."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ethersim.perception import band, band_index

if TYPE_CHECKING:
    import pandas as pd
    from rich.table import Table

    from ethersim.studies.rps_apps import Reproduction

__all__ = ["call_band_index", "figure", "judge", "main_table", "summary"]

#: ITU-T G.109's user-satisfaction bands of R (as ethersim's E-model names them): a call
#: falls one band for each limit its R is below.
R_BAND_LIMITS = (90.0, 80.0, 70.0, 60.0, 50.0)


def call_band_index(r: float | None) -> int | None:
    """The call's band: 0 (very satisfied, R ≥ 90) to 5 (not recommended, R < 50)."""
    return None if r is None else sum(r < limit for limit in R_BAND_LIMITS)


def judge(
    rows: list[dict[str, Any]], pages: dict[tuple[int, bool], list[float]]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``rps_apps.csv`` and ``rps_apps_pages.csv``: each cell beside its control (no
    pauses, the same PAUSE setting), and whether a person would notice the difference:
    the call in a worse satisfaction band, or the median or 95th-percentile page load in
    a slower response-time band."""
    import pandas as pd

    control = {r["server_honours_pause"]: r for r in rows if r["pause_ms"] == 0}
    page_rows = []
    for r in rows:
        c = control[r["server_honours_pause"]]
        own, ref = call_band_index(r["call_r_factor"]), call_band_index(c["call_r_factor"])
        r["call_noticed"] = own is not None and ref is not None and own > ref
        r["call_mos_change"] = r["call_mos"] - c["call_mos"]
        r["page_load_p50_band"] = band(r["page_load_p50_s"])
        r["page_load_p95_band"] = band(r["page_load_p95_s"])
        r["page_load_p50_added_ms"] = (r["page_load_p50_s"] - c["page_load_p50_s"]) * 1e3
        r["page_load_p95_added_ms"] = (r["page_load_p95_s"] - c["page_load_p95_s"]) * 1e3
        r["web_noticed"] = any(
            band_index(r[k]) > band_index(c[k]) for k in ("page_load_p50_s", "page_load_p95_s")
        )
        key = (r["pause_ms"], r["server_honours_pause"])
        base = pages[(0, r["server_honours_pause"])]
        slower = 0
        for i, (t, t0) in enumerate(zip(pages[key], base, strict=True)):
            slower += band_index(t) > band_index(t0)
            page_rows.append(
                {
                    "pause_ms": r["pause_ms"],
                    "server_honours_pause": r["server_honours_pause"],
                    "page": i,
                    "load_time_s": t,
                    "control_load_time_s": t0,
                    "added_s": t - t0,
                    "band": band(t),
                    "control_band": band(t0),
                }
            )
        r["pages_in_slower_band"] = slower
        r["pages_added_over_10ms"] = sum(
            t - t0 > 0.01 for t, t0 in zip(pages[key], base, strict=True)
        )
    return pd.DataFrame(rows), pd.DataFrame(page_rows)


def _setting(honours: bool) -> str:
    return "PAUSE honoured" if honours else "PAUSE ignored"


def summary(rep: Reproduction) -> str:
    """``summary.md``: the grid in words, cell by cell, and the verdict beside the
    paper's two test subjects."""
    o = rep.options
    t = rep.cells
    lines = [
        "# Rapid PHY Selection with applications: would a person notice?",
        "",
        f"{'Quick' if o.quick else 'Full'} run: a {o.call_s} s G.711 call (fixed "
        f"{o.jitter_buffer_ms} ms jitter buffer) and {o.pages} page loads (3GPP2 pages, six "
        f"persistent connections) per cell; pauses of 0, 1, 10 and 20 ms once a second; "
        f"{rep.runs} simulations on {rep.jobs} threads in {rep.wall_s:.1f} s; seed {o.seed}. "
        f"The server takes {rep.tx_processing_ps / 1e6:.3f} us per packet (the RPS study's "
        f"TCP control transfer, {rep.calibrated_s:.3f} s against its {rep.target_s:.3f} s).",
        "",
        "A person notices the call if its E-model rating falls into a worse user-satisfaction "
        "band (ITU-T G.109: R 90, 80, 70, 60, 50) than without pauses, and the page loads if "
        "their median or 95th percentile moves into a slower response-time band (Nielsen, "
        "after Miller and Card et al.: 0.1 s feels instantaneous, 1 s keeps the flow of "
        "thought, 10 s keeps attention).",
        "",
    ]
    for honours in (True, False):
        lines.append(f"## {_setting(honours)} at the server")
        lines.append("")
        for _, r in t[t.server_honours_pause == honours].sort_values("pause_ms").iterrows():
            pause = "no pauses" if r.pause_ms == 0 else f"{r.pause_ms} ms pauses"
            call = (
                f"MOS {r.call_mos:.2f} ({r.call_satisfaction}); the client's voice packets "
                f"took up to {r.client_heard_delay_max_ms:.2f} ms through the network, it hears "
                f"{r.client_heard_late_percent:.2f} % late, mouth to ear "
                f"{r.client_heard_mouth_to_ear_ms:.1f} ms mean, "
                f"{r.client_heard_mouth_to_ear_max_ms:.1f} ms max"
            )
            web = (
                f"page loads {r.page_load_p50_s * 1e3:.1f} ms median, "
                f"{r.page_load_p95_s * 1e3:.1f} ms 95th percentile ({r.page_load_p50_band}), "
                f"{r.web_retransmissions} retransmissions, {r.web_switch_drops} frames dropped "
                f"at the switch"
            )
            verdict = ""
            if r.pause_ms:
                verdict = (
                    f" Noticed: call {'yes' if r.call_noticed else 'no'} "
                    f"(MOS {r.call_mos_change:+.3f}), pages {'yes' if r.web_noticed else 'no'} "
                    f"(median {r.page_load_p50_added_ms:+.2f} ms, 95th percentile "
                    f"{r.page_load_p95_added_ms:+.2f} ms; {r.pages_added_over_10ms} of "
                    f"{r.pages_loaded} pages more than 10 ms slower, {r.pages_in_slower_band} in a "
                    "slower band)."
                )
            lines.append(f"- **{pause}**: {call}; {web}.{verdict}")
        lines.append("")
    lines += _pause_setting_note(rep)
    noticed = t[(t.pause_ms > 0) & (t.call_noticed | t.web_noticed)]
    if noticed.empty:
        verdict = (
            "No cell changes a band: by these measures a person would not notice 1, 10 or "
            "20 ms pauses once a second, with PAUSE honoured or ignored, which agrees with "
            "the paper's two test subjects (§III.D)."
        )
    else:
        where = "; ".join(
            f"{r.pause_ms} ms, {_setting(bool(r.server_honours_pause))}"
            + (" (call)" if r.call_noticed else "")
            + (" (pages)" if r.web_noticed else "")
            for _, r in noticed.iterrows()
        )
        verdict = (
            f"A person would notice in {len(noticed)} cell(s): {where}. The paper's two "
            "test subjects noticed nothing (§III.D)."
        )
    lines += [
        "## Beside the paper",
        "",
        verdict,
        "",
        "Tables: `rps_apps.csv` (one row per cell), `rps_apps_pages.csv` (every page beside "
        "the same page without pauses). Figure: `figures/page_loads.png` (and SVG).",
        "",
    ]
    return "\n".join(lines)


def _pause_setting_note(rep: Reproduction) -> list[str]:
    """Why the server's PAUSE setting mattered or not: whether the applications ever
    filled the switch's buffer."""
    t = rep.cells[rep.cells.pause_ms > 0]
    queue = int(max(t.web_switch_max_queue_bytes.max(), t.call_switch_max_queue_bytes.max()))
    frames = int(t.web_pause_frames_to_server.sum() + t.call_pause_frames_to_server.sum())
    drops = int(t.web_switch_drops.sum() + t.call_switch_drops.sum())
    if frames == 0 and drops == 0:
        return [
            f"The server's PAUSE setting changes nothing here: the longest queue at the "
            f"switch's port to the client was {queue:,} B of its {rep.options.buffer_bytes:,} B, "
            "so the switch never paused the server and never dropped a frame; a pause only "
            "held frames for the client until it ended.",
            "",
        ]
    return [
        f"The pauses filled the switch's buffer (longest queue {queue:,} B of "
        f"{rep.options.buffer_bytes:,} B): {frames:,} PAUSE frames to the server where it "
        f"honours them, {drops:,} frames dropped at the switch where it does not.",
        "",
    ]


def main_table(rep: Reproduction) -> Table:
    """The table the command prints: MOS and page-load times against pause time."""
    from rich.table import Table

    table = Table(title="RPS with applications: MOS and page-load time against pause time")
    for column in ("pause", "server", "MOS", "call is", "pages p50", "pages p95", "noticed"):
        table.add_column(column, justify="left" if column in ("server", "call is") else "right")
    for _, r in rep.cells.sort_values(["server_honours_pause", "pause_ms"]).iterrows():
        noticed = [w for w, k in (("call", r.call_noticed), ("pages", r.web_noticed)) if k]
        table.add_row(
            f"{r.pause_ms} ms",
            "honours" if r.server_honours_pause else "ignores",
            f"{r.call_mos:.2f}",
            str(r.call_satisfaction),
            f"{r.page_load_p50_s * 1e3:.1f} ms",
            f"{r.page_load_p95_s * 1e3:.1f} ms",
            ", ".join(noticed) if r.pause_ms else "(control)",
        )
    return table


def figure(rep: Reproduction, folder: Path) -> None:
    """``page_loads``: each cell's page-load times as a distribution, one panel per
    PAUSE setting, with Nielsen's limits; and the call's MOS against pause time."""
    from ethersim.figures import prepare, write_figure

    prepare(folder)
    import matplotlib.pyplot as plt
    import numpy as np

    from ethersim.perception import LIMITS_S

    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2), layout="constrained")
    pages = rep.pages
    for ax, honours in zip(axes[:2], (True, False), strict=True):
        for pause in sorted(set(pages.pause_ms)):
            times = np.sort(
                pages[
                    (pages.pause_ms == pause) & (pages.server_honours_pause == honours)
                ].load_time_s.to_numpy()
            )
            if len(times):
                ax.step(
                    times,
                    np.arange(1, len(times) + 1) / len(times),
                    where="post",
                    label=f"{pause} ms" if pause else "no pauses",
                )
        for limit in LIMITS_S:
            ax.axvline(limit, color="grey", ls=":", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("page-load time (s); dotted: 0.1, 1, 10 s")
        ax.set_ylabel("share of pages")
        ax.set_title(_setting(honours))
        ax.legend(fontsize=8)
    ax = axes[2]
    for honours, marker in ((True, "o-"), (False, "s--")):
        rows = rep.cells[rep.cells.server_honours_pause == honours].sort_values("pause_ms")
        ax.plot(rows.pause_ms, rows.call_mos, marker, label=_setting(honours))
    ax.set_xlabel("pause once a second (ms)")
    ax.set_ylabel("call MOS (E-model, worse direction)")
    ax.set_ylim(1, 4.5)
    ax.set_title("G.711 call")
    ax.legend(fontsize=8)
    write_figure(fig, folder, "page_loads")

"""``ethersim report DIR``: one self-contained HTML page (and figures) for a run's or a
reproduction's output folder.

The page holds everything in one file, images included (as data URIs), so it can be
mailed or archived alone, and needs no script. It shows where the results came from (the
software version, the seed, the scenario or the study's options) before what they say:

- a **run's folder** (``ethersim run --out``): the headline figures, the flows, ports and
  links tables, the packet captures, and plots of its time series (a port's queue, gate,
  rate, offered load and PHY state; a TCP sender's cwnd, ssthresh, flight size, SRTT and
  RTO), written as PNG and SVG to ``figures/``; then the scenario as it ran;
- a **reproduction's folder** (``ethersim reproduce ...``, which builds the page itself):
  the study's options, its summary, its figures, its tables (the first rows of each CSV),
  and the scenario files it wrote.
"""

from __future__ import annotations

import base64
import html
import json
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ethersim.errors import OutputError, ScenarioError
from ethersim.safe_write import write_text

__all__ = ["REPORT", "build_index", "build_report"]

#: The page's file name in the folder.
REPORT = "report.html"

#: Rows of each table shown (the files hold them all).
MAX_ROWS = 60

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto;
       max-width: 72rem; padding: 0 1rem; color: #1d1d1f; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2.2rem;
     border-bottom: 1px solid #ddd; } h3 { font-size: 1.05rem; }
table { border-collapse: collapse; font-size: 0.82rem; margin: 0.5rem 0 1rem; }
th, td { padding: 0.2rem 0.55rem; border-bottom: 1px solid #eee; text-align: right; }
th { background: #f5f5f7; position: sticky; top: 0; }
td:first-child, th:first-child { text-align: left; }
.scroll { overflow-x: auto; max-height: 32rem; }
figure { margin: 1rem 0; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: 0.85rem; color: #555; }
pre { background: #f5f5f7; padding: 0.8rem; overflow-x: auto; font-size: 0.8rem; }
dl.meta { display: grid; grid-template-columns: max-content auto; gap: 0.2rem 1rem; }
dl.meta dt { font-weight: 600; } dl.meta dd { margin: 0; }
.note { color: #555; font-size: 0.85rem; }
"""


def _version() -> str:
    from importlib.metadata import version

    return version("ethersim")


def _esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def _meta(items: Iterable[tuple[str, object]]) -> str:
    rows = "".join(f"<dt>{_esc(k)}</dt><dd>{_esc(v)}</dd>" for k, v in items)
    return f'<dl class="meta">{rows}</dl>'


def _table(df: pd.DataFrame, title: str, note: str = "") -> str:
    if df.empty:
        return ""
    # Columns with nothing in them (a mechanism the run did not use) say nothing.
    df = df.dropna(axis=1, how="all")
    shown = df.head(MAX_ROWS).apply(lambda column: column.map(_cell))
    more = (
        f'<p class="note">The first {MAX_ROWS} of {len(df):,} rows; the file holds them all.</p>'
        if len(df) > MAX_ROWS
        else ""
    )
    body = shown.to_html(index=False, border=0)
    note_html = f'<p class="note">{_esc(note)}</p>' if note else ""
    return f'<h3>{_esc(title)}</h3>{note_html}<div class="scroll">{body}</div>{more}'


def _cell(value: object) -> object:
    """A table cell as shown: nothing for a missing value, 6 significant digits."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return value


def _figure(png: Path, caption: str) -> str:
    data = base64.b64encode(png.read_bytes()).decode("ascii")
    return (
        f'<figure><img src="data:image/png;base64,{data}" alt="{_esc(caption)}">'
        f"<figcaption>{_esc(caption)}</figcaption></figure>"
    )


def _page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_esc(title)}</title><style>{STYLE}</style></head>"
        f"<body>{body}</body></html>\n"
    )


# ---------------------------------------------------------------------------- runs


#: Port series quantities, in the order plotted, with their axis labels and scale.
PORT_QUANTITIES: dict[str, tuple[str, float]] = {
    "queue_bytes": ("buffer (KiB)", 1 / 1024),
    "queue_frames": ("buffer (frames)", 1.0),
    "gate_open": ("gate open for data", 1.0),
    "rate_bps": ("rate (Mb/s)", 1e-6),
    "lpi_state": ("PHY state (0 active, 1 sleep, 2 quiet, 3 wake)", 1.0),
    "pause_received": ("PAUSE frames received", 1.0),
}
TCP_QUANTITIES: dict[str, tuple[str, float]] = {
    "cwnd": ("bytes", 1.0),
    "ssthresh": ("bytes", 1.0),
    "flight": ("bytes", 1.0),
    "srtt": ("ms", 1e-9),
    "rto": ("ms", 1e-9),
}


def _save(fig: Any, figures: Path, stem: str) -> Path:
    png = figures / f"{stem}.png"
    fig.savefig(png, dpi=110, bbox_inches="tight")
    fig.savefig(figures / f"{stem}.svg", bbox_inches="tight")
    return png


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in name)


def _series_figures(folder: Path, figures: Path) -> list[tuple[Path, str]]:
    """Plots of a run's port and TCP series: one figure per port, one per TCP flow."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out: list[tuple[Path, str]] = []
    series = _read_parquet(folder / "series.parquet")
    end = _end_s(folder)
    for port, rows in series.groupby("port", sort=False) if not series.empty else []:
        # A quantity that never changed (no PAUSE received, one rate) says nothing plotted.
        changing = {q for q, r in rows.groupby("quantity") if r["value"].nunique() > 1}
        quantities = [q for q in PORT_QUANTITIES if q in changing]
        offered = rows[rows["quantity"] == "offered_bytes"]
        panels = len(quantities) + (1 if not offered.empty else 0)
        if panels == 0:
            continue
        fig, axes = plt.subplots(
            panels,
            1,
            figsize=(9, 1.9 * panels + 0.6),
            layout="constrained",
            sharex=True,
            squeeze=False,
        )
        for ax, q in zip(axes[:, 0], quantities, strict=False):
            label, scale = PORT_QUANTITIES[q]
            r = rows[rows["quantity"] == q]
            t = [*list(r["t_s"]), end]
            v = [x * scale for x in r["value"]]
            ax.step(t, v + v[-1:], where="post", lw=0.9)
            ax.set_ylabel(label, fontsize=8)
        if not offered.empty:
            ax = axes[-1, 0]
            # Bytes offered so far, read at evenly spaced instants: the arrival rate.
            times, level = offered["t_s"].to_numpy(), offered["value"].to_numpy()
            edges = np.linspace(0.0, max(end, 1e-12), 101)
            at = np.searchsorted(times, edges, side="right") - 1
            so_far = np.where(at >= 0, level[np.clip(at, 0, None)], 0)
            width = edges[1] - edges[0]
            ax.step(edges[:-1], np.diff(so_far) * 8 / width / 1e6, where="post", lw=0.9)
            ax.set_ylabel("offered (Mb/s)", fontsize=8)
        axes[-1, 0].set_xlabel("simulated time (s)")
        fig.suptitle(f"port {port}", fontsize=10)
        out.append((_save(fig, figures, f"port-{_safe(str(port))}"), f"Port {port} over time"))
        plt.close(fig)
    tcp = _read_parquet(folder / "tcp_series.parquet")
    for flow, rows in tcp.groupby("flow", sort=False) if not tcp.empty else []:
        fig, (w, r) = plt.subplots(2, 1, figsize=(9, 5), sharex=True, layout="constrained")
        for q in ("cwnd", "ssthresh", "flight"):
            s = rows[rows["quantity"] == q]
            if not s.empty:
                w.step(
                    [*list(s["t_s"]), end],
                    list(s["value"]) + list(s["value"])[-1:],
                    where="post",
                    lw=0.9,
                    label=q,
                )
        w.set_ylabel("bytes")
        w.legend(fontsize=8)
        for q in ("srtt", "rto"):
            s = rows[rows["quantity"] == q]
            if not s.empty:
                ms = [x * 1e-9 for x in s["value"]]
                r.step([*list(s["t_s"]), end], ms + ms[-1:], where="post", lw=0.9, label=q)
        r.set_ylabel("ms")
        r.set_xlabel("simulated time (s)")
        r.legend(fontsize=8)
        fig.suptitle(f"TCP sender of {flow}", fontsize=10)
        out.append(
            (
                _save(fig, figures, f"tcp-{_safe(str(flow))}"),
                f"TCP sender of {flow}: window and timers",
            )
        )
        plt.close(fig)
    return out


def _read_parquet(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path) if path.exists() else pd.DataFrame()


def _end_s(folder: Path) -> float:
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    return float(summary["sim_time_s"])


FLOW_COLUMNS = [
    "name",
    "kind",
    "from",
    "to",
    "packets_sent",
    "packets_received",
    "lost",
    "send_drops",
    "completion_time_s",
    "goodput_bps",
    "delay_mean_s",
    "delay_p99_s",
    "retransmissions",
]
PORT_COLUMNS = [
    "node",
    "peer",
    "rate_bps",
    "frames_sent",
    "bytes_sent",
    "drops",
    "utilization",
    "queue_mean_bytes",
    "queue_max_bytes",
    "delay_s",
    "pause_sent",
    "pause_received",
    "energy_j",
    "energy_saved_percent",
    "service_rate_mean_bps",
]


def _pick(df: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    return df[[c for c in columns if c in df.columns]] if not df.empty else df


def _run_body(folder: Path, figures: Path) -> tuple[str, str]:
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    run_info = _json(folder / "run.json")
    title = f"ethersim run: {summary['scenario']}"
    import shlex

    overrides = run_info.get("overrides") or []
    command = run_info.get("command")
    meta = _meta(
        [
            ("scenario", summary["scenario"]),
            ("scenario file", run_info.get("scenario") or "(text)"),
            ("overrides", "; ".join(overrides) if overrides else "none"),
            ("seed", summary["seed"]),
            ("ethersim", run_info.get("ethersim") or _version()),
            ("git commit", run_info.get("git_commit") or "not known"),
            ("command", shlex.join(command) if command else "(from Python)"),
            ("stopped", summary["stop_reason"]),
            ("simulated time", f"{summary['sim_time_s']:.9g} s"),
            ("events", f"{summary['events']:,}"),
            ("wall time", f"{run_info.get('wall_time_s', float('nan')):.3f} s"),
        ]
    )
    parts = [f"<h1>{_esc(title)}</h1>", meta]
    flows = _pick(pd.json_normalize(summary.get("flows", []), sep="_"), FLOW_COLUMNS)
    parts.append("<h2>Results</h2>")
    parts.append(_table(flows, "Flows"))
    parts.append(
        _table(_pick(pd.json_normalize(summary.get("ports", []), sep="_"), PORT_COLUMNS), "Ports")
    )
    parts.append(_table(pd.json_normalize(summary.get("links", []), sep="_"), "Links"))
    parts.append(
        _table(
            pd.DataFrame(summary.get("captures", [])),
            "Packet captures",
            "Files in the folder, readable by Wireshark.",
        )
    )
    plots = _series_figures(folder, figures)
    if plots:
        from ethersim.results import decimation_notes

        parts.append("<h2>Time series</h2>")
        parts += [f'<p class="note">{_esc(note)}.</p>' for note in decimation_notes(summary)]
        parts += [_figure(png, caption) for png, caption in plots]
    scenario = folder / "scenario.toml"
    if scenario.exists():
        parts.append(
            "<h2>Scenario</h2><pre>" + _esc(scenario.read_text(encoding="utf-8")) + "</pre>"
        )
    return title, "".join(parts)


# ------------------------------------------------------------------ reproductions


def _json(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def _reproduction_body(folder: Path) -> tuple[str, str]:
    import markdown

    info = _json(folder / "reproduction.json")
    title = f"ethersim reproduction: {info.get('study', folder.name)}"
    parts = [f"<h1>{_esc(title)}</h1>", _meta([(k, v) for k, v in info.items()])]
    summary = folder / "summary.md"
    if summary.exists():
        text = summary.read_text(encoding="utf-8")
        parts.append("<h2>Summary</h2>" + markdown.markdown(text, extensions=["tables"]))
    comparison = folder / "comparison.csv"
    if comparison.exists():
        parts.append(_comparison(pd.read_csv(comparison, dtype=str, keep_default_na=False)))
    pngs = sorted(p for p in folder.rglob("*.png"))
    if pngs:
        parts.append("<h2>Figures</h2>")
        parts += [_figure(p, str(p.relative_to(folder))) for p in pngs]
    csvs = sorted(folder.glob("*.csv"))
    if csvs:
        parts.append("<h2>Tables</h2>")
        parts += [_table(pd.read_csv(p), p.name) for p in csvs]
    tomls = sorted(folder.rglob("*.toml"))
    if tomls:
        parts.append("<h2>Scenarios</h2>")
        for p in tomls:
            body = _esc(p.read_text(encoding="utf-8"))
            parts.append(
                f"<details><summary>{_esc(p.relative_to(folder))}</summary><pre>{body}</pre></details>"
            )
    return title, "".join(parts)


#: The colour of each verdict of a comparison with the paper.
VERDICT_COLOURS = {"reproduced": "#e3f1dc", "differs": "#f8dcd8", "not comparable": "#eeeeee"}


def _comparison(df: pd.DataFrame) -> str:
    """Every published finding beside what ethersim gives, whole (never cut)."""
    from ethersim.studies.contract import COMPARISON_COLUMNS

    head = "".join(f"<th>{_esc(c)}</th>" for c in COMPARISON_COLUMNS)
    rows = []
    for r in df.itertuples():
        colour = VERDICT_COLOURS.get(str(r.verdict), "#ffffff")
        cells = "".join(
            f'<td style="text-align:left">{_esc(v)}</td>'
            for v in (r.finding, r.source, r.published, r.simulated, r.deviation)
        )
        rows.append(
            f'<tr>{cells}<td style="background:{colour};text-align:left">{_esc(r.verdict)}</td>'
            f'<td style="text-align:left">{_esc(r.explanation)}</td></tr>'
        )
    k = int((df.verdict == "reproduced").sum())
    return (
        f"<h2>Beside the paper</h2><p>{k} of {len(df)} published findings reproduced "
        "(<code>comparison.csv</code>; the setup ledger is <code>setup.csv</code>).</p>"
        f'<div class="scroll"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def build_index(folder: str | Path, names: Iterable[str]) -> Path:
    """Writes ``index.html`` into ``folder``, the parent of the reproductions ``names``
    (``ethersim reproduce all``): each study's K-of-N line, a link to its report, and
    the findings it did not reproduce. Returns the page's path."""
    folder = Path(folder)
    parts = ["<h1>ethersim: every study beside its paper</h1>"]
    for name in names:
        sub = folder / name
        comparison = pd.read_csv(sub / "comparison.csv", dtype=str, keep_default_na=False)
        k = int((comparison.verdict == "reproduced").sum())
        info = _json(sub / "reproduction.json")
        parts.append(
            f'<h2><a href="{_esc(name)}/{REPORT}">{_esc(name)}</a></h2>'
            f"<p>{k} of {len(comparison)} published findings reproduced"
            f"{' (quick grid)' if info.get('quick') else ''}.</p>"
        )
        others = comparison[comparison.verdict != "reproduced"]
        if len(others):
            # One line per finding not reproduced; what was compared and why, folded.
            items = "".join(
                f"<li><details><summary><b>{_esc(r.finding)}</b>: {_esc(r.verdict)} "
                f"({_esc(r.source)})</summary>"
                + (
                    f"<p>{_esc(r.explanation)}</p>"
                    if r.verdict == "not comparable"
                    else f"<p>published {_esc(r.published)}; simulated {_esc(r.simulated)}."
                    f"</p><p>{_esc(r.explanation)}</p>"
                )
                + "</details></li>"
                for r in others.itertuples()
            )
            parts.append(f"<ul>{items}</ul>")
    try:
        return write_text(
            folder / "index.html", _page("ethersim reproductions", "".join(parts)), "--out"
        )
    except OSError as e:
        raise OutputError(f"cannot write the index in {str(folder)!r}: {e}") from None


# --------------------------------------------------------------------------- entry


def build_report(folder: str | Path) -> Path:
    """Writes ``report.html`` (and, for a run, ``figures/``) into ``folder``: a run's or a
    reproduction's output folder. Returns the page's path. Raises
    :class:`ScenarioError` for a folder that is neither, :class:`OutputError` if it
    cannot be written. The page is replaced whole or not at all."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ScenarioError(f"{str(folder)!r} is not a folder; expected a results folder", "DIR")
    names = {p.name for p in folder.iterdir()}
    try:
        if "summary.json" in names:
            figures = folder / "figures"
            figures.mkdir(exist_ok=True)
            title, body = _run_body(folder, figures)
        elif "reproduction.json" in names:
            title, body = _reproduction_body(folder)
        else:
            raise ScenarioError(
                f"{str(folder)!r} holds neither summary.json nor reproduction.json; expected the "
                "folder of `ethersim run --out` or of `ethersim reproduce`",
                "DIR",
            )
        page = _page(title, body)
        write_text(folder / REPORT, page, "DIR")
    except OSError as e:
        raise OutputError(f"cannot write the report in {str(folder)!r}: {e}") from None
    return folder / REPORT

"""What a run's time series figures show, whatever draws them: one figure per port
with series, one per TCP sender, each a stack of panels sharing the time axis.

Both drawings (the static PNG/SVG in ``figures/`` and the interactive page) are made
from these specifications, so they show the same thing:

- a port: each quantity that changed, in its own panel (buffer in KiB and frames, gate,
  rate in Mb/s, PHY state, PAUSE frames), and the offered load in Mb/s;
- a TCP sender: cwnd, FlightSize and ssthresh in segments of the flow's MSS (KiB if the
  flow record has none) on one panel, SRTT and RTO in ms on another. ssthresh before
  the first loss is its initial "arbitrarily high" value (RFC 5681 section 3.1), about
  a gigabyte: drawn, it would flatten the window to a line at zero, so it is left out
  until the first loss sets it; SRTT before the first RTT sample (0) likewise.

A panel of timers whose values span two orders of magnitude or more (an SRTT of
microseconds beside an RTO floor of 200 ms) is drawn on a log axis.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["INITIAL_SSTHRESH", "FigureSpec", "Panel", "Trace", "port_figures", "tcp_figures"]

#: The initial slow-start threshold in bytes, 65535 · 2^14: the largest window a peer
#: can advertise (crates/ethersim-core/src/transport/tcp/cc.rs, ``INITIAL_SSTHRESH``).
INITIAL_SSTHRESH = 0xFFFF << 14

#: Port series quantities, in the order drawn, with their panel labels and scale.
PORT_QUANTITIES: dict[str, tuple[str, float]] = {
    "queue_bytes": ("buffer (KiB)", 1 / 1024),
    "queue_frames": ("buffer (frames)", 1.0),
    "gate_open": ("gate open for data", 1.0),
    "rate_bps": ("rate (Mb/s)", 1e-6),
    "lpi_state": ("PHY state (0 active, 1 sleep, 2 quiet, 3 wake)", 1.0),
    "pause_received": ("PAUSE frames received", 1.0),
}

#: A panel is drawn on a log axis when its largest positive value is this many times
#: its smallest.
LOG_RATIO = 100.0

#: Bins of the offered-load panel over the run.
OFFERED_BINS = 100


@dataclass
class Trace:
    """One line: levels ``y`` holding from each instant ``t`` (s) to the next (a step
    drawn "post"), the last until the run's end (already appended)."""

    name: str
    t: np.ndarray[Any, np.dtype[np.float64]]
    y: np.ndarray[Any, np.dtype[np.float64]]


@dataclass
class Panel:
    """Traces sharing a y axis, its label and whether it is logarithmic."""

    label: str
    traces: list[Trace]
    log: bool = False


@dataclass
class FigureSpec:
    """A figure: its file stem in ``figures/``, title, caption and panels."""

    stem: str
    title: str
    caption: str
    panels: list[Panel]
    notes: list[str] = field(default_factory=list)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in name)


def _step(name: str, t: Any, y: Any, end: float) -> Trace:
    """A trace of levels ``y`` from instants ``t``, held to ``end``."""
    t = np.asarray(t, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if len(t):
        t = np.append(t, max(end, float(t[-1])))
        y = np.append(y, y[-1])
    return Trace(name, t, y)


def _panel(label: str, traces: list[Trace], *, may_log: bool = False) -> Panel:
    traces = [tr for tr in traces if len(tr.t)]
    values = np.concatenate([tr.y for tr in traces]) if traces else np.zeros(0)
    positive = values[values > 0]
    log = (
        may_log
        and len(positive) == len(values) > 0
        and float(positive.max()) >= LOG_RATIO * float(positive.min())
    )
    return Panel(label, traces, log)


def port_figures(series: pd.DataFrame, end: float) -> list[FigureSpec]:
    """One figure per port in ``series`` (the ``series.parquet`` table) whose quantities
    changed; ``end`` is the run's simulated time (s)."""
    out = []
    for port, rows in series.groupby("port", sort=False):
        # A quantity that never changed (no PAUSE received, one rate) says nothing drawn.
        changing = {q for q, r in rows.groupby("quantity") if r["value"].nunique() > 1}
        panels = []
        for q, (label, scale) in PORT_QUANTITIES.items():
            if q in changing:
                r = rows[rows["quantity"] == q]
                panels.append(_panel(label, [_step(q, r["t_s"], r["value"] * scale, end)]))
        offered = rows[rows["quantity"] == "offered_bytes"]
        if not offered.empty:
            panels.append(_panel("offered (Mb/s)", [_offered(offered, end)]))
        if panels:
            out.append(
                FigureSpec(
                    f"port-{_safe(str(port))}", f"port {port}", f"Port {port} over time", panels
                )
            )
    return out


def _offered(offered: pd.DataFrame, end: float) -> Trace:
    """Bytes offered so far, read at evenly spaced instants: the arrival rate (Mb/s)."""
    times, level = offered["t_s"].to_numpy(), offered["value"].to_numpy()
    edges = np.linspace(0.0, max(end, 1e-12), OFFERED_BINS + 1)
    at = np.searchsorted(times, edges, side="right") - 1
    so_far = np.where(at >= 0, level[np.clip(at, 0, None)], 0)
    width = edges[1] - edges[0]
    mbps = np.diff(so_far) * 8 / width / 1e6
    return Trace("offered", edges, np.append(mbps, mbps[-1]))


def tcp_figures(tcp: pd.DataFrame, flows: list[Mapping[str, Any]], end: float) -> list[FigureSpec]:
    """One figure per TCP sender in ``tcp`` (the ``tcp_series.parquet`` table); the
    flows' records (``summary.json``) give each its MSS."""
    mss = {f["name"]: f.get("mss") for f in flows}
    out = []
    for flow, rows in tcp.groupby("flow", sort=False):
        segment = mss.get(str(flow))
        unit, scale = ("segments", float(segment)) if segment else ("KiB", 1024.0)
        window = []
        for q in ("cwnd", "flight", "ssthresh"):
            r = rows[rows["quantity"] == q]
            if q == "ssthresh":
                # Unset until the first loss: its initial value is no threshold at all.
                r = r[r["value"] < INITIAL_SSTHRESH]
            window.append(_step(q, r["t_s"], r["value"] / scale, end))
        timers = []
        for q in ("srtt", "rto"):
            r = rows[rows["quantity"] == q]
            if q == "srtt":
                r = r[r["value"] > 0]  # no RTT sample yet
            timers.append(_step(q, r["t_s"], r["value"] * 1e-9, end))  # ps → ms
        # The window stays linear: in segments it reads directly, and a flight of a few
        # bytes would otherwise stretch a log axis over decades no one looks at.
        panels = [
            p
            for p in (
                _panel(f"window ({unit})", window),
                _panel("timers (ms)", timers, may_log=True),
            )
            if p.traces
        ]
        out.append(
            FigureSpec(
                f"tcp-{_safe(str(flow))}",
                f"TCP sender of {flow}",
                f"TCP sender of {flow}: window ({unit}) and timers (ms)",
                panels,
            )
        )
    return out


def thin(trace: Trace, limit: int) -> Trace:
    """``trace`` with at most about ``limit`` points for an interactive page: time cut
    into ``limit / 4`` equal buckets, each keeping its first, lowest, highest and last
    point (so a queue's peak and a pause still show). The points kept are the trace's
    own; the static figures and the Parquet files keep every one."""
    n = len(trace.t)
    if n <= limit:
        return trace
    buckets = max(1, limit // 4)
    span = float(trace.t[-1] - trace.t[0]) or 1.0
    index = np.minimum(((trace.t - trace.t[0]) / span * buckets).astype(np.int64), buckets - 1)
    starts = np.flatnonzero(np.r_[True, index[1:] != index[:-1]])
    ends = np.r_[starts[1:], n]
    keep = [np.r_[starts, ends - 1]]
    for a, b in zip(starts, ends, strict=True):
        part = trace.y[a:b]
        keep.append(np.array([a + int(part.argmin()), a + int(part.argmax())]))
    kept = np.unique(np.concatenate(keep))
    return Trace(trace.name, trace.t[kept], trace.y[kept])

"""Shared helpers of the CSMA/CD findings' evaluators (see
:mod:`ethersim.studies.csma_findings`, whose docstring states the readings they
share): the thresholds of those readings, selecting rows (fixed lengths, one length's
curve), the not-comparable outcome of a cell the grid did not run, Spearman's rank
correlation, a least-squares line, and the derived quantities the hosts' transmit
service time gives (the ideal round-robin time, Q, the hosts with a frame ready)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ethersim.studies import csma as study
from ethersim.studies.contract import Outcome

#: A trend "with hosts": |Spearman rank correlation| at least this, in the stated direction.
TREND_RHO = 0.8
#: "Linearly": a straight-line fit explains at least this share of the variance.
LINEAR_R2 = 0.95
#: Bit rates closer than this are a tie (Mb/s): invisible on the paper's 10 Mb/s axes.
TIE_MBPS = 0.05
#: A comparison of two figures holds in at least this share of the cells both ran.
FIGURE_SHARE = 0.9
CAPACITY_MBPS = study.RATE_BPS / 1e6


# --- selection ------------------------------------------------------------------------------


def _fixed(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows of fixed lengths (no mix)."""
    return rows[~rows.length.astype(str).str.contains("/", regex=False)]


def _lengths(rows: pd.DataFrame) -> list[str]:
    """The lengths present, fixed lengths in increasing order, then the mixes."""
    labels = [str(x) for x in dict.fromkeys(rows.length)]
    fixed = sorted((x for x in labels if "/" not in x), key=int)
    return fixed + [x for x in labels if "/" in x]


def _curve(rows: pd.DataFrame, length: str) -> pd.DataFrame:
    """One length's rows, by increasing host count."""
    return rows[rows.length == length].sort_values("hosts")


def _grid(rep: study.Reproduction) -> str:
    return "the quick grid" if rep.options.quick else "the reproduction"


def _lacks(rep: study.Reproduction, what: str) -> Outcome:
    """Not comparable: the grid did not run ``what``."""
    more = " (the full grid runs it)" if rep.options.quick else ""
    return Outcome(comparable=False, text=f"{_grid(rep)} runs no {what}{more}")


def _where_text(where: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in where.items()) or "every cell"


def _spearman(x: np.ndarray[Any, Any], y: np.ndarray[Any, Any]) -> float:
    """Spearman's rank correlation (average ranks for ties); NaN if either is constant."""
    rx = pd.Series(x).rank().to_numpy(dtype=float)
    ry = pd.Series(y).rank().to_numpy(dtype=float)
    if len(rx) < 2 or np.ptp(rx) == 0 or np.ptp(ry) == 0:
        return float("nan")
    return float(np.corrcoef(rx, ry)[0, 1])


def _line(x: np.ndarray[Any, Any], y: np.ndarray[Any, Any]) -> tuple[float, float]:
    """The least-squares line's slope and its R^2 (1 for a constant ``y`` it fits)."""
    slope, intercept = np.polyfit(x, y, 1)
    residual = float(((y - (slope * x + intercept)) ** 2).sum())
    total = float(((y - y.mean()) ** 2).sum())
    return float(slope), (1.0 - residual / total) if total > 0 else 1.0


def _ideal_ms(rows: pd.DataFrame) -> pd.Series[float]:
    """The time for every host to send one frame without collision, ms: hosts · bits
    per frame / 10 Mb/s (the paper's "ideal time to send one packet and wait for each
    other host to send one packet")."""
    return rows.hosts * rows.bits_per_frame / study.RATE_BPS * 1e3


def _service_s(rep: study.Reproduction) -> float:
    """The hosts' transmit service time of every run, s."""
    return rep.tx_service_ps * 1e-12


def _window_s(rep: study.Reproduction) -> float:
    _, start, until = rep.options.window_s
    return until - start


def _hosts_ready(rep: study.Reproduction, rows: pd.DataFrame) -> pd.Series[float]:
    """Q, the mean number of hosts holding a frame ready for the cable (waiting for it,
    contending or sending): every host has a frame ready except while its transmit
    service runs, which it does once per frame sent or dropped. Q = N - (frames sent +
    dropped per second) · service time. (The service time is the runs' fixed one: a
    sensitivity point that adds jitter to it makes each service longer than that, and Q
    is then overstated.)"""
    per_s = rows.packet_rate_pps + rows.drops / _window_s(rep)
    return rows.hosts - per_s * _service_s(rep)

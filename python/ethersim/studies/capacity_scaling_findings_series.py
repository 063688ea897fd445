"""Evaluators of the capacity-scaling findings about the recorded time series (the
single-flow cells' rates in 0.1-s bins, ``rep.timeseries``): recovery times of the arrival
rate, service against arrival rate, and the climbs of the service rate; listed in
:data:`ethersim.studies.capacity_scaling_findings.EVALUATORS`."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from ethersim.studies import capacity_scaling as study
from ethersim.studies.capacity_scaling_findings_select import (
    _first,
    _grid_name,
    _guard,
    _last,
    _NotRun,
    _select,
    _values,
)
from ethersim.studies.contract import Evaluator, Outcome

# --- time series ------------------------------------------------------------------------

_SERIES = re.compile(r"^single_rtt(\d+(?:\.\d+)?)ms_mrci(\d+(?:\.\d+)?)ms$")


def _recorded(rep: study.Reproduction) -> dict[tuple[float, float], pd.DataFrame]:
    """The recorded single-flow time series by (RTT, mRCI)."""
    out = {}
    for name, ts in rep.timeseries.items():
        m = _SERIES.match(name)
        if m:
            out[(float(m.group(1)), float(m.group(2)))] = ts
    return out


def _recorded_text(cells: Iterable[tuple[float, float]]) -> str:
    return ", ".join(f"RTT {r:g}/mRCI {m:g} ms" for r, m in sorted(cells)) or "none"


def _recoveries(ts: pd.DataFrame, pc: bool) -> tuple[list[float], int]:
    """(recovery times, events not recovered before the record ends) of the arrival
    rate: a drop is a 0.1-s bin at most 70% of the largest of the 0.5 s before it; its
    recovery time runs to the first later bin at 9.5 Mb/s or more; the next drop is
    looked for after that bin."""
    s = ts[ts.power_control == pc].sort_values("t_s")
    t, a = s.t_s.to_numpy(dtype=float), s.arrival_rate_mbps.to_numpy(dtype=float)
    times: list[float] = []
    censored = 0
    i = 1
    while i < len(a):
        before = a[max(0, i - 5) : i]
        if a[i] <= 0.7 * before.max():
            later = np.nonzero(a[i + 1 :] >= 9.5)[0]
            if len(later) == 0:
                censored += 1
                break
            j = i + 1 + int(later[0])
            times.append(float(t[j] - t[i]))
            i = j + 1
        else:
            i += 1
    return times, censored


def _recovery(pc: bool) -> Evaluator:
    """Median recovery time of the arrival rate at N1 (see :func:`_recoveries`) in the
    recorded single-flow series at mRCI ``where['mrci_ms']`` and the largest recorded
    RTT; not comparable without such a series or without a recovered drop."""

    def value(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
        cells = _recorded(rep)
        mrci = float(where["mrci_ms"])
        fit = [c for c in cells if math.isclose(c[1], mrci)]
        if not fit:
            raise _NotRun(
                f"no time series at mRCI {mrci:g} ms is recorded (the {_grid_name(rep)} "
                f"records {_recorded_text(cells)})"
            )
        cell = max(fit)
        times, censored = _recoveries(cells[cell], pc)
        if not times:
            raise _NotRun(
                f"no drop of the arrival rate followed by a recovery to 9.5 Mb/s in the "
                f"series of RTT {cell[0]:g}/mRCI {cell[1]:g} ms "
                f"({'with' if pc else 'without'} power control)"
            )
        return Outcome(
            value=float(np.median(times)),
            text=f"{len(times)} recoveries ({censored} not recovered by the end)",
        )

    value.__name__ = f"_recovery_{'pc' if pc else 'nopc'}"
    return _guard(value)


def _low_and_high_mrci(rep: study.Reproduction) -> tuple[tuple[float, float], tuple[float, float]]:
    """The recorded cells at the smallest and the largest mRCI of the largest recorded
    RTT."""
    cells = _recorded(rep)
    if not cells:
        raise _NotRun("no time series is recorded")
    rtt = max(r for r, _ in cells)
    mrcis = sorted(m for r, m in cells if r == rtt)
    if len(mrcis) < 2:
        raise _NotRun(f"one mRCI only is recorded at RTT {rtt:g} ms")
    return (rtt, mrcis[0]), (rtt, mrcis[-1])


def _service_above_arrival_at_large_mrci(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> Outcome:
    """Holds if (table) service_rate_reduction_percent at the largest mRCI of the
    selected cells is below that at the smallest, and (time series, power control on)
    the share of 0.1-s bins where the service rate exceeds the arrival rate by 1 Mb/s or
    more is larger in the recorded cell of the largest mRCI than of the smallest."""
    rows = _select(rep, where).sort_values("mrci_ms")
    lo_cell, hi_cell = _low_and_high_mrci(rep)
    first, last = rows.pipe(_first), rows.pipe(_last)
    cells = _recorded(rep)

    def share(cell: tuple[float, float]) -> float:
        s = cells[cell]
        s = s[s.power_control]
        return float(((s.service_rate_mbps - s.arrival_rate_mbps) >= 1).mean())

    a, b = share(lo_cell), share(hi_cell)
    ok = last.service_rate_reduction_percent < first.service_rate_reduction_percent and b > a
    return Outcome(
        holds=bool(ok),
        text=f"service rate below 10 Mb/s by {first.service_rate_reduction_percent:.1f}% at "
        f"mRCI {first.mrci_ms:g} ms, {last.service_rate_reduction_percent:.1f}% at "
        f"{last.mrci_ms:g} ms (RTT {first.rtt_ms:g} ms); service ≥ arrival + 1 Mb/s in "
        f"{100 * a:.0f}% of bins at mRCI {lo_cell[1]:g} ms, {100 * b:.0f}% at "
        f"{hi_cell[1]:g} ms (series at RTT {lo_cell[0]:g} ms)",
    )


def _climbs(ts: pd.DataFrame) -> tuple[list[float], list[float]]:
    """(service-rate slopes, arrival-rate slopes), Mb/s per s, over the climbs of the
    service rate (power control on): a climb starts at a 0.1-s bin where the service
    rate rises after a bin where it did not, continues while it does not fall, ends at
    its last rise, and must rise 2 Mb/s or more; its slope is the rise from the bin
    before it to its end over that time. The arrival rate is averaged over the 0.5 s up
    to each bin."""
    s = ts[ts.power_control].sort_values("t_s")
    t = s.t_s.to_numpy(dtype=float)
    r = s.service_rate_mbps.to_numpy(dtype=float)
    a = s.arrival_rate_mbps.rolling(5, min_periods=1).mean().to_numpy(dtype=float)
    service: list[float] = []
    arrival: list[float] = []
    k = 1
    while k < len(r):
        if r[k] > r[k - 1]:
            start, end, j = k - 1, k, k + 1
            while j < len(r) and r[j] >= r[j - 1]:
                if r[j] > r[j - 1]:
                    end = j
                j += 1
            if r[end] - r[start] >= 2:
                span = t[end] - t[start]
                service.append(float((r[end] - r[start]) / span))
                arrival.append(float((a[end] - a[start]) / span))
            k = j
        else:
            k += 1
    return service, arrival


def _climbs_text(slopes: list[float]) -> str:
    return f"{len(slopes)} climb" + ("" if len(slopes) == 1 else "s")


def _rising_slope_same_across_mrci(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Recorded cells at the smallest and largest mRCI (largest recorded RTT): holds if
    the median service-rate slope and the median arrival-rate slope over the climbs
    (see :func:`_climbs`) each differ by at most 25% of the larger of the two cells'
    ('almost the same')."""
    lo_cell, hi_cell = _low_and_high_mrci(rep)
    cells = _recorded(rep)
    (s_lo, a_lo), (s_hi, a_hi) = _climbs(cells[lo_cell]), _climbs(cells[hi_cell])
    if not s_lo or not s_hi:
        raise _NotRun(
            f"no climb of the service rate by 2 Mb/s or more in the series of mRCI "
            f"{(lo_cell if not s_lo else hi_cell)[1]:g} ms"
        )
    ms = [float(np.median(x)) for x in (s_lo, s_hi, a_lo, a_hi)]

    def close(x: float, y: float) -> bool:
        return abs(x - y) <= 0.25 * max(abs(x), abs(y))

    ok = close(ms[0], ms[1]) and close(ms[2], ms[3])
    return Outcome(
        holds=ok,
        text=f"median rising slope at RTT {lo_cell[0]:g} ms, mRCI {lo_cell[1]:g} ms "
        f"({_climbs_text(s_lo)}): service {ms[0]:.2f}, arrival {ms[2]:.2f} Mb/s per s; "
        f"mRCI {hi_cell[1]:g} ms ({_climbs_text(s_hi)}): service {ms[1]:.2f}, arrival "
        f"{ms[3]:.2f} Mb/s per s",
    )


def _not_run(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Not comparable: the finding needs time series of a setting the study does not
    record (only single-flow cells are)."""
    settings = " and ".join(_values(where.get("setting", "other")))
    return Outcome(
        comparable=False,
        text=f"not recorded: needs time series of the {settings} setting; the study records "
        f"time series of single-flow cells only ({_recorded_text(_recorded(rep))})",
    )

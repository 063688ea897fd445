"""Evaluators of the published findings of `ethersim reproduce capacity-scaling` (see
studies/published/capacity-scaling.toml): each computes, from the reproduction's own tables
(``capacity_scaling.csv`` as ``rep.table``, the time series ``rep.timeseries``), the quantity
a finding states.

A finding's ``where`` selects rows of the table by its columns (``setting``, ``rtt_ms``,
``mrci_ms``, ``b_on_ms``, ``bn_s``; a scalar or a list of accepted values, every value of a
key left out). Its other keys are the evaluator's parameters (``farthest_from``,
``against_rtt_ms``, ...). A value a finding names that the grid run lacks (RTT 1 ms in the
quick grid, say) makes the finding not comparable, with the values the grid does run.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ethersim.studies import capacity_scaling as study
from ethersim.studies.contract import Evaluator, Findings, Outcome, parse_toml

__all__ = ["EVALUATORS", "FINDINGS"]

#: The table's columns a ``where`` may select on.
CELL_KEYS = ("setting", "rtt_ms", "mrci_ms", "b_on_ms", "bn_s")
_NAMES = {"rtt_ms": "RTT", "mrci_ms": "mRCI", "b_on_ms": "bON", "bn_s": "BN"}
_UNITS = {"rtt_ms": "ms", "mrci_ms": "ms", "b_on_ms": "ms", "bn_s": "s"}
#: TCP's payload ceiling on a 10 Mb/s Ethernet link: 1460 B of 1538 line bytes.
PAYLOAD_CEILING_MBPS = study.MAX_MBPS * 1460 / 1538


class _NotRun(Exception):
    """The grid run lacks a cell a finding needs (the message says which)."""


# --- selection --------------------------------------------------------------------------


def _values(v: Any) -> list[Any]:
    return list(v) if isinstance(v, (list, tuple)) else [v]


def _grid_name(rep: study.Reproduction) -> str:
    return "quick grid" if rep.options.quick else "full grid"


def _present(column: pd.Series, value: Any) -> pd.Series:
    if isinstance(value, str):
        return column == value
    numbers = pd.to_numeric(column, errors="coerce")
    return pd.Series(np.isclose(numbers, float(value)), index=column.index)


def _select(
    rep: study.Reproduction, where: Mapping[str, Any], table: pd.DataFrame | None = None
) -> pd.DataFrame:
    """The rows matching ``where``'s cell keys; raises :class:`_NotRun` naming every
    value the grid run lacks (every value a finding names must have been run)."""
    rows = rep.table if table is None else table
    lacking = []
    for key in CELL_KEYS:
        if key not in where:
            continue
        mask = pd.Series(False, index=rows.index)
        missing = []
        for value in _values(where[key]):
            hit = _present(rows[key], value)
            if not hit.any():
                missing.append(value)
            mask |= hit
        if missing:
            unit = _UNITS.get(key, "")
            ran = sorted({float(x) for x in rows[key].dropna()}) if key != "setting" else []
            shown = ", ".join(f"{x:g}" for x in ran)
            lacking.append(
                f"{_NAMES.get(key, key)} = {', '.join(str(m) for m in missing)} {unit}".rstrip()
                + (f" (it runs {shown} {unit})".rstrip() if shown else "")
            )
        rows = rows[mask]
    if lacking:
        raise _NotRun(f"the {_grid_name(rep)} does not run {'; nor '.join(lacking)}")
    return rows


def _each(rows: pd.DataFrame) -> list[Any]:
    """The rows as named tuples (attribute access by column)."""
    return list(rows.itertuples())


def _first(rows: pd.DataFrame) -> Any:
    return next(iter(rows.itertuples()))


def _last(rows: pd.DataFrame) -> Any:
    return list(rows.itertuples())[-1]


def _cell(row: Any) -> str:
    """A cell's name: ``RTT 50/mRCI 500 ms`` (with bON or BN where set)."""
    text = f"RTT {row.rtt_ms:g}/mRCI {row.mrci_ms:g} ms"
    if isinstance(row.b_on_ms, float) and not math.isnan(row.b_on_ms):
        text += f", bON {row.b_on_ms:g} ms"
    if isinstance(row.bn_s, float) and not math.isnan(row.bn_s):
        text += f", BN {row.bn_s:g} s"
    return text


def _spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rank correlation (average ranks for ties); NaN with fewer than two
    points or a constant side."""
    if len(x) < 2:
        return math.nan
    rx = pd.Series(list(x), dtype=float).rank()
    ry = pd.Series(list(y), dtype=float).rank()
    if rx.nunique() < 2 or ry.nunique() < 2:
        return math.nan
    return float(np.corrcoef(rx, ry)[0, 1])


def _groups(rows: pd.DataFrame, by: Sequence[str]) -> Iterable[tuple[str, pd.DataFrame]]:
    """``rows`` grouped by the columns ``by`` (NaN kept), with a readable label."""
    for key, g in rows.groupby(list(by), dropna=False, sort=True):
        parts = key if isinstance(key, tuple) else (key,)
        label = ", ".join(
            f"{_NAMES.get(c, c)} {v:g} {_UNITS.get(c, '')}".rstrip()
            if isinstance(v, float)
            else str(v)
            for c, v in zip(by, parts, strict=True)
            if not (isinstance(v, float) and math.isnan(v))
        )
        yield label, g


def _guard(fn: Callable[[study.Reproduction, Mapping[str, Any]], Outcome]) -> Evaluator:
    """``fn``, with a cell the grid lacks turned into a not-comparable outcome."""

    def evaluate(rep: Any, where: Mapping[str, Any]) -> Outcome:
        try:
            return fn(rep, where)
        except _NotRun as e:
            return Outcome(comparable=False, text=str(e))

    evaluate.__doc__ = fn.__doc__
    evaluate.__name__ = fn.__name__
    return evaluate


# --- quantitative: one column over the selected cells ------------------------------------


def _column(column: str) -> Evaluator:
    """The column over the selected cells: the value farthest from ``farthest_from``
    where given (every cell must lie within the tolerance), else their mean."""

    def value(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
        rows = _select(rep, where)
        if rows.empty:
            raise _NotRun(f"no cell of the {_grid_name(rep)} matches")
        x = rows[column].astype(float)
        if "farthest_from" in where:
            centre = float(where["farthest_from"])
            values = x.to_numpy(dtype=float)
            return Outcome(value=float(values[np.argmax(np.abs(values - centre))]))
        return Outcome(value=float(x.mean()))

    value.__name__ = f"_{column}"
    return _guard(value)


# --- §6.1, single flow, small RTT --------------------------------------------------------


def _no_saving_no_degradation(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if every selected cell has service_rate_reduction_percent < 5 (under half a
    1-Mb/s step: 'no significant energy saving') and throughput_reduction_percent < 2
    ('no QoS degradation')."""
    rows = _select(rep, where)
    ok = (rows.service_rate_reduction_percent < 5) & (rows.throughput_reduction_percent < 2)
    text = "; ".join(
        f"{_cell(r)}: service rate {r.service_rate_reduction_percent:.1f}% below 10 Mb/s, "
        f"throughput reduction {r.throughput_reduction_percent:.1f}%"
        for r in _each(rows)
    )
    return Outcome(holds=bool(ok.all()), text=text)


def _throughput_reduction_near_zero(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if in every selected cell |throughput_reduction_percent| < 2 or its 95%
    interval includes 0 ('almost zero')."""
    rows = _select(rep, where)
    r, ci = rows.throughput_reduction_percent, rows.throughput_reduction_ci_percent.fillna(0)
    ok = (r.abs() < 2) | (r.abs() <= ci)
    text = "; ".join(
        f"{_cell(x)}: {x.throughput_reduction_percent:.1f} ± "
        f"{0 if math.isnan(x.throughput_reduction_ci_percent) else x.throughput_reduction_ci_percent:.1f}%"  # noqa: E501
        for x in _each(rows)
    )
    return Outcome(holds=bool(ok.all()), text=f"throughput reduction {text}")


def _loss_pc_near_nopc(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if in every selected cell |loss_percent_pc - loss_percent_nopc| <=
    max(0.1 point, 20% of loss_percent_nopc) ('almost the same')."""
    rows = _select(rep, where)
    gap = (rows.loss_percent_pc - rows.loss_percent_nopc).abs()
    ok = gap <= np.maximum(0.1, 0.2 * rows.loss_percent_nopc)
    text = "; ".join(
        f"{_cell(r)}: loss {r.loss_percent_pc:.2f}% with power control, "
        f"{r.loss_percent_nopc:.2f}% without"
        for r in _each(rows)
    )
    return Outcome(holds=bool(ok.all()), text=text)


def _slight_reduction_and_degradation(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if in every selected cell service_rate_reduction_percent and
    throughput_reduction_percent are > 0 and below those of the cell at RTT
    ``against_rtt_ms`` with the same mRCI ('small', 'slight': against the large RTT)."""
    rows = _select(rep, where)
    against = _select(
        rep,
        {
            "setting": where["setting"],
            "rtt_ms": where["against_rtt_ms"],
            "mrci_ms": where["mrci_ms"],
        },
    )
    ok, parts = True, []
    for r in _each(rows):
        big = against[np.isclose(against.mrci_ms, r.mrci_ms)].pipe(_first)
        good = (
            0 < r.service_rate_reduction_percent < big.service_rate_reduction_percent
            and 0 < r.throughput_reduction_percent < big.throughput_reduction_percent
        )
        ok = ok and good
        parts.append(
            f"{_cell(r)}: service rate -{r.service_rate_reduction_percent:.1f}% "
            f"(RTT {big.rtt_ms:g} ms: -{big.service_rate_reduction_percent:.1f}%), "
            f"throughput -{r.throughput_reduction_percent:.1f}% "
            f"(RTT {big.rtt_ms:g} ms: -{big.throughput_reduction_percent:.1f}%)"
        )
    return Outcome(holds=ok, text="; ".join(parts))


def _rate_changes_decreasing_in_mrci(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Cells ordered by mRCI: holds if rate_changes never increases with mRCI and at the
    largest mRCI is at most a tenth of its value at the smallest ('disappear')."""
    rows = _select(rep, where).sort_values("mrci_ms")
    if rows.mrci_ms.nunique() < 2:
        raise _NotRun(f"the {_grid_name(rep)} runs one mRCI only here")
    rc = rows.rate_changes.to_numpy(dtype=float)
    ok = bool(np.all(np.diff(rc) <= 0) and rc[-1] <= rc[0] / 10)
    text = "rate changes per run by mRCI: " + ", ".join(
        f"{r.mrci_ms:g} ms: {r.rate_changes:.0f}" for r in _each(rows)
    )
    return Outcome(holds=ok, text=text)


def _converges_to_no_pc_in_mrci(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Cells ordered by mRCI: holds if mean_service_rate_mbps never decreases and
    |throughput_reduction_percent| never increases from one mRCI to the next, a step
    within the two cells' 95% half-widths counting as a tie."""
    rows = _select(rep, where).sort_values("mrci_ms")
    if rows.mrci_ms.nunique() < 2:
        raise _NotRun(f"the {_grid_name(rep)} runs one mRCI only here")
    ok = True
    rs = list(_each(rows))
    for a, b in itertools.pairwise(rs):
        slack_s = np.nan_to_num(a.mean_service_rate_ci_mbps) + np.nan_to_num(
            b.mean_service_rate_ci_mbps
        )
        slack_t = np.nan_to_num(a.throughput_reduction_ci_percent) + np.nan_to_num(
            b.throughput_reduction_ci_percent
        )
        ok = ok and b.mean_service_rate_mbps >= a.mean_service_rate_mbps - slack_s
        ok = ok and abs(b.throughput_reduction_percent) <= abs(a.throughput_reduction_percent) + (
            slack_t
        )
    text = "by mRCI: " + "; ".join(
        f"{r.mrci_ms:g} ms: service {r.mean_service_rate_mbps:.2f} Mb/s, throughput "
        f"-{r.throughput_reduction_percent:.1f}%"
        for r in rs
    )
    return Outcome(holds=bool(ok), text=text)


# --- §6.1, single flow, large RTT --------------------------------------------------------


def _rate_changes_increasing_in_rtt(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if, for every mRCI, rate_changes at RTT ``large_rtt_ms`` exceeds that at RTT
    ``small_rtt_ms``; reports the Spearman correlation with RTT per mRCI beside."""
    small = _select(rep, {**where, "rtt_ms": where["small_rtt_ms"]})
    large = _select(rep, {**where, "rtt_ms": where["large_rtt_ms"]})
    rows = _select(rep, where)
    ok, parts = True, []
    for s in _each(small):
        big = large[np.isclose(large.mrci_ms, s.mrci_ms)]
        if big.empty:
            continue
        b = big.pipe(_first)
        ok = ok and b.rate_changes > s.rate_changes
        g = rows[np.isclose(rows.mrci_ms, s.mrci_ms)]
        rho = _spearman(list(g.rtt_ms), list(g.rate_changes))
        parts.append(
            f"mRCI {s.mrci_ms:g} ms: {s.rate_changes:.0f} at RTT {s.rtt_ms:g} ms, "
            f"{b.rate_changes:.0f} at {b.rtt_ms:g} ms (Spearman with RTT {rho:+.2f})"
        )
    return Outcome(holds=bool(ok), text="; ".join(parts))


def _throughput_reduction_higher_at_large_rtt(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> Outcome:
    """Holds if the smallest throughput_reduction_percent over the cells at RTT
    ``large_rtt_ms`` exceeds the largest over the 'previous cases' (RTT ``small_rtt_ms``,
    mRCI in ``small_rtt_mrci_ms``)."""
    large = _select(rep, {**where, "rtt_ms": where["large_rtt_ms"]})
    small = _select(
        rep, {**where, "rtt_ms": where["small_rtt_ms"], "mrci_ms": where["small_rtt_mrci_ms"]}
    )
    lo = large.throughput_reduction_percent.min()
    hi = small.throughput_reduction_percent.max()
    return Outcome(
        holds=bool(lo > hi),
        text=f"throughput reduction at RTT {where['large_rtt_ms']} ms: "
        f"{lo:.1f} to {large.throughput_reduction_percent.max():.1f}%; at RTT "
        f"{where['small_rtt_ms']} ms, mRCI {where['small_rtt_mrci_ms']}: at most {hi:.1f}%",
    )


def _loss_pc_above_nopc(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if loss_percent_pc > loss_percent_nopc in more than half of the selected
    cells and on their mean."""
    rows = _select(rep, where)
    above = int((rows.loss_percent_pc > rows.loss_percent_nopc).sum())
    diff = float((rows.loss_percent_pc - rows.loss_percent_nopc).mean())
    return Outcome(
        holds=above > len(rows) / 2 and diff > 0,
        text=f"loss higher with power control in {above} of {len(rows)} cells; mean "
        f"{rows.loss_percent_pc.mean():.2f}% with, {rows.loss_percent_nopc.mean():.2f}% "
        f"without ({diff:+.2f} points)",
    )


def _throughput_reduction_decreasing_in_mrci(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> Outcome:
    """Holds if throughput_reduction_percent at the smallest mRCI exceeds that at the
    largest and its Spearman correlation with mRCI is negative."""
    rows = _select(rep, where).sort_values("mrci_ms")
    if rows.mrci_ms.nunique() < 2:
        raise _NotRun(f"the {_grid_name(rep)} runs one mRCI only here")
    rho = _spearman(list(rows.mrci_ms), list(rows.throughput_reduction_percent))
    first, last = rows.pipe(_first), rows.pipe(_last)
    ok = first.throughput_reduction_percent > last.throughput_reduction_percent and rho < 0
    text = "throughput reduction by mRCI: " + ", ".join(
        f"{r.mrci_ms:g} ms: {r.throughput_reduction_percent:.1f}%" for r in _each(rows)
    )
    return Outcome(holds=bool(ok), text=f"{text} (Spearman {rho:+.2f})")


def _tcp_below_link_at_large_rtt(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if TCP alone (throughput_nopc_mbps, mean over the selected cells) is below
    90% of the payload ceiling 9.49 Mb/s ('not able to completely exploit') and below its
    mean at RTT ``small_rtt_ms``."""
    rows = _select(rep, where)
    small = _select(rep, {**where, "rtt_ms": where["small_rtt_ms"]})
    big, little = rows.throughput_nopc_mbps.mean(), small.throughput_nopc_mbps.mean()
    ok = big < 0.9 * PAYLOAD_CEILING_MBPS and big < little
    return Outcome(
        holds=bool(ok),
        text=f"TCP alone {big:.2f} Mb/s at RTT {where['rtt_ms']} ms (with power control "
        f"{rows.throughput_pc_mbps.mean():.2f}); {little:.2f} Mb/s at RTT "
        f"{where['small_rtt_ms']} ms; ceiling {PAYLOAD_CEILING_MBPS:.2f} Mb/s",
    )


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


# --- trends over the grid ---------------------------------------------------------------


def _per_group_spearman(
    rows: pd.DataFrame, metric: str, against: str, by: Sequence[str]
) -> list[tuple[str, float]]:
    out = []
    for label, g in _groups(rows, by):
        out.append((label, _spearman(list(g[against]), list(g[metric]))))
    return out


def _throughput_reduction_increasing_in_mrci(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> Outcome:
    """Per (setting, RTT, bON or BN): Spearman correlation of
    throughput_reduction_percent with mRCI; holds if positive in more than half of the
    groups."""
    rows = _select(rep, where)
    rhos = _per_group_spearman(
        rows, "throughput_reduction_percent", "mrci_ms", ["setting", "rtt_ms", "b_on_ms", "bn_s"]
    )
    positive = sum(1 for _, r in rhos if r > 0)
    text = f"positive in {positive} of {len(rhos)} groups: " + "; ".join(
        f"{label}: {rho:+.2f}" for label, rho in rhos
    )
    return Outcome(holds=positive > len(rhos) / 2, text=text)


def _service_rate_low_and_decreasing_in_rtt(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> Outcome:
    """Holds if service_rate_reduction_percent >= 10 (a whole rate step: 'substantially')
    in more than half of the selected cells and its Spearman correlation with RTT is
    positive for every mRCI."""
    rows = _select(rep, where)
    if rows.rtt_ms.nunique() < 2:
        raise _NotRun(f"the {_grid_name(rep)} runs one RTT only here")
    low = int((rows.service_rate_reduction_percent >= 10).sum())
    rhos = _per_group_spearman(rows, "service_rate_reduction_percent", "rtt_ms", ["mrci_ms"])
    ok = low > len(rows) / 2 and all(r > 0 for _, r in rhos)
    return Outcome(
        holds=ok,
        text=f"service rate 10% or more below 10 Mb/s in {low} of {len(rows)} cells "
        f"({rows.service_rate_reduction_percent.min():.1f} to "
        f"{rows.service_rate_reduction_percent.max():.1f}%); Spearman with RTT: "
        + "; ".join(f"{label}: {rho:+.2f}" for label, rho in rhos),
    )


def _rate_changes_increasing_in_mrci(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if rate_changes has a positive Spearman correlation with mRCI at every RTT
    and its mean relative rise over mRCI (largest against smallest mRCI, per RTT)
    exceeds its mean relative rise over RTT (largest against smallest RTT, per mRCI)."""
    rows = _select(rep, where)
    rhos = _per_group_spearman(rows, "rate_changes", "mrci_ms", ["rtt_ms"])

    def rise(along: str, per: str) -> float:
        out = []
        for _, g in rows.groupby(per):
            g = g.sort_values(along)
            series = g.rate_changes.to_numpy(dtype=float)
            first, last = float(series[0]), float(series[-1])
            if first > 0:
                out.append(last / first - 1)
        return float(np.mean(out)) if out else math.nan

    by_mrci, by_rtt = rise("mrci_ms", "rtt_ms"), rise("rtt_ms", "mrci_ms")
    ok = all(r > 0 for _, r in rhos) and by_mrci > by_rtt
    return Outcome(
        holds=bool(ok),
        text=f"mean relative change of rate changes from the smallest to the largest mRCI "
        f"{100 * by_mrci:+.0f}%, from the smallest to the largest RTT {100 * by_rtt:+.0f}%; "
        "Spearman with mRCI: " + "; ".join(f"{label}: {rho:+.2f}" for label, rho in rhos),
    )


def _throughput_reduction_increasing_in_rtt(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> Outcome:
    """Holds if throughput_reduction_percent has a positive Spearman correlation with
    RTT for every mRCI and is at least 20% ('huge') in more than half of the cells at
    RTT ``large_rtt_ms``."""
    rows = _select(rep, where)
    large = _select(rep, {**where, "rtt_ms": where["large_rtt_ms"]})
    rhos = _per_group_spearman(rows, "throughput_reduction_percent", "rtt_ms", ["mrci_ms"])
    huge = int((large.throughput_reduction_percent >= 20).sum())
    ok = all(r > 0 for _, r in rhos) and huge > len(large) / 2
    return Outcome(
        holds=ok,
        text=f"throughput reduction at RTT {where['large_rtt_ms']} ms: "
        f"{large.throughput_reduction_percent.min():.1f} to "
        f"{large.throughput_reduction_percent.max():.1f}% (20% or more in {huge} of "
        f"{len(large)}); Spearman with RTT: "
        + "; ".join(f"{label}: {rho:+.2f}" for label, rho in rhos),
    )


def _degradation_text(rows: pd.DataFrame) -> str:
    return "; ".join(
        f"RTT {r.rtt_ms:g} ms: throughput -{r.throughput_reduction_percent:.1f}%, loss "
        f"{r.loss_percent_pc:.2f}% with power control vs {r.loss_percent_nopc:.2f}%"
        for r in _each(rows.sort_values("rtt_ms"))
    )


def _small_mrci_degradation_growing_in_rtt(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> Outcome:
    """Holds if at every RTT throughput_reduction_percent > 0 and loss_percent_pc >
    loss_percent_nopc, and both the throughput reduction and loss_percent_pc are higher
    at the largest RTT than at the smallest ('specially for large values of RTT')."""
    rows = _select(rep, where).sort_values("rtt_ms")
    if rows.rtt_ms.nunique() < 2:
        raise _NotRun(f"the {_grid_name(rep)} runs one RTT only here")
    each = bool(
        (
            (rows.throughput_reduction_percent > 0)
            & (rows.loss_percent_pc > rows.loss_percent_nopc)
        ).all()
    )
    first, last = rows.pipe(_first), rows.pipe(_last)
    grows = (
        last.throughput_reduction_percent > first.throughput_reduction_percent
        and last.loss_percent_pc > first.loss_percent_pc
    )
    return Outcome(holds=bool(each and grows), text=_degradation_text(rows))


def _degradation_in_most_cells(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if throughput_reduction_percent > 0 and loss_percent_pc > loss_percent_nopc
    in more than half of the selected cells."""
    rows = _select(rep, where)
    both = int(
        (
            (rows.throughput_reduction_percent > 0)
            & (rows.loss_percent_pc > rows.loss_percent_nopc)
        ).sum()
    )
    return Outcome(
        holds=both > len(rows) / 2,
        text=f"both in {both} of {len(rows)} cells: {_degradation_text(rows)}",
    )


def _trend_signs(rows: pd.DataFrame) -> dict[str, bool]:
    """The three §6.2 trends of one bON: loss higher with power control in most cells;
    throughput reduction and service-rate reduction rising with RTT for most mRCI."""
    out = {
        "loss higher with power control": bool(
            (rows.loss_percent_pc > rows.loss_percent_nopc).sum() > len(rows) / 2
        )
    }
    for metric, name in (
        ("throughput_reduction_percent", "throughput reduction rising with RTT"),
        ("service_rate_reduction_percent", "service-rate reduction rising with RTT"),
    ):
        rhos = [r for _, r in _per_group_spearman(rows, metric, "rtt_ms", ["mrci_ms"])]
        out[name] = sum(1 for r in rhos if r > 0) > len(rhos) / 2
    return out


def _background_trends_hold_for_all_bon(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> Outcome:
    """The trends of :func:`_trend_signs` at each selected bON against bON
    ``reference_b_on_ms``: holds if each trend agrees with the reference at more than
    half of the bON values."""
    rows = _select(rep, where)
    ref = _select(rep, {"setting": where["setting"], "b_on_ms": where["reference_b_on_ms"]})
    if rows.rtt_ms.nunique() < 2:
        raise _NotRun(f"the {_grid_name(rep)} runs one RTT only here")
    base = _trend_signs(ref)
    agree = dict.fromkeys(base, 0)
    bons = sorted(rows.b_on_ms.unique())
    for b in bons:
        signs = _trend_signs(rows[np.isclose(rows.b_on_ms, b)])
        for k in base:
            agree[k] += signs[k] == base[k]
    ok = all(v > len(bons) / 2 for v in agree.values())
    return Outcome(
        holds=ok,
        text=f"at bON {where['reference_b_on_ms']} ms: "
        + ", ".join(f"{k}: {'yes' if v else 'no'}" for k, v in base.items())
        + f"; same at {', '.join(f'{k} {v} of {len(bons)}' for k, v in agree.items())} "
        f"other bON ({', '.join(f'{b:g}' for b in bons)} ms)",
    )


def _bottleneck_against_background(metric: str, higher: bool) -> Evaluator:
    """Not comparable: the paper's Figure 7 has background traffic (bON 100 ms) on top
    of the bottleneck, ours none. The nearest proxy is reported in the text: per (RTT,
    mRCI), ``metric`` of the bottleneck cells (BN ``bn_s``) against the background cells
    (bON ``b_on_ms``)."""

    def proxy(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
        why = (
            "not run: the paper's Figure 7 case has background traffic (bON 100 ms) on top "
            "of the bottleneck; our bottleneck setting has none"
        )
        try:
            bn = _select(rep, {"setting": "bottleneck", "bn_s": where["bn_s"]})
            bg = _select(rep, {"setting": "background", "b_on_ms": where["b_on_ms"]})
        except _NotRun as e:
            return Outcome(comparable=False, text=f"{why}; and {e}")
        merged = bn.merge(bg, on=["rtt_ms", "mrci_ms"], suffixes=("_bn", "_bg"))
        a, b = merged[f"{metric}_bn"], merged[f"{metric}_bg"]
        wins = int(((a > b) if higher else (a < b)).sum())
        by_rtt = merged.assign(d=a - b).groupby("rtt_ms").d.mean()
        return Outcome(
            comparable=False,
            text=f"{why}. Proxy (bottleneck alone against background alone): "
            f"{metric} {'higher' if higher else 'lower'} with the bottleneck in {wins} of "
            f"{len(merged)} cells; mean difference by RTT: "
            + ", ".join(f"{r:g} ms {d:+.1f}" for r, d in by_rtt.items()),
        )

    proxy.__name__ = f"_bottleneck_{metric}"
    return _guard(proxy)


def _bottleneck_lowers_tcp_rate(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if in every bottleneck cell (every BN) TCP alone (throughput_nopc_mbps) is
    slower than the single flow at the same RTT and mRCI."""
    bn = _select(rep, {**where, "setting": "bottleneck"})
    single = _select(rep, {"setting": "single"})
    merged = bn.merge(single, on=["rtt_ms", "mrci_ms"], suffixes=("_bn", "_single"))
    lower = int((merged.throughput_nopc_mbps_bn < merged.throughput_nopc_mbps_single).sum())
    return Outcome(
        holds=lower == len(merged) and len(merged) > 0,
        text=f"TCP alone slower behind the bottleneck in {lower} of {len(merged)} cells: mean "
        f"{merged.throughput_nopc_mbps_bn.mean():.2f} Mb/s against "
        f"{merged.throughput_nopc_mbps_single.mean():.2f} Mb/s alone",
    )


def _bottleneck_saving_at_a_cost(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if service_rate_reduction_percent > 0, throughput_reduction_percent > 0 and
    loss_percent_pc > loss_percent_nopc each in more than half of the selected
    bottleneck cells, and their mean rate_changes is within a factor 2 of the background
    cells' at bON ``against_b_on_ms`` ('similar')."""
    rows = _select(rep, where)
    bg = _select(rep, {"setting": "background", "b_on_ms": where["against_b_on_ms"]})
    half = len(rows) / 2
    saving = int((rows.service_rate_reduction_percent > 0).sum())
    cost = int((rows.throughput_reduction_percent > 0).sum())
    loss = int((rows.loss_percent_pc > rows.loss_percent_nopc).sum())
    ratio = float(rows.rate_changes.mean() / bg.rate_changes.mean())
    ok = saving > half and cost > half and loss > half and 0.5 <= ratio <= 2
    return Outcome(
        holds=ok,
        text=f"of {len(rows)} cells: saving in {saving}, throughput reduced in {cost}, loss "
        f"higher in {loss}; rate changes {rows.rate_changes.mean():.0f} per run against "
        f"{bg.rate_changes.mean():.0f} with background (x{ratio:.2f}); our bottleneck has "
        "no background traffic, the paper's has",
    )


# --- §7 ---------------------------------------------------------------------------------


def _drastic_degradation_somewhere(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if every setting has a cell with throughput_reduction_percent >= 30
    ('drastic'), leaving out cells where TCP alone is below 1 Mb/s."""
    rows = _select(rep, where)
    rows = rows[rows.throughput_nopc_mbps >= 1]
    ok, parts = True, []
    for setting in study.SETTINGS:
        g = rows[rows.setting == setting]
        if g.empty:
            ok = False
            parts.append(f"{setting}: no cell with TCP alone at 1 Mb/s or more")
            continue
        worst = g.sort_values("throughput_reduction_percent").pipe(_last)
        ok = ok and worst.throughput_reduction_percent >= 30
        parts.append(
            f"{setting}: worst {worst.throughput_reduction_percent:.1f}% at {_cell(worst)}"
        )
    return Outcome(holds=ok, text="; ".join(parts))


def _saving_and_degradation_trends(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Per setting (and bON or BN): Spearman correlations of
    service_rate_reduction_percent and throughput_reduction_percent with RTT (per mRCI)
    and with mRCI (per RTT). Holds if, for both metrics, at least half of the defined
    correlations with RTT are positive and at least half of those with mRCI negative."""
    rows = _select(rep, where)
    group = ["setting", "b_on_ms", "bn_s"]
    shares, ok = [], True
    for metric, name in (
        ("service_rate_reduction_percent", "saving"),
        ("throughput_reduction_percent", "degradation"),
    ):
        for against, per, sign, word in (
            ("rtt_ms", "mrci_ms", 1, "rising with RTT"),
            ("mrci_ms", "rtt_ms", -1, "falling with mRCI"),
        ):
            rhos = [
                r
                for _, g in _groups(rows, group)
                for _, r in _per_group_spearman(g, metric, against, [per])
                if not math.isnan(r)
            ]
            good = sum(1 for r in rhos if sign * r > 0)
            ok = ok and bool(rhos) and good >= len(rhos) / 2
            shares.append(f"{name} {word} in {good} of {len(rhos)}")
    return Outcome(holds=ok, text="; ".join(shares))


EVALUATORS: dict[str, Evaluator] = {
    "mean_service_rate_mbps": _column("mean_service_rate_mbps"),
    "service_rate_reduction_percent": _column("service_rate_reduction_percent"),
    "throughput_nopc_mbps": _column("throughput_nopc_mbps"),
    "throughput_pc_mbps": _column("throughput_pc_mbps"),
    "no_saving_no_degradation": _guard(_no_saving_no_degradation),
    "throughput_reduction_near_zero": _guard(_throughput_reduction_near_zero),
    "loss_pc_near_nopc": _guard(_loss_pc_near_nopc),
    "slight_reduction_and_degradation": _guard(_slight_reduction_and_degradation),
    "rate_changes_decreasing_in_mrci": _guard(_rate_changes_decreasing_in_mrci),
    "converges_to_no_pc_in_mrci": _guard(_converges_to_no_pc_in_mrci),
    "rate_changes_increasing_in_rtt": _guard(_rate_changes_increasing_in_rtt),
    "throughput_reduction_higher_at_large_rtt": _guard(_throughput_reduction_higher_at_large_rtt),
    "loss_pc_above_nopc": _guard(_loss_pc_above_nopc),
    "throughput_reduction_decreasing_in_mrci": _guard(_throughput_reduction_decreasing_in_mrci),
    "tcp_below_link_at_large_rtt": _guard(_tcp_below_link_at_large_rtt),
    "recovery_time_nopc_s": _recovery(pc=False),
    "recovery_time_pc_s": _recovery(pc=True),
    "service_above_arrival_at_large_mrci": _guard(_service_above_arrival_at_large_mrci),
    "rising_slope_same_across_mrci": _guard(_rising_slope_same_across_mrci),
    "not_run": _not_run,
    "throughput_reduction_increasing_in_mrci": _guard(_throughput_reduction_increasing_in_mrci),
    "service_rate_low_and_decreasing_in_rtt": _guard(_service_rate_low_and_decreasing_in_rtt),
    "rate_changes_increasing_in_mrci": _guard(_rate_changes_increasing_in_mrci),
    "throughput_reduction_increasing_in_rtt": _guard(_throughput_reduction_increasing_in_rtt),
    "small_mrci_degradation_growing_in_rtt": _guard(_small_mrci_degradation_growing_in_rtt),
    "degradation_in_most_cells": _guard(_degradation_in_most_cells),
    "background_trends_hold_for_all_bon": _guard(_background_trends_hold_for_all_bon),
    "bottleneck_saving_above_background": _bottleneck_against_background(
        "service_rate_reduction_percent", higher=True
    ),
    "bottleneck_reduction_below_background": _bottleneck_against_background(
        "throughput_reduction_percent", higher=False
    ),
    "bottleneck_lowers_tcp_rate": _guard(_bottleneck_lowers_tcp_rate),
    "bottleneck_saving_at_a_cost": _guard(_bottleneck_saving_at_a_cost),
    "drastic_degradation_somewhere": _guard(_drastic_degradation_somewhere),
    "saving_and_degradation_trends": _guard(_saving_and_degradation_trends),
}


def _base_scenarios(rep: study.Reproduction) -> list[str]:
    """The base scenarios the sweeps run (``<setting>.toml``)."""
    return [text for name, text in rep.sweep_files.items() if not name.endswith("-sweep.toml")]


def _sweep_keys(rep: study.Reproduction) -> list[str]:
    """The key paths every sweep sets through its [grid] and [zip]."""
    keys: list[str] = []
    for name, text in rep.sweep_files.items():
        if name.endswith("-sweep.toml"):
            doc = parse_toml(text)
            for table in ("grid", "zip", "set"):
                keys += [k for k in doc.get(table, {}) if k not in keys]
    return keys


FINDINGS: Findings[study.Reproduction] = Findings(
    "capacity-scaling",
    EVALUATORS,
    scenarios=_base_scenarios,
    extra_keys=_sweep_keys,
    options=(
        "seed",
        "delay_bound_ms",
        "ewma_weight",
        "sample_ms",
        "burst_rate_mbps",
        "queue",
    ),
)

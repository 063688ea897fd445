"""Shared helpers of the capacity-scaling findings' evaluators (see
:mod:`ethersim.studies.capacity_scaling_findings`): selecting the table's rows a finding's
``where`` names (every value it names must have been run, else :class:`_NotRun`), naming
cells and groups of them, Spearman's rank correlation, and :func:`_guard`, which turns a
cell the grid lacks into a not-comparable outcome."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ethersim.studies import capacity_scaling as study
from ethersim.studies.contract import Evaluator, Outcome

#: The table's columns a ``where`` may select on.
CELL_KEYS = ("setting", "rtt_ms", "mrci_ms", "b_on_ms", "bn_s")
_NAMES = {"rtt_ms": "RTT", "mrci_ms": "mRCI", "b_on_ms": "bON", "bn_s": "BN"}
_UNITS = {"rtt_ms": "ms", "mrci_ms": "ms", "b_on_ms": "ms", "bn_s": "s"}


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

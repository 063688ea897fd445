"""A sweep's cells as a table a person reads in a terminal: the swept keys, the runs per
cell and the chosen metrics (mean ± 95% interval), in a given width.

Numbers go through :mod:`ethersim.units` and are never split; headers are wrapped at
the separators of a label (``links[0].`` / ``rate``); each cell carries its unit, scaled
to its value. Metrics that do not fit beside the keys go to further blocks below, each repeating
the keys, so that no line is wider than asked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ethersim.sweeps.frames import SweptKey, labels

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Column", "blocks", "column", "default_metrics", "key_columns", "metric_column"]

#: Headers wrap to at most this width when the values are narrower.
_HEADER_WIDTH = 14
#: What rich puts between two columns (padding, rule, padding).
_GAP = 3


@dataclass(frozen=True)
class Column:
    """A column as shown: header lines, one text per cell, its width and alignment."""

    header: tuple[str, ...]
    cells: tuple[str, ...]
    width: int
    right: bool


def _cell_len(text: str) -> int:
    from rich.cells import cell_len

    from ethersim.cli_common import visible

    return cell_len(visible(text))


def wrap_label(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width``, broken after ``:``, ``.``, ``_``, ``>``
    or a space (a part longer than ``width`` is cut)."""
    parts = [p for p in re.findall(r"[^:._> ]*[:._> ]?", text) if p]
    lines: list[str] = []
    for part in parts:
        while len(part) > width:
            if lines and len(lines[-1]) < width:
                room = width - len(lines[-1])
                lines[-1] += part[:room]
                part = part[room:]
            else:
                lines.append(part[:width])
                part = part[width:]
        if lines and len(lines[-1]) + len(part) <= width:
            lines[-1] += part
        elif part:
            lines.append(part)
    return [line.rstrip() for line in lines] or [""]


def column(titles: Sequence[str], cells: list[str], right: bool) -> Column:
    """A column whose header is ``titles``, each wrapped on lines of its own. Its cells
    carry their units, each scaled to its value (``500 ns``, ``1.2 ms``), so the header
    names none."""
    values = max((_cell_len(c) for c in cells), default=1)
    parts = [p for t in titles for p in re.findall(r"[^:._> ]*[:._> ]?", t) if p]
    longest = max((len(p) for p in parts), default=1)
    width = max(values, min(longest, _HEADER_WIDTH), 4)
    header = [line for t in titles for line in wrap_label(t, width)]
    return Column(tuple(header), tuple(cells), width, right)


def key_columns(cells: pd.DataFrame, keys: Sequence[SweptKey]) -> list[Column]:
    """One column per swept key (values as written; numbers via units), then the ok runs
    of each cell (and the failed ones, if any failed), for ``cells``: the wide per-cell
    frame (key columns, ``runs_ok``, ``runs_failed``)."""
    from ethersim.units import fmt_count, fmt_number

    columns = []
    for key in keys:
        shown = [v if isinstance(v, str) else fmt_number(v) for v in cells[key.path]]
        columns.append(column([key.path], shown, key.numeric))
    columns.append(column(["runs"], [fmt_count(n) for n in cells["runs_ok"]], True))
    if (cells["runs_failed"] > 0).any():
        failed = [fmt_count(n) for n in cells["runs_failed"]]
        columns.append(column(["failed"], failed, True))
    return columns


def metric_column(label: str, means: Sequence[float], halves: Sequence[float]) -> Column:
    """A metric's column: ``mean ± half-width`` per cell (the mean alone when the cell
    has no interval), through :func:`ethersim.units.human`."""
    from ethersim.units import human, is_missing

    shown = [
        human(label, m)
        if is_missing(h) or is_missing(m)
        else f"{human(label, m)} ± {human(label, h)}"
        for m, h in zip(means, halves, strict=True)
    ]
    # The object (``port:switch->h0:``) and the metric on lines of their own.
    owner, colon, metric = label.rpartition(":")
    return column([owner + colon, metric], shown, True)


def _width(columns: Sequence[Column]) -> int:
    return sum(c.width for c in columns) + _GAP * max(len(columns) - 1, 0)


def blocks(fixed: Sequence[Column], metrics: Sequence[Column], width: int) -> list[list[Column]]:
    """The columns in blocks of at most ``width``: each the ``fixed`` columns and as many
    metric columns as fit (at least one, however wide)."""
    out: list[list[Column]] = []
    current: list[Column] = []
    for column in metrics:
        if current and _width([*fixed, *current, column]) > width:
            out.append([*fixed, *current])
            current = []
        current.append(column)
    out.append([*fixed, *current])
    return out


def default_metrics(tidy: pd.DataFrame, room: int) -> list[str]:
    """The metrics shown when none are chosen: those whose mean differs between cells
    (in label order), then the others, as many as fit in ``room`` columns of text."""
    if tidy.empty:
        return []
    frame = tidy.assign(label=labels(tidy))
    spread = frame.groupby("label", sort=False)["mean"].agg(lambda m: m.nunique() > 1)
    ordered = [*spread[spread].index, *spread[~spread].index]
    chosen: list[str] = []
    used = 0
    for label in ordered:
        rows = frame[frame["label"] == label]
        column = metric_column(label, list(rows["mean"]), list(rows["ci95"]))
        if chosen and used + _GAP + column.width > room:
            break
        chosen.append(label)
        used += _GAP + column.width
    return chosen

"""Tables as a person reads them: every cell through :mod:`ethersim.units` (rates in
Mb/s, times in ms, sizes in kB, a missing value as an en dash), headings in words with
their unit, a link's two ends as ``a ↔ b``. The templates only lay the cells out."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ethersim.units import MISSING, heading, human, is_missing

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Cell", "Table", "cell", "from_frame", "from_records"]

#: Rows of each table shown (the files hold them all).
MAX_ROWS = 60


@dataclass(frozen=True)
class Cell:
    """One table cell: the text shown, the exact value (shown on hover) and a CSS class
    (``text`` aligns left, ``list`` may wrap, ``differs`` highlights a difference)."""

    text: str
    exact: str = ""
    css: str = ""


@dataclass
class Table:
    """A titled table: its headings (each with the column's own name on hover), its
    rows of cells, and notes shown above it."""

    title: str
    headings: list[tuple[str, str]]
    rows: list[list[Cell]]
    notes: list[str] = field(default_factory=list)


def cell(column: str, value: object) -> Cell:
    """The cell of ``value`` in the column named ``column``."""
    if column == "between" and isinstance(value, Sequence) and not isinstance(value, str):
        # A link joins two nodes, in no direction.
        return Cell(" \N{LEFT RIGHT ARROW} ".join(map(str, value)), css="text")
    if isinstance(value, str):
        return Cell(value, css="text")
    text = human(column, value)
    exact = "" if text == MISSING or isinstance(value, bool) else _exact(value)
    # A list (a link's rates) may wrap; a single value never splits from its unit.
    css = "list" if isinstance(value, (list, tuple)) else ""
    return Cell(text, exact if exact != text else "", css)


def _exact(value: object) -> str:
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return ", ".join(_exact(v) for v in value)
    return str(value)


def _empty(value: object) -> bool:
    if isinstance(value, (list, tuple)):
        return len(value) == 0
    return is_missing(value)


def from_records(
    title: str,
    records: Iterable[Mapping[str, Any]],
    columns: Sequence[str] | None = None,
    notes: Sequence[str] = (),
) -> Table | None:
    """A table of ``records`` (one a row; nested records flattened as ``delay_mean_s``):
    the ``columns`` given that any row has a value in, or every such column. ``None``
    if there are no rows."""
    rows = [flat_record(r) for r in records]
    if not rows:
        return None
    names = (
        list(columns) if columns is not None else list(dict.fromkeys(k for r in rows for k in r))
    )
    # A column with nothing in it (a mechanism the run did not use) says nothing.
    names = [c for c in names if any(not _empty(r.get(c)) for r in rows)]
    shown = rows[:MAX_ROWS]
    more = [f"The first {MAX_ROWS} of {len(rows):,} rows; the file holds them all."]
    return Table(
        title,
        [(heading(c), c) for c in names],
        [[cell(c, r.get(c)) for c in names] for r in shown],
        [*notes, *(more if len(rows) > MAX_ROWS else [])],
    )


def from_frame(title: str, frame: pd.DataFrame, notes: Sequence[str] = ()) -> Table | None:
    """A table of a DataFrame's rows (a reproduction's CSV)."""
    records = [
        {str(k): v for k, v in r.items()} for r in frame.head(MAX_ROWS + 1).to_dict("records")
    ]
    table = from_records(title, records, [str(c) for c in frame.columns], notes)
    if table is not None and len(frame) > MAX_ROWS:
        table.notes[-1] = f"The first {MAX_ROWS} of {len(frame):,} rows; the file holds them all."
    return table


def flat_record(record: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """A summary record with nested records as flat keys (`delay` → `delay_mean_s`)."""
    out: dict[str, Any] = {}
    for key, value in record.items():
        if isinstance(value, Mapping):
            out.update(flat_record(value, f"{prefix}{key}_"))
        else:
            out[f"{prefix}{key}"] = value
    return out


#: The columns the run report's flows and ports tables show, in order (every column is in
#: the files); the comparison of two runs compares the same, beside the row's name.
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
    "timeouts",
]
PORT_COLUMNS = [
    "node",
    "peer",
    "rate_bps",
    "frames_sent",
    "bytes_sent",
    "drops",
    "utilization",
    "mean_queue_bytes",
    "max_queue_bytes",
    "delay_s",
]


def record_tables(summary: Mapping[str, Any]) -> list[Table | None]:
    """One table per mechanism record with rows to show (PAUSE, Low Power Idle, rate
    scaling, ...), rendered from the record's view (:mod:`ethersim.records`): the row's
    name, then the view's columns."""
    from ethersim.records import record_views, shown_rows

    tables = []
    for view in record_views():
        names = ["node", "peer"] if view["table"] == "ports" else ["name"]
        title = view["title"]
        tables.append(
            from_records(
                title[:1].upper() + title[1:],
                shown_rows(view, summary),
                [*names, *(c for c, _ in view["columns"])],
            )
        )
    return tables


def record_columns(table: str) -> list[str]:
    """The columns the mechanisms' records show in ``table``, in their views' order."""
    from ethersim.records import record_views

    columns = [c for v in record_views() if v["table"] == table for c, _ in v["columns"]]
    return list(dict.fromkeys(columns))

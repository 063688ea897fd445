"""Two runs side by side (``ethersim report A B``): their flows, ports and links joined
by name, each value of A beside B's, the difference and the relative change, and the
rows that differ beyond :data:`TOLERANCE` marked."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ethersim.report.tables import FLOW_COLUMNS as FLOW_TABLE
from ethersim.report.tables import PORT_COLUMNS as PORT_TABLE
from ethersim.report.tables import Cell, cell, flat_record, record_columns
from ethersim.units import MISSING, fmt_percent, heading, human, is_missing, is_real

__all__ = ["TOLERANCE", "DiffRow", "DiffTable", "differences"]

#: Relative difference, of the larger magnitude, beyond which two values differ. Runs
#: are deterministic, so the same scenario and seed give equal values; this leaves out
#: only the last digits of values computed in a different order.
TOLERANCE = 1e-3

#: What is compared, per table: how a row is named, and the columns (as in the run's
#: report).
FLOW_COLUMNS = tuple(c for c in FLOW_TABLE if c != "name")
PORT_COLUMNS = tuple(c for c in PORT_TABLE if c not in ("node", "peer"))
LINK_COLUMNS = ("outages", "dark_s", "rate_switches", "switching_s", "capacity_changes")
RUN_COLUMNS = ("sim_time_s", "events", "stop_reason", "delay_mean_s", "delay_p99_s")


@dataclass
class DiffRow:
    """A row: its cells, and whether A and B differ in it."""

    cells: list[Cell]
    differs: bool


@dataclass
class DiffTable:
    """A titled table of rows, one per (item, quantity)."""

    title: str
    headings: list[str]
    rows: list[DiffRow]


def _number(value: object) -> bool:
    return is_real(value) and not isinstance(value, bool) and not is_missing(value)


def _row(item: str, column: str, a: object, b: object) -> DiffRow:
    """The row of ``column`` of ``item``: A, B, B - A and (B - A) / A."""
    difference, change = Cell(MISSING), Cell(MISSING)
    if _number(a) and _number(b):
        fa, fb = float(a), float(b)  # type: ignore[arg-type]
        differs = abs(fb - fa) > TOLERANCE * max(abs(fa), abs(fb))
        delta = fb - fa
        # A plain difference, with its sign (the formatters show a minus only).
        difference = Cell(("+" if delta > 0 else "") + human(column, delta))
        if fa != 0:
            rel = 100 * delta / abs(fa)
            change = Cell(("+" if rel > 0 else "") + fmt_percent(rel))
    else:
        differs = (None if is_missing(a) else a) != (None if is_missing(b) else b)
    css = "differs" if differs else ""
    cells = [
        Cell(item, css="text"),
        Cell(heading(column), css="text"),
        cell(column, a),
        cell(column, b),
        Cell(difference.text, css=css),
        Cell(change.text, css=css),
    ]
    return DiffRow(cells, differs)


def _table(
    title: str,
    a: Iterable[Mapping[str, Any]],
    b: Iterable[Mapping[str, Any]],
    key: str | Sequence[str],
    columns: Sequence[str],
    name: str,
    sparse: Sequence[str] = (),
) -> DiffTable | None:
    """Rows of ``a`` and ``b`` joined on ``key`` (a column, or columns joined by an
    arrow), A's order first, then items only B has. A column of ``sparse`` (a
    mechanism's record) is left out of an item where it is zero, false or missing in
    both."""

    def keyed(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
        out = {}
        for r in records:
            flat = flat_record(r)
            if isinstance(key, str):
                value = flat.get(key)
                k = (
                    " \N{LEFT RIGHT ARROW} ".join(map(str, value))
                    if isinstance(value, list)
                    else str(value)
                )
            else:
                k = " \N{RIGHTWARDS ARROW} ".join(str(flat.get(part)) for part in key)
            out[k] = flat
        return out

    left, right = keyed(a), keyed(b)
    rows = []
    for item in dict.fromkeys([*left, *right]):
        ra, rb = left.get(item, {}), right.get(item, {})
        for column in (*columns, *sparse):
            va, vb = ra.get(column), rb.get(column)
            if is_missing(va) and is_missing(vb):
                continue
            if column in sparse and not va and not vb:
                continue
            rows.append(_row(item, column, va, vb))
    if not rows:
        return None
    return DiffTable(title, [name, "quantity", "A", "B", "B \N{MINUS SIGN} A", "change"], rows)


def differences(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[DiffTable]:
    """The tables comparing the summaries ``a`` and ``b`` (``summary.json``): the run
    as a whole, its flows, ports and links."""
    tables = [
        _table("Run", [{"run": "run", **a}], [{"run": "run", **b}], "run", RUN_COLUMNS, "run"),
        _table("Flows", a.get("flows", []), b.get("flows", []), "name", FLOW_COLUMNS, "flow"),
        _table(
            "Ports",
            a.get("ports", []),
            b.get("ports", []),
            ("node", "peer"),
            PORT_COLUMNS,
            "port",
            sparse=[c for c in record_columns("ports") if c not in PORT_COLUMNS],
        ),
        _table("Links", a.get("links", []), b.get("links", []), "between", LINK_COLUMNS, "link"),
    ]
    return [t for t in tables if t is not None]

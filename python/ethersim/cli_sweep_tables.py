"""`ethersim results` on the terminal and for programs: tables in the terminal's width
(blocks that repeat the identifying columns, at most MAX_ROWS rows) and CSV or JSON."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ethersim.cli_common import (
    err_console,
    literal,
    out_console,
)

if TYPE_CHECKING:
    import pandas as pd
    from rich.text import Text

    from ethersim.sweeps.display import Column
    from ethersim.sweeps.frames import SweptKey

#: Rows of the runs, long-metrics and sweeps tables shown on the terminal; every row is
#: in ``--format csv|json`` and ``--export``.
MAX_ROWS = 40

#: Identifiers the table view leaves out (programs read them in csv/json).
_TABLE_HIDDEN = ("run_id",)


def print_frame(frame: pd.DataFrame, title: str) -> None:
    """A table as it is (runs, metrics, the sweeps) in the terminal's width (``COLUMNS``,
    else the terminal's, else 80), laid out as the cells table is: headers wrapped at a
    key path's separators, numbers through ethersim.units (a long-form ``value`` by its
    row's metric; identifiers such as seeds and cell numbers as they are) and never
    split, columns that do not fit in further blocks that repeat the identifying ones; at
    most :data:`MAX_ROWS` rows, then how many are hidden."""
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    from ethersim.sweeps.display import column
    from ethersim.units import human

    frame = frame.drop(columns=[c for c in _TABLE_HIDDEN if c in frame.columns])
    rows = frame.head(MAX_ROWS)

    def shown(name: str, value: object, metric: object) -> str:
        if name == "value" and metric is not None:
            return human(str(metric), value)
        return human(name, value) if isinstance(value, float) else str(value)

    metrics = list(rows["metric"]) if "metric" in rows.columns else [None] * len(rows)
    columns = [
        column(
            [str(name)],
            [shown(str(name), v, m) for v, m in zip(rows[name], metrics, strict=True)],
            is_numeric_dtype(frame[name]) and not is_bool_dtype(frame[name]),
        )
        for name in frame.columns
    ]
    identifying = [c for c in ("sweep", "cell", "replication", "scope", "name", "metric")]
    fixed = [c for name, c in zip(frame.columns, columns, strict=True) if name in identifying]
    rest = [c for name, c in zip(frame.columns, columns, strict=True) if name not in identifying]
    _print_blocks(literal(title), fixed, rest)
    if len(frame) > MAX_ROWS:
        out_console().print(
            f"... and {len(frame) - MAX_ROWS:,} more rows (every row: --format csv|json "
            "or --export FILE)",
            highlight=False,
        )


def _print_blocks(heading: Text, fixed: list[Column], rest: list[Column]) -> None:
    """Columns as tables of the terminal's width: the ``fixed`` ones in every block, the
    ``rest`` in as many blocks as they need."""
    import shutil

    from rich import box
    from rich.table import Table
    from rich.text import Text

    from ethersim.sweeps.display import blocks

    width = shutil.get_terminal_size((80, 24)).columns
    console = out_console()
    console.print(heading, width=width, highlight=False)
    for block in blocks(fixed, rest, width) if rest else [fixed]:
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
        for c in block:
            table.add_column(
                Text("\n").join(literal(line) for line in c.header),
                width=c.width,
                no_wrap=True,
                justify="right" if c.right else "left",
            )
        for row in zip(*(c.cells for c in block), strict=True):
            table.add_row(*(literal(v) for v in row))
        console.print(table, width=width)


def print_cells(
    cells: pd.DataFrame,
    tidy: pd.DataFrame,
    keys: list[SweptKey],
    chosen: list[str] | None,
    name: str,
) -> None:
    """The sweep's cells in the terminal's width (``COLUMNS``, else the terminal's, else
    80): the swept keys, the runs, and the ``chosen`` metrics (default: as many as fit,
    those that differ between cells first)."""
    import shutil

    from rich.text import Text

    from ethersim.sweeps.display import default_metrics, key_columns, metric_column
    from ethersim.sweeps.frames import labels

    width = shutil.get_terminal_size((80, 24)).columns
    fixed = key_columns(cells, keys)
    all_labels = list(dict.fromkeys(labels(tidy)))
    room = width - sum(c.width + 3 for c in fixed)
    shown = chosen if chosen is not None else default_metrics(tidy, room)
    frame = tidy.assign(label=labels(tidy))
    means = frame.pivot(index="cell", columns="label", values="mean").reindex(cells["cell"])
    halves = frame.pivot(index="cell", columns="label", values="ci95").reindex(cells["cell"])
    columns = [metric_column(label, list(means[label]), list(halves[label])) for label in shown]
    heading = Text.assemble(
        "cells of ", literal(name), ": mean ± 95% interval (Student t) over each cell's ok runs"
    )
    _print_blocks(heading, fixed, columns)
    hidden = len(all_labels) - len(shown)
    if hidden:
        note = (
            f"{len(shown)} of {len(all_labels)} metrics shown; choose with --metrics "
            "(globs over labels such as 'port:*:drops', comma-separated or repeated)"
        )
        err_console().print(note, width=width, highlight=False)


def write_machine(frame: pd.DataFrame, form: str) -> None:
    """``frame`` on standard output as CSV or JSON (a list of records), every number at
    full precision and a missing one empty (CSV) or null (JSON)."""
    if form == "csv":
        frame.to_csv(sys.stdout, index=False, lineterminator="\n")
        return
    import json
    import math

    records = [
        {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in r.items()}
        for r in frame.to_dict(orient="records")
    ]
    sys.stdout.write(json.dumps(records, ensure_ascii=False, allow_nan=False, default=str))
    sys.stdout.write("\n")

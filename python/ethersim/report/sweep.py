"""``ethersim report SWEEP.duckdb``: one self-contained page for a sweep results
database (:mod:`ethersim.sweeps.store`).

For each sweep (or the one named): where it came from (its files, base seed,
replications, runs ok and failed, wall time, the ethersim versions that ran it), its
grid as defined, one interactive figure per metric, the cells table and the failed runs
with their errors. A figure is the metric's mean against the first swept key with the
database's 95% interval as error bars, one line per value of the second key; the same
selection as ``ethersim plot`` (:func:`ethersim.sweeps.plot.lines`). When more keys vary
on their own, a menu in each figure picks the value of the others (the first
combination is shown first), so that a page has one figure per metric however many keys
a sweep has.

Figures are plain plotly JSON built here (plotly.py's validation costs about a
millisecond a trace, and a sweep has hundreds of metrics); the page draws each figure
as it scrolls into view.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ethersim.errors import OutputError, ScenarioError
from ethersim.report import tables
from ethersim.report.render import render
from ethersim.safe_write import check_writable_file, write_text
from ethersim.units import MISSING, fmt_count, fmt_time, heading, human, unit_of

if TYPE_CHECKING:
    import pandas as pd

    from ethersim.sweeps import Store
    from ethersim.sweeps.frames import SweptKey
    from ethersim.sweeps.plot import Line, XAxis

__all__ = [
    "MAX_METRIC_COLUMNS",
    "build_sweep_report",
    "default_sweep_report_path",
    "metric_figures",
]

#: Metrics shown as columns of a sweep's cells table (the figures show every metric;
#: the database holds every value).
MAX_METRIC_COLUMNS = 12

#: Units that read well with SI prefixes on an axis (1.25G b/s, 20µ s).
_SI_UNITS = {"s", "b/s", "B", "J", "W"}


def default_sweep_report_path(db: str | Path) -> Path:
    """Where ``ethersim report DB`` writes without ``--out``: ``<db stem>-report.html``
    beside the database."""
    db = Path(db)
    return db.with_name(f"{db.stem}-report.html")


def _text(value: str) -> str:
    """User text for plotly, which reads a few HTML tags in its labels (``<a>``,
    ``<b>``, ``<br>``) and decodes entities: written as entities, it shows as itself."""
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _numbers(values: Any) -> list[float | None]:
    """An array as JSON numbers, NaN as null (JSON has no NaN)."""
    return [None if v != v else float(v) for v in values.tolist()]


@dataclass(frozen=True)
class MetricFigure:
    """One metric's figure: its label, its plotly JSON (``data`` and ``layout``) and the
    combinations of the keys its menu holds (one, empty, when nothing else varies)."""

    label: str
    figure: dict[str, Any]
    held: list[dict[str, Any]]


def _combinations(cells: pd.DataFrame, loose: Sequence[SweptKey]) -> list[dict[str, Any]]:
    """The combinations of the ``loose`` keys' values that cells have, in the sweep's
    order."""
    if not loose:
        return [{}]
    paths = [k.path for k in loose]
    rank = {k.path: {v: i for i, v in enumerate(k.values)} for k in loose}
    present = cells[paths].drop_duplicates()
    combos = [dict(zip(paths, row, strict=True)) for row in present.itertuples(index=False)]
    return sorted(combos, key=lambda c: [rank[p].get(c[p], len(rank[p])) for p in paths])


@dataclass(frozen=True)
class _Layout:
    """Where a sweep's cells lie in every metric's figure: per combination held, the
    lines of :func:`ethersim.sweeps.plot.lines` over the cells (their ``rows`` are cell
    numbers), the x value of each cell as written, and the x axis (the same in every
    combination: ticked at every value present)."""

    x: SweptKey
    hue: SweptKey | None
    combos: list[dict[str, Any]]
    lines: list[list[Line]]
    written: dict[int, str]
    axis: XAxis


def _layout(tidy: pd.DataFrame, keys: Sequence[SweptKey]) -> _Layout:
    """The figures' layout, from the cells' keys: the same for every metric, so the
    selection (:func:`ethersim.sweeps.plot.lines`) runs once per combination, not once
    per metric and combination (a sweep has hundreds of metrics)."""
    from ethersim.sweeps.plot import PlotChoice, lines, loose_keys, shown, x_axis

    x, hue = keys[0], (keys[1] if len(keys) > 1 else None)
    loose = loose_keys(tidy, keys, x, hue)
    columns = ["cell", *(c for k in keys for c in (k.path, k.companion) if c)]
    cells = tidy[columns].drop_duplicates("cell").set_index("cell", drop=False)
    # The statistics are the metric's, looked up by cell in metric_figures.
    cells = cells.assign(mean=0.0, ci95=0.0)
    combos = _combinations(cells, loose)
    per_combo = []
    for combo in combos:
        rows = cells
        for path, value in combo.items():
            rows = rows[rows[path].to_numpy() == value]
        per_combo.append(lines(PlotChoice("", x, hue, combo, rows)))
    written = {int(c): _text(shown(v)) for c, v in zip(cells["cell"], cells[x.path], strict=True)}
    axis = x_axis(PlotChoice("", x, hue, {}, cells))
    return _Layout(x, hue, combos, per_combo, written, axis)


def metric_figures(tidy: pd.DataFrame, keys: Sequence[SweptKey]) -> list[MetricFigure]:
    """The figure of every metric of a sweep's tidy frame (:meth:`Store.cells`) with its
    keys (:meth:`Store.swept_keys`), in the frame's order of labels: the mean against
    the first key with its 95% interval, a line per value of the second, a menu over the
    combinations of the keys that still vary; a cell without the metric has no point.
    An empty list when the sweep varies no key (nothing to draw a line along) or has no
    ok run."""
    import numpy as np
    import pandas as pd

    from ethersim.sweeps.frames import labels

    if not keys or tidy.empty:
        return []
    layout = _layout(tidy, keys)
    # Each statistic as an array of cells by metrics, found by position.
    label_codes, names = pd.factorize(labels(tidy), sort=False)
    cell_codes, cell_ids = pd.factorize(tidy["cell"], sort=False)
    at = {int(c): i for i, c in enumerate(cell_ids)}
    stats = {}
    for stat in ("mean", "ci95", "n"):
        grid = np.full((len(cell_ids), len(names)), np.nan)
        grid[cell_codes, label_codes] = tidy[stat].to_numpy(dtype="float64")
        stats[stat] = grid
    figures = []
    for j, label in enumerate(map(str, names)):
        traces: list[dict[str, Any]] = []
        spans = []
        for i, per_line in enumerate(layout.lines):
            start = len(traces)
            for line in per_line:
                rows = np.array([at[int(c)] for c in line.rows], dtype=np.int64)
                means = stats["mean"][rows, j]
                there = ~np.isnan(means)
                if not there.any():
                    continue
                traces.append(
                    _trace(
                        layout,
                        label,
                        line.hue,
                        line.x[there],
                        means[there],
                        stats["ci95"][rows, j][there],
                        stats["n"][rows, j][there],
                        line.rows[there],
                        visible=i == 0,
                    )
                )
            spans.append((start, len(traces)))
        figures.append(MetricFigure(label, _figure(layout, label, traces, spans), layout.combos))
    return figures


def _trace(
    layout: _Layout,
    label: str,
    hue: Any,
    x: Any,
    mean: Any,
    ci95: Any,
    n: Any,
    cells: Any,
    *,
    visible: bool,
) -> dict[str, Any]:
    """One line's plotly trace: its points, their 95% error bars (none for a cell of
    one run: null draws no bar), and per point for the hover text the x value as
    written, the runs, the cell and the interval."""
    from ethersim.sweeps.plot import shown

    unit = unit_of(label)
    name = "mean" if hue is None else shown(hue)
    halves = _numbers(ci95)
    return {
        "type": "scatter",
        "mode": "lines+markers",
        "x": _numbers(x),
        "y": _numbers(mean),
        "error_y": {"type": "data", "array": halves, "visible": True},
        "name": _text(name),
        "legendgroup": _text(name),
        "visible": visible,
        "showlegend": hue is not None,
        "customdata": [
            [layout.written[c], int(k), c, half]
            for c, k, half in zip(cells.tolist(), n.tolist(), halves, strict=True)
        ],
        "hovertemplate": f"{_text(layout.x.path)} = %{{customdata[0]}}<br>"
        f"mean %{{y:.4~g}} ± %{{customdata[3]:.3~g}}{' ' + unit if unit else ''}"
        "<br>runs: %{customdata[1]}, cell %{customdata[2]}"
        f"<extra>{_text(name)}</extra>",
    }


def _figure(
    layout: _Layout, label: str, traces: list[dict[str, Any]], spans: list[tuple[int, int]]
) -> dict[str, Any]:
    """The plotly JSON of one metric: its traces, and with more than one combination
    held, the menu that shows each one's traces (``spans``: its range of traces)."""
    from ethersim.sweeps.plot import shown, spans_decades

    x, hue = layout.x, layout.hue
    unit = unit_of(label)
    x_unit = unit_of(x.companion) if x.companion is not None else ""
    axis = layout.axis
    plot: dict[str, Any] = {
        "title": {"text": _text(_held_title(label, layout.combos[0])), "font": {"size": 14}},
        "xaxis": {
            "title": {"text": _text(x.path) + (f" [{x_unit}]" if x_unit else "")},
            "type": "log" if axis.log else "linear",
            "gridcolor": "#eee",
            "zeroline": False,
        },
        "yaxis": {
            "title": {"text": _text(label) + (f" [{unit}]" if unit else "")},
            "gridcolor": "#eee",
            "zeroline": False,
            **({"tickformat": "~s"} if unit in _SI_UNITS else {}),
            "type": "log"
            if spans_decades(y for t in traces for y in t["y"] if y is not None)
            else "linear",
        },
        "height": 380,
        "margin": {"l": 80, "r": 20, "t": 80 if len(spans) > 1 else 50, "b": 50},
        "plot_bgcolor": "white",
        "hovermode": "closest",
        "meta": {"metric": _text(label)},
    }
    if axis.ticks:
        plot["xaxis"]["tickvals"] = axis.ticks
        plot["xaxis"]["ticktext"] = [_text(t) for t in axis.labels]
    if hue is not None:
        plot["legend"] = {"title": {"text": _text(hue.path)}}
    if len(spans) > 1:
        buttons = []
        for combo, (start, stop) in zip(layout.combos, spans, strict=True):
            held = ", ".join(f"{k} = {shown(v)}" for k, v in combo.items())
            buttons.append(
                {
                    "label": _text(held),
                    "method": "update",
                    "args": [
                        {"visible": [start <= j < stop for j in range(len(traces))]},
                        {"title.text": _text(_held_title(label, combo))},
                    ],
                }
            )
        plot["updatemenus"] = [
            {"buttons": buttons, "x": 0, "xanchor": "left", "y": 1.22, "yanchor": "top"}
        ]
    return {"data": traces, "layout": plot}


def _held_title(label: str, held: Mapping[str, Any]) -> str:
    from ethersim.sweeps.plot import shown

    if not held:
        return label
    return f"{label} ({', '.join(f'{k} = {shown(v)}' for k, v in held.items())})"


def _figure_json(figure: dict[str, Any]) -> str:
    """``figure`` as JSON safe inside a ``<script>`` element: ``<``, ``>`` and ``&``
    as escapes, so that no text in it can end the element."""
    text = json.dumps(figure, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# ---------------------------------------------------------------------- the page


def _value(value: object) -> str:
    """A value of the sweep's definition as the file wrote it: text as it is, anything
    else as TOML would show it (JSON is close enough for numbers, booleans, tables)."""
    return value if isinstance(value, str) else json.dumps(value)


def _grid(definition: Mapping[str, Any]) -> dict[str, Any]:
    """The sweep's definition for the page: each varied key with how it varies (grid:
    every combination; zip: advancing together) and its values; the ``[set]`` values."""
    varied = [
        {"key": path, "how": how, "shown": [_value(v) for v in values]}
        for how in ("grid", "zip")
        for path, values in definition.get(how, {}).items()
    ]
    fixed = [(path, _value(v)) for path, v in definition.get("set", {}).items()]
    return {"varied": varied, "set": fixed}


def _cells_table(
    runs: pd.DataFrame, tidy: pd.DataFrame, keys: Sequence[SweptKey], figures: list[MetricFigure]
) -> tables.Table | None:
    """One row per cell: its keys as written, runs ok and failed, and the first
    :data:`MAX_METRIC_COLUMNS` metrics' mean ± 95% interval, in human units."""
    from ethersim.sweeps.plot import shown

    if runs.empty:
        return None
    paths = [k.path for k in keys]
    per_cell = runs.groupby("cell", sort=True)
    cells = per_cell.first()
    ok = per_cell["status"].apply(lambda s: int((s == "ok").sum()))
    failed = per_cell["status"].apply(lambda s: int((s == "failed").sum()))
    shown_cells = list(cells.index[: tables.MAX_ROWS])
    metrics = [f.label for f in figures][:MAX_METRIC_COLUMNS]
    stats: dict[tuple[int, str], tuple[float, float]] = {}
    if metrics:
        from ethersim.sweeps.frames import labels

        chosen = tidy[tidy["cell"].isin(shown_cells)]
        chosen = chosen.assign(label=labels(chosen))
        chosen = chosen[chosen["label"].isin(metrics)]
        for cell, label, mean, ci in chosen[["cell", "label", "mean", "ci95"]].itertuples(
            index=False
        ):
            stats[(int(cell), str(label))] = (float(mean), float(ci))
    rows = []
    for cell in shown_cells:
        row = [tables.Cell(str(cell))]
        row += [tables.Cell(shown(cells.at[cell, p]), css="text") for p in paths]
        row += [tables.Cell(fmt_count(ok[cell])), tables.Cell(fmt_count(failed[cell]))]
        for label in metrics:
            mean, ci = stats.get((cell, label), (float("nan"), float("nan")))
            text = human(label, mean)
            if text != MISSING and ci == ci:
                text += f" ± {human(label, ci)}"
            row.append(tables.Cell(text, exact=f"{mean!r} ± {ci!r}" if mean == mean else ""))
        rows.append(row)
    notes = ["Each metric: the mean over the cell's ok runs ± the 95% confidence interval."]
    if len(cells) > tables.MAX_ROWS:
        notes.append(
            f"The first {tables.MAX_ROWS} of {len(cells):,} cells; the database holds them all."
        )
    if len(figures) > MAX_METRIC_COLUMNS:
        notes.append(
            f"The first {MAX_METRIC_COLUMNS} of {len(figures):,} metrics; the figures show "
            "each, and `ethersim results` or the database every value."
        )
    return tables.Table(
        "Cells",
        [
            ("cell", "cell"),
            *[(p, p) for p in paths],
            ("runs ok", "runs_ok"),
            ("failed", "runs_failed"),
            *[(heading(m), m) for m in metrics],
        ],
        rows,
        notes,
    )


def _failed(runs: pd.DataFrame, keys: Sequence[SweptKey]) -> tables.Table | None:
    """The failed runs, each with its keys and error (the first :data:`tables.MAX_ROWS`)."""
    from ethersim.sweeps.plot import shown

    bad = runs[runs["status"] == "failed"]
    if bad.empty:
        return None
    paths = [k.path for k in keys]
    rows = [
        [
            tables.Cell(str(r["cell"])),
            tables.Cell(str(r["replication"])),
            tables.Cell(str(r["seed"])),
            *[tables.Cell(shown(r[p]), css="text") for p in paths],
            tables.Cell(str(r["error"]), css="text"),
        ]
        for r in bad.head(tables.MAX_ROWS).to_dict("records")
    ]
    more = [f"The first {tables.MAX_ROWS} of {len(bad):,}; the database holds them all."]
    return tables.Table(
        f"Failed runs ({len(bad):,})",
        [("cell", "cell"), ("replication", "replication"), ("seed", "seed")]
        + [(p, p) for p in paths]
        + [("error", "error")],
        rows,
        more if len(bad) > tables.MAX_ROWS else [],
    )


def _sweep_section(store: Store, row: Mapping[Any, Any], first_id: int) -> dict[str, Any]:
    """Everything the page shows of one sweep; its figures' ids count from
    ``first_id``."""
    name = str(row["sweep"])
    definition = json.loads(row["definition"])
    tidy = store.cells(name)
    keys = store.swept_keys(name)
    runs = store.runs(name)
    versions = store.db.execute(
        "SELECT DISTINCT version FROM runs WHERE sweep = ? ORDER BY version", [name]
    ).fetchall()
    figures = metric_figures(tidy, keys)
    planned = int(row["cells"]) * int(row["replications"])
    meta = [
        ("sweep", name),
        ("sweep file", str(row["file"])),
        ("scenario file", str(row["scenario_file"])),
        ("base seed", str(row["base_seed"])),
        ("replications", fmt_count(row["replications"])),
        ("cells", fmt_count(row["cells"])),
        (
            "runs",
            f"{fmt_count(row['ok'])} ok, {fmt_count(row['failed'])} failed, of "
            f"{fmt_count(planned)}",
        ),
        ("wall time", f"{fmt_time(float(row['wall_s']))} (summed over the runs)"),
        ("ethersim", ", ".join(v for (v,) in versions) or MISSING),
    ]
    x = keys[0].path if keys else None
    hue = keys[1].path if len(keys) > 1 else None
    # The keys each figure's menu holds (zip partners of x or hue move with them).
    held = list(figures[0].held[0]) if figures else []
    scopes: dict[str, list[dict[str, str]]] = {}
    plot_json = []
    for i, f in enumerate(figures, start=first_id):
        scope = f.label.split(":", 1)[0]
        scopes.setdefault(scope, []).append({"id": f"figure-{i}", "label": f.label})
        plot_json.append((f"figure-{i}", _figure_json(f.figure)))
    menus = any(len(f.held) > 1 for f in figures)
    return {
        "name": name,
        "meta": meta,
        "grid": _grid(definition),
        "x": x,
        "hue": hue,
        "held": held,
        "menus": menus,
        "scopes": list(scopes.items()),
        "figures": plot_json,
        "cells": _cells_table(runs, tidy, keys, figures),
        "failed": _failed(runs, keys),
    }


def _sweeps(store: Store, db: str, sweep: str | None) -> pd.DataFrame:
    """The database's sweeps (or the one named), with their provenance; a
    :class:`ScenarioError` when there is none or no such sweep."""
    # The Store has checked that the database holds ethersim's tables.
    frame = store.db.execute(
        """SELECT s.sweep, s.file, s.scenario_file, s.base_seed, s.replications, s.cells,
                  s.definition,
                  count(r.run_id) FILTER (WHERE r.status = 'ok') AS ok,
                  count(r.run_id) FILTER (WHERE r.status = 'failed') AS failed,
                  coalesce(sum(r.wall_s), 0) AS wall_s
           FROM sweeps s LEFT JOIN runs r USING (sweep)
           GROUP BY ALL ORDER BY s.sweep"""
    ).df()
    if frame.empty:
        raise ScenarioError(f"{db!r} holds no sweep; expected a database with one", "DB")
    if sweep is not None:
        frame = frame[frame["sweep"] == sweep]
        if frame.empty:
            names = ", ".join(store.db.execute("SELECT sweep FROM sweeps ORDER BY 1").df().sweep)
            raise ScenarioError(
                f"no sweep {sweep!r} in {db!r}; expected one of: {names}", "--sweep"
            )
    return frame


def build_sweep_report(
    db: str | Path,
    sweep: str | None = None,
    out: str | Path | None = None,
    *,
    before_writing: Callable[[], object] | None = None,
) -> Path:
    """Writes one page for the sweep results database ``db`` (every sweep in it, or
    only ``sweep``) to ``out`` (default :func:`default_sweep_report_path`) and returns
    its path. Raises :class:`ScenarioError` for a file that is not such a database, one
    without sweeps, or an unknown ``sweep``, and :class:`OutputError` if ``out`` may
    not be written; nothing is written then. The page is written whole or not at all.
    ``before_writing`` is called once the page is built, before it is written (the
    command holds its signals there)."""
    from ethersim.report.interactive import plotly_js
    from ethersim.sweeps import Store

    target = Path(out) if out is not None else default_sweep_report_path(db)
    check_writable_file(target, "--out")
    shown_db = os.fspath(db)
    try:
        # Not a regular file, or without ethersim's tables: a ScenarioError at DB.
        store = Store(db, read_only=True, option="DB")
    except OutputError as e:
        raise ScenarioError(
            f"{shown_db!r} is not a DuckDB database ({e.message}); expected a results "
            "database of `ethersim sweep`",
            "DB",
        ) from None
    with store:
        rows = _sweeps(store, shown_db, sweep)
        sections = []
        next_id = 1
        for row in rows.to_dict("records"):
            section = _sweep_section(store, row, next_id)
            next_id += len(section["figures"])
            sections.append(section)
    figures = [f for s in sections for f in s["figures"]]
    title = (
        f"ethersim sweep: {sections[0]['name']}"
        if len(sections) == 1
        else f"ethersim sweeps: {Path(db).name}"
    )
    page = render(
        "sweep.html.j2",
        title=title,
        database=shown_db,
        sections=sections,
        max_metric_columns=MAX_METRIC_COLUMNS,
        figures=figures,
        lazy=True,
        plotly_js=plotly_js() if figures else "",
    )
    if before_writing is not None:
        before_writing()
    return write_text(target, page, "--out")

"""``ethersim sweep``, ``ethersim results`` and ``ethersim plot``: run a sweep file into
a results database, read what a database holds, and plot a metric against a swept key.

A sweep commits each run as it finishes, so stopping it (Ctrl-C, SIGTERM, even SIGKILL)
keeps what was done; the same command again resumes. Exit status: 0 when every run is
ok, 1 when some failed (they are recorded with their errors), 2 for a bad sweep file or
option, 130/143 when stopped.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ethersim import stopping
from ethersim.cli_common import (
    Terminated,
    closed_pipe_is_success,
    err_console,
    examples,
    fail,
    literal,
    out_console,
    plain_text,
    stopped,
)
from ethersim.errors import EthersimError, OutputError, ScenarioError

if TYPE_CHECKING:
    import pandas as pd
    from rich.text import Text

    from ethersim.sweeps.coordinator import Tick
    from ethersim.sweeps.display import Column
    from ethersim.sweeps.frames import SweptKey
    from ethersim.sweeps.spec import SweepSpec

__all__ = ["register"]

DbOption = Annotated[
    Path,
    typer.Option("--db", help="The results database (DuckDB file).", metavar="FILE"),
]


#: Runs above which a sweep is announced with a warning of its size.
LARGE_SWEEP = 10_000

#: Seconds between progress lines when standard error is not a terminal.
LOG_EVERY_S = 30.0


def _clock(seconds: float) -> str:
    """``seconds`` as H:MM:SS."""
    whole = int(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def _announce(quiet: bool) -> Callable[[str, int, int], None]:
    """Says a sweep's size on standard error as soon as it is known, before its cells
    are checked (unless ``quiet``), and warns of a large one (always)."""

    def announce(name: str, cells: int, replications: int) -> None:
        runs = cells * replications
        if not quiet:
            err_console().print(
                f"sweep {name}: {cells:,} cells × {replications:,} replications = {runs:,} runs",  # noqa: RUF001
                highlight=False,
                markup=False,
            )
        if runs > LARGE_SWEEP:
            from rich.text import Text

            err_console().print(
                Text.assemble(
                    ("warning: ", "bold yellow"),
                    f"sweep {name} is large ({runs:,} runs); Ctrl-C stops it keeping every "
                    "finished run, and the same command resumes it (--dry-run plans it "
                    "without running)",
                )
            )

    return announce


class _Log:
    """Progress as lines on standard error when it is not a terminal (a log, a CI job):
    at most one every :data:`LOG_EVERY_S` seconds, and one when the last run is in."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.start: float | None = None
        self.last = 0.0

    def __call__(self, done: int, total: int, failed: int) -> None:
        import time

        now = time.monotonic()
        if self.start is None:
            self.start = self.last = now
        if done < total and now - self.last < LOG_EVERY_S:
            return
        self.last = now
        elapsed = now - self.start
        rate = done / elapsed if elapsed > 0 else 0.0
        left = _clock((total - done) / rate) if rate > 0 else "?"
        err_console().print(
            f"sweep {self.name}: {done:,} of {total:,} runs done, {failed:,} failed, "
            f"elapsed {_clock(elapsed)}, left {left}, {rate:,.1f} runs/s",
            highlight=False,
            markup=False,
        )


class _Bar:
    """The sweep's progress: a live bar (runs done of all, failures, time elapsed and
    left) on a terminal, lines now and then (:class:`_Log`) when standard error is not
    one, nothing when silenced."""

    def __init__(self, name: str, enabled: bool) -> None:
        self.progress = None
        self.log = _Log(name) if enabled and not sys.stderr.isatty() else None
        if enabled and sys.stderr.isatty():
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self.progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[failed]} failed"),
                TextColumn("elapsed"),
                TimeElapsedColumn(),
                TextColumn("left"),
                TimeRemainingColumn(),
                console=err_console(),
                transient=True,
            )
            self.task = self.progress.add_task(name, total=None, failed=0)
            self.progress.start()

    def tick(self) -> Tick | None:
        if self.progress is None:
            return self.log
        progress, task = self.progress, self.task

        def tick(done: int, total: int, failed: int) -> None:
            progress.update(task, completed=done, total=total, failed=failed)

        return tick

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()


def sweep(
    file: Annotated[
        str, typer.Argument(help="Sweep file (TOML).", metavar="FILE", click_type=plain_text())
    ],
    db: DbOption = Path("ethersim-results.duckdb"),
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs", "-j", help="Local worker processes (default: every core).", min=1, metavar="N"
        ),
    ] = None,
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler",
            help="Run on the Dask cluster of this scheduler (tcp://HOST:PORT).",
            metavar="URL",
        ),
    ] = None,
    dask_local: Annotated[
        bool, typer.Option("--dask-local", help="Run on a local Dask cluster.")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Run again the runs already stored.")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No size, progress bar or lines, or table.")
    ] = False,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Plan the sweep (check its cells, count the runs already stored) and say "
            "what it would run; run nothing, create no database.",
        ),
    ] = False,
) -> None:
    """Run a sweep: every cell and replication, each committed to the results database
    as it finishes (a rerun resumes)."""
    from ethersim.sweeps import load_sweep
    from ethersim.sweeps import sweep as run_sweep

    try:
        if scheduler is not None and dask_local:
            raise ScenarioError("give --scheduler or --dask-local, not both", "--dask-local")
        spec = load_sweep(file, announce=_announce(quiet))
        if dry_run:
            _dry_run(spec, db)
            return
    except EthersimError as e:
        raise fail(e) from None
    bar = _Bar(spec.name, not quiet)
    committed = 0

    def count(_: object) -> None:
        nonlocal committed
        committed += 1
        stopping.check()

    try:
        report = run_sweep(
            spec,
            db=db,
            jobs=jobs,
            scheduler=scheduler,
            dask_local=dask_local,
            force=force,
            tick=bar.tick(),
            on_commit=count,
        )
    except EthersimError as e:
        bar.close()
        raise fail(e) from None
    except (KeyboardInterrupt, Terminated) as e:
        bar.close()
        raise stopped(
            e, f"{committed} runs were committed to {db}; the same command resumes the sweep"
        ) from None
    bar.close()
    if not quiet:
        from rich.text import Text

        line = (
            f"sweep {spec.name}: {report.runs} runs ({report.skipped} already stored), "
            f"{report.ok} ok, {report.failed} failed, in {report.wall_s:.1f} s; results in "
        )
        out_console().print(Text.assemble(line, literal(db)), highlight=False)
        if report.removed:
            err_console().print(
                f"note: {report.removed} runs stored under this sweep's name were not in its "
                "current definition and were removed",
                highlight=False,
            )
    if report.failed:
        from rich.text import Text

        err_console().print(
            Text.assemble(
                ("warning: ", "bold yellow"),
                f"{report.failed} runs failed; their errors are in the runs table "
                f"(ethersim results {spec.name} --runs)",
            )
        )
        raise typer.Exit(1)


def _dry_run(spec: SweepSpec, db: Path) -> None:
    """Says what the sweep would run: its runs, and those already stored as ok in
    ``db`` (read, never created)."""
    from rich.text import Text

    from ethersim.sweeps.store import finished_runs

    done = finished_runs(db, spec.name)
    stored = sum(1 for run_id in spec.plan.run_ids if run_id in done)
    line = (
        f"sweep {spec.name}: {spec.runs:,} runs planned, {stored:,} already stored, "
        f"{spec.runs - stored:,} to run (dry run: nothing run; database "
    )
    out_console().print(Text.assemble(line, literal(db), ")"), highlight=False)


#: Rows of the runs, long-metrics and sweeps tables shown on the terminal; every row is
#: in ``--format csv|json`` and ``--export``.
MAX_ROWS = 40

#: Identifiers the table view leaves out (programs read them in csv/json).
_TABLE_HIDDEN = ("run_id",)


def _print_frame(frame: pd.DataFrame, title: str) -> None:
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


def _print_cells(
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


def _write_machine(frame: pd.DataFrame, form: str) -> None:
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


_FORMATS = ("table", "csv", "json")


def results(
    sweep: Annotated[
        str | None,
        typer.Argument(
            help="A sweep's name (omit to list the sweeps).",
            metavar="SWEEP",
            click_type=plain_text(),
        ),
    ] = None,
    db: DbOption = Path("ethersim-results.duckdb"),
    metrics: Annotated[
        list[str] | None,
        typer.Option(
            "--metrics",
            help="Metrics to show: globs over labels such as 'port:*:drops' or "
            "'flow:*:delay_mean_s' (comma-separated or repeated). Default: as many as fit, "
            "for --format csv/json every one.",
            metavar="PATTERN",
        ),
    ] = None,
    metric: Annotated[
        list[str] | None, typer.Option("--metric", hidden=True, metavar="PATTERN")
    ] = None,
    form: Annotated[
        str,
        typer.Option(
            "--format",
            help="table (for people, in the terminal's width), csv or json (on standard "
            "output, one row per cell and metric, full precision).",
            metavar="table|csv|json",
        ),
    ] = "table",
    runs: Annotated[bool, typer.Option("--runs", help="List the sweep's runs.")] = False,
    long: Annotated[
        bool, typer.Option("--long", help="The sweep's metrics, long form (one row per value).")
    ] = False,
    export: Annotated[
        Path | None,
        typer.Option(
            "--export",
            help="Write a table instead of showing it to a .parquet or .csv file: the cells "
            "(one row per cell, every statistic), or with --runs the runs, with --long the "
            "metrics.",
            metavar="FILE",
        ),
    ] = None,
) -> None:
    """List the sweeps in a results database, show a sweep's cells (its swept keys and
    metrics, mean ± 95% interval), runs or metrics, or write them as CSV, JSON or Parquet."""
    from ethersim.safe_write import check_writable_file, write_file
    from ethersim.sweeps import Store
    from ethersim.sweeps.frames import labels, match_metrics

    patterns = [*(metrics or []), *(metric or [])] or None
    try:
        if form not in _FORMATS:
            raise ScenarioError(
                f"{form!r} is not a format; expected table, csv or json", "--format"
            )
        if runs and long:
            raise ScenarioError("give --runs or --long, not both", "--long")
        if patterns is not None and (sweep is None or runs):
            raise ScenarioError(
                "chooses metrics of a sweep's cells or of --long; expected a sweep, without --runs",
                "--metrics",
            )
        if export is not None and form != "table":
            raise ScenarioError("give --export or --format csv/json, not both", "--format")
        if export is not None and export.suffix not in (".parquet", ".csv"):
            raise ScenarioError(
                f"{str(export)!r} has neither .parquet nor .csv; expected one of them",
                "--export",
            )
        if export is not None:
            check_writable_file(export, "--export")
        with Store(db, read_only=True) as store:
            if sweep is not None and not store.has_sweep(sweep):
                raise OutputError(f"no sweep named {sweep!r} in {str(db)!r}")
            if sweep is None:
                frame, title = store.sweeps(), f"sweeps in {db}"
            elif runs:
                frame, title = store.runs(sweep), f"runs of {sweep}"
                if form == "table" and export is None:
                    # People read the values as written; the companions are for programs.
                    twins = [k.companion for k in store.swept_keys(sweep) if k.companion]
                    frame = frame.drop(columns=twins)
            elif long:
                frame, title = store.metrics(sweep), f"metrics of {sweep}"
                if patterns is not None:
                    names = labels(frame)
                    kept = match_metrics(list(dict.fromkeys(names)), patterns, "--metrics")
                    frame = frame[names.isin(kept)]
            else:
                tidy = store.cells(sweep)
                names = labels(tidy)
                chosen = (
                    None
                    if patterns is None
                    else match_metrics(list(dict.fromkeys(names)), patterns, "--metrics")
                )
                if export is not None:
                    frame, title = store.cells(sweep, wide=True), ""
                    if chosen is not None:
                        stats = {f"{c} {s}" for c in chosen for s in ("mean", "std", "ci95")}
                        frame = frame[[c for c in frame.columns if " " not in c or c in stats]]
                elif form != "table":
                    frame = tidy if chosen is None else tidy[names.isin(chosen)]
                else:
                    cells = store.cells(sweep, wide=True)
                    keys = store.swept_keys(sweep)
                    _print_cells(cells, tidy, keys, chosen, sweep)
                    return
            if export is not None:
                if export.suffix == ".parquet":
                    write_file(export, lambda tmp: frame.to_parquet(tmp, index=False), "--export")
                else:
                    write_file(
                        export,
                        lambda tmp: frame.to_csv(tmp, index=False, lineterminator="\n"),
                        "--export",
                    )
                return
    except EthersimError as e:
        raise fail(e) from None
    except OSError as e:
        raise fail(OutputError(f"cannot write {str(export)!r}: {e.strerror}")) from None
    if form != "table":
        _write_machine(frame, form)
    else:
        _print_frame(frame, title)


def _slug(text: str) -> str:
    """``text`` as part of a file name: letters and digits, the rest as one ``_``."""
    import re

    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_") or "metric"


def plot(
    sweep: Annotated[
        str, typer.Argument(help="A sweep's name.", metavar="SWEEP", click_type=plain_text())
    ],
    x: Annotated[str, typer.Option("--x", help="The swept key along the x axis.", metavar="KEY")],
    y: Annotated[
        str,
        typer.Option(
            "--y",
            help="The metric: its label (port:switch->h0:drops) or a glob matching one.",
            metavar="METRIC",
        ),
    ],
    hue: Annotated[
        str | None, typer.Option("--hue", help="A swept key: one line per value.", metavar="KEY")
    ] = None,
    where: Annotated[
        list[str] | None,
        typer.Option(
            "--where",
            help="KEY=VALUE: hold another swept key at one value (repeatable); every key "
            "that varies besides --x and --hue must be held.",
            metavar="KEY=VALUE",
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="The figure, .png or .svg (default: SWEEP-METRIC-vs-KEY.png in the "
            "working folder).",
            metavar="FILE",
        ),
    ] = None,
    db: DbOption = Path("ethersim-results.duckdb"),
) -> None:
    """Plot a sweep's metric against a swept key: the mean over each cell's runs with its
    95% confidence interval, one line per value of --hue."""
    from ethersim.safe_write import check_writable_file, write_file
    from ethersim.sweeps import Store
    from ethersim.sweeps.plot import choose_plot, draw, save_figure

    try:
        if out is not None:
            if out.suffix.lower() not in (".png", ".svg"):
                raise ScenarioError(
                    f"{str(out)!r} has neither .png nor .svg; expected one of them", "--out"
                )
            check_writable_file(out, "--out")
        held: dict[str, str] = {}
        for given in where or []:
            path, sep, value = given.partition("=")
            if not sep or not path.strip():
                raise ScenarioError(f"{given!r} is not KEY=VALUE", "--where")
            if path.strip() in held:
                raise ScenarioError(f"{path.strip()!r} is given twice; expected once", "--where")
            held[path.strip()] = value.strip()
        with Store(db, read_only=True) as store:
            tidy = store.cells(sweep)
            keys = store.swept_keys(sweep)
        if tidy.empty:
            raise OutputError(f"sweep {sweep!r} has no ok run to plot")
        try:
            choice = choose_plot(tidy, keys, x=x, y=y, hue=hue, where=held)
        except ScenarioError as e:
            raise ScenarioError(e.message, f"--{e.path}" if e.path else "") from None
        if out is None:
            out = Path(f"{sweep}-{_slug(choice.label)}-vs-{_slug(x)}.png")
            check_writable_file(out, "--out")
        import matplotlib

        matplotlib.use("Agg")
        figure = draw(choice, title=sweep)
        target = out
        write_file(target, lambda tmp: save_figure(figure, tmp), "--out")
    except EthersimError as e:
        raise fail(e) from None
    from rich.text import Text

    out_console().print(Text.assemble("plot written to ", literal(target)), highlight=False)


def register(app: typer.Typer) -> None:
    """Adds ``sweep``, ``results`` and ``plot`` to the ``ethersim`` command."""
    app.command(
        "sweep",
        epilog=examples(
            "ethersim sweep examples/fan-in-sweep.toml",
            "ethersim sweep examples/fan-in-sweep.toml --jobs 2 --db fan-in.duckdb",
            "ethersim sweep examples/fan-in-sweep.toml --dry-run",
            "ethersim sweep examples/fan-in-sweep.toml --scheduler tcp://10.0.0.1:8786",
        ),
    )(closed_pipe_is_success(sweep))
    app.command(
        "results",
        epilog=examples(
            "ethersim results",
            "ethersim results fan-in-sweep --metrics 'port:switch->h0:drops,flow:*:loss*'",
            "ethersim results fan-in-sweep --format csv > cells.csv",
            "ethersim results fan-in-sweep --runs --export runs.parquet",
        ),
    )(closed_pipe_is_success(results))
    app.command(
        "plot",
        epilog=examples(
            "ethersim plot fan-in-sweep --x switches[0].port_buffer.frames "
            "--y port:switch->h0:drops --hue links[0].rate",
            "ethersim plot fan-in-sweep --x links[0].rate --y 'flow:h0*:delay_mean_s' "
            "--where switches[0].port_buffer.frames=8 --out delay.svg",
        ),
    )(closed_pipe_is_success(plot))

"""``ethersim sweep``, ``ethersim results`` and ``ethersim plot``: run a sweep file into
a results database, read what a database holds, and plot a metric against a swept key.

A sweep commits each run as it finishes, so stopping it (Ctrl-C, SIGTERM, even SIGKILL)
keeps what was done; the same command again resumes. Exit status: 0 when every run is
ok, 1 when some failed (they are recorded with their errors), 2 for a bad sweep file or
option, 130/143 when stopped.
"""

from __future__ import annotations

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
    hold_signals,
    literal,
    out_console,
    plain_text,
    stopped,
)
from ethersim.cli_sweep_progress import Bar, announce
from ethersim.cli_sweep_tables import print_cells, print_frame, write_machine
from ethersim.errors import EthersimError, OutputError, ScenarioError

if TYPE_CHECKING:
    from ethersim.sweeps.spec import SweepSpec

__all__ = ["register"]

DbOption = Annotated[
    Path,
    typer.Option("--db", help="The results database (DuckDB file).", metavar="FILE"),
]


def _not_a_results_database(db: Path, error: Exception) -> ScenarioError:
    """The error for a database ``results`` or ``plot`` cannot read as a sweep's: a
    DuckDB file another program wrote (no ``sweeps`` table), or one whose tables are not
    those ethersim writes. Bad input, exit 2, like a file that is not DuckDB at all."""
    said = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return ScenarioError(
        f"{str(db)!r} cannot be read as a results database ({said}); expected a database "
        "written by `ethersim sweep`",
        "--db",
    )


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
        spec = load_sweep(file, announce=announce(quiet))
        if dry_run:
            _dry_run(spec, db)
            return
    except EthersimError as e:
        raise fail(e) from None
    bar = Bar(spec.name, not quiet)
    halted = False
    try:
        report = run_sweep(
            spec,
            db=db,
            jobs=jobs,
            scheduler=scheduler,
            dask_local=dask_local,
            force=force,
            tick=bar.tick(),
            # A stop whose exception something swallowed still ends the sweep.
            on_commit=lambda _: stopping.check(),
        )
        # Every run is committed and the database closed: from here the sweep ends whole
        # (a stop is ignored), as a command does once it has written.
        hold_signals()
    except (KeyboardInterrupt, Terminated, Exception) as e:
        bar.close()
        if isinstance(e, Exception) and stopping.received() is None:
            if isinstance(e, EthersimError):
                raise fail(e) from None
            raise
        # A stop, or an error it caused (DuckDB's "Query interrupted", a pool broken by a
        # Ctrl-C that reached its workers). A second stop does not cut its report short.
        stopping.ignore()
        halted = True
    else:
        bar.close()
    if halted:
        # Reported out of the except clause: the stopped work's frames (its worker pool)
        # are released first.
        raise stopped(None, _kept(spec, db))
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


def _kept(spec: SweepSpec, db: Path) -> str:
    """What a stopped sweep kept, read from the database: the runs it committed are kept
    on purpose (the same command resumes the sweep), and counted, ok or failed."""
    import duckdb

    from ethersim.sweeps import Store

    if not db.exists():
        return "nothing was written"
    try:
        # A sweep stopped before its database had its tables leaves a DuckDB file holding
        # none: no run is stored there.
        with Store(db, read_only=True, allow_empty=True) as store:
            try:
                ids = set() if store.empty else store.stored(spec.name)
            except duckdb.CatalogException:
                ids = set()  # stopped while the database was being made: no table yet
    except (EthersimError, duckdb.Error):
        # Unreadable now: what was committed is there, but how much is not known.
        return f"the runs committed are kept in {db}; the same command resumes the sweep"
    stored = len(ids.intersection(spec.plan.run_ids))
    return (
        f"{stored:,} of the sweep's {spec.runs:,} runs are stored in {db}; the same "
        "command resumes it"
    )


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
    import duckdb

    from ethersim.results import import_writers
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
                    print_cells(cells, tidy, keys, chosen, sweep)
                    return
            if export is not None:
                if export.suffix == ".parquet":
                    import_writers()  # imported while a stop still stops the command
                hold_signals()  # the table is read: from here it is written whole
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
    except duckdb.Error as e:
        raise fail(_not_a_results_database(db, e)) from None
    except OSError as e:
        raise fail(OutputError(f"cannot write {str(export)!r}: {e.strerror}")) from None
    if form != "table":
        write_machine(frame, form)
    else:
        print_frame(frame, title)


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
    import duckdb

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
        hold_signals()  # the figure is drawn: from here it is written whole
        write_file(target, lambda tmp: save_figure(figure, tmp), "--out")
    except EthersimError as e:
        raise fail(e) from None
    except duckdb.Error as e:
        raise fail(_not_a_results_database(db, e)) from None
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

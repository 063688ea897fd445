"""``ethersim sweep`` and ``ethersim results``: run a sweep file into a results database,
and read what a database holds.

A sweep commits each run as it finishes, so stopping it (Ctrl-C, SIGTERM, even SIGKILL)
keeps what was done; the same command again resumes. Exit status: 0 when every run is
ok, 1 when some failed (they are recorded with their errors), 2 for a bad sweep file or
option, 130/143 when stopped.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ethersim.cli_common import (
    Terminated,
    closed_pipe_is_success,
    err_console,
    fail,
    literal,
    out_console,
    stopped,
)
from ethersim.errors import EthersimError, OutputError, ScenarioError

if TYPE_CHECKING:
    import pandas as pd

    from ethersim.sweeps.coordinator import Tick

__all__ = ["register"]

DbOption = Annotated[
    Path,
    typer.Option("--db", help="The results database (DuckDB file)."),
]


class _Bar:
    """The sweep's live progress bar (runs done of all, failures, time left) on a
    terminal; nothing when standard error is not one or when silenced."""

    def __init__(self, name: str, enabled: bool) -> None:
        self.progress = None
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
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=err_console(),
                transient=True,
            )
            self.task = self.progress.add_task(name, total=None, failed=0)
            self.progress.start()

    def tick(self) -> Tick | None:
        if self.progress is None:
            return None
        progress, task = self.progress, self.task

        def tick(done: int, total: int, failed: int) -> None:
            progress.update(task, completed=done, total=total, failed=failed)

        return tick

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()


def sweep(
    file: Annotated[Path, typer.Argument(help="Sweep file (TOML).")],
    db: DbOption = Path("ethersim-results.duckdb"),
    jobs: Annotated[
        int | None,
        typer.Option("--jobs", "-j", help="Local worker processes (default: every core).", min=1),
    ] = None,
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler", help="Run on the Dask cluster of this scheduler (tcp://HOST:PORT)."
        ),
    ] = None,
    dask_local: Annotated[
        bool, typer.Option("--dask-local", help="Run on a local Dask cluster.")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Run again the runs already stored.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar or table.")] = False,
) -> None:
    """Run a sweep: every cell and replication, each committed to the results database
    as it finishes (a rerun resumes)."""
    from ethersim.sweeps import load_sweep
    from ethersim.sweeps import sweep as run_sweep

    try:
        if scheduler is not None and dask_local:
            raise ScenarioError("give --scheduler or --dask-local, not both", "--dask-local")
        spec = load_sweep(file)
    except EthersimError as e:
        raise fail(e) from None
    bar = _Bar(spec.name, not quiet)
    committed = 0

    def count(_: object) -> None:
        nonlocal committed
        committed += 1

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


def _print_frame(frame: pd.DataFrame, title: str) -> None:
    from rich.table import Table

    table = Table(title=title)
    for column in frame.columns:
        table.add_column(literal(str(column)))
    for row in frame.itertuples(index=False):
        table.add_row(*(literal(f"{v:.6g}" if isinstance(v, float) else str(v)) for v in row))
    out_console().print(table)


def results(
    sweep: Annotated[
        str | None, typer.Argument(help="A sweep's name (omit to list the sweeps).")
    ] = None,
    db: DbOption = Path("ethersim-results.duckdb"),
    runs: Annotated[bool, typer.Option("--runs", help="List the sweep's runs.")] = False,
    long_metrics: Annotated[
        bool,
        typer.Option("--metrics", help="The sweep's metrics, long form (one row per value)."),
    ] = False,
    metric: Annotated[
        list[str] | None,
        typer.Option(
            "--metric",
            help="Show only the statistics of metrics whose column matches (glob, repeatable).",
        ),
    ] = None,
    export: Annotated[
        Path | None,
        typer.Option(
            "--export",
            help="Write the table instead of showing it (the cells, or with --runs the "
            "runs, with --metrics the metrics) to a .parquet or .csv file.",
        ),
    ] = None,
) -> None:
    """List the sweeps in a results database, show a sweep's cell table or runs, export
    them to Parquet or CSV."""
    import fnmatch

    from ethersim.safe_write import check_writable_file, write_file
    from ethersim.sweeps import Store

    try:
        if runs and long_metrics:
            raise ScenarioError("give --runs or --metrics, not both", "--metrics")
        if export is not None and export.suffix not in (".parquet", ".csv"):
            raise ScenarioError(
                f"{str(export)!r} has neither .parquet nor .csv; expected one of them",
                "--export",
            )
        if export is not None:
            check_writable_file(export, "--export")
        with Store(db, read_only=True) as store:
            if sweep is None:
                frame, title = store.sweeps(), f"sweeps in {db}"
            elif runs or long_metrics:
                if not store.has_sweep(sweep):
                    raise OutputError(f"no sweep named {sweep!r} in {str(db)!r}")
                if runs:
                    frame, title = store.runs(sweep), f"runs of {sweep}"
                else:
                    frame, title = store.metrics(sweep), f"metrics of {sweep}"
            else:
                frame, title = store.cells(sweep), f"cells of {sweep}"
                if metric:
                    keep = [
                        c
                        for c in frame.columns
                        if c in ("cell", "parameters", "runs_ok", "runs_failed")
                        or any(fnmatch.fnmatchcase(c, p) for p in metric)
                    ]
                    frame = frame[keep]
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
    _print_frame(frame, title)


def register(app: typer.Typer) -> None:
    """Adds ``sweep`` and ``results`` to the ``ethersim`` command."""
    app.command("sweep")(closed_pipe_is_success(sweep))
    app.command("results")(closed_pipe_is_success(results))

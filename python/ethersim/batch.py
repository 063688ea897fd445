"""Running many scenarios at once: on every local core, or (within :func:`on_cluster`) on
a Dask cluster through the sweeps machinery's :class:`~ethersim.sweeps.executors.DaskPool`;
with a progress line, and the tables they give written as the output contracts spell them.

The reproductions (:mod:`ethersim.studies`) and ``ethersim what-if`` run their scenarios
here; a sweep (:mod:`ethersim.sweeps`), whose runs are cells of a grid kept in a results
database, takes its default number of workers from here too.

Runs are pure functions of their scenario text and seed, and the simulator releases the
interpreter while it runs, so a pool of threads keeps every core busy without copying
anything between processes; results come back in the order the scenarios were given,
whatever order they finish in, wherever they ran.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from contextvars import ContextVar
from typing import TYPE_CHECKING

from ethersim.api import run_text

if TYPE_CHECKING:
    from pathlib import Path

    import pandas as pd

    from ethersim.results import Result
    from ethersim.sweeps.executors import DaskPool

__all__ = [
    "Overrider",
    "Progress",
    "Tick",
    "active_overrider",
    "default_jobs",
    "on_cluster",
    "overriding",
    "recording",
    "run_many",
    "write_csv",
    "write_table",
]


def write_csv(table: pd.DataFrame, path: Path) -> None:
    """Writes ``table`` as CSV with booleans as ``true``/``false`` (the output contracts'
    spelling; pandas would write ``True``/``False``) and ``\\n`` line ends."""
    out = table.copy()
    for column in out.columns:
        if out[column].dtype == bool:
            out[column] = out[column].map({True: "true", False: "false"})
    out.to_csv(path, index=False, lineterminator="\n")


def write_table(table: pd.DataFrame, folder: Path, stem: str) -> None:
    """Writes a main table as ``stem.csv`` and ``stem.parquet``."""
    write_csv(table, folder / f"{stem}.csv")
    table.to_parquet(folder / f"{stem}.parquet", index=False)


def default_jobs() -> int:
    """Runs at once: one per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


#: Called after each run with (runs done, runs in all).
Tick = Callable[[int, int], object]

#: Overrides (``"path=value"``, read as ``--set`` reads them) for a scenario, given its text.
Overrider = Callable[[str], list[str]]

_OVERRIDER: ContextVar[Overrider | None] = ContextVar("ethersim_batch_overrider", default=None)
_RECORDER: ContextVar[list[str] | None] = ContextVar("ethersim_batch_recorder", default=None)
_CLUSTER: ContextVar[DaskPool | None] = ContextVar("ethersim_batch_cluster", default=None)


@contextlib.contextmanager
def on_cluster(scheduler: str | None, local: bool, jobs: int | None = None) -> Iterator[None]:
    """Within the block, :func:`run_many` runs its scenarios on a Dask cluster: the
    scheduler at ``scheduler`` (``tcp://HOST:PORT``; every worker needs ethersim), or with
    ``local`` a local cluster of ``jobs`` single-threaded worker processes (default: one
    per core). With neither, the block runs on local threads as before. A reproduction's
    sensitivity points run inside the block too, so each point's runs spread over the
    cluster."""
    if scheduler is None and not local:
        yield
        return
    from ethersim.sweeps.executors import DaskPool, check_scheduler

    check_scheduler(scheduler)
    pool = DaskPool(scheduler, jobs or default_jobs())
    token = _CLUSTER.set(pool)
    try:
        yield
    finally:
        _CLUSTER.reset(token)
        pool.close()


def active_overrider() -> Overrider | None:
    """The overrides :func:`overriding` set for this block, for a study that runs its
    scenarios another way than :func:`run_many` (on the sweeps machinery)."""
    return _OVERRIDER.get()


@contextlib.contextmanager
def recording() -> Iterator[list[str]]:
    """Within the block, every scenario text :func:`run_many` runs is appended to the
    list it yields (a study's setup ledger is checked against all of them)."""
    texts: list[str] = []
    token = _RECORDER.set(texts)
    try:
        yield texts
    finally:
        _RECORDER.reset(token)


@contextlib.contextmanager
def overriding(overrider: Overrider) -> Iterator[None]:
    """Within the block, every scenario :func:`run_many` runs gets the overrides
    ``overrider`` gives for its text (a sensitivity run varies one assumption of a
    study this way, in every scenario the study builds, calibration runs included)."""
    token = _OVERRIDER.set(overrider)
    try:
        yield
    finally:
        _OVERRIDER.reset(token)


def run_many(
    scenarios: Sequence[str],
    jobs: int | None = None,
    tick: Tick | None = None,
    outputs: Sequence[Path] | None = None,
) -> list[Result]:
    """Runs every scenario (TOML text) on ``jobs`` threads (default: every core) and
    returns their results in the order given; ``outputs`` are the folders their packet
    captures go to, one per scenario. The first error stops the rest (runs already
    started finish first) and is raised."""
    jobs = jobs or default_jobs()
    done = 0
    folders: Sequence[Path | None] = outputs if outputs is not None else [None] * len(scenarios)
    overrider = _OVERRIDER.get()
    recorder = _RECORDER.get()
    if recorder is not None:
        recorder.extend(scenarios)
    cluster = _CLUSTER.get()
    # Packet captures are written to local folders: runs that capture stay here.
    if cluster is not None and all(f is None for f in folders):
        overrides = [overrider(text) if overrider is not None else None for text in scenarios]
        return _run_on_cluster(cluster, scenarios, overrides, tick)
    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="ethersim-run") as pool:
        futures: list[Future[Result]] = [
            pool.submit(
                run_text,
                text,
                overrides=overrider(text) if overrider is not None else None,
                output=folder,
            )
            for text, folder in zip(scenarios, folders, strict=True)
        ]
        pending = set(futures)
        try:
            while pending:
                finished, pending = wait(pending, return_when=FIRST_EXCEPTION)
                for f in finished:
                    f.result()  # raises the run's error, if it failed
                done += len(finished)
                if tick is not None:
                    tick(done, len(futures))
        except BaseException:
            for f in pending:
                f.cancel()
            raise
    return [f.result() for f in futures]


def _run_one(text: str, overrides: list[str] | None) -> Result:
    """One run on a cluster's worker (a module-level function, so workers can import it)."""
    return run_text(text, overrides=overrides)


def _run_on_cluster(
    cluster: DaskPool,
    scenarios: Sequence[str],
    overrides: Sequence[list[str] | None],
    tick: Tick | None,
) -> list[Result]:
    """:func:`run_many` on a Dask cluster: every run submitted at once (a reproduction's
    grid is hundreds of runs, not millions), the first error cancels the rest and is
    raised, results in the order given."""
    futures = [
        cluster.client.submit(_run_one, text, o, pure=False)
        for text, o in zip(scenarios, overrides, strict=True)
    ]
    try:
        for done, future in enumerate(cluster.distributed.as_completed(futures), start=1):
            future.result()  # raises the run's error, if it failed
            if tick is not None:
                tick(done, len(futures))
        return [f.result() for f in futures]
    finally:
        cluster.client.cancel(futures)


class Progress:
    """A progress line on standard error for the phases of a batch of runs (a
    reproduction's calibration, grid, ...), when it is a terminal and not silenced;
    nothing otherwise."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self._progress = None
        if self.enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

            self._progress = Progress(
                "{task.description}",
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                transient=True,
            )
            self._progress.start()

    def phase(self, name: str) -> Tick:
        """A tick function for one phase of runs."""
        if self._progress is None:
            return lambda done, total: None
        progress = self._progress
        task = progress.add_task(name, total=None)

        def tick(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        return tick

    def close(self) -> None:
        """Removes the progress display."""
        if self._progress is not None:
            self._progress.stop()

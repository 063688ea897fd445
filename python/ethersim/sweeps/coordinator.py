"""The sweep coordinator: plans what is left to run, hands runs to an executor, and
commits each outcome to the results database as it arrives.

Only the coordinator writes the database, one transaction for the runs that finished
together (never part of a run); workers return
outcomes and touch nothing. So a sweep stopped in any way (Ctrl-C, SIGTERM, SIGKILL,
a crashed worker) keeps every run committed before it stopped and none half-written,
and the next invocation runs only what is missing.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ethersim.batch import default_jobs
from ethersim.sweeps.executors import (
    DaskPool,
    Executor,
    LocalPool,
    Worker,
    check_scheduler,
    import_distributed,
)
from ethersim.sweeps.spec import SweepSpec, load_sweep
from ethersim.sweeps.store import DEFAULT_DB, Store
from ethersim.sweeps.worker import Outcome, execute

__all__ = ["SweepReport", "Tick", "default_jobs", "sweep"]

#: Called after each committed run with (runs done, runs to do, failures so far).
Tick = Callable[[int, int, int], object]


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait while a batch is committed (milliseconds), then act: the
    commit is never cut between its statement and the end of its transaction."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    stopping = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, stopping)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stopping)


@dataclass(frozen=True)
class SweepReport:
    """What one invocation of a sweep did."""

    sweep: str
    db: Path
    #: Runs the sweep defines.
    runs: int
    #: Runs already stored as ok, not run again.
    skipped: int
    ok: int
    failed: int
    #: Runs stored under the sweep's name that its current definition no longer has,
    #: removed from the database.
    removed: int
    wall_s: float


def sweep(
    file: str | Path | SweepSpec,
    *,
    db: str | Path = DEFAULT_DB,
    jobs: int | None = None,
    scheduler: str | None = None,
    dask_local: bool = False,
    force: bool = False,
    tick: Tick | None = None,
    on_commit: Callable[[Outcome], object] | None = None,
    worker: Worker = execute,
) -> SweepReport:
    """Runs the sweep ``file`` (a sweep file, or one already loaded), committing each run
    to the DuckDB file ``db`` as it finishes.

    Runs already stored as ok for this sweep (same scenario hash and seed) are skipped
    unless ``force``; failed ones are run again. Runs go to a local pool of ``jobs``
    processes (default: every core), to the Dask scheduler at ``scheduler``, or to a
    local Dask cluster (``dask_local``). ``tick`` sees progress; ``on_commit`` each run
    once it is stored.
    """
    spec = file if isinstance(file, SweepSpec) else load_sweep(file)
    jobs = jobs or default_jobs()
    start = time.monotonic()
    check_scheduler(scheduler)
    if scheduler is not None or dask_local:
        import_distributed()
    with Store(db) as store:
        removed = store.register(spec)
        store.refresh_view(spec.name)  # so that a sweep stopped at once still has one
        done = set() if force else store.finished(spec.name)
        on_record = store.stored(spec.name)
        ids = spec.plan.run_ids
        todo = [run for run, run_id in enumerate(ids) if run_id not in done]
        ok = failed = 0
        if todo:
            executor: Executor
            if scheduler is not None or dask_local:
                executor = DaskPool(scheduler, jobs)
            else:
                executor = LocalPool(min(jobs, len(todo)))
            try:
                if tick is not None:
                    tick(0, len(todo), 0)
                # Each run's task is made as the executor reaches it.
                tasks = (spec.task(run) for run in todo)
                for batch in executor.run(tasks, worker):
                    with _signals_held():
                        store.commit(batch, replace=on_record)
                    for outcome in batch:
                        if outcome.status == "ok":
                            ok += 1
                        else:
                            failed += 1
                        if on_commit is not None:
                            on_commit(outcome)
                    if tick is not None:
                        tick(ok + failed, len(todo), failed)
            finally:
                executor.close()
        store.refresh_view(spec.name)
        return SweepReport(
            spec.name,
            Path(db),
            spec.runs,
            spec.runs - len(todo),
            ok,
            failed,
            removed,
            time.monotonic() - start,
        )

"""Where a sweep's runs execute: a local process pool (the default), or an existing Dask
distributed cluster. Both take tasks and yield outcomes as runs finish (in batches of
those that finished together), keeping only a
bounded window of runs submitted, so the coordinator's memory does not grow with the
sweep. Neither raises for a failed run: failures come back as failed outcomes.

A local worker process that dies (killed, out of memory, a crash in native code) breaks
the whole pool: every run then in flight is rerun alone in a fresh one-worker pool, and
the run that kills that worker too is recorded as failed. Dask handles lost workers
itself (it reschedules their tasks, and gives up on a task that has killed several).
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import (
    FIRST_COMPLETED,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    as_completed,
    wait,
)
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any, Protocol

from ethersim import stopping
from ethersim._version import __version__
from ethersim.errors import EthersimError, ScenarioError, install_hint
from ethersim.sweeps.worker import Outcome, execute

if TYPE_CHECKING:
    from ethersim.sweeps.spec import Task

__all__ = ["DaskPool", "Executor", "LocalPool", "Worker"]

#: What runs one task (a module-level function, so that workers can import it).
Worker = Callable[["Task"], Outcome]


def _failed(task: Task, message: str) -> Outcome:
    return Outcome(task, "failed", message, 0.0, __version__, [])


class Executor(Protocol):
    """Runs tasks and yields their outcomes as they finish."""

    def run(self, tasks: Iterable[Task], worker: Worker = execute) -> Iterator[list[Outcome]]:
        """Runs every task; yields each outcome once, in batches of those that finished
        together (the coordinator commits a batch in one transaction)."""
        ...

    def close(self) -> None:
        """Releases the workers (runs still going are abandoned)."""
        ...


def _alive() -> bool:
    """A worker started (the pool's first task)."""
    return True


def _worker_setup(coordinator: int) -> None:
    """Set up a local worker process: it ignores Ctrl-C, and it dies with its coordinator.

    A Ctrl-C reaches the whole process group: the coordinator alone decides what stops
    (it terminates the workers), so workers print no tracebacks of their own. A spawned
    worker would outlive a coordinator killed outright (SIGKILL, the OOM killer): on Linux
    the kernel kills it then (``PR_SET_PDEATHSIG``); elsewhere a thread watches for it.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0) == 0:
            if os.getppid() != coordinator:  # it died before the request was made
                os._exit(1)
            return

    def watch() -> None:
        while os.getppid() == coordinator:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="ethersim-coordinator-watch", daemon=True).start()


class LocalPool:
    """A pool of ``jobs`` worker processes on this machine."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self._pool: ProcessPoolExecutor | None = None
        #: The one-worker pools of runs retried alone.
        self._alone_pools: set[ProcessPoolExecutor] = set()
        self._lock = threading.Lock()

    def _new_pool(self, workers: int) -> ProcessPoolExecutor:
        # Spawned, not forked: the coordinator may hold threads (a progress display, the
        # database's), which a fork would copy in whatever state they were.
        return ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_worker_setup,
            initargs=(os.getpid(),),
        )

    def run(self, tasks: Iterable[Task], worker: Worker = execute) -> Iterator[list[Outcome]]:
        queue = iter(tasks)
        window = 4 * self.jobs
        pending: dict[Future[Outcome], Task] = {}
        #: Runs never given to a worker: the pool broke before they could be submitted.
        held: list[Task] = []
        self._pool = self._new_pool(self.jobs)
        try:
            self._check_workers_start()
            while True:
                broken = False
                room = max(0, window - len(pending) - len(held))
                refill = [*held, *itertools.islice(queue, room)]
                held = []
                for task in refill:
                    if broken:
                        held.append(task)
                        continue
                    try:
                        pending[self._pool.submit(worker, task)] = task
                    except BrokenProcessPool:  # a worker died since the last wait
                        broken = True
                        held.append(task)
                if not pending and not held:
                    return
                batch: list[Outcome] = []
                if pending:
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for future in done:
                        task = pending.pop(future)
                        try:
                            batch.append(future.result())
                        except BrokenProcessPool:
                            broken = True
                            pending[future] = task  # rerun alone below
                        except Exception as e:  # the task could not reach a worker, say
                            batch.append(_failed(task, f"{type(e).__name__}: {e}"))
                if batch:
                    yield batch
                if broken:
                    # Which of the runs in flight killed its worker is unknown: each is
                    # run again alone (up to `jobs` at once); the one that kills its
                    # worker again is recorded as failed. Runs held back never reached a
                    # worker: they go to the fresh pool.
                    suspects = list(pending.values())
                    pending.clear()
                    self._terminate()
                    with ThreadPoolExecutor(self.jobs, thread_name_prefix="ethersim-alone") as t:
                        retries = [t.submit(self._alone, task, worker) for task in suspects]
                        for retry in as_completed(retries):
                            yield [retry.result()]
                    self._pool = self._new_pool(self.jobs)
        finally:
            self._terminate()

    def _check_workers_start(self) -> None:
        """A worker process must start before any run is given to one: when none can (the
        usual cause is a script that starts a sweep without a main guard, which every
        spawned worker then runs again), that is an error of the sweep, not of each run."""
        assert self._pool is not None
        try:
            # One task per worker, submitted together, starts every worker now (a spawning
            # pool starts one per submit while none is idle). Later submits then never
            # start a process, which could race the pool's own clean-up when a worker dies.
            for started in [self._pool.submit(_alive) for _ in range(self.jobs)]:
                started.result()
        except BrokenProcessPool:
            hint = ""
            main = sys.modules.get("__main__")
            script = getattr(main, "__file__", None)
            if script and getattr(getattr(main, "__spec__", None), "name", None) is None:
                hint = (
                    f"; {script!r} starts the sweep as it is imported: worker processes "
                    "import the main script, so call ethersim.sweep under "
                    "if __name__ == '__main__':"
                )
            raise EthersimError(f"the sweep's worker processes could not start{hint}") from None

    def _alone(self, task: Task, worker: Worker) -> Outcome:
        """Runs ``task`` in a pool of its own: the one that kills its worker again fails."""
        pool = self._new_pool(1)
        with self._lock:
            self._alone_pools.add(pool)
        try:
            return pool.submit(worker, task).result()
        except BrokenProcessPool:
            return _failed(
                task,
                "the worker process running it died (killed, out of memory or crashed); "
                "it died again when the run was retried alone",
            )
        finally:
            with self._lock:
                self._alone_pools.discard(pool)
            pool.shutdown(wait=True)

    def _terminate(self) -> None:
        # A stop arriving meanwhile waits until the pools are released: their queues'
        # semaphores are unlinked in two steps that must not be cut apart
        # (stopping.deferred). The last references go inside the block, for the
        # semaphores are released as the pools are freed.
        with stopping.deferred():
            pool, self._pool = self._pool, None
            with self._lock:
                pools = [*self._alone_pools, *([pool] if pool is not None else [])]
            del pool
            while pools:
                _stop(pools.pop())

    def close(self) -> None:
        self._terminate()


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stops a pool at once: runs still going are abandoned, not awaited (their workers
    are terminated; the executor keeps its processes in a private mapping)."""
    processes: dict[Any, Any] = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        if process.is_alive():
            process.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


#: The Dask schedulers' address forms ethersim takes: ``tcp://HOST:PORT`` (also tls, ws,
#: wss, ucx) or ``HOST:PORT`` (tcp).
_SCHEDULER = re.compile(
    r"^(?:(?:tcp|tls|ws|wss|ucx)://)?(\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+):(\d{1,5})$"
)


def check_scheduler(address: str | None, option: str = "--scheduler") -> None:
    """Raises :class:`ScenarioError` naming ``option`` unless ``address`` is a Dask
    scheduler's address (``tcp://HOST:PORT`` or ``HOST:PORT``): checked before any work
    (a database opened, a run started), not when the first connection fails."""
    if address is None:
        return
    match = _SCHEDULER.match(address)
    if match is None or not 0 < int(match.group(2)) < 65536:
        raise ScenarioError(
            f"{address!r} is not a scheduler address; expected tcp://HOST:PORT "
            "(or HOST:PORT, or tls://, ws://, wss://, ucx://) with a port from 1 to 65535",
            option,
        )


def import_distributed() -> Any:
    """Dask's ``distributed`` module, or :class:`EthersimError` naming the extra that
    installs it. Called before any work when a cluster is asked for, so a missing extra
    leaves nothing behind (no database, no folder)."""
    import importlib

    try:
        # Taken as a plain module (Any): distributed has no type annotations.
        return importlib.import_module("distributed")
    except ImportError:
        raise EthersimError(
            f"Dask distributed is not installed; install it with {install_hint('dask')}"
        ) from None


class DaskPool:
    """The workers of a Dask distributed cluster: an existing one (``address``, such as
    ``tcp://10.0.0.5:8786``) or, without an address, a local cluster of ``jobs``
    single-threaded worker processes. Every worker needs ethersim installed."""

    def __init__(self, address: str | None, jobs: int, connect_timeout_s: float = 30.0) -> None:
        self.distributed: Any = import_distributed()
        self.cluster: Any = None
        try:
            if address is None:
                self.cluster = self.distributed.LocalCluster(
                    n_workers=jobs,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                )
                self.client = self.distributed.Client(self.cluster)
            else:
                self.client = self.distributed.Client(address, timeout=connect_timeout_s)
        except (OSError, TimeoutError, ValueError) as e:
            where = address or "a local cluster"
            raise EthersimError(f"cannot reach the Dask scheduler at {where}: {e}") from None

    def _slots(self) -> int:
        threads: dict[str, int] = self.client.nthreads()
        return max(1, sum(threads.values()))

    def run(self, tasks: Iterable[Task], worker: Worker = execute) -> Iterator[list[Outcome]]:
        queue = iter(tasks)
        submitted: dict[str, Task] = {}

        def submit(task: Task) -> Any:
            submitted[task.run_id] = task
            return self.client.submit(worker, task, key=f"ethersim-run-{task.run_id}", pure=False)

        first = [submit(t) for t in itertools.islice(queue, 4 * self._slots())]
        running = self.distributed.as_completed(first)
        for futures in running.batches():
            batch: list[Outcome] = []
            for future in futures:
                task = submitted.pop(future.key.removeprefix("ethersim-run-"))
                try:
                    batch.append(future.result())
                except Exception as e:  # a worker lost with the task (KilledWorker), say
                    batch.append(_failed(task, f"{type(e).__name__}: {e}"))
                future.release()
            yield batch
            # Four runs per worker thread in flight, counting workers that joined since.
            room = 4 * self._slots() - len(submitted)
            for following in itertools.islice(queue, max(room, 0)):
                running.add(submit(following))

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()

"""A sweep's progress on the command line (``ethersim sweep``): its size said as soon as
it is known, then a live bar on a terminal, or a line now and then in a log (a CI job).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from ethersim.cli_common import err_console

if TYPE_CHECKING:
    from ethersim.sweeps.coordinator import Tick

__all__ = ["LARGE_SWEEP", "LOG_EVERY_S", "Bar", "Log", "announce", "clock"]

#: Runs above which a sweep is announced with a warning of its size.
LARGE_SWEEP = 10_000

#: Seconds between progress lines when standard error is not a terminal.
LOG_EVERY_S = 30.0


def clock(seconds: float) -> str:
    """``seconds`` as H:MM:SS."""
    whole = int(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def announce(quiet: bool) -> Callable[[str, int, int], None]:
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


class Log:
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
        left = clock((total - done) / rate) if rate > 0 else "?"
        err_console().print(
            f"sweep {self.name}: {done:,} of {total:,} runs done, {failed:,} failed, "
            f"elapsed {clock(elapsed)}, left {left}, {rate:,.1f} runs/s",
            highlight=False,
            markup=False,
        )


class Bar:
    """The sweep's progress: a live bar (runs done of all, failures, time elapsed and
    left) on a terminal, lines now and then (:class:`Log`) when standard error is not
    one, nothing when silenced."""

    def __init__(self, name: str, enabled: bool) -> None:
        self.progress = None
        self.log = Log(name) if enabled and not sys.stderr.isatty() else None
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
        """The coordinator's progress callback (:data:`~ethersim.sweeps.coordinator.Tick`):
        the bar's, the log's, or none."""
        if self.progress is None:
            return self.log
        progress, task = self.progress, self.task

        def tick(done: int, total: int, failed: int) -> None:
            progress.update(task, completed=done, total=total, failed=failed)

        return tick

    def close(self) -> None:
        """Removes the live bar before anything else is printed."""
        if self.progress is not None:
            self.progress.stop()

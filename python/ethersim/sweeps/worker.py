"""One run of a sweep, as a worker process (local or Dask) executes it: the task in, an
:class:`Outcome` out. Nothing here raises for a failed run: a scenario error, a panic
caught at the Rust boundary, a run over its event or wall budget all come back as a
failed outcome with the message, so one failing cell never stops the others."""

from __future__ import annotations

import fnmatch
import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ethersim._version import __version__
from ethersim.errors import EthersimError, WallLimitError

if TYPE_CHECKING:
    from ethersim.sweeps.spec import Task

__all__ = ["Metric", "Outcome", "execute", "metrics_of"]

#: One metric of a run: (scope, name, metric, value).
Metric = tuple[str, str, str, float]

#: The tables of a run's summary that metrics come from, by scope, and how each row is
#: named.
_SCOPES: dict[str, tuple[str, Any]] = {
    "flow": ("flows", lambda row: row["name"]),
    "port": ("ports", lambda row: f"{row['node']}->{row['peer']}"),
    "host": ("hosts", lambda row: row["name"]),
    "link": ("links", lambda row: "--".join(row["between"])),
}


@dataclass(frozen=True)
class Outcome:
    """What became of one run."""

    task: Task
    #: ``"ok"`` or ``"failed"``.
    status: str
    #: Why it failed (empty when it did not).
    error: str
    wall_s: float
    version: str
    metrics: list[Metric]


def _numbers(record: dict[str, Any], prefix: str = "") -> list[tuple[str, float]]:
    """The numeric values of a summary record, nested records flattened with ``_``
    (``delay.mean_s`` -> ``delay_mean_s``, as the result tables name them); booleans as
    0 or 1; text, lists and missing values left out."""
    out: list[tuple[str, float]] = []
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.extend(_numbers(value, f"{name}_"))
        elif isinstance(value, bool):
            out.append((name, float(value)))
        elif isinstance(value, (int, float)) and math.isfinite(value):
            out.append((name, float(value)))
    return out


def metrics_of(summary: dict[str, Any], patterns: tuple[str, ...]) -> list[Metric]:
    """The metrics of a run's summary that match ``patterns`` (``scope.metric`` globs)."""

    def keep(scope: str, metric: str) -> bool:
        return any(fnmatch.fnmatchcase(f"{scope}.{metric}", p) for p in patterns)

    run_level = {k: v for k, v in summary.items() if k not in ("seed", "sim_time_ps")}
    for table, _ in _SCOPES.values():
        run_level.pop(table, None)
    out: list[Metric] = [
        ("run", "", metric, value) for metric, value in _numbers(run_level) if keep("run", metric)
    ]
    for scope, (table, name_of) in _SCOPES.items():
        for row in summary.get(table, []):
            name = name_of(row)
            out.extend(
                (scope, name, metric, value)
                for metric, value in _numbers(row)
                if keep(scope, metric)
            )
    return out


def execute(task: Task) -> Outcome:
    """Runs ``task`` and reports how it went (never raises for a failed run)."""
    from ethersim.api import run_text

    start = time.monotonic()
    max_wall = task.limits.max_wall_s

    def watch(sim_s: float, events: int, until_s: float | None) -> None:
        if max_wall is not None and time.monotonic() - start > max_wall:
            raise WallLimitError(
                f"the run exceeded its wall budget of {max_wall:g} s at simulated time "
                f"{sim_s:g} s, after {events:,} events"
            )

    def failed(message: str) -> Outcome:
        return Outcome(task, "failed", message, time.monotonic() - start, __version__, [])

    try:
        result = run_text(
            task.scenario_text,
            overrides=task.overrides,
            seed=task.seed,
            progress=watch if max_wall is not None else None,
        )
    except EthersimError as e:
        return failed(f"{type(e).__name__}: {e}")
    wall = time.monotonic() - start
    if max_wall is not None and wall > max_wall:
        # Progress is reported every million or so events: a shorter run over its budget
        # is caught here.
        return failed(f"WallLimitError: the run exceeded its wall budget of {max_wall:g} s")
    summary = result.summary
    if task.limits.max_events is not None and summary.get("stop_reason") == "event_budget":
        return failed(
            f"the run exceeded its event budget of {task.limits.max_events:,} events at "
            f"simulated time {summary['sim_time_s']:g} s"
        )
    return Outcome(task, "ok", "", wall, __version__, metrics_of(summary, task.metrics))

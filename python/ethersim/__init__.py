"""ethersim: a fast, deterministic packet-level simulator for Ethernet performance and
energy efficiency, with a Rust core.

>>> import ethersim
>>> result = ethersim.run("examples/udp-file.toml")          # doctest: +SKIP
>>> result.flows[["name", "goodput_bps", "lost"]]            # doctest: +SKIP
>>> ethersim.sweep("examples/fan-in-sweep.toml")             # doctest: +SKIP
"""

from __future__ import annotations

from ethersim._version import __version__
from ethersim.errors import (
    EthersimError,
    InternalError,
    OutputError,
    ScenarioError,
    WallLimitError,
    WallLimitReached,
)

# typing is imported only by type checkers: a run does not load it (start-up, issue 29).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from pathlib import Path
    from typing import Any

    from ethersim.api import load_text, run, run_text, schema, validate
    from ethersim.results import Result
    from ethersim.sweeps import Limits, Outcome, SweepReport, SweepSpec
    from ethersim.sweeps.coordinator import Tick


def sweep(
    source: str | Path | SweepSpec,
    *,
    grid: Mapping[str, Iterable[Any]] | None = None,
    zip: Mapping[str, Iterable[Any]] | None = None,  # the sweep file's word
    set: Mapping[str, Any] | None = None,  # the sweep file's word
    replications: int | None = None,
    seed: int | None = None,
    metrics: Iterable[str] | None = None,
    name: str | None = None,
    paired: Iterable[str] | None = None,
    limits: Limits | Mapping[str, float] | None = None,
    db: str | Path = "ethersim-results.duckdb",
    jobs: int | None = None,
    scheduler: str | None = None,
    dask_local: bool = False,
    force: bool = False,
    tick: Tick | None = None,
    on_commit: Callable[[Outcome], object] | None = None,
) -> SweepReport:
    """Runs a sweep into the results database ``db``, each run committed as it finishes
    (a rerun resumes; ``force`` runs everything again).

    ``source`` is a sweep file (or a :class:`~ethersim.sweeps.SweepSpec` already
    loaded), or, when any of ``grid``, ``zip``, ``set``, ``replications``, ``seed``,
    ``metrics``, ``name``, ``paired`` or ``limits`` is given, a scenario file that those
    define a sweep of, exactly as a sweep file's tables would (``grid``: key path →
    values, every combination; ``zip``: lists that advance together; ``set``: key path
    → one value; ``replications`` and ``seed`` default to 1; ``metrics``:
    ``scope.metric`` globs; ``name`` defaults to the scenario's stem; ``paired``: keys
    left out of the seed; ``limits``: ``max_events``, ``max_wall_s``). It is checked as
    a file is: a bad key or value raises :class:`ScenarioError` naming it
    (``grid."links[0].rate"[1]``) and nothing runs.

    Runs go to ``jobs`` local processes (default: every core), the Dask scheduler at
    ``scheduler``, or a local Dask cluster (``dask_local``); ``tick(done, total,
    failed)`` sees progress and ``on_commit`` each run once stored. A script must call
    this under ``if __name__ == "__main__":`` (local workers import it).

    >>> report = ethersim.sweep(                                  # doctest: +SKIP
    ...     "examples/poisson-fan-in.toml",
    ...     grid={"links[0].rate": ["1.25 Gb/s", "2 Gb/s"],
    ...           "switches[0].port_buffer.frames": [2, 8, 32]},
    ...     set={"duration": "20 ms"},
    ...     replications=4,
    ... )
    >>> from ethersim.sweeps import Store                         # doctest: +SKIP
    >>> Store("ethersim-results.duckdb").cells(report.sweep)      # doctest: +SKIP

    (Imported on first use: ``import ethersim`` stays light.)"""
    from ethersim.sweeps import SweepSpec, define_sweep
    from ethersim.sweeps import sweep as run_sweep

    definition = {
        "grid": grid,
        "zip": zip,
        "set": set,
        "replications": replications,
        "seed": seed,
        "metrics": metrics,
        "name": name,
        "paired": paired,
        "limits": limits,
    }
    given = [k for k, v in definition.items() if v is not None]
    spec: str | Path | SweepSpec = source
    if given:
        if isinstance(source, SweepSpec):
            raise ScenarioError(
                f"a SweepSpec is a whole sweep already; expected a scenario file with {given[0]}=",
                given[0],
            )
        spec = define_sweep(
            source,
            grid=grid,
            zip=zip,
            set=set,
            replications=replications,
            seed=seed,
            metrics=metrics,
            name=name,
            paired=paired,
            limits=limits,
        )
    return run_sweep(
        spec,
        db=db,
        jobs=jobs,
        scheduler=scheduler,
        dask_local=dask_local,
        force=force,
        tick=tick,
        on_commit=on_commit,
    )


__all__ = [
    "EthersimError",
    "InternalError",
    "OutputError",
    "Result",
    "ScenarioError",
    "WallLimitError",
    "WallLimitReached",
    "__version__",
    "load_text",
    "run",
    "run_text",
    "schema",
    "sweep",
    "validate",
]


#: What ``import ethersim`` loads only when first used (PEP 562): the API pulls in the
#: Rust extension and the results module, and the ``ethersim`` command imports this
#: package before it can install its signal handling (ethersim.stopping), so the package
#: itself stays a few imports light.
_LAZY = {
    "load_text": "ethersim.api",
    "run": "ethersim.api",
    "run_text": "ethersim.api",
    "schema": "ethersim.api",
    "validate": "ethersim.api",
    "Result": "ethersim.results",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ethersim' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value

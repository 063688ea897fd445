"""Sweeps: grids of scenario parameters times replications, run on a local process pool
or a Dask cluster, each run committed to a DuckDB results database as it finishes, so
that a sweep survives being stopped and resumes where it was.

>>> from ethersim.sweeps import sweep, Store
>>> report = sweep("examples/outage-sweep.toml", db="results.duckdb")  # doctest: +SKIP
>>> Store("results.duckdb").cells(report.sweep)                         # doctest: +SKIP

``Store.cells`` and ``Store.runs`` are tidy pandas frames with a typed column per swept
key (:mod:`ethersim.sweeps.frames`); ``Store.to_xarray`` a Dataset with a dimension per
key; :mod:`ethersim.sweeps.plot` draws a metric against a key.
"""

from __future__ import annotations

from ethersim.sweeps.coordinator import SweepReport, default_jobs, sweep
from ethersim.sweeps.spec import (
    SCHEMA,
    Limits,
    SweepSpec,
    Task,
    define_sweep,
    derive_seed,
    expand_sweep,
    load_sweep,
    parse_sweep,
)
from ethersim.sweeps.stats import Summary, summarize
from ethersim.sweeps.store import DEFAULT_DB, Store
from ethersim.sweeps.worker import Outcome, execute, metrics_of

__all__ = [
    "DEFAULT_DB",
    "SCHEMA",
    "Limits",
    "Outcome",
    "Store",
    "Summary",
    "SweepReport",
    "SweepSpec",
    "Task",
    "default_jobs",
    "define_sweep",
    "derive_seed",
    "execute",
    "expand_sweep",
    "load_sweep",
    "metrics_of",
    "parse_sweep",
    "summarize",
    "sweep",
]

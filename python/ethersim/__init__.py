"""ethersim: a fast, deterministic packet-level simulator for Ethernet performance and
energy efficiency, with a Rust core.

>>> import ethersim
>>> result = ethersim.run("examples/udp-file.toml")          # doctest: +SKIP
>>> result.flows[["name", "goodput_bps", "lost"]]            # doctest: +SKIP
>>> ethersim.sweep("examples/fan-in-sweep.toml")             # doctest: +SKIP
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ethersim._version import __version__
from ethersim.api import load_text, run, run_text, schema, validate
from ethersim.errors import (
    EthersimError,
    InternalError,
    OutputError,
    ScenarioError,
    WallLimitError,
)
from ethersim.results import Result

if TYPE_CHECKING:
    from pathlib import Path

    from ethersim.sweeps import SweepReport, SweepSpec


def sweep(file: str | Path | SweepSpec, **options: Any) -> SweepReport:
    """Runs a sweep file into a results database; see :func:`ethersim.sweeps.sweep` for
    the options. (Imported on first use: ``import ethersim`` stays light.)"""
    from ethersim.sweeps import sweep as run_sweep

    return run_sweep(file, **options)


__all__ = [
    "EthersimError",
    "InternalError",
    "OutputError",
    "Result",
    "ScenarioError",
    "WallLimitError",
    "__version__",
    "load_text",
    "run",
    "run_text",
    "schema",
    "sweep",
    "validate",
]

"""ethersim: a fast, deterministic packet-level simulator for Ethernet performance and
energy efficiency, with a Rust core.

>>> import ethersim
>>> result = ethersim.run("examples/udp-file.toml")          # doctest: +SKIP
>>> result.flows[["name", "goodput_bps", "lost"]]            # doctest: +SKIP
"""

from __future__ import annotations

from ethersim.api import load_text, run, run_text, schema, validate
from ethersim.errors import (
    EthersimError,
    InternalError,
    OutputError,
    ScenarioError,
    WallLimitError,
)
from ethersim.results import Result

__version__ = "0.1.0"

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
    "validate",
]

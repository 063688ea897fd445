"""The studies ``ethersim reproduce`` knows, by name, and where each one's contract
(evaluators of its published findings) lives."""

from __future__ import annotations

import importlib
from typing import Any

from ethersim.studies.contract import Study

__all__ = ["NAMES", "study"]

#: Every study, in the order ``ethersim reproduce all`` runs them.
NAMES = ("rps", "eee-pingpong", "eee-hpc", "csma", "capacity-scaling")

_FINDINGS = {name: f"ethersim.studies.{name.replace('-', '_')}_findings" for name in NAMES}


def study(name: str) -> Study[Any]:
    """The contract of study ``name``: its evaluators, checked against its published
    findings when :meth:`Study.published` is called."""
    found: Study[Any] = importlib.import_module(_FINDINGS[name]).STUDY
    return found

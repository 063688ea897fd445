"""What marks a folder as a reproduction's: ``reproduction.json``, what ran, with which
options, how long. Running the scenarios is :mod:`ethersim.batch`'s."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["MARKER", "is_reproduction_folder", "write_marker"]

#: The file every reproduction folder holds (what ran, with which options, how long).
MARKER = "reproduction.json"


def write_marker(folder: Path, info: dict[str, Any]) -> None:
    """Writes the folder's marker, ``reproduction.json``: ``info`` (what ran, with which
    options, how long it took) and the version of ethersim that ran it."""
    from importlib.metadata import version

    info = {**info, "ethersim": version("ethersim")}
    (folder / MARKER).write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")


def is_reproduction_folder(names: set[str]) -> bool:
    """Whether a folder holding ``names`` is one a reproduction wrote (and may replace)."""
    return MARKER in names

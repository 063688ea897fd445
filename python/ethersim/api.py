"""The Python API: run or check a scenario, get a :class:`~ethersim.results.Result`."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ethersim import _core
from ethersim.errors import ScenarioError
from ethersim.results import Result

__all__ = ["Overrides", "load_text", "run", "run_text", "schema", "validate"]

#: ``--set`` style overrides: a mapping ``{"links[0].rate": "10 Gb/s"}`` or an iterable
#: of ``"path=value"`` strings / ``(path, value)`` pairs. Values are read as TOML when
#: they are TOML (``3``, ``true``) and as plain strings otherwise (``10 Gb/s``).
Overrides = Mapping[str, Any] | Iterable[str | tuple[str, Any]]


def _pairs(overrides: Overrides | None) -> list[tuple[str, str]]:
    if overrides is None:
        return []
    items: Iterable[Any] = overrides.items() if isinstance(overrides, Mapping) else overrides
    pairs: list[tuple[str, str]] = []
    for item in items:
        if isinstance(item, str):
            path, sep, value = item.partition("=")
            if not sep or not path.strip():
                raise ScenarioError(f"override {item!r} is not of the form path=value", "--set")
            pairs.append((path.strip(), value.strip()))
        else:
            path, value = item
            pairs.append((str(path), _as_toml(value)))
    return pairs


def _as_toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return str(value)


def load_text(scenario: str | Path) -> str:
    """The TOML text of a scenario file.

    Raises :class:`ScenarioError` if it cannot be read.
    """
    path = Path(scenario)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(f"no scenario file at {str(path)!r}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError(f"cannot read scenario file {str(path)!r}: {e}") from None


def _check_seed(seed: int | None) -> int | None:
    if seed is not None and not 0 <= seed < 2**64:
        raise ScenarioError(f"{seed} is out of range; expected 0 to 2^64 - 1", "seed")
    return seed


def run_text(text: str, *, overrides: Overrides | None = None, seed: int | None = None) -> Result:
    """Runs a scenario given as TOML text and returns its results."""
    report = json.loads(_core.run(text, _pairs(overrides), _check_seed(seed)))
    return Result(report)


def run(
    scenario: str | Path, *, overrides: Overrides | None = None, seed: int | None = None
) -> Result:
    """Runs the scenario file ``scenario`` and returns its results.

    ``overrides`` replace scenario values by key path (``{"apps[0].size": "5 GB"}``);
    ``seed`` replaces the scenario's seed.
    """
    return run_text(load_text(scenario), overrides=overrides, seed=seed)


def validate(scenario: str | Path, *, overrides: Overrides | None = None) -> dict[str, Any]:
    """Checks a scenario file without running it; returns it with every default filled in."""
    checked: dict[str, Any] = json.loads(_core.validate(load_text(scenario), _pairs(overrides)))
    return checked


def schema() -> dict[str, Any]:
    """The JSON Schema of scenario files, generated from the Rust schema types."""
    generated: dict[str, Any] = json.loads(_core.schema())
    return generated

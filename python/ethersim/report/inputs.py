"""Reading a results folder for a report: every file ethersim wrote there, checked
before anything is drawn or written.

A folder ethersim did not write (or one changed since) is a :class:`ScenarioError`
naming the file and what was expected, never a traceback: ``summary.json`` that is not
JSON, is ``{}`` or a list, or lacks a key the page shows; a ``run.json`` or
``reproduction.json`` that is not a JSON object; a Parquet or CSV table that cannot be
read or lacks its columns. The checks are JSON Schemas (checked by ``jsonschema``),
narrow on purpose: they hold the keys the report reads, nothing more.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ethersim.errors import ScenarioError

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "read_comparison",
    "read_csv",
    "read_reproduction_json",
    "read_run_json",
    "read_series",
    "read_summary",
    "read_text",
]

_NAMED = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}
_SERIES = {
    "type": "object",
    "required": ["quantity"],
    "properties": {
        "quantity": {"type": "string"},
        "points": {"type": "integer"},
        "bucket_ps": {"type": "integer"},
        "dropped_points": {"type": "integer"},
    },
}

#: What the report reads of ``summary.json``.
SUMMARY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["scenario", "seed", "sim_time_s", "stop_reason", "events"],
    "properties": {
        "scenario": {"type": "string"},
        "seed": {"type": "integer", "minimum": 0},
        "sim_time_s": {"type": "number", "minimum": 0},
        "stop_reason": {"type": "string"},
        "events": {"type": "integer", "minimum": 0},
        "flows": {
            "type": "array",
            "items": {
                **_NAMED,
                "properties": {"name": {"type": "string"}, "mss": {"type": ["integer", "null"]}},
            },
        },
        "ports": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["node", "peer"],
                "properties": {"node": {"type": "string"}, "peer": {"type": "string"}},
            },
        },
        "links": {"type": "array", "items": {"type": "object"}},
        "captures": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["file"],
                "properties": {"file": {"type": "string"}},
            },
        },
        "series": {
            "type": "array",
            "items": {**_SERIES, "required": ["quantity", "port"]},
        },
        "tcp_series": {
            "type": "array",
            "items": {**_SERIES, "required": ["quantity", "flow"]},
        },
    },
}

#: What the report reads of ``run.json`` (every key optional: Python's ``Result.write``
#: leaves out the command line).
RUN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "scenario": {"type": ["string", "null"]},
        "overrides": {"type": ["array", "null"], "items": {"type": "string"}},
        "command": {"type": ["array", "null"], "items": {"type": "string"}},
        "ethersim": {"type": ["string", "null"]},
        "git_commit": {"type": ["string", "null"]},
        "wall_time_s": {"type": "number"},
    },
}

#: What the report reads of ``reproduction.json``.
REPRODUCTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"study": {"type": "string"}, "quick": {"type": "boolean"}},
}

#: Columns each series table must have.
SERIES_COLUMNS = {
    "series.parquet": ("port", "quantity", "t_s", "value"),
    "tcp_series.parquet": ("flow", "quantity", "t_s", "value"),
}


def _bad(path: Path, what: str, argument: str) -> ScenarioError:
    return ScenarioError(
        f"{str(path)!r} {what}; expected a folder written by ethersim (run it again, "
        "or give its results folder)",
        argument,
    )


def read_text(path: Path, argument: str) -> str:
    """The text of ``path`` (UTF-8)."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise _bad(path, "is not UTF-8 text", argument) from None
    except OSError as e:
        raise _bad(path, f"cannot be read ({e.strerror})", argument) from None


def _read_json(path: Path, schema: dict[str, Any], argument: str) -> dict[str, Any]:
    import jsonschema

    try:
        data = json.loads(read_text(path, argument))
    except json.JSONDecodeError as e:
        raise _bad(path, f"is not valid JSON ({e.msg} at line {e.lineno})", argument) from None
    # The first error, at the shallowest place (the most telling: "'seed' is missing").
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema).iter_errors(data)
    )
    if error is not None:
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        at = f"at {where.lstrip('.')}: " if where else ""
        raise _bad(path, f"is not what ethersim writes ({at}{error.message})", argument)
    assert isinstance(data, dict)  # the schema says it is an object
    return data


def read_summary(folder: Path, argument: str) -> dict[str, Any]:
    """``folder/summary.json``, checked."""
    return _read_json(folder / "summary.json", SUMMARY_SCHEMA, argument)


def read_run_json(folder: Path, argument: str) -> dict[str, Any]:
    """``folder/run.json``, checked; ``{}`` if the folder has none (an older run)."""
    path = folder / "run.json"
    return _read_json(path, RUN_SCHEMA, argument) if path.exists() else {}


def read_reproduction_json(folder: Path, argument: str) -> dict[str, Any]:
    """``folder/reproduction.json``, checked."""
    return _read_json(folder / "reproduction.json", REPRODUCTION_SCHEMA, argument)


def read_series(folder: Path, name: str, argument: str) -> pd.DataFrame:
    """``folder/name`` (``series.parquet`` or ``tcp_series.parquet``), with its columns
    checked; empty if the run kept no series."""
    import pandas as pd

    path = folder / name
    if not path.exists():
        return pd.DataFrame(columns=list(SERIES_COLUMNS[name]))
    try:
        table = pd.read_parquet(path)
    except (OSError, ValueError) as e:
        raise _bad(path, f"is not a Parquet table ethersim wrote ({e})", argument) from None
    missing = [c for c in SERIES_COLUMNS[name] if c not in table.columns]
    if missing:
        raise _bad(path, f"lacks the columns {', '.join(missing)}", argument)
    return table


def read_csv(path: Path, argument: str, **options: Any) -> pd.DataFrame:
    """A CSV table of a reproduction's folder."""
    import pandas as pd

    try:
        table: pd.DataFrame = pd.read_csv(path, **options)
        return table
    except (OSError, ValueError) as e:
        raise _bad(path, f"is not a CSV table ({e})", argument) from None


def read_comparison(path: Path, argument: str) -> pd.DataFrame:
    """A study's ``comparison.csv``, every cell as text, its columns checked."""
    from ethersim.studies.contract import COMPARISON_COLUMNS

    table = read_csv(path, argument, dtype=str, keep_default_na=False)
    missing = [c for c in COMPARISON_COLUMNS if c not in table.columns]
    if missing:
        raise _bad(path, f"lacks the columns {', '.join(missing)}", argument)
    return table

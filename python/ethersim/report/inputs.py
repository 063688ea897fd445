"""Reading a results folder for a report: every file ethersim wrote there, checked
before anything is drawn or written.

A folder ethersim did not write (or one changed since) is a :class:`ScenarioError`
naming the file and what was expected, never a traceback: ``summary.json`` that is not
JSON, is ``{}`` or a list, or lacks a key the page shows; a ``run.json`` or
``reproduction.json`` that is not a JSON object; a Parquet or CSV table that cannot be
read or lacks its columns. The checks are JSON Schemas (checked by ``jsonschema``),
narrow on purpose: they hold the keys the report reads, nothing more.

Every file is read through :mod:`ethersim.inputs`, whole, before it is parsed: a regular
file of at most :data:`~ethersim.inputs.MAX_RESULTS_FILE_BYTES`, opened without
blocking. A FIFO, a device (a link to ``/dev/zero``) or a folder at a name the report
reads is refused saying what it is, never waited on or read until memory runs out.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ethersim import inputs
from ethersim.errors import ScenarioError

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "read_bytes",
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
        "build": {"type": ["string", "null"]},
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


def read_bytes(path: Path, argument: str) -> bytes:
    """The bytes of ``path``, a regular file of at most
    :data:`~ethersim.inputs.MAX_RESULTS_FILE_BYTES` (a :class:`ScenarioError` at
    ``argument`` otherwise, saying what is there)."""
    return inputs.read_bytes(path, argument, "results file", inputs.MAX_RESULTS_FILE_BYTES)


def read_text(path: Path, argument: str) -> str:
    """The text of ``path`` (UTF-8; see :func:`read_bytes`)."""
    try:
        return read_bytes(path, argument).decode("utf-8")
    except UnicodeDecodeError:
        raise _bad(path, "is not UTF-8 text", argument) from None


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
    import pyarrow as pa
    from pandas.api.types import is_numeric_dtype

    path = folder / name
    if not path.exists():
        return pd.DataFrame(columns=list(SERIES_COLUMNS[name]))
    data = read_bytes(path, argument)
    try:
        table = pd.read_parquet(io.BytesIO(data))
    except (OSError, ValueError, pa.ArrowException) as e:
        raise _bad(path, f"is not a Parquet table ethersim wrote ({e})", argument) from None
    missing = [c for c in SERIES_COLUMNS[name] if c not in table.columns]
    if missing:
        raise _bad(path, f"lacks the columns {', '.join(missing)}", argument)
    # The figures compute with times and values (an empty table's columns have no type).
    text = [c for c in ("t_s", "value") if len(table) and not is_numeric_dtype(table[c])]
    if text:
        raise _bad(path, f"has columns that are not numbers: {', '.join(text)}", argument)
    return table


def read_csv(path: Path, argument: str, **options: Any) -> pd.DataFrame:
    """A CSV table of a reproduction's folder."""
    import pandas as pd

    data = read_bytes(path, argument)
    try:
        table: pd.DataFrame = pd.read_csv(io.BytesIO(data), **options)
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

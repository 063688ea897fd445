"""Sweep results as data: the swept keys as typed columns, the per-cell statistics as a
tidy frame (one row per cell and metric), and the same as an xarray Dataset.

A swept key's column is named exactly as its key path (``links[0].rate``) and holds the
values as the sweep gave them, typed: integers stay ``int64``, numbers ``float64``,
booleans ``bool``, text ``object``. A key whose values are all quantities of the
scenario grammar (``"1.25 Gb/s"``, ``"10 ms"``, ``"1 MiB"``; parsed by the Rust core, so
exactly as a scenario reads them) keeps its text, so that labels read as written, and
gets a numeric companion in base units beside it, named like a result column so that
:mod:`ethersim.units` formats it: ``links[0].rate_bps`` (bit/s), ``KEY_s`` (seconds),
``KEY_bytes`` (bytes). A key whose values are of mixed kinds, or tables, is text (JSON
for what is not text already).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ethersim.errors import EthersimError, ScenarioError

if TYPE_CHECKING:
    import pandas as pd
    import xarray as xr

__all__ = [
    "STATS",
    "SweptKey",
    "glob",
    "key_frame",
    "labels",
    "match_metrics",
    "metric_label",
    "quantity",
    "swept_keys",
    "tidy_cells",
    "to_dataset",
]

#: The statistics of a cell's metric, in the tidy frame's order.
STATS = ("n", "mean", "std", "ci95")

#: Quantity kinds of the scenario grammar: the suffix of the companion column and the
#: factor from what the core returns (picoseconds for durations) to base units.
_QUANTITIES: dict[str, tuple[str, float]] = {
    "rate": ("_bps", 1.0),
    "duration": ("_s", 1e-12),
    "size": ("_bytes", 1.0),
}


@dataclass(frozen=True)
class SweptKey:
    """A swept key path and how its values read."""

    #: The key path, as the sweep names it (``links[0].rate``); also its column's name.
    path: str
    #: ``"rate"``, ``"duration"`` or ``"size"`` when every value is such a quantity.
    quantity: str | None
    #: The values in the order the cells first take them (the sweep's order).
    values: tuple[Any, ...]

    @property
    def companion(self) -> str | None:
        """The numeric companion column's name (``KEY_bps``, ``KEY_s``, ``KEY_bytes``)."""
        return None if self.quantity is None else self.path + _QUANTITIES[self.quantity][0]

    @property
    def numeric(self) -> bool:
        """Whether the key orders by magnitude (numbers, or quantities by their value)."""
        return self.quantity is not None or all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in self.values
        )


def quantity(text: str) -> tuple[str, float] | None:
    """The kind and the value in base units (bit/s, s, B) of a quantity of the scenario
    grammar (``"1.25 Gb/s"`` → ``("rate", 1.25e9)``), or ``None`` for other text. The
    units tell the kinds apart, so at most one parses."""
    from ethersim import _core

    for kind, (_suffix, factor) in _QUANTITIES.items():
        try:
            return kind, _core.parse_quantity(kind, text) * factor
        except (EthersimError, ValueError, OverflowError):
            continue
    return None


def swept_keys(definition: Mapping[str, Any], parameters: Iterable[Mapping[str, Any]]) -> list[str]:
    """The key paths a sweep varies: its grid's, then its zip's, in the order of its
    definition; keys a cell's parameters hold beyond those (a definition recorded in
    another form) follow, sorted."""
    keys = [*definition.get("grid", {}), *definition.get("zip", {})]
    extra = sorted({k for p in parameters for k in p} - set(keys))
    return keys + extra


def _text(value: object) -> object:
    """A value in a text column: text as it is, anything else as JSON."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True)


def _typed(path: str, values: list[Any]) -> tuple[pd.Series, SweptKey, pd.Series | None]:
    """A key's column (typed), its description and its numeric companion, if any."""
    import pandas as pd

    given = [v for v in values if v is not None]
    order = tuple(dict.fromkeys(given))
    if any(isinstance(v, (dict, list)) for v in given):
        texts = [_text(v) for v in values]
        order = tuple(dict.fromkeys(t for t in texts if t is not None))
        return pd.Series(texts, dtype=object), SweptKey(path, None, order), None
    if given and all(isinstance(v, bool) for v in given) and len(given) == len(values):
        return pd.Series(values, dtype=bool), SweptKey(path, None, order), None
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in given):
        whole = all(isinstance(v, int) for v in given) and len(given) == len(values)
        series = pd.Series(
            [math.nan if v is None else v for v in values], dtype="int64" if whole else "float64"
        )
        return series, SweptKey(path, None, order), None
    column = pd.Series([_text(v) for v in values], dtype=object)
    if all(isinstance(v, str) for v in given):
        parsed = {v: quantity(v) for v in set(given)}
        kinds = {q[0] if q else None for q in parsed.values()}
        if len(kinds) == 1 and None not in kinds:
            (kind,) = kinds
            numbers = [math.nan if v is None else parsed[v][1] for v in values]  # type: ignore[index]
            return column, SweptKey(path, kind, order), pd.Series(numbers, dtype="float64")
    return column, SweptKey(path, None, tuple(dict.fromkeys(_text(v) for v in given))), None


def key_frame(
    keys: Sequence[str], cells: Sequence[tuple[int, Mapping[str, Any]]]
) -> tuple[pd.DataFrame, list[SweptKey]]:
    """One row per cell: ``cell``, then a typed column per swept key (each followed by
    its numeric companion when it is a quantity), from each cell's parameters."""
    import pandas as pd

    frame = pd.DataFrame({"cell": pd.Series([c for c, _ in cells], dtype="int64")})
    described = []
    for path in keys:
        column, key, companion = _typed(path, [p.get(path) for _, p in cells])
        frame[path] = column
        if companion is not None and key.companion is not None:
            frame[key.companion] = companion
        described.append(key)
    return frame, described


def metric_label(scope: str, name: str, metric: str) -> str:
    """A metric's label: ``port:s1->h1:drops``, or ``run:events`` for the run's own."""
    return f"{scope}:{name}:{metric}" if name else f"{scope}:{metric}"


def labels(frame: pd.DataFrame) -> pd.Series:
    """The metric labels of a tidy frame's rows (see :func:`metric_label`)."""
    scope, name, metric = frame["scope"], frame["name"], frame["metric"]
    joined = scope + ":" + name + ":" + metric
    return joined.where(name != "", scope + ":" + metric)


def tidy_cells(keys: pd.DataFrame, stats: pd.DataFrame) -> pd.DataFrame:
    """The tidy frame: one row per cell and metric, ``cell``, the key columns, then
    ``scope``, ``name``, ``metric``, ``n``, ``mean``, ``std`` and ``ci95`` (NaN where a
    statistic has too few runs), from the key frame and the database's cell statistics."""
    stats = stats.astype({"n": "int64", "mean": "float64", "std": "float64", "ci95": "float64"})
    frame = keys.merge(stats, on="cell", how="inner", validate="one_to_many")
    return frame.sort_values(["cell", "scope", "name", "metric"], kind="stable").reset_index(
        drop=True
    )


def glob(pattern: str, label: str) -> bool:
    """Whether ``label`` matches ``pattern``, where ``*`` is any text and ``?`` any one
    character; everything else is literal, brackets too (labels hold ``apps[0]``)."""
    import re

    regex = re.escape(pattern).replace(r"\*", ".*").replace(r"\?", ".")
    return re.fullmatch(regex, label, flags=re.DOTALL) is not None


def match_metrics(available: Sequence[str], patterns: Iterable[str], option: str) -> list[str]:
    """The labels among ``available`` that any of ``patterns`` matches (globs with ``*``
    and ``?``, see :func:`glob`; case-sensitive; comma-separated lists are split), in the order of
    ``available``. A pattern that matches nothing is a :class:`ScenarioError` at
    ``option`` listing some labels."""
    wanted = [p.strip() for given in patterns for p in given.split(",") if p.strip()]
    if not wanted:
        raise ScenarioError("is empty; expected metric labels or globs", option)
    chosen: set[str] = set()
    for pattern in wanted:
        hits = [a for a in available if glob(pattern, a)]
        if not hits:
            raise ScenarioError(
                f"{pattern!r} matches no metric; expected a label or glob such as "
                f"{_some(available)}",
                option,
            )
        chosen.update(hits)
    return [a for a in available if a in chosen]


def _some(labels: Sequence[str], most: int = 6) -> str:
    shown = ", ".join(repr(a) for a in labels[:most])
    return shown + (f" (and {len(labels) - most} more)" if len(labels) > most else "")


def _ordered(key: SweptKey, present: Iterable[Any]) -> list[Any]:
    """The key's values in the sweep's order, those ``present`` only."""
    there = set(present)
    return [v for v in key.values if v in there]


def to_dataset(tidy: pd.DataFrame, keys: Sequence[SweptKey], zipped: Sequence[str]) -> xr.Dataset:
    """The tidy frame as an xarray Dataset: a dimension per grid key, one for the zip's
    rows (named after the first zip key; the other zip keys are coordinates along it),
    coordinates in the sweep's order, quantity companions as coordinates beside their
    key, and for each metric label the variables ``LABEL mean``, ``LABEL std``,
    ``LABEL ci95`` and ``LABEL n`` (NaN where a combination has no cell or no run)."""
    import xarray as xr

    zip_dim = next((k.path for k in keys if k.path in zipped), None)
    dims = [k.path for k in keys if k.path not in zipped or k.path == zip_dim]
    frame = tidy.assign(label=labels(tidy))
    if not dims:  # a sweep of one cell varies nothing: its one dimension is the cell
        dims = ["cell"]
    wide = frame.pivot(index=dims, columns="label", values=["mean", "std", "ci95", "n"])
    wide.columns = [f"{column[1]} {column[0]}" for column in wide.columns]
    stats = ("mean", "std", "ci95", "n")
    wide = wide[[f"{label} {stat}" for label in dict.fromkeys(frame["label"]) for stat in stats]]
    data = xr.Dataset.from_dataframe(wide.astype("float64"))
    by_path = {k.path: k for k in keys}
    data = data.reindex({d: _ordered(by_path[d], data[d].values) for d in dims if d in by_path})
    for key in keys:
        along = key.path if key.path in dims else zip_dim
        if along is None or along not in data.dims:
            continue
        pairs = tidy.drop_duplicates(along).set_index(along)
        if key.path != along:
            data = data.assign_coords(
                {key.path: (along, pairs[key.path].reindex(data[along].values).to_numpy())}
            )
        if key.companion is not None:
            values = pairs[key.companion].reindex(data[along].values).to_numpy()
            data = data.assign_coords({key.companion: (along, values)})
    return data

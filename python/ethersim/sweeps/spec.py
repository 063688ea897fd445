"""Sweep files: what a sweep varies, how often it repeats each cell, what it keeps.

A sweep file is TOML with a JSON Schema (:data:`SCHEMA`, printed by ``ethersim schema
--sweep``). It names a base scenario, parameters to vary over any scenario key path (a
``grid`` whose value lists multiply, and ``zip`` lists that advance together, one more
dimension of the grid), a number of replications, a base seed, the metrics to keep and
the budget of each run::

    name = "outage-rtt"
    scenario = "ping-outage.toml"        # relative to the sweep file
    seed = 1
    replications = 5
    metrics = ["flow.rtt_*", "port.drops", "run.events"]

    [set]                                # the same in every cell
    "links[1].delay" = "5 us"

    [grid]
    "links[0].rate" = ["100 Mb/s", "1 Gb/s"]

    [zip]
    "apps[0].interval" = ["100 us", "1 ms"]
    "apps[0].count" = [1000, 100]

    [limits]
    max_events = 50_000_000
    max_wall_s = 60

Every value of every varied key is checked against the scenario schema before anything
runs (in a cell of the sweep), so a bad key path or value is reported (with the sweep key
it came from) and nothing runs; a grid of up to 1,000 cells has every cell checked (see
:mod:`ethersim.sweeps.plan` for larger ones).

Each run's seed is derived from the base seed, the cell's parameters and the replication
number by a hash, so it is the same on every machine and does not change when cells are
added to or removed from the sweep. Parameters listed in ``paired`` stay out of the hash:
cells that differ only in them run each replication with the same seed (paired runs,
common random numbers), e.g. a mechanism on and off over the same random traffic::

    paired = ["links[1].rate_switching.policy.kind"]
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, overload

from ethersim import _core, inputs
from ethersim.api import _pairs, file_overrides, load_text
from ethersim.errors import ScenarioError
from ethersim.sweeps.plan import Dimension, Plan, plan_runs

__all__ = [
    "SCHEMA",
    "Limits",
    "SweepSpec",
    "Task",
    "define_sweep",
    "derive_seed",
    "expand_sweep",
    "load_sweep",
    "parse_sweep",
]

#: The JSON Schema of sweep files.
SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "ethersim sweep",
    "description": "A sweep: a base scenario, parameters to vary, replications, metrics.",
    "type": "object",
    "additionalProperties": False,
    "required": ["scenario"],
    "properties": {
        "name": {
            "description": "The sweep's name in the results database (default: the file's "
            "name without .toml). Letters, digits, '-', '_' and '.'.",
            "type": "string",
            "pattern": "^[A-Za-z0-9_.-]{1,100}$",
        },
        "description": {"description": "Free text.", "type": "string"},
        "scenario": {
            "description": "The base scenario file, relative to the sweep file.",
            "type": "string",
            "minLength": 1,
        },
        "seed": {
            "description": "The base seed every run's seed is derived from (default 1).",
            "type": "integer",
            "minimum": 0,
            "maximum": 2**64 - 1,
        },
        "replications": {
            "description": "Runs per cell, each with its own seed (default 1).",
            "type": "integer",
            "minimum": 1,
            "maximum": 100_000,
        },
        "set": {
            "description": "Scenario key paths and the one value each takes in every cell.",
            "type": "object",
        },
        "grid": {
            "description": "Scenario key paths and the values each takes; cells are every "
            "combination.",
            "type": "object",
            "additionalProperties": {"type": "array", "minItems": 1},
        },
        "zip": {
            "description": "Scenario key paths whose value lists (all of one length) advance "
            "together: one more dimension of the grid.",
            "type": "object",
            "additionalProperties": {"type": "array", "minItems": 1},
        },
        "paired": {
            "description": "grid or zip key paths left out of the seed: cells that differ "
            "only in these run each replication with the same seed (paired runs).",
            "type": "array",
            "items": {"type": "string", "minLength": 1},
            "uniqueItems": True,
        },
        "metrics": {
            "description": "Metrics to keep, as 'scope.metric' patterns with * and ? "
            "(scopes: run, flow, port, host, link); default: every number.",
            "type": "array",
            "items": {"type": "string", "pattern": r"^(run|flow|port|host|link|\*)\.[^.]+$"},
            "minItems": 1,
        },
        "limits": {
            "description": "The budget of every run; a run over it is recorded as failed.",
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "max_events": {
                    "description": "Events a run may execute.",
                    "type": "integer",
                    "minimum": 1,
                },
                "max_wall_s": {
                    "description": "Wall-clock seconds a run may take.",
                    "type": "number",
                    "exclusiveMinimum": 0,
                },
            },
        },
    },
}


@dataclass(frozen=True)
class Limits:
    """The budget of each run of a sweep."""

    #: Events a run may execute (``None``: the scenario's own limit).
    max_events: int | None = None
    #: Wall-clock seconds a run may take (``None``: no limit).
    max_wall_s: float | None = None


@dataclass(frozen=True)
class Task:
    """One run of a sweep: everything a worker needs, and the keys it is stored under."""

    #: Stable identity: a hash of the sweep, the scenario and the seed.
    run_id: str
    sweep: str
    #: The cell's number, in the order the sweep file defines cells.
    cell: int
    replication: int
    seed: int
    #: Hash of the cell's scenario with every default filled in, seed excluded.
    scenario_hash: str
    #: The cell's parameters: key path -> value.
    parameters: dict[str, Any]
    #: The base scenario's TOML text and the cell's overrides, as ``--set`` takes them
    #: (``path=TOML value``).
    scenario_text: str
    overrides: list[str]
    limits: Limits
    #: ``scope.metric`` patterns of the metrics to keep.
    metrics: tuple[str, ...]


@dataclass(frozen=True)
class SweepSpec:
    """A checked sweep file, expanded into its cells and runs."""

    name: str
    file: str
    scenario_file: str
    seed: int
    replications: int
    #: Each cell's parameters, in cell order.
    cells: Sequence[dict[str, Any]]
    metrics: tuple[str, ...]
    limits: Limits
    #: The sweep file as read (for the record).
    definition: dict[str, Any]
    #: Every run's cell, replication, seed and id, and every cell's scenario hash.
    plan: Plan = field(repr=False)
    #: The base scenario's TOML text.
    scenario_text: str = field(repr=False)
    #: The overrides of every cell before its parameters (the scenario file's own, then
    #: ``set``), and after them (the event budget).
    fixed: tuple[tuple[str, str], ...] = field(repr=False)
    budget: tuple[tuple[str, str], ...] = field(repr=False)

    @property
    def runs(self) -> int:
        """How many runs the sweep defines."""
        return len(self.plan.run_ids)

    def task(self, run: int) -> Task:
        """Run number ``run`` (in cell order, then replication) as a worker takes it."""
        plan = self.plan
        cell = plan.cells[run]
        parameters = self.cells[cell]
        overrides = [*self.fixed, *_pairs(list(parameters.items())), *self.budget]
        return Task(
            run_id=plan.run_ids[run],
            sweep=self.name,
            cell=cell,
            replication=plan.replications[run],
            seed=plan.seeds[run],
            scenario_hash=plan.hashes[cell],
            parameters=parameters,
            scenario_text=self.scenario_text,
            overrides=[f"{path}={value}" for path, value in overrides],
            limits=self.limits,
            metrics=self.metrics,
        )

    @functools.cached_property
    def tasks(self) -> list[Task]:
        """Every run, in cell order then replication (built when first asked for: a
        sweep itself builds only the runs it has left to do, as it reaches them)."""
        return [self.task(run) for run in range(self.runs)]


def derive_seed(base: int, parameters: dict[str, Any], replication: int) -> int:
    """The seed of one run: a hash of the base seed, the cell's parameters (canonical
    JSON) and the replication number, as a 64-bit integer."""
    key = json.dumps([base, parameters, replication], sort_keys=True, separators=(",", ":"))
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "little")


def _key(path: str) -> str:
    """A sweep-file key path rendered for messages (quoted when it is not a bare key)."""
    return path if re.fullmatch(r"[A-Za-z0-9_-]+", path) else json.dumps(path)


def _schema_error(error: Any) -> ScenarioError:
    """A jsonschema error as a :class:`ScenarioError` naming the key path."""
    parts: list[str] = []
    for p in error.absolute_path:
        parts.append(f"[{p}]" if isinstance(p, int) else ("." if parts else "") + _key(str(p)))
    path = "".join(parts)
    schema = error.schema if isinstance(error.schema, dict) else {}
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed))
        where = f"{path}." if path else ""
        return ScenarioError(
            f"unknown key; expected one of {', '.join(allowed)}", f"{where}{_key(extra[0])}"
        )
    if error.validator == "required":
        return ScenarioError(f"{error.message}; expected the base scenario file", path)
    expected = schema.get("description", "")
    message = error.message
    return ScenarioError(f"{message}" + (f"; expected: {expected}" if expected else ""), path)


def _toml(text: str, where: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"{where} is not valid TOML: {e}") from None


def _dimensions(grid: dict[str, list[Any]], zipped: dict[str, list[Any]]) -> list[Dimension]:
    """The grid's dimensions, in file order: one per grid key, then the zip's rows (the
    last dimension varies fastest)."""
    lengths = {len(v) for v in zipped.values()}
    if len(lengths) > 1:
        sizes = ", ".join(f"{_key(k)}: {len(v)}" for k, v in zipped.items())
        raise ScenarioError(f"the zipped lists differ in length ({sizes}); expected one", "zip")
    dims: list[Dimension] = [[{k: v} for v in values] for k, values in grid.items()]
    if zipped:
        n = lengths.pop()
        dims.append([{k: v[i] for k, v in zipped.items()} for i in range(n)])
    both = set(grid) & set(zipped)
    if both:
        where = f"zip.{_key(min(both))}"
        raise ScenarioError("is varied in both grid and zip; expected one", where)
    return dims


def _merged(dims: list[Dimension], index: tuple[int, ...]) -> dict[str, Any]:
    """The parameters of the cell at ``index`` (one value's index per dimension)."""
    cell: dict[str, Any] = {}
    for values, i in zip(dims, index, strict=True):
        cell.update(values[i])
    return cell


class Cells(Sequence[dict[str, Any]]):
    """Every cell's parameters, in cell order (the last dimension varying fastest),
    each made when asked for: a 100,000-cell grid does not hold 100,000 dicts."""

    def __init__(self, dims: list[Dimension]) -> None:
        self._dims = dims
        self._shape = [len(values) for values in dims]
        self._n = math.prod(self._shape)

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._n))]
        if not -self._n <= index < self._n:
            raise IndexError("cell number out of range")
        number = index % self._n
        at = []
        for n in reversed(self._shape):
            number, i = divmod(number, n)
            at.append(i)
        return _merged(self._dims, tuple(reversed(at)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Cells({len(self)} cells)"


def _origin(path: str, grid: dict[str, Any], zipped: dict[str, Any], cell: dict[str, Any]) -> str:
    """The sweep-file key path a cell's value of scenario ``path`` came from."""
    table, values = ("grid", grid[path]) if path in grid else ("zip", zipped[path])
    index = next(i for i, v in enumerate(values) if v == cell[path])
    return f"{table}.{_key(path)}[{index}]"


def _under(error_path: str, path: str) -> bool:
    """Whether a scenario error at ``error_path`` concerns the value set at ``path`` (the
    path itself or something inside it; ``links[1]`` is not inside ``links[10]``)."""
    return error_path == path or error_path.startswith((f"{path}.", f"{path}["))


def _refuse_repeated_values(grid: dict[str, list[Any]], zipped: dict[str, list[Any]]) -> None:
    """Two equal cells would be the same runs twice: a value repeated in a grid list, or
    a row repeated in the zip, is an error at its second place."""
    lists = [(f"grid.{_key(k)}", [[v] for v in values]) for k, values in grid.items()]
    if zipped:
        rows = [list(row) for row in zip(*zipped.values(), strict=True)]
        lists.append((f"zip.{_key(next(iter(zipped)))}", rows))
    for where, rows in lists:
        seen: dict[str, int] = {}
        for index, row in enumerate(rows):
            key = json.dumps(row, sort_keys=True, default=str)
            if key in seen:
                raise ScenarioError(
                    f"repeats the value at index {seen[key]}; expected each value once",
                    f"{where}[{index}]",
                )
            seen[key] = index


#: Told a sweep's name, cells and replications once they are known, before its cells
#: are checked (which takes longest).
Announce = Callable[[str, int, int], object]


def parse_sweep(
    text: str, file: str | Path = "sweep.toml", *, announce: Announce | None = None
) -> SweepSpec:
    """Checks the sweep file ``text`` (read from ``file``, which its scenario path is
    relative to) and expands it into runs. Raises :class:`ScenarioError` naming the key
    path of whatever is wrong; nothing is run."""
    where = repr(os.fspath(file))
    return expand_sweep(_toml(text, f"sweep file {where}"), file, announce=announce)


def expand_sweep(
    raw: dict[str, Any], file: str | Path = "sweep.toml", *, announce: Announce | None = None
) -> SweepSpec:
    """Checks a sweep definition (a sweep file's tables, as a dict; its scenario path is
    relative to ``file``'s folder and its name defaults to ``file``'s stem) and expands
    it into runs: what :func:`parse_sweep` does after reading the TOML."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(SCHEMA)
    errors = sorted(validator.iter_errors(raw), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        raise _schema_error(errors[0])
    sweep_path = Path(file)
    name = raw.get("name") or sweep_path.stem
    if not re.fullmatch(r"[A-Za-z0-9_.-]{1,100}", name):
        raise ScenarioError(
            f"{name!r} cannot name a sweep; expected letters, digits, '-', '_' and '.' "
            "(set name = ...)",
            "name",
        )
    scenario_file = sweep_path.parent / raw["scenario"]
    try:
        base_text = load_text(scenario_file)
    except ScenarioError as e:
        raise ScenarioError(e.message, "scenario") from None
    limits_raw = raw.get("limits", {})
    limits = Limits(limits_raw.get("max_events"), limits_raw.get("max_wall_s"))
    grid: dict[str, list[Any]] = raw.get("grid", {})
    zipped: dict[str, list[Any]] = raw.get("zip", {})
    dims = _dimensions(grid, zipped)
    base_seed = raw.get("seed", 1)
    replications = raw.get("replications", 1)
    metrics = tuple(raw.get("metrics", ["*.*"]))
    fixed: dict[str, Any] = raw.get("set", {})
    for path in fixed:
        if path in grid or path in zipped:
            table = "grid" if path in grid else "zip"
            raise ScenarioError("is also in set; expected one place", f"{table}.{_key(path)}")
    _refuse_repeated_values(grid, zipped)
    paired: list[str] = raw.get("paired", [])
    for k, path in enumerate(paired):
        if path not in grid and path not in zipped:
            raise ScenarioError(
                f"{path!r} is not a grid or zip parameter; expected one of the sweep's varied "
                "key paths",
                f"paired[{k}]",
            )
    if announce is not None:
        announce(name, math.prod(len(values) for values in dims), replications)
    try:
        fixed_pairs = file_overrides(scenario_file, base_text) + _pairs(list(fixed.items()))
    except ScenarioError as e:
        raise ScenarioError(e.message, f"set.{_key(e.path)}") from None
    budget = [] if limits.max_events is None else [("max_events", str(limits.max_events))]
    shape = [len(values) for values in dims]

    def check(index: tuple[int, ...]) -> dict[str, Any]:
        parameters = _merged(dims, index)
        overrides = fixed_pairs + _pairs(list(parameters.items())) + budget
        try:
            checked: dict[str, Any] = json.loads(_core.validate(base_text, overrides))
        except ScenarioError as e:
            origin = next(
                (_origin(p, grid, zipped, parameters) for p in parameters if _under(e.path, p)),
                next((f"set.{_key(p)}" for p in fixed if _under(e.path, p)), "scenario"),
            )
            number = 0
            for i, n in zip(index, shape, strict=True):
                number = number * n + i
            raise ScenarioError(f"{e} (cell {number})", origin) from None
        checked.pop("seed", None)
        return checked

    plan = plan_runs(
        name=name,
        dims=dims,
        paired=paired,
        base_seed=base_seed,
        replications=replications,
        check=check,
    )
    return SweepSpec(
        name=name,
        file=os.fspath(file),
        scenario_file=os.fspath(scenario_file),
        seed=base_seed,
        replications=replications,
        cells=Cells(dims),
        metrics=metrics,
        limits=limits,
        definition=raw,
        plan=plan,
        scenario_text=base_text,
        fixed=tuple(fixed_pairs),
        budget=tuple(budget),
    )


def load_sweep(file: str | Path, *, announce: Announce | None = None) -> SweepSpec:
    """Reads and checks the sweep file ``file`` (see :func:`parse_sweep`); ``announce``
    is told the sweep's name, cells and replications before its cells are checked."""
    text = inputs.read_text(file, "", "sweep file", inputs.MAX_SWEEP_BYTES)
    return parse_sweep(text, Path(file), announce=announce)


def _listed(values: object) -> object:
    """A grid or zip entry given from Python as a list (a tuple, a range, any iterable
    but text); anything else is left for the schema to refuse, naming the key."""
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        return values
    return list(values)


def define_sweep(
    scenario: str | Path,
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
) -> SweepSpec:
    """A sweep of the scenario file ``scenario`` defined in Python: the tables of a
    sweep file given as arguments, checked exactly as a file's are (same schema, same
    errors naming the key path, e.g. ``grid."links[0].rate"[1]``). The name defaults
    to the scenario file's stem.

    >>> define_sweep(
    ...     "examples/poisson-fan-in.toml",
    ...     grid={"links[0].rate": ["1.25 Gb/s", "2 Gb/s"]},
    ...     set={"duration": "10 ms"},
    ...     replications=3,
    ... )  # doctest: +SKIP
    """
    path = Path(scenario)
    raw: dict[str, Any] = {"scenario": path.name}
    if name is not None:
        raw["name"] = name
    if seed is not None:
        raw["seed"] = seed
    if replications is not None:
        raw["replications"] = replications
    if set:
        raw["set"] = dict(set)
    if grid:
        raw["grid"] = {k: _listed(v) for k, v in grid.items()}
    if zip:
        raw["zip"] = {k: _listed(v) for k, v in zip.items()}
    if paired is not None:
        raw["paired"] = _listed(paired)
    if metrics is not None:
        raw["metrics"] = _listed(metrics)
    if limits is not None:
        given = asdict(limits) if isinstance(limits, Limits) else dict(limits)
        raw["limits"] = {k: v for k, v in given.items() if v is not None}
    # The scenario stands where a sweep file would: its folder is where the scenario
    # path is relative to, its stem the default name.
    return expand_sweep(raw, path)

"""Planning a sweep: every cell checked and hashed, every run's seed and id, as columns.

A cell's scenario hash is the SHA-256 of its scenario with every default filled in (the
core's ``validate``), seed excluded, as canonical JSON. Asking the core for each cell
costs about 0.4 ms, 40 s for a 100,000-cell grid, so a large grid is planned from the
core's answers for a few cells instead:

- the *star* around cell 0: every value of every dimension (a grid key, or the zip's
  rows) with the other dimensions at their first value. These are cells of the sweep,
  so an error found there is that cell's error; every value is checked in the company
  of the sweep's other values;
- from the star, the part of the scenario each dimension changes (the JSON paths where
  its values differ from cell 0). When no two dimensions change the same part, a cell's
  canonical JSON is cell 0's with each dimension's part put in, which is hashed without
  asking the core;
- a sample of further cells, checked by the core and their hashes compared with the
  composed ones. Dimensions that change the same part, or a sample that disagrees, send
  the grid back to the exact path: every cell asked of the core.

Grids of up to :data:`EXACT_CELLS` cells take the exact path (it costs under half a
second). On the fast path a combination of values that is invalid only together (each
value valid in the star) is found when its run starts, and recorded as a failed run with
the scenario's error.

Seeds and run ids are BLAKE2b hashes of short texts, assembled from pieces rendered once
per value: the same texts, so the same seeds and ids, as :func:`derive_seed` gives.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["EXACT_CELLS", "Plan", "canonical_hash", "plan_runs"]

#: Grids of up to this many cells have every cell checked by the core.
EXACT_CELLS = 1_000

#: Further cells the core checks on the fast path, to confirm the composed hashes.
_SAMPLE = 16

#: A dimension of the grid: its values, each a mapping of key path -> value.
Dimension = list[dict[str, Any]]

#: Checks one cell (given by its index in each dimension) in the core: its scenario
#: with defaults filled in, seed excluded, or a ScenarioError naming the cell.
Check = Callable[[tuple[int, ...]], dict[str, Any]]

_COMPACT = (",", ":")


def canonical_hash(scenario: dict[str, Any]) -> str:
    """The hash of a scenario (defaults filled in, seed excluded) as a run's identity."""
    canonical = json.dumps(scenario, sort_keys=True, separators=_COMPACT)
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Plan:
    """The cells and runs of a sweep, as columns. Run ``i`` is replication
    ``replications[i]`` of cell ``cells[i]``."""

    #: Each cell's scenario hash.
    hashes: list[str]
    #: Each cell's parameters as JSON (sorted keys, as the ``runs`` table stores them).
    parameters_json: list[str]
    run_ids: list[str]
    cells: list[int]
    replications: list[int]
    seeds: list[int]
    #: Whether every cell was checked by the core (else the star and a sample).
    exact: bool


def _ravel(index: tuple[int, ...], shape: Sequence[int]) -> int:
    number = 0
    for i, n in zip(index, shape, strict=True):
        number = number * n + i
    return number


def _unravel(number: int, shape: Sequence[int]) -> tuple[int, ...]:
    index = []
    for n in reversed(shape):
        number, i = divmod(number, n)
        index.append(i)
    return tuple(reversed(index))


def _diff(a: Any, b: Any, path: tuple[Any, ...], out: list[tuple[Any, ...]]) -> None:
    """The paths where ``b`` differs from ``a``, as high up as the shapes differ."""
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        for k in a:
            _diff(a[k], b[k], (*path, k), out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _diff(x, y, (*path, i), out)
    elif type(a) is not type(b) or a != b:
        out.append(path)


def _at(tree: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        tree = tree[p]
    return tree


def _covers(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Whether path ``a`` is ``b`` or contains it."""
    return b[: len(a)] == a


def _roots(paths: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The outermost of ``paths`` (none inside another), in first-seen order."""
    unique = list(dict.fromkeys(paths))
    return [p for p in unique if not any(q != p and _covers(q, p) for q in unique)]


def _composer(base: dict[str, Any], star: list[list[dict[str, Any]]]) -> _Composer | None:
    """A function from a cell's index to its scenario hash, composed from cell 0's
    scenario ``base`` and each dimension's scenarios ``star[d][i]`` (the others at their
    first value); ``None`` when two dimensions change the same part of the scenario."""
    roots: list[list[tuple[Any, ...]]] = []
    for values in star:
        found: list[tuple[Any, ...]] = []
        for scenario in values:
            _diff(base, scenario, (), found)
        roots.append(_roots(found))
    every = [(d, r) for d, rs in enumerate(roots) for r in rs]
    for (d, r), (e, s) in itertools.combinations(every, 2):
        if d != e and (_covers(r, s) or _covers(s, r)):
            return None
    if any(r == () for _, r in every):
        return None
    # Cell 0's canonical JSON with a marker in each changed place, split at the markers.
    token = hashlib.sha256(json.dumps(base, sort_keys=True).encode()).hexdigest()
    marked = json.loads(json.dumps(base))
    for k, (_, r) in enumerate(every):
        parent = _at(marked, r[:-1])
        parent[r[-1]] = f"{token}:{k}"
    text = json.dumps(marked, sort_keys=True, separators=_COMPACT)
    pieces: list[str] = []
    holes: list[int] = []
    rest = text
    while True:
        start = rest.find(f'"{token}:')
        if start < 0:
            pieces.append(rest)
            break
        end = rest.index('"', start + 1)
        pieces.append(rest[:start])
        holes.append(int(rest[start + 1 : end].split(":")[1]))
        rest = rest[end + 1 :]
    if sorted(holes) != list(range(len(every))):
        return None  # a marker not where it was put (cannot happen with plain JSON)
    dims = [every[k][0] for k in holes]
    # The text after each marker, with each value's fragment before it, as bytes.
    steps = [
        [
            (json.dumps(_at(s, every[k][1]), sort_keys=True, separators=_COMPACT) + after).encode()
            for s in star[d]
        ]
        for k, d, after in zip(holes, dims, pieces[1:], strict=True)
    ]
    return _Composer(pieces[0].encode(), dims, steps, [len(values) for values in star])


class _Composer:
    """Every cell's hash from the canonical text's pieces: walking the markers in text
    order, each dimension's values are tried where it first appears, and the hash of
    the text so far is copied rather than recomputed (the cells of a 100,000-cell grid
    share most of their text)."""

    def __init__(
        self, head: bytes, dims: list[int], steps: list[list[bytes]], shape: list[int]
    ) -> None:
        self.head, self.dims, self.steps, self.shape = head, dims, steps, shape
        self.strides = [math.prod(shape[d + 1 :]) for d in range(len(shape))]
        # Dimensions that change nothing in the scenario come last: every value alike.
        self.silent = [d for d in range(len(shape)) if d not in dims]

    def __call__(self, index: tuple[int, ...]) -> str:
        h = hashlib.sha256(self.head)
        for d, step in zip(self.dims, self.steps, strict=True):
            h.update(step[index[d]])
        return h.hexdigest()[:32]

    def all(self) -> list[str]:
        """Every cell's hash, in cell order."""
        hashes = [""] * math.prod(self.shape)
        index = [0] * len(self.shape)
        fixed = [False] * len(self.shape)
        last = len(self.steps) - 1

        def leaves(digest: str, number: int, silent: list[int]) -> None:
            if not silent:
                hashes[number] = digest
                return
            d, stride = silent[0], self.strides[silent[0]]
            for i in range(self.shape[d]):
                leaves(digest, number + i * stride, silent[1:])

        def walk(level: int, state: Any, number: int) -> None:
            if level > last:
                leaves(state.hexdigest()[:32], number, self.silent)
                return
            d, step = self.dims[level], self.steps[level]
            if level == last and not fixed[d] and not self.silent:
                # The innermost loop, once per cell: kept flat.
                stride = self.strides[d]
                for i, piece in enumerate(step):
                    h = state.copy()
                    h.update(piece)
                    hashes[number + i * stride] = h.hexdigest()[:32]
                return
            if fixed[d]:
                h = state.copy()
                h.update(step[index[d]])
                walk(level + 1, h, number)
                return
            fixed[d] = True
            stride = self.strides[d]
            for i, piece in enumerate(step):
                index[d] = i
                h = state.copy()
                h.update(piece)
                walk(level + 1, h, number + i * stride)
            fixed[d] = False

        walk(0, hashlib.sha256(self.head), 0)
        return hashes


def _key_fragments(
    dims: list[Dimension], keys: list[str], separators: tuple[str, str], default: Any
) -> list[tuple[int, list[str]]]:
    """For each key in ``keys`` (sorted), its dimension and the JSON ``"key": value``
    piece of each of that dimension's values."""
    where = {k: d for d, values in enumerate(dims) for k in values[0]}
    out = []
    for k in keys:
        d = where[k]
        name = json.dumps(k)
        out.append(
            (
                d,
                [
                    name
                    + separators[1]
                    + json.dumps(v[k], sort_keys=True, separators=separators, default=default)
                    for v in dims[d]
                ],
            )
        )
    return out


def _indices(shape: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every cell's index, in cell order."""
    return itertools.product(*(range(n) for n in shape))


def plan_runs(
    *,
    name: str,
    dims: list[Dimension],
    paired: Sequence[str],
    base_seed: int,
    replications: int,
    check: Check,
    exact: bool | None = None,
) -> Plan:
    """Checks and hashes every cell of the grid ``dims`` (the last dimension varying
    fastest) and derives every run's seed and id. ``check`` asks the core about one
    cell; ``exact`` forces (or forbids) asking it about every cell (default: grids of
    up to :data:`EXACT_CELLS` cells)."""
    import numpy as np

    shape = [len(values) for values in dims]
    n = math.prod(shape)
    hashes: list[str] | None = None
    use_exact = n <= EXACT_CELLS if exact is None else exact
    if not use_exact:
        hashes = _composed(dims, shape, check)
    if hashes is None:
        use_exact = True
        hashes = [canonical_hash(check(index)) for index in _indices(shape)]
    keys = sorted(k for values in dims for k in values[0])
    columns = _index_columns(shape)
    # The runs table's parameters: json.dumps(parameters, sort_keys=True, default=str).
    stored = _joined(_key_fragments(dims, keys, (", ", ": "), str), columns, ", ", n)
    parameters_json = [f"{{{p}}}" for p in stored]
    # derive_seed's text: json.dumps([base, parameters, replication], sort_keys=True,
    # separators=(",", ":")).
    unpaired = [k for k in keys if k not in set(paired)]
    seeded = _joined(_key_fragments(dims, unpaired, _COMPACT, None), columns, ",", n)
    seeds, run_ids = _identities(name, hashes, seeded, base_seed, replications)
    cells: list[int] = np.repeat(np.arange(n), replications).tolist()
    reps: list[int] = np.tile(np.arange(replications), n).tolist()
    return Plan(hashes, parameters_json, run_ids, cells, reps, seeds, use_exact)


def _identities(
    name: str, hashes: list[str], seeded: list[str], base_seed: int, replications: int
) -> tuple[list[int], list[str]]:
    """Every run's seed and id (cell order, then replication): the texts are put
    together by Arrow, each hashed by BLAKE2b."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(hashes)
    cell_of = pa.array(np.repeat(np.arange(n, dtype=np.int64), replications))
    rep_of = pa.array(np.tile(np.arange(replications, dtype=np.int64), n))
    # derive_seed's text: json.dumps([base, parameters, replication], sort_keys=True,
    # separators=(",", ":")).
    texts = pc.binary_join_element_wise(
        f"[{json.dumps(base_seed)},{{",
        pa.array(seeded, pa.string()).take(cell_of),
        "},",
        pc.cast(rep_of, pa.string()),
        "]",
        "",
    ).cast(pa.binary())
    blake2b = hashlib.blake2b
    digests = b"".join([blake2b(t, digest_size=8).digest() for t in texts.to_pylist()])
    seed_array = np.frombuffer(digests, dtype="<u8")
    keys = pc.binary_join_element_wise(
        name,
        pa.array(hashes, pa.string()).take(cell_of),
        pc.cast(pa.array(seed_array), pa.string()),
        "|",
    ).cast(pa.binary())
    run_ids = [blake2b(k, digest_size=8).hexdigest() for k in keys.to_pylist()]
    seeds: list[int] = seed_array.tolist()
    return seeds, run_ids


def _index_columns(shape: Sequence[int]) -> list[Any]:
    """For each dimension, its value's index in every cell (cell order), as Arrow."""
    import numpy as np
    import pyarrow as pa

    if not shape:
        return []
    grid = np.indices(shape, dtype=np.int64).reshape(len(shape), -1)
    return [pa.array(row) for row in grid]


def _joined(
    fragments: list[tuple[int, list[str]]], columns: list[Any], separator: str, n: int
) -> list[str]:
    """Each cell's fragments (one per key, the value its dimension takes there) joined
    by ``separator``, in cell order (Arrow does the n joins)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not fragments:
        return [""] * n
    parts = [pa.array(values, pa.string()).take(columns[d]) for d, values in fragments]
    if len(parts) == 1:
        joined: list[str] = parts[0].to_pylist()
        return joined
    result: list[str] = pc.binary_join_element_wise(*parts, separator).to_pylist()
    return result


def _composed(dims: list[Dimension], shape: list[int], check: Check) -> list[str] | None:
    """Every cell's hash composed from the star around cell 0, after the core has
    checked the star and a sample; ``None`` when the grid does not compose."""
    n = math.prod(shape)
    star_cells = {
        (d, i): tuple(i if e == d else 0 for e in range(len(shape)))
        for d, size in enumerate(shape)
        for i in range(size)
    }
    sample = {_unravel(n - 1 - k * (n - 1) // _SAMPLE, shape) for k in range(_SAMPLE)}
    checked: dict[tuple[int, ...], dict[str, Any]] = {}
    # In cell order, so that the error reported is that of the first bad cell checked.
    for index in sorted({*star_cells.values(), *sample}, key=lambda i: _ravel(i, shape)):
        checked[index] = check(index)
    base = checked[(0,) * len(shape)]
    star = [[checked[star_cells[d, i]] for i in range(size)] for d, size in enumerate(shape)]
    compose = _composer(base, star)
    if compose is None:
        return None
    if any(compose(index) != canonical_hash(checked[index]) for index in sample):
        return None
    return compose.all()

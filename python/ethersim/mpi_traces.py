"""MPI traces: write the CSV that ``[[mpi_jobs]] trace = ...`` replays, for the synthetic
benchmark and for application skeletons shaped after the NAS Parallel Benchmarks.

A trace is one row per operation of each rank, in the rank's order: compute for
``compute_us``, then make ``call`` (docs/mpi.md gives the format and each call's
algorithm). The skeletons here reproduce the *structure* of three NAS kernels'
communication (Bailey et al., "The NAS Parallel Benchmarks", RNR-91-002, 1991) — which
calls, between which ranks, in which order — with sizes and compute times chosen to be
small; they are not measurements of the benchmarks:

- ``ft``: a 3-D FFT by transposes: each iteration computes, makes an alltoall of the
  slab each pair exchanges, and an allreduce of a 16-byte checksum.
- ``cg``: conjugate gradient: each iteration computes a sparse matrix-vector product,
  exchanges a vector segment with its transpose partner, and makes two 8-byte
  allreduces (the dot products).
- ``mg``: multigrid on a 2-D process grid: each iteration exchanges halos with the four
  neighbours of a torus, level by level (halves the size each level), then an allreduce
  of the residual norm.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ethersim.errors import ScenarioError

__all__ = [
    "PATTERNS",
    "Row",
    "TraceTooLarge",
    "cg",
    "ft",
    "mg",
    "synthetic",
    "trace_text",
    "write_trace",
]

#: The columns of a trace, in order.
COLUMNS = ("rank", "compute_us", "call", "bytes", "peers")


@dataclass(frozen=True)
class Row:
    """One operation of one rank."""

    rank: int
    compute_us: float
    call: str
    bytes: int = 0
    peers: tuple[int, ...] = ()


def _us(value: float) -> str:
    # Picosecond resolution, without trailing zeros: what the simulator reads exactly.
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return text or "0"


def trace_text(rows: Iterable[Row], comment: str = "", max_bytes: int | None = None) -> str:
    """The CSV text of ``rows`` (sorted by rank, keeping each rank's order), with
    ``comment`` lines first. With ``max_bytes``, raises :class:`TraceTooLarge` as soon as
    the text would be larger, before the rest of ``rows`` is generated (a trace of a
    billion operations is refused in milliseconds, not after filling the memory)."""
    head = io.StringIO()
    for note in comment.splitlines():
        head.write(f"# {note}\n" if note else "#\n")
    csv.writer(head, lineterminator="\n").writerow(COLUMNS)
    size = len(head.getvalue())
    by_rank: dict[int, io.StringIO] = {}
    line = io.StringIO()
    writer = csv.writer(line, lineterminator="\n")
    for r in rows:
        peers = ";".join(str(p) for p in r.peers)
        call_bytes = "" if r.call in ("barrier", "none") else str(r.bytes)
        line.seek(0)
        line.truncate()
        writer.writerow([r.rank, _us(r.compute_us), r.call, call_bytes, peers])
        text = line.getvalue()
        size += len(text)
        if max_bytes is not None and size > max_bytes:
            raise TraceTooLarge(max_bytes)
        rank_text = by_rank.get(r.rank)
        if rank_text is None:
            rank_text = by_rank[r.rank] = io.StringIO()
        rank_text.write(text)
    return head.getvalue() + "".join(by_rank[rank].getvalue() for rank in sorted(by_rank))


class TraceTooLarge(ScenarioError):
    """A trace would be larger than the most a run reads."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(
            f"the trace would be larger than {max_bytes >> 20} MiB, the most a run reads; "
            "expected fewer ranks or iterations"
        )


def write_trace(rows: Iterable[Row], path: str | Path, comment: str = "") -> Path:
    """Writes ``rows`` as a trace file at ``path``, whole or not at all; raises
    :class:`~ethersim.errors.OutputError` if something other than a regular file is
    there (see :mod:`ethersim.safe_write`)."""
    from ethersim.safe_write import write_text

    return write_text(path, trace_text(rows, comment), "path")


def _check(ranks: int, iterations: int) -> None:
    if ranks < 1 or ranks > 4096:
        raise ScenarioError(f"{ranks} ranks; expected 1 to 4096", "ranks")
    if iterations < 1:
        raise ScenarioError(f"{iterations} iterations; expected at least 1", "iterations")


def synthetic(
    ranks: int, collective: str, size: int, sleep_us: float, iterations: int
) -> Iterator[Row]:
    """The synthetic benchmark as a trace: each rank makes the collective and sleeps,
    ``iterations`` times (the same program as ``[mpi_jobs.synthetic]``)."""
    _check(ranks, iterations)
    if collective not in ("alltoall", "allreduce", "barrier"):
        raise ScenarioError(
            f"{collective!r}; expected alltoall, allreduce or barrier", "collective"
        )
    size = 0 if collective == "barrier" else size
    for rank in range(ranks):
        yield Row(rank, 0.0, collective, size)
        for _ in range(iterations - 1):
            yield Row(rank, sleep_us, collective, size)
        yield Row(rank, sleep_us, "none")


def ft(
    ranks: int, iterations: int, slab_bytes: int = 8192, compute_us: float = 200.0
) -> Iterator[Row]:
    """An FT-shaped skeleton (transposes by alltoall, a checksum allreduce)."""
    _check(ranks, iterations)
    for rank in range(ranks):
        for _ in range(iterations):
            yield Row(rank, compute_us, "alltoall", slab_bytes)
            yield Row(rank, compute_us / 10, "allreduce", 16)
        yield Row(rank, compute_us, "none")


def cg(
    ranks: int, iterations: int, segment_bytes: int = 4096, compute_us: float = 50.0
) -> Iterator[Row]:
    """A CG-shaped skeleton (a transpose-partner exchange, two dot-product allreduces).
    ``ranks`` must be even: rank r's partner is r XOR 1."""
    _check(ranks, iterations)
    if ranks % 2:
        raise ScenarioError(
            f"{ranks} ranks; the cg skeleton pairs ranks, expected an even number", "ranks"
        )
    for rank in range(ranks):
        partner = rank ^ 1
        for _ in range(iterations):
            yield Row(rank, compute_us, "sendrecv", segment_bytes, (partner,))
            yield Row(rank, compute_us / 5, "allreduce", 8)
            yield Row(rank, compute_us / 5, "allreduce", 8)
        yield Row(rank, compute_us, "none")


def mg(
    ranks: int, iterations: int, halo_bytes: int = 16384, levels: int = 3, compute_us: float = 100.0
) -> Iterator[Row]:
    """An MG-shaped skeleton on a square process grid (``ranks`` a square of at least
    4): halo exchanges with the four torus neighbours, halving per level, then a
    residual-norm allreduce."""
    _check(ranks, iterations)
    side = math.isqrt(ranks)
    if side * side != ranks or side < 2:
        raise ScenarioError(
            f"{ranks} ranks; the mg skeleton lays ranks on a square grid, expected a square "
            "of at least 4 (4, 9, 16, ...)",
            "ranks",
        )
    for rank in range(ranks):
        row, col = divmod(rank, side)
        neighbours = sorted(
            {
                ((row - 1) % side) * side + col,
                ((row + 1) % side) * side + col,
                row * side + (col - 1) % side,
                row * side + (col + 1) % side,
            }
            - {rank}
        )
        for _ in range(iterations):
            for level in range(levels):
                size = max(halo_bytes >> level, 8)
                yield Row(rank, compute_us / (1 << level), "sendrecv", size, tuple(neighbours))
            yield Row(rank, compute_us / 10, "allreduce", 8)
        yield Row(rank, compute_us, "none")


#: The skeletons by name, with the shipped traces' settings (16 ranks, 20 iterations).
PATTERNS: dict[str, Callable[[int, int], Iterator[Row]]] = {"ft": ft, "cg": cg, "mg": mg}

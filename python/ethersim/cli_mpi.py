"""``ethersim mpi-trace``: write MPI traces (the synthetic benchmark or an application
skeleton) for ``[[mpi_jobs]] trace = ...`` to replay.

Errors are printed as every command prints them: ``error: <option>: <what was wrong>`` on
standard error, exit status 2; no file is written. The trace is written whole or not at
all, and never over a device, FIFO, link or folder (:mod:`ethersim.safe_write`).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ethersim.cli_common import examples, fail, hold_signals, plain_text
from ethersim.errors import EthersimError, ScenarioError
from ethersim.inputs import MAX_MPI_TRACE_BYTES

if TYPE_CHECKING:
    from ethersim.mpi_traces import Row

__all__ = ["register"]

PATTERN_HELP = "synthetic, ft, cg or mg (see docs/mpi.md)."

#: The option of each parameter of :mod:`ethersim.mpi_traces`' generators: their errors
#: name the parameter (``ranks``), which the user typed as the option (``--ranks``).
OPTIONS = {
    "ranks": "--ranks",
    "iterations": "--iterations",
    "collective": "--collective",
    "size": "--size",
    "sleep_us": "--sleep-us",
}

#: The largest call and compute time a trace may hold: what the simulator's reader
#: accepts (``crates/ethersim-core/src/app/mpi/trace.rs``), so that a trace written is
#: one a run can replay.
MAX_CALL_BYTES = 1 << 40
MAX_COMPUTE_US = 8.64e10


def mpi_trace(
    pattern: Annotated[
        str, typer.Argument(help=PATTERN_HELP, metavar="PATTERN", click_type=plain_text())
    ],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="The trace file to write.", metavar="FILE")
    ],
    ranks: Annotated[int, typer.Option(help="Ranks in the job.", metavar="N")] = 16,
    iterations: Annotated[int, typer.Option(help="Iterations of the pattern.", metavar="N")] = 20,
    collective: Annotated[
        str, typer.Option(help="synthetic: alltoall, allreduce or barrier.", metavar="NAME")
    ] = "alltoall",
    size: Annotated[
        int, typer.Option(help="synthetic: the collective's bytes.", metavar="BYTES")
    ] = 1024,
    sleep_us: Annotated[
        float, typer.Option(help="synthetic: sleep after each call, us.", metavar="US")
    ] = 0,
) -> None:
    """Write an MPI trace: the synthetic benchmark or an NPB-shaped skeleton."""
    from ethersim import mpi_traces
    from ethersim.safe_write import check_writable_file, write_text

    try:
        # Before any work: never over a device, FIFO, link or folder (safe_write), and
        # every option checked where it is given, named as the user typed it.
        check_writable_file(out, "--out")
        _check_options(pattern, ranks, iterations, collective, size, sleep_us)
        make = _generator(pattern, ranks, collective, size, sleep_us)
        try:
            _check_size(make, ranks, iterations)
        except ScenarioError as e:
            # A pattern's own rule (cg pairs ranks, mg needs a square), named as typed.
            raise ScenarioError(e.message, OPTIONS.get(e.path, e.path)) from None
        rows = make(iterations)
        if pattern == "synthetic":
            note = (
                f"synthetic {collective} of {size} B, {sleep_us} us sleep, {iterations} iterations"
            )
        else:
            note = f"{pattern}-shaped skeleton (ethersim.mpi_traces), {iterations} iterations"
        comment = f"{note}, {ranks} ranks\nwritten by ethersim mpi-trace"
        try:
            text = mpi_traces.trace_text(rows, comment, max_bytes=MAX_MPI_TRACE_BYTES)
        except mpi_traces.TraceTooLarge as e:
            raise ScenarioError(e.message, "--iterations") from None
        hold_signals()  # the trace is made: from here a stop is ignored, it is written whole
        write_text(out, text, "--out")
    except EthersimError as e:
        raise fail(e) from None
    operations = text.count("\n") - len(comment.splitlines()) - 1  # less the header
    sys.stdout.write(f"wrote {out} ({operations} operations)\n")


def _generator(
    pattern: str, ranks: int, collective: str, size: int, sleep_us: float
) -> Callable[[int], Iterable[Row]]:
    """The rows of ``pattern`` as a function of the number of iterations."""
    from ethersim import mpi_traces

    if pattern == "synthetic":
        return lambda n: mpi_traces.synthetic(ranks, collective, size, sleep_us, n)
    if pattern in mpi_traces.PATTERNS:
        return lambda n: mpi_traces.PATTERNS[pattern](ranks, n)
    raise ScenarioError(f"{pattern!r}; expected {PATTERN_HELP}", "PATTERN")


def _check_size(make: Callable[[int], Iterable[Row]], ranks: int, iterations: int) -> None:
    """Refuses, at once, a trace larger than the most a run reads. Every pattern repeats
    the same operations each iteration, so its text grows by the same bytes each time:
    one and two iterations give the size of any number, without generating them."""
    from ethersim import mpi_traces

    one = len(mpi_traces.trace_text(make(1)))
    two = len(mpi_traces.trace_text(make(2)))
    if one + (iterations - 1) * (two - one) > MAX_MPI_TRACE_BYTES:
        raise ScenarioError(
            f"{ranks} ranks x {iterations:,} iterations make a trace larger than "
            f"{MAX_MPI_TRACE_BYTES >> 20} MiB, the most a run reads; expected fewer",
            "--iterations",
        )


def _check_options(
    pattern: str, ranks: int, iterations: int, collective: str, size: int, sleep_us: float
) -> None:
    """Raises :class:`ScenarioError` naming the option as typed for a value no trace can
    have (the generators check again, naming their parameters, for API callers)."""

    if not 1 <= ranks <= 4096:
        raise ScenarioError(f"{ranks} ranks; expected 1 to 4096", "--ranks")
    if iterations < 1:
        raise ScenarioError(f"{iterations} iterations; expected at least 1", "--iterations")
    if pattern != "synthetic":
        return
    if collective not in ("alltoall", "allreduce", "barrier"):
        raise ScenarioError(
            f"{collective!r}; expected alltoall, allreduce or barrier", "--collective"
        )
    if not 0 <= size <= MAX_CALL_BYTES:
        raise ScenarioError(f"{size} bytes; expected 0 to 2^40 (1 TiB)", "--size")
    if not math.isfinite(sleep_us) or not 0 <= sleep_us <= MAX_COMPUTE_US:
        raise ScenarioError(
            f"{sleep_us:g} us; expected a number of microseconds from 0 to {MAX_COMPUTE_US:g} "
            "(one day)",
            "--sleep-us",
        )


def register(app: typer.Typer) -> None:
    """Adds ``mpi-trace`` to the ``ethersim`` command."""
    app.command(
        "mpi-trace",
        epilog=examples(
            "ethersim mpi-trace synthetic -o alltoall.csv --ranks 16 --size 4096",
            "ethersim mpi-trace ft -o ft-16.csv --ranks 16",
        ),
    )(mpi_trace)

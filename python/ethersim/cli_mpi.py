"""``ethersim mpi-trace``: write MPI traces (the synthetic benchmark or an application
skeleton) for ``[[mpi_jobs]] trace = ...`` to replay.

Errors are printed as every command prints them: ``error: <option>: <what was wrong>`` on
standard error, exit status 2; no file is written. The trace is written whole or not at
all, and never over a device, FIFO, link or folder (:mod:`ethersim.safe_write`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ethersim.cli_common import examples, fail, plain_text
from ethersim.errors import EthersimError, ScenarioError

__all__ = ["register"]

PATTERN_HELP = "synthetic, ft, cg or mg (see docs/mpi.md)."


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
        # Before any work: never over a device, FIFO, link or folder (safe_write).
        check_writable_file(out, "--out")
        if pattern == "synthetic":
            rows = list(mpi_traces.synthetic(ranks, collective, size, sleep_us, iterations))
            note = (
                f"synthetic {collective} of {size} B, {sleep_us} us sleep, {iterations} iterations"
            )
        elif pattern in mpi_traces.PATTERNS:
            rows = list(mpi_traces.PATTERNS[pattern](ranks, iterations))
            note = f"{pattern}-shaped skeleton (ethersim.mpi_traces), {iterations} iterations"
        else:
            raise ScenarioError(f"{pattern!r}; expected {PATTERN_HELP}", "PATTERN")
        text = mpi_traces.trace_text(rows, f"{note}, {ranks} ranks\nwritten by ethersim mpi-trace")
        write_text(out, text, "--out")
    except EthersimError as e:
        raise fail(e) from None
    sys.stdout.write(f"wrote {out} ({len(rows)} operations)\n")


def register(app: typer.Typer) -> None:
    """Adds ``mpi-trace`` to the ``ethersim`` command."""
    app.command(
        "mpi-trace",
        epilog=examples(
            "ethersim mpi-trace synthetic -o alltoall.csv --ranks 16 --size 4096",
            "ethersim mpi-trace ft -o ft-16.csv --ranks 16",
        ),
    )(mpi_trace)

"""``ethersim model``: the analytic models of :mod:`ethersim.models` on the command line.

``model_app`` is a typer app of its own, added to the ``ethersim`` command by ``cli.py``.
Errors are printed as every command prints them: ``error: <option>: <what was wrong and
what is expected>`` on standard error, exit status 2. Quantities are read with the
scenario files' unit grammar (``2 Gb/s``, ``256 KiB``, ``10 ms``).
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ethersim import inputs
from ethersim.cli_common import (
    closed_pipe_is_success,
    examples,
    fail,
    fmt_rate,
    fmt_time,
    out_console,
    plain_text,
)
from ethersim.errors import ScenarioError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["model_app"]

model_app = typer.Typer(
    name="model",
    help="Analytic models beside the simulator.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

DEFAULT_RATES = ["2 Gb/s", "4 Gb/s", "6 Gb/s"]
DEFAULT_BUFFERS = ["0 B", "128 KiB", "256 KiB", "512 KiB", "1 MiB"]


@model_app.callback()
def _model() -> None:
    """Analytic models beside the simulator."""
    # A callback keeps `model` a group even while it has one command, so that the command
    # is `ethersim model burst-loss`, not `ethersim model`.


def _fail(error: ScenarioError) -> SystemExit:
    """Prints ``error: <path>: <message>`` on standard error; the exit (status 2) to raise."""
    return fail(error)


def _quantity(kind: str, text: str, option: str) -> int:
    """``text`` read as a quantity of ``kind`` (``rate`` in bit/s, ``size`` in bytes,
    ``duration`` in picoseconds); a :class:`ScenarioError` at ``option`` if it is not."""
    from ethersim import _core

    return _core.parse_quantity(kind, text, option)


def _positive(kind: str, text: str, option: str, unit: str) -> int:
    value = _quantity(kind, text, option)
    if value == 0:
        raise ScenarioError(f"{text!r} is zero; expected a {kind} greater than 0 {unit}", option)
    return value


@closed_pipe_is_success
def _write_out(
    table: pd.DataFrame, csv: bool, burst_bytes: int, dark_s: float, packets: bool
) -> None:
    """Prints the table (a reader that stops reading, ``| head -3``, is not a failure)."""
    if csv:
        table.to_csv(sys.stdout, index=False, lineterminator="\n")
    else:
        _print_table(table, burst_bytes, dark_s, packets)


def _fmt_bytes(n: float) -> str:
    """``2,500,000 B``; a fraction of a byte (the model allows one) to three places."""
    return f"{n:,.0f} B" if float(n).is_integer() else f"{n:,.3f} B"


def _print_table(table: pd.DataFrame, burst_bytes: int, dark_s: float, packets: bool) -> None:
    from rich.table import Table

    console = out_console()
    console.print(f"burst of {burst_bytes:,} B, link dark {fmt_time(dark_s)}", highlight=False)
    out = Table()
    columns = ["rate", "buffer", "lost", "lost bytes"] + (["lost packets"] if packets else [])
    for column in columns:
        out.add_column(column, justify="right")
    shown = ("rate_bps", "buffer_bytes", "lost_percent", "lost_bytes", "lost_packets")
    columns_shown = (table[c].tolist() for c in shown)
    for rate, buffer, percent, lost, lost_packets in zip(*columns_shown, strict=True):
        cells = [fmt_rate(rate), _fmt_bytes(buffer), f"{percent:.4g}%", _fmt_bytes(lost)]
        if packets:
            cells.append(f"{lost_packets:,}")
        out.add_row(*cells)
    console.print(out)


@model_app.command(
    "burst-loss",
    help="What a burst loses into a link that is dark while it switches rate.\n\n"
    "Lost = max(0, R * min(8B / R, T) - 8S) bits, for a burst of B bytes arriving at rate R "
    "into a link dark for T behind a buffer of S bytes; nothing drains while the link is "
    "dark, and nothing is lost once it is back. One row per rate and buffer.",
    epilog=examples(
        "ethersim model burst-loss",
        'ethersim model burst-loss --rate "6 Gb/s" --buffer "1 MB" --packet "1500 B"',
    ),
)
def burst_loss(
    rate: Annotated[
        list[str] | None,
        typer.Option(
            "--rate",
            help="Rate at which the burst fills the buffer (frame bytes per second x 8; "
            "C*F/(F+20) for frames of F bytes at line rate C). Repeatable. "
            f"Default: {', '.join(DEFAULT_RATES)}.",
            show_default=False,
            metavar="RATE",
        ),
    ] = None,
    burst: Annotated[
        str, typer.Option("--burst", help="Size of the burst.", metavar="SIZE")
    ] = "10 MB",
    dark: Annotated[
        str, typer.Option("--dark", help="Time the link is dark.", metavar="TIME")
    ] = "10 ms",
    buffer: Annotated[
        list[str] | None,
        typer.Option(
            "--buffer",
            help="Buffer in front of the link, empty when the burst starts. Repeatable. "
            f"Default: {', '.join(DEFAULT_BUFFERS)}.",
            show_default=False,
            metavar="SIZE",
        ),
    ] = None,
    packet: Annotated[
        str | None,
        typer.Option(
            "--packet", help="Mean packet length, to count the packets lost.", metavar="SIZE"
        ),
    ] = None,
    csv: Annotated[
        bool,
        typer.Option("--csv", help="Print the table as CSV instead of a table."),
    ] = False,
) -> None:
    """What a burst loses into a link that is dark while it switches rate (the model:
    :mod:`ethersim.models.burst`); a table, or CSV with ``--csv``."""
    from ethersim.models import burst_loss_curve

    try:
        rates = [_positive("rate", text, "--rate", "b/s") for text in rate or DEFAULT_RATES]
        buffers = [_quantity("size", text, "--buffer") for text in buffer or DEFAULT_BUFFERS]
        burst_bytes = _positive("size", burst, "--burst", "B")
        dark_s = Fraction(_quantity("duration", dark, "--dark"), 10**12)
        packet_bytes = None if packet is None else _positive("size", packet, "--packet", "B")
        table = burst_loss_curve(rates, buffers, burst_bytes, dark_s, packet_bytes)
    except ScenarioError as e:
        raise _fail(e) from None
    _write_out(table, csv, burst_bytes, float(dark_s), packets=packet is not None)


def _read_csv(path: str, columns: tuple[str, ...], option: str) -> pd.DataFrame:
    """The CSV file at ``path`` (given with ``option``) with ``columns`` (numbers); a
    :class:`ScenarioError` naming the option, if the file cannot be read (see
    :mod:`ethersim.inputs`), or the file and what is missing or wrong otherwise."""
    import io

    import pandas as pd

    data = inputs.read_bytes(path, option, "CSV table", inputs.MAX_CSV_BYTES)
    try:
        table = pd.read_csv(io.BytesIO(data))
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise ScenarioError(f"not a CSV table: {e}", path) from None
    return _check_numbers(table, columns, path)


def _check_numbers(table: pd.DataFrame, columns: tuple[str, ...], path: str) -> pd.DataFrame:
    """``table``, its ``columns`` (which must be there) as numbers; a
    :class:`ScenarioError` naming ``path`` otherwise."""
    import pandas as pd

    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ScenarioError(
            f"missing column(s) {', '.join(missing)}; expected {', '.join(columns)}", path
        )
    for c in columns:
        values = pd.to_numeric(table[c], errors="coerce")
        if values.isna().any():
            row = int(values.isna().to_numpy().argmax())
            raise ScenarioError(f"row {row + 1}, column {c}: not a number", path)
        table[c] = values
    return table


GAPS_HELP = (
    "Use the distribution-aware variant: a CSV file with columns point, gap_us and "
    "per_communication (each idle gap of a point's histogram, and how many such gaps a node "
    "has per communication; `ethersim reproduce eee-hpc` writes eee_hpc_gaps.csv)."
)


def _interval_column(table: pd.DataFrame) -> str:
    """``interval_us``, or ``idle_interval_us`` (as `reproduce eee-hpc` names it) when the
    table has only that."""
    header = table.columns
    return (
        "idle_interval_us"
        if "interval_us" not in header and "idle_interval_us" in header
        else "interval_us"
    )


def _read_gaps(path: str, points: pd.Series) -> list[tuple[Any, Any]]:
    """The idle-gap histogram of each point, in the order of ``points``."""
    table = _read_csv(path, ("point", "gap_us", "per_communication"), "--gaps")
    by_point = {k: g for k, g in table.groupby("point")}
    out: list[tuple[Any, Any]] = []
    for p in points:
        g = by_point.get(p)
        if g is None:
            raise ScenarioError(f"no gaps for point {p}; every point needs its gaps", path)
        out.append((g.gap_us.to_numpy(), g.per_communication.to_numpy()))
    return out


@model_app.command(
    "eee-fit",
    help="Fit the EEE performance model, f(I) = c (1 - exp(-alpha (I - t))) for I > t, "
    "else 0, by least squares. POINTS is a CSV file with columns interval_us and overhead_us "
    "(the mean idle interval and the overhead per communication, us); with --gaps, columns "
    "point and overhead_us, and f is summed over each point's measured idle gaps.",
    epilog=examples(
        "ethersim model eee-fit points.csv",
        "ethersim model eee-fit results/eee-hpc/eee_hpc_points.csv "
        "--gaps results/eee-hpc/eee_hpc_gaps.csv",
    ),
)
def eee_fit(
    points: Annotated[
        str,
        typer.Argument(
            help="CSV file: interval_us, overhead_us.", metavar="POINTS", click_type=plain_text()
        ),
    ],
    gaps: Annotated[str | None, typer.Option("--gaps", help=GAPS_HELP, metavar="FILE")] = None,
) -> None:
    """Fits c, alpha and t (the model: :mod:`ethersim.models.eee_perf`) and prints them."""
    from ethersim.models.eee_perf import fit_gaps, fit_mean_interval

    try:
        if gaps is None:
            table = _read_csv(points, (), "POINTS")
            column = _interval_column(table)
            table = _check_numbers(table, (column, "overhead_us"), points)
            table["interval_us"] = table[column]
            fit = fit_mean_interval(table.interval_us.to_numpy(), table.overhead_us.to_numpy())
        else:
            table = _read_csv(points, ("point", "overhead_us"), "POINTS")
            histograms = _read_gaps(gaps, table.point)
            fit = fit_gaps(histograms, table.overhead_us.to_numpy())
    except ScenarioError as e:
        raise _fail(e) from None
    m = fit.model
    out_console().print(
        f"c = {m.c_us:.6g} us, alpha = {m.alpha_per_us:.6g} per us, t = {m.t_us:.6g} us "
        f"({fit.points} points, rms residual {fit.rms_us:.4g} us)",
        highlight=False,
    )


@model_app.command(
    "eee-predict",
    help="Predict elapsed times with EEE from application profiles: T = T_base + n f(I), "
    "I = T_base / n - 8 S / B. PROFILE is a CSV file with columns t_base_s, communications, "
    "mean_bytes and bandwidth_bps (with --gaps: point, t_base_s and communications, and f is "
    "summed over each point's idle gaps); prints it back with elapsed_s and overhead_percent.",
    epilog=examples("ethersim model eee-predict profiles.csv --c 61 --alpha 0.137 --t 335"),
)
def eee_predict(
    profile: Annotated[
        str,
        typer.Argument(
            help="CSV file of application profiles.", metavar="PROFILE", click_type=plain_text()
        ),
    ],
    c: Annotated[float, typer.Option("--c", help="Penalty ceiling, us.", metavar="US")],
    alpha: Annotated[float, typer.Option("--alpha", help="Rise rate, per us.", metavar="PER_US")],
    t: Annotated[
        float, typer.Option("--t", help="Timeout below which nothing is paid, us.", metavar="US")
    ],
    gaps: Annotated[str | None, typer.Option("--gaps", help=GAPS_HELP, metavar="FILE")] = None,
) -> None:
    """Applies the model to each profile; CSV on standard output."""
    from ethersim.models.eee_perf import EeeModel, gaps_penalty_us, idle_interval_us

    try:
        # Each named as typed. Infinity is no parameter either (an infinite ceiling makes
        # every elapsed time infinite), and NaN is caught by isfinite.
        for value, option, expected in (
            (c, "--c", "a finite number of microseconds, 0 or more"),
            (alpha, "--alpha", "a finite number per microsecond, above 0"),
            (t, "--t", "a finite number of microseconds, 0 or more"),
        ):
            if not math.isfinite(value) or value < 0 or (option == "--alpha" and value == 0):
                raise ScenarioError(f"{value}; expected {expected}", option)
        model = EeeModel(c, alpha, t)
        if gaps is None:
            columns = ("t_base_s", "communications", "mean_bytes", "bandwidth_bps")
            table = _read_csv(profile, columns, "PROFILE")
            rows = list(zip(*(table[k] for k in columns), strict=True))
            table["interval_us"] = [idle_interval_us(*r) for r in rows]
            table["elapsed_s"] = [model.elapsed_s(*r) for r in rows]
        else:
            table = _read_csv(profile, ("point", "t_base_s", "communications"), "PROFILE")
            histograms = _read_gaps(gaps, table.point)
            penalty = [gaps_penalty_us(model, v, w) for v, w in histograms]
            table["elapsed_s"] = table.t_base_s + table.communications * _series(penalty) * 1e-6
    except ScenarioError as e:
        raise _fail(e) from None
    table["overhead_percent"] = 100 * (table.elapsed_s / table.t_base_s - 1)
    _write_csv_out(table)


def _series(values: list[float]) -> pd.Series:
    """``values`` as a pandas series (pandas is imported on first use)."""
    import pandas as pd

    return pd.Series(values, dtype=float)


@closed_pipe_is_success
def _write_csv_out(table: pd.DataFrame) -> None:
    table.to_csv(sys.stdout, index=False, lineterminator="\n")

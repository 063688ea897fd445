"""``ethersim what-if TRACE``: a packet trace, a PHY type, and a table of the energy each
built-in Low Power Idle policy would save on it and the delay it would add.

Errors are printed as every command prints them: ``error: <option>: <what was wrong>`` on
standard error, exit status 2; nothing is written.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated

import typer

from ethersim import stopping
from ethersim.cli_common import (
    closed_pipe_is_success,
    examples,
    fail,
    literal,
    out_console,
    plain_text,
)
from ethersim.errors import EthersimError, ScenarioError

__all__ = ["register"]

#: The most frames a coalescing policy may wait for (the scenario's ``frames`` is 32-bit).
MAX_FRAMES = 2**32 - 1


def what_if(
    trace: Annotated[
        str,
        typer.Argument(
            help="A packet trace: a pcap or pcapng file.", metavar="TRACE", click_type=plain_text()
        ),
    ],
    phy: Annotated[
        str,
        typer.Option(
            "--phy", help="The PHY type: 100BASE-TX, 1000BASE-T or 10GBASE-T.", metavar="PHY"
        ),
    ] = "10GBASE-T",
    timeout: Annotated[
        list[str] | None,
        typer.Option(
            "--timeout",
            help="An idle timeout to compare (repeatable; default 10 us, 100 us, 1 ms).",
            metavar="TIME",
        ),
    ] = None,
    coalesce: Annotated[
        list[str] | None,
        typer.Option(
            "--coalesce",
            help="A coalescing timer to compare (repeatable; default 100 us and 1 ms).",
            metavar="TIME",
        ),
    ] = None,
    frames: Annotated[
        int,
        typer.Option("--frames", help="Frames that end coalescing at once.", min=1, metavar="N"),
    ] = 16,
    time_scale: Annotated[
        float,
        typer.Option(
            "--time-scale", help="Multiply the trace's gaps (0.5: twice as fast).", metavar="FACTOR"
        ),
    ] = 1.0,
    csv: Annotated[
        Path | None,
        typer.Option("--csv", help="Also write the table to this CSV file.", metavar="FILE"),
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs", "-j", help="Runs at once (default: every core).", min=1, metavar="N"
        ),
    ] = None,
) -> None:
    """What would Energy Efficient Ethernet save, and what delay would it add, on a trace?"""
    from ethersim import _core
    from ethersim.safe_write import check_writable_file, write_file
    from ethersim.whatif import WhatIf, run_what_if

    try:
        # Checked here, named as typed: the scenario built from them would name its own
        # keys (apps[0].time_scale), which the user never wrote.
        if not math.isfinite(time_scale) or time_scale <= 0:
            raise ScenarioError(
                f"{time_scale} is not a positive number; expected, e.g., 0.5 to replay "
                "twice as fast",
                "--time-scale",
            )
        if frames > MAX_FRAMES:
            raise ScenarioError(f"{frames:,} frames; expected 1 to {MAX_FRAMES:,}", "--frames")
        for option, values in (("--timeout", timeout or []), ("--coalesce", coalesce or [])):
            for v in values:
                if _core.parse_quantity("duration", v, option) == 0:
                    raise ScenarioError(f"{v!r} is no time; expected a duration above 0 s", option)
        if csv is not None:
            check_writable_file(csv, "--csv")
        question = WhatIf(
            trace=Path(trace),
            phy=phy,
            timeouts=timeout or ["10 us", "100 us", "1 ms"],
            coalescing_timers=coalesce or ["100 us", "1 ms"],
            coalescing_frames=frames,
            time_scale=time_scale,
            jobs=jobs,
        )
        tr, table = run_what_if(question)
    except EthersimError as e:
        raise fail(e) from None
    if csv is not None:
        from ethersim.batch import write_csv

        try:
            stopping.check()  # a stop something swallowed still writes nothing
            write_file(csv, lambda tmp: write_csv(table, tmp), "--csv")
        except EthersimError as e:
            raise fail(e) from None
    _print(tr, table, phy, trace)
    _warn_of_runs_cut_short(table)


def _warn_of_runs_cut_short(table: object) -> None:
    """A warning for each run that did not replay the whole trace (``--time-scale`` is
    refused up front when the replay cannot fit the clock; this says so should a run
    still stop early): its row compares only the part it simulated."""
    import pandas as pd
    from rich.text import Text

    from ethersim.cli_common import err_console, fmt_time

    assert isinstance(table, pd.DataFrame)
    for r in table.to_dict("records"):
        if r["stop_reason"] == "work_done":
            continue
        run = f"{r['policy']} {r['setting']}".strip()
        err_console().print(
            Text.assemble(
                ("warning: ", "bold yellow"),
                literal(
                    f"the {run} run stopped at {fmt_time(r['sim_time_s'])} of simulated time "
                    f"(stop_reason {r['stop_reason']}): its numbers cover only the part it "
                    "simulated, not the whole trace"
                ),
            )
        )


def _print(tr: object, table: object, phy: str, trace: str) -> None:
    import math

    import pandas as pd
    from rich.table import Table
    from rich.text import Text

    from ethersim.traces import Trace
    from ethersim.whatif import PHY_RATES

    assert isinstance(tr, Trace) and isinstance(table, pd.DataFrame)
    load = tr.mean_rate_bps / float(_rate_bps(PHY_RATES[phy]))
    out_console().print(
        Text.assemble(
            literal(trace, "bold"),
            f": {len(tr):,} frames over {tr.span_s:.6g} s, {tr.mean_rate_bps / 1e6:.4g} Mb/s "
            f"({load:.2%} of {phy})",
        ),
        highlight=False,
    )
    t = Table(title_justify="left")
    for col in ("policy", "setting", "energy", "saved", "sleeps", "added delay mean", "p99", "max"):
        t.add_column(col, justify="left" if col in ("policy", "setting") else "right")

    def us(value: float | None) -> str:
        # None when a frame was lost in one run (never with the what-if's buffers).
        return "—" if value is None or math.isnan(value) else f"{value:.3f} us"

    for r in table.to_dict("records"):
        t.add_row(
            str(r["policy"]),
            str(r["setting"]),
            f"{r['energy_j']:.4g} J",
            f"{r['energy_saved_percent']:.1f} %",
            f"{r['sleeps']:,}",
            us(r["added_delay_mean_us"]),
            us(r["added_delay_p99_us"]),
            us(r["added_delay_max_us"]),
        )
    out_console().print(t)


def _rate_bps(text: str) -> int:
    from ethersim import _core

    return _core.parse_quantity("rate", text)


def register(app: typer.Typer) -> None:
    """Adds ``what-if`` to the ``ethersim`` command."""
    app.command(
        "what-if",
        epilog=examples(
            "ethersim what-if examples/traces/office.pcapng --phy 1000BASE-T",
            'ethersim what-if capture.pcap --timeout "50 us" --coalesce "1 ms" --csv policies.csv',
        ),
    )(closed_pipe_is_success(what_if))

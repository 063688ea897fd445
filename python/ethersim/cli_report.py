"""`ethersim report`: the page of a results folder, of two run folders side by side, or
of a sweep results database."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ethersim.cli_common import (
    closed_pipe_is_success,
    examples,
    fail,
    hold_signals,
    literal,
    out_console,
    plain_text,
)
from ethersim.errors import EthersimError, ScenarioError


def report(
    folders: Annotated[
        list[str],
        typer.Argument(
            help="A results folder (of `ethersim run --out` or of a reproduction), two "
            "run folders to compare (A B), or a sweep results database (a .duckdb file).",
            metavar="DIR...",
            click_type=plain_text(),
        ),
    ],
    out: Annotated[
        str | None,
        typer.Option(
            "--out",
            help="The comparison page of two folders (default: compare-A-B.html beside A; "
            "never inside a results folder), or the page of a database (default: "
            "DB-report.html beside it).",
            metavar="FILE",
        ),
    ] = None,
    sweep: Annotated[
        str | None,
        typer.Option(
            "--sweep",
            help="Only this sweep of the database (default: every sweep in it).",
            metavar="NAME",
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")] = False,
) -> None:
    """Write report.html (tables, interactive figures, files, scenario, version, seed)
    into a results folder, one page comparing two run folders, or one page for a sweep
    results database (each sweep's grid, a figure per metric, its cells)."""
    from ethersim.report import build_comparison, build_report
    from ethersim.report.sweep import build_sweep_report

    try:
        if len(folders) > 2:
            raise ScenarioError(
                f"{len(folders)} folders given; expected one results folder, or two run "
                "folders to compare",
                "DIR",
            )
        if len(folders) == 1 and Path(folders[0]).is_file():
            # A file is a sweep's results database (a folder is never one).
            page = build_sweep_report(folders[0], sweep, out, before_writing=hold_signals)
        else:
            if sweep is not None:
                raise ScenarioError(
                    "--sweep names a sweep of a results database (ethersim report "
                    "DB.duckdb --sweep NAME); expected no --sweep with folders",
                    "--sweep",
                )
            if len(folders) == 1 and out is not None:
                raise ScenarioError(
                    "--out names the page comparing two folders or of a database; the "
                    "report of one folder is DIR/report.html",
                    "--out",
                )
            page = (
                build_report(folders[0], before_writing=hold_signals)
                if len(folders) == 1
                else build_comparison(folders[0], folders[1], out, before_writing=hold_signals)
            )
    except EthersimError as e:
        raise fail(e) from None
    if not quiet:
        from rich.text import Text

        out_console().print(Text.assemble("report written to ", literal(page)), highlight=False)


def register(app: typer.Typer) -> None:
    """Adds ``report`` to the ``ethersim`` command."""
    app.command(
        epilog=examples(
            "ethersim report results/udp-file          # results/udp-file/report.html",
            "ethersim report results/a results/b       # results/compare-a-b.html",
            "ethersim report results/a results/b --out a-vs-b.html",
            "ethersim report fan-in.duckdb             # fan-in-report.html: every sweep in it",
            "ethersim report fan-in.duckdb --sweep fan-in-sweep --out fan-in.html",
        )
    )(closed_pipe_is_success(report))

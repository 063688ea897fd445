"""The ``ethersim`` command line.

Exit status: 0 success (also when the reader of standard output stops reading, as
``| head`` does, and a run ended at --max-wall or at the end of the clock, with its
results written and a line saying why); 2 bad input (a malformed scenario, an unknown
option, an output folder that cannot be used, checked before the run); 3 a bug in
ethersim (an internal error); 1 any other ethersim error; 130 interrupted (Ctrl-C) and
143 terminated (SIGTERM), with nothing written. Mapped in one place:
:func:`_exit_status`. Text that comes from the user (names, paths, values) is printed as
it is, never read as markup, with control characters shown as escapes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ethersim import api, cli_run, stopping
from ethersim.cli_common import closed_pipe_is_success as _closed_pipe_is_success
from ethersim.cli_common import count as _count
from ethersim.cli_common import examples, out_console, plain_text
from ethersim.cli_common import fail as _fail
from ethersim.cli_common import literal as _literal
from ethersim.cli_common import visible as _visible
from ethersim.errors import EthersimError

core_app = typer.Typer(
    name="ethersim",
    help="Fast, deterministic packet-level simulator for Ethernet performance and energy.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
"""The command with the commands this module defines; :func:`full_app` adds the rest."""


SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        help="Override a scenario value: --set 'links[0].rate=10 Gb/s' (repeatable).",
        metavar="KEY=VALUE",
    ),
]


@core_app.command(
    epilog=examples(
        "ethersim run examples/udp-file.toml",
        "ethersim run examples/tcp-file.toml --set 'apps[0].size=5 MB' --out results/tcp",
        "ethersim run examples/poisson-fan-in.toml --seed 7 --format json > summary.json",
    )
)
def run(
    # Taken as text: a path as the user wrote it is named as written ("dir/" stays so).
    scenario: Annotated[
        str,
        typer.Argument(
            help="Scenario file (TOML), or - for standard input.",
            metavar="SCENARIO",
            click_type=plain_text(),
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Write summary.json and Parquet tables here.", metavar="DIR"),
    ] = None,
    set_: SetOption = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Replace the scenario's seed.", metavar="SEED")
    ] = None,
    pcap: Annotated[
        list[str] | None,
        typer.Option(
            "--pcap",
            help="Capture this port's frames (node->peer) to OUT/captures/ as pcapng "
            "(repeatable; needs --out).",
            metavar="PORT",
        ),
    ] = None,
    pcap_limit: Annotated[
        str | None,
        typer.Option(
            "--pcap-limit",
            help="The size bound of each --pcap capture file (default 1 GiB): past it the "
            "capture keeps no more frames, and the run goes on.",
            metavar="SIZE",
        ),
    ] = None,
    snaplen: Annotated[
        int | None,
        typer.Option(
            "--snaplen",
            help="Bytes kept of each frame by --pcap captures (default: whole frames).",
            min=64,
            metavar="BYTES",
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")] = False,
    output_format: Annotated[
        str,
        typer.Option(
            "--format",
            help="table: readable tables (the first rows of each); json: the whole summary, "
            "as summary.json holds it, for programs.",
            metavar="table|json",
        ),
    ] = "table",
    max_wall: Annotated[
        float | None,
        typer.Option(
            "--max-wall",
            help="End the run after this many seconds of wall time, keeping and writing "
            "what it simulated (stop_reason wall_limit, exit 0).",
            min=0.0,
            metavar="SECONDS",
        ),
    ] = None,
) -> None:
    """Run a scenario and print its results."""
    cli_run.run(
        scenario,
        out=out,
        set_=set_,
        seed=seed,
        pcap=pcap,
        pcap_limit=pcap_limit,
        snaplen=snaplen,
        quiet=quiet,
        output_format=output_format,
        max_wall=max_wall,
    )


@core_app.command(
    epilog=examples(
        "ethersim validate examples/eee-ping.toml",
        "ethersim validate examples/tcp-file.toml --set 'links[1].rate=100 Mb/s'",
    )
)
@_closed_pipe_is_success
def validate(
    # Taken as text: a path as the user wrote it is named as written ("dir/" stays so).
    scenario: Annotated[
        str,
        typer.Argument(
            help="Scenario file (TOML), or - for standard input.",
            metavar="SCENARIO",
            click_type=plain_text(),
        ),
    ],
    set_: SetOption = None,
) -> None:
    """Check a scenario without running it."""
    try:
        checked = api.validate(scenario, overrides=set_ or [])
    except EthersimError as e:
        raise _fail(e) from None
    from rich.text import Text

    counts = ", ".join(
        _count(len(checked[key]), noun)
        for key, noun in (
            ("hosts", "host"),
            ("switches", "switch"),
            ("links", "link"),
            ("apps", "app"),
        )
    )
    out_console().print(Text.assemble(_literal(scenario), f": ok ({counts})"), highlight=False)


@core_app.command(
    epilog=examples(
        "ethersim schema > scenario.schema.json",
        "ethersim schema --markdown > scenarios.md",
        "ethersim schema --sweep",
    )
)
@_closed_pipe_is_success
def schema(
    markdown: Annotated[
        bool, typer.Option("--markdown", help="Print the scenario reference as Markdown.")
    ] = False,
    sweep: Annotated[
        bool, typer.Option("--sweep", help="Print the JSON Schema of sweep files instead.")
    ] = False,
) -> None:
    """Print the JSON Schema of scenario files (or its Markdown reference)."""
    if sweep:
        from ethersim.sweeps.spec import SCHEMA

        sys.stdout.write(json.dumps(SCHEMA, indent=2) + "\n")
        return
    if markdown:
        from ethersim import schema_doc

        sys.stdout.write(schema_doc.render(api.schema()))
    else:
        sys.stdout.write(json.dumps(api.schema(), indent=2) + "\n")


@core_app.command(epilog=examples("ethersim bench", "ethersim bench --scenario tcp-file-500MB"))
@_closed_pipe_is_success
def bench(
    name: Annotated[
        list[str] | None,
        typer.Option("--scenario", help="Run only this bench scenario.", metavar="NAME"),
    ] = None,
) -> None:
    """Run the fixed bench scenarios, one process each, and print their figures as JSON."""
    try:
        from ethersim import benchmark

        figures = benchmark.run_all(name or None)
    except EthersimError as e:
        raise _fail(e) from None
    sys.stdout.write(json.dumps(figures, indent=2) + "\n")


CORE_COMMANDS = frozenset({"run", "validate", "schema", "bench"})
"""The commands this module defines itself. Invoked by name, one of these runs with the
command tree built of these alone: the other commands' modules (studies, sweeps,
models, reports: pandas, DuckDB, scipy behind them) are not imported."""

_subcommands_added = False


def _add_subcommands() -> None:
    """Adds every command defined in another module (once)."""
    global _subcommands_added
    if _subcommands_added:
        return
    _subcommands_added = True
    from ethersim import cli_mpi, cli_report, cli_sweep, cli_whatif
    from ethersim.cli_model import model_app
    from ethersim.cli_reproduce import reproduce_app

    core_app.add_typer(model_app)
    core_app.add_typer(reproduce_app)
    cli_report.register(core_app)
    cli_sweep.register(core_app)
    cli_mpi.register(core_app)
    cli_whatif.register(core_app)


def full_app() -> typer.Typer:
    """The ``ethersim`` command with every command (for ``--help``, an unknown word, and
    tests that invoke it in-process)."""
    _add_subcommands()
    return core_app


def _app_for(args: list[str]) -> typer.Typer:
    """The command tree ``args`` needs: the core commands alone when the first word names
    one of them (help for that command included: it lists no other command); every
    command otherwise."""
    if args and args[0] in CORE_COMMANDS:
        return core_app
    return full_app()


def __getattr__(name: str) -> Any:
    # ``ethersim.cli.app`` is the whole command (every command's module imported on
    # first use of the name), as it was before the core commands could run alone.
    if name == "app":
        return full_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _print_version(value: bool) -> None:
    if value:
        from ethersim._version import __version__

        sys.stdout.write(f"ethersim {__version__}\n")
        raise typer.Exit(0)


@core_app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Print the version and exit.", callback=_print_version, is_eager=True
        ),
    ] = False,
) -> None:
    """Fast, deterministic packet-level simulator for Ethernet performance and energy."""


def _escape_usage_errors() -> None:
    """typer prints its own usage errors (an unknown option, a bad value) with the user's
    text inside; it escapes markup but not format characters (U+202E would reorder the
    line). Escape the message before typer formats it.

    typer imports its formatter module only when an error occurs (so that a run imports
    no table code); the formatter is wrapped at that moment, by a finder that watches for
    that one import. The typer version range is pinned in pyproject.toml.
    """
    import importlib.abc
    import importlib.machinery

    class WrapOnImport(importlib.abc.MetaPathFinder):
        def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
            if name != "typer.rich_utils":
                return None
            sys.meta_path.remove(self)
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            if spec is None or spec.loader is None:
                return spec
            load = spec.loader.exec_module

            def exec_module(module: Any) -> None:
                load(module)
                original = module.rich_format_error

                def format_error(error: Any) -> None:
                    if isinstance(getattr(error, "message", None), str):
                        error.message = _visible(error.message)
                    original(error)

                module.rich_format_error = format_error

            spec.loader.exec_module = exec_module  # type: ignore[method-assign]
            return spec

    if "typer.rich_utils" not in sys.modules:
        sys.meta_path.insert(0, WrapOnImport())


def main() -> None:
    """The ``ethersim`` command, once its modules are imported (the ``ethersim`` script enters
    through :mod:`ethersim._entry`, which handles signals before importing this)."""
    stopping.install()  # again, for `python -m ethersim.cli`: harmless when done
    _escape_usage_errors()
    try:
        _app_for(sys.argv[1:])()
    except SystemExit as e:
        # typer turns a Ctrl-C no command caught into a silent exit 130: say it.
        stops = stopping.EXIT_STATUS.values()
        if e.code in stops and stopping.received() is not None and not stopping.reported():
            raise SystemExit(stopping.report(None, "nothing was written")) from None
        raise
    except (KeyboardInterrupt, stopping.Terminated) as e:
        # A stop outside a command's own handling (while its options are parsed, or its
        # modules imported): nothing was written yet. 130 or 143 with the message.
        raise SystemExit(stopping.report(e, "nothing was written")) from None
    except Exception:
        # A library that turned the interrupt into an error of its own (an import cut
        # short, DuckDB's "Query interrupted") is reported as the stop it was.
        if stopping.received() is not None:
            raise SystemExit(stopping.report(None, "nothing was written")) from None
        raise


if __name__ == "__main__":
    main()

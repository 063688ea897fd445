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
import math
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ethersim import api, stopping
from ethersim.cli_common import (
    Terminated,
    err_console,
    examples,
    finish_writing,
    hold_signals,
    out_console,
    plain_text,
)
from ethersim.cli_common import closed_pipe_is_success as _closed_pipe_is_success
from ethersim.cli_common import count as _count
from ethersim.cli_common import fail as _fail
from ethersim.cli_common import fmt_time as _fmt_time
from ethersim.cli_common import literal as _literal
from ethersim.cli_common import stopped as _stopped
from ethersim.cli_common import visible as _visible
from ethersim.errors import (
    EthersimError,
    ScenarioError,
    WallLimitReached,
)
from ethersim.results import (
    Result,
    capture_folder,
    check_output_folder,
    import_writers,
    output_path,
)
from ethersim.safe_write import missing_folders, remove_folders

core_app = typer.Typer(
    name="ethersim",
    help="Fast, deterministic packet-level simulator for Ethernet performance and energy.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
"""The command with the commands this module defines; :func:`full_app` adds the rest."""


class _Watch:
    """The progress callback of a CLI run: on a terminal, a live progress bar (rich) of
    simulated time once the run has taken a second (``simulated 1.2 s of 10 s ━━━ 3,400,000
    events, 12.1 M events/s  elapsed 0:00:01 left 0:00:08``); a line a minute when
    standard error is a log; and the ``--max-wall`` limit, which ends the run keeping
    its results (:class:`WallLimitReached`)."""

    def __init__(self, max_wall: float | None) -> None:
        import time

        self.clock = time.monotonic
        self.start = self.clock()
        self.max_wall = max_wall
        self.live = sys.stderr.isatty()
        self.next_report = 1.0 if self.live else 60.0
        self.bar: Any = None

    def __call__(self, sim_s: float, events: int, until_s: float | None) -> None:
        stopping.check()
        elapsed = self.clock() - self.start
        if self.max_wall is not None and elapsed > self.max_wall:
            raise WallLimitReached(f"--max-wall ({self.max_wall:g} s)")
        if elapsed < self.next_report:
            return
        self.next_report = elapsed + (0.25 if self.live else 60.0)
        status = f"{events:,} events, {events / elapsed / 1e6:.1f} M events/s"
        if self.live:
            self._show(sim_s, until_s, status)
            return
        line = f"simulated {_fmt_time(sim_s)}"
        if until_s:
            line += f" of {_fmt_time(until_s)}"
            if sim_s > 0:
                line += f", about {_fmt_time(elapsed * (until_s - sim_s) / sim_s)} to go"
        sys.stderr.write(f"{line}; {status}; elapsed {_fmt_time(elapsed)}\n")
        sys.stderr.flush()

    def _show(self, sim_s: float, until_s: float | None, status: str) -> None:
        if self.bar is None:
            from rich.progress import (
                BarColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self.bar = Progress(
                TextColumn("simulated {task.fields[sim]}{task.fields[until]}"),
                BarColumn(),
                TextColumn("{task.fields[status]}  elapsed"),
                TimeElapsedColumn(),
                TextColumn("left"),
                TimeRemainingColumn(),
                console=err_console(),
                transient=True,
            )
            self.task = self.bar.add_task("run", total=until_s, sim="", until="", status="")
            self.bar.start()
        until = f" of {_fmt_time(until_s)}" if until_s else ""
        self.bar.update(
            self.task, completed=sim_s, sim=_fmt_time(sim_s), until=until, status=status
        )

    def clear(self) -> None:
        """Removes the live display before anything else is printed."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        help="Override a scenario value: --set 'links[0].rate=10 Gb/s' (repeatable).",
        metavar="KEY=VALUE",
    ),
]


def _print_summary(result: Result) -> None:
    from ethersim.cli_summary import print_summary

    print_summary(result)


def _warn(warning: str, shown: list[str]) -> None:
    """Prints ``warning: ...`` on standard error, and keeps it in ``shown``."""
    from rich.text import Text

    err_console().print(Text.assemble(("warning: ", "bold yellow"), _literal(warning)))
    shown.append(warning)


def _run_command(
    scenario: str,
    out: Path | None,
    sets: list[str] | None,
    seed: int | None,
    pcap: list[str] | None,
    pcap_limit: str | None,
    snaplen: int | None,
    max_wall: float | None,
) -> list[str]:
    """The ``ethersim run`` command line that ran, rebuilt from its options (for
    ``run.json``): the same words whichever way the command was invoked."""
    words = ["ethersim", "run", scenario]
    if out is not None:
        words += ["--out", str(out)]
    for given in sets or []:
        words += ["--set", given]
    if seed is not None:
        words += ["--seed", str(seed)]
    for port in pcap or []:
        words += ["--pcap", port]
    if pcap_limit is not None:
        words += ["--pcap-limit", pcap_limit]
    if snaplen is not None:
        words += ["--snaplen", str(snaplen)]
    if max_wall is not None:
        words += ["--max-wall", f"{max_wall:g}"]
    return words


@core_app.command(
    epilog=examples(
        "ethersim run examples/udp-file.toml",
        "ethersim run examples/tcp-file.toml --set 'apps[0].size=5 MB' --out results/tcp",
        "ethersim run examples/poisson-fan-in.toml --seed 7 --format json > summary.json",
    )
)
@_closed_pipe_is_success
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

    if output_format not in ("table", "json"):
        raise _fail(
            ScenarioError(f"{output_format!r} is not a format; expected table or json", "--format")
        )
    if max_wall is not None and not math.isfinite(max_wall):
        raise _fail(ScenarioError(f"{max_wall} is not a number of seconds", "--max-wall"))
    if seed is not None and not 0 <= seed < 2**64:
        # Here, not in api.run: the library names its parameter (seed), the user typed --seed.
        raise _fail(ScenarioError(f"{seed} is out of range; expected 0 to 2^64 - 1", "--seed"))
    watch = _Watch(max_wall)
    shown: list[str] = []  # the warnings printed before the run, not printed again after
    captures_in: Path | None = None
    made: list[Path] = []  # the folders above --out this run creates
    results_written = False
    try:
        try:
            if pcap and out is None:
                raise ScenarioError(
                    "a capture is written to the output folder; expected --out DIR too", "--pcap"
                )
            twice = sorted({port for port in pcap or [] if (pcap or []).count(port) > 1})
            if twice:
                raise ScenarioError(
                    f"{twice[0]!r} is given twice; expected each port once", "--pcap"
                )
            for given, option in ((pcap_limit, "--pcap-limit"), (snaplen, "--snaplen")):
                if given is not None and not pcap:
                    raise ScenarioError(
                        "applies to the captures of --pcap; expected --pcap PORT too (a "
                        "[[captures]] entry takes max_bytes and snaplen)",
                        option,
                    )
            if pcap_limit is not None:
                from ethersim import _core

                _core.parse_quantity("size", pcap_limit, "--pcap-limit")
            if out is not None:
                # Every output path is checked before the work, not after it.
                check_output_folder(out)
                made = missing_folders(output_path(out).parent)
                captures_in = capture_folder(out)
            result = api.run(
                scenario,
                overrides=set_ or [],
                seed=seed,
                progress=watch,
                output=captures_in,
                captures=pcap or [],
                capture_max_bytes=pcap_limit,
                capture_snaplen=snaplen,
                warn=lambda warning: _warn(warning, shown),
            )
            result.provenance["command"] = _run_command(
                scenario, out, set_, seed, pcap, pcap_limit, snaplen, max_wall
            )
            if out is not None:
                import_writers()
            hold_signals()
        except EthersimError as e:
            watch.clear()
            raise _fail(e) from None
        except (KeyboardInterrupt, Terminated) as e:
            watch.clear()
            raise _stopped(e, "nothing was written") from None
        watch.clear()
        failure = finish_writing(lambda: out is None or result.write(out))
        if failure is not None:
            raise _fail(failure)
        results_written = True
    finally:
        # Captures not moved into the results folder (a failed or stopped run) go.
        if captures_in is not None:
            import shutil

            shutil.rmtree(captures_in, ignore_errors=True)
        if not results_written:
            remove_folders(made)  # a failed or stopped run leaves no folder behind
    for warning in result.warnings:
        if warning not in shown:
            _warn(warning, shown)
    if result.summary.get("stop_reason") == "wall_limit":
        from rich.text import Text

        s = result.summary
        err_console().print(
            Text.assemble(
                ("note: ", "bold"),
                f"the run reached --max-wall ({max_wall:g} s) at simulated time "
                f"{_fmt_time(s['sim_time_s'])}, after {s['events']:,} events; the results "
                "are those up to that instant",
            )
        )
    for note in result.decimation_notes():
        from rich.text import Text

        err_console().print(Text.assemble(("note: ", "bold"), _literal(note)))
    if not quiet and output_format == "json":
        sys.stdout.write(result.summary_json())
    elif not quiet:
        _print_summary(result)
        if out is not None:
            from rich.text import Text

            written = Text.assemble("results written to ", _literal(out), "/")
            out_console().print(written, highlight=False)


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
    """The ``ethersim`` command, once its modules are imported (the console script enters
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

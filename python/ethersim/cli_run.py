"""``ethersim run``: the command's work, and a way in that needs no command-line library.

:func:`run` is the command, whichever way it is reached: through typer's command tree
(:mod:`ethersim.cli`, which declares its options and their help), or straight from the
``ethersim`` script (:mod:`ethersim._entry`) when :func:`parse` reads the arguments. A run is
most of what ethersim is asked to do, and typer with click costs some 60 ms of CPU to
import and dispatch; a run spelled in the plain forms below needs neither. Anything else
(``--help``, an unknown or misspelt option, a missing value, a value typer would convert
or refuse otherwise) is left to typer, so that its help and its usage errors stay the
only ones: :func:`parse` answers ``None`` whenever it is not certain it reads the line
exactly as typer would, and a test holds it to that against typer itself.
"""

from __future__ import annotations

import math
import os
import sys

from ethersim import api, stopping
from ethersim.cli_common import (
    Terminated,
    closed_pipe_is_success,
    err_console,
    fail,
    finish_writing,
    fmt_time,
    hold_signals,
    literal,
    out_console,
    stopped,
)
from ethersim.errors import EthersimError, ScenarioError, WallLimitReached
from ethersim.results import (
    Result,
    capture_folder,
    check_output_folder,
    import_writers,
    output_path,
)
from ethersim.safe_write import missing_folders, remove_folders

# typing is imported only by type checkers: a run does not load it (start-up, issue 29).
# Nor is pathlib, with the regular expressions it loads: `--out` alone makes a path.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

__all__ = ["FLAGS", "VALUE_OPTIONS", "parse", "print_summary", "run"]

#: The options of ``ethersim run`` that take a value: the parameter of :func:`run` each
#: fills, the type typer converts its text to (``os.PathLike`` standing for a
#: ``pathlib.Path``, made only when the option is given), and whether it may be
#: repeated (a list).
VALUE_OPTIONS: dict[str, tuple[str, type, bool]] = {
    "--out": ("out", os.PathLike, False),
    "--set": ("set_", str, True),
    "--seed": ("seed", int, False),
    "--pcap": ("pcap", str, True),
    "--pcap-limit": ("pcap_limit", str, False),
    "--snaplen": ("snaplen", int, False),
    "--format": ("output_format", str, False),
    "--max-wall": ("max_wall", float, False),
}

#: The options of ``ethersim run`` that take no value, and the parameter each sets.
FLAGS: dict[str, str] = {"--quiet": "quiet", "-q": "quiet"}

#: The smallest value typer accepts for a numeric option (its ``min``).
_MINIMUM: dict[str, float] = {"snaplen": 64, "max_wall": 0.0}

#: What :func:`run` is given for an option left out (typer's defaults).
_DEFAULTS: dict[str, Any] = {
    "out": None,
    "set_": None,
    "seed": None,
    "pcap": None,
    "pcap_limit": None,
    "snaplen": None,
    "quiet": False,
    "output_format": "table",
    "max_wall": None,
}


def parse(args: list[str]) -> dict[str, Any] | None:
    """The keyword arguments of :func:`run` for the words after ``ethersim run``, when
    they are one scenario and options in the plain forms (``--out DIR``, ``--out=DIR``,
    ``-q``; a list option repeated; a value that does not start with ``-``); ``None``
    for anything else, which typer then reads (and explains, if it is wrong)."""
    options: dict[str, Any] = dict(_DEFAULTS)
    given: set[str] = set()
    scenario: str | None = None
    words = iter(args)
    for word in words:
        if word in FLAGS:
            options[FLAGS[word]] = True
            continue
        if word == "-" or not word.startswith("-"):
            if scenario is not None:
                return None  # typer says there is one argument too many
            scenario = word
            continue
        name, equals, value = word.partition("=")
        if name not in VALUE_OPTIONS:
            return None  # --help, --, an unknown option, a flag given a value
        if not equals:
            following = next(words, None)
            if following is None or following.startswith("-"):
                return None  # typer decides what a missing or dash-led value means
            value = following
        key, kind, repeated = VALUE_OPTIONS[name]
        converted = _converted(key, kind, value)
        if converted is None:
            return None
        if repeated:
            options[key] = [*(options[key] or []), converted]
        elif key in given:
            return None  # given twice: left to typer (the last one wins there)
        else:
            options[key] = converted
        given.add(key)
    if scenario is None:
        return None
    return {"scenario": scenario, **options}


def _converted(key: str, kind: type, value: str) -> Any:
    """``value`` converted as typer (click) converts it, or ``None`` where typer would
    refuse it or check more than the conversion: click converts numbers with ``int()``
    and ``float()`` and checks a ``min``; a path that exists must be readable."""
    if kind is os.PathLike:
        if os.path.exists(value) and not os.access(value, os.R_OK):
            return None
        from pathlib import Path

        return Path(value)
    if kind is str:
        return value
    try:
        number = kind(value)
    except ValueError:
        return None
    if key in _MINIMUM and number < _MINIMUM[key]:
        return None
    return number


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
        line = f"simulated {fmt_time(sim_s)}"
        if until_s:
            line += f" of {fmt_time(until_s)}"
            if sim_s > 0:
                line += f", about {fmt_time(elapsed * (until_s - sim_s) / sim_s)} to go"
        sys.stderr.write(f"{line}; {status}; elapsed {fmt_time(elapsed)}\n")
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
        until = f" of {fmt_time(until_s)}" if until_s else ""
        self.bar.update(self.task, completed=sim_s, sim=fmt_time(sim_s), until=until, status=status)

    def clear(self) -> None:
        """Removes the live display before anything else is printed."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def print_summary(result: Result) -> None:
    """Prints a run's tables (:mod:`ethersim.cli_summary`, imported when a run prints)."""
    from ethersim import cli_summary

    cli_summary.print_summary(result)


def _warn(warning: str, shown: list[str]) -> None:
    """Prints ``warning: ...`` on standard error, and keeps it in ``shown``."""
    from rich.text import Text

    err_console().print(Text.assemble(("warning: ", "bold yellow"), literal(warning)))
    shown.append(warning)


def _command_words(
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


@closed_pipe_is_success
def run(
    scenario: str,
    out: Path | None = None,
    set_: list[str] | None = None,
    seed: int | None = None,
    pcap: list[str] | None = None,
    pcap_limit: str | None = None,
    snaplen: int | None = None,
    quiet: bool = False,
    output_format: str = "table",
    max_wall: float | None = None,
) -> None:
    """Runs a scenario and prints its results (``ethersim run``; its options are
    documented in ``ethersim run --help``)."""

    if output_format not in ("table", "json"):
        raise fail(
            ScenarioError(f"{output_format!r} is not a format; expected table or json", "--format")
        )
    if max_wall is not None and not math.isfinite(max_wall):
        raise fail(ScenarioError(f"{max_wall} is not a number of seconds", "--max-wall"))
    if seed is not None and not 0 <= seed < 2**64:
        # Here, not in api.run: the library names its parameter (seed), the user typed --seed.
        raise fail(ScenarioError(f"{seed} is out of range; expected 0 to 2^64 - 1", "--seed"))
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
            result.provenance["command"] = _command_words(
                scenario, out, set_, seed, pcap, pcap_limit, snaplen, max_wall
            )
            if out is not None:
                import_writers()
            hold_signals()
        except EthersimError as e:
            watch.clear()
            raise fail(e) from None
        except (KeyboardInterrupt, Terminated) as e:
            watch.clear()
            raise stopped(e, "nothing was written") from None
        watch.clear()
        failure = finish_writing(lambda: out is None or result.write(out))
        if failure is not None:
            raise fail(failure)
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
                f"{fmt_time(s['sim_time_s'])}, after {s['events']:,} events; the results "
                "are those up to that instant",
            )
        )
    for note in result.decimation_notes():
        from rich.text import Text

        err_console().print(Text.assemble(("note: ", "bold"), literal(note)))
    if not quiet and output_format == "json":
        sys.stdout.write(result.summary_json())
    elif not quiet:
        print_summary(result)
        if out is not None:
            from rich.text import Text

            written = Text.assemble("results written to ", literal(out), "/")
            out_console().print(written, highlight=False)

"""The ``ethersim`` command line.

Exit status: 0 success (also when the reader of standard output stops reading, as
``| head`` does); 2 bad input (a malformed scenario, an unknown option, an output folder
that cannot be used, checked before the run); 3 a bug in ethersim (an internal error); 1
any other ethersim error; 130 interrupted (Ctrl-C) and 143 terminated (SIGTERM), with
nothing written. Mapped in one place: :func:`_exit_status`. Text that comes from the
user (names, paths, values) is printed as it is, never read as markup, with control
characters shown as escapes.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ethersim import api, benchmark, schema_doc
from ethersim.cli_common import (
    Terminated,
    err_console,
    finish_writing,
    hold_signals,
    out_console,
)
from ethersim.cli_common import closed_pipe_is_success as _closed_pipe_is_success
from ethersim.cli_common import count as _count
from ethersim.cli_common import examples as _examples
from ethersim.cli_common import fail as _fail
from ethersim.cli_common import fmt_rate as _fmt_rate
from ethersim.cli_common import fmt_time as _fmt_time
from ethersim.cli_common import literal as _literal
from ethersim.cli_common import on_sigterm as _on_sigterm
from ethersim.cli_common import stopped as _stopped
from ethersim.cli_common import visible as _visible
from ethersim.errors import (
    EthersimError,
    ScenarioError,
    WallLimitError,
)
from ethersim.results import Result, capture_folder, check_output_folder

app = typer.Typer(
    name="ethersim",
    help="Fast, deterministic packet-level simulator for Ethernet performance and energy.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


class _Watch:
    """The progress callback of a CLI run: on a terminal, a live progress bar (rich) of
    simulated time once the run has taken a second; a line a minute when standard error
    is a log; and the ``--max-wall`` limit."""

    def __init__(self, max_wall: float | None) -> None:
        import time

        self.clock = time.monotonic
        self.start = self.clock()
        self.max_wall = max_wall
        self.live = sys.stderr.isatty()
        self.next_report = 1.0 if self.live else 60.0
        self.bar: Any = None

    def __call__(self, sim_s: float, events: int, until_s: float | None) -> None:
        elapsed = self.clock() - self.start
        if self.max_wall is not None and elapsed > self.max_wall:
            raise WallLimitError(
                f"the run exceeded --max-wall ({self.max_wall:g} s) at simulated time "
                f"{_fmt_time(sim_s)}, after {events:,} events; nothing was written"
            )
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
        sys.stderr.write(f"{line}; {status}, {elapsed:.1f} s\n")
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
                TextColumn("{task.fields[status]}"),
                TimeElapsedColumn(),
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
    ),
]


def _print_summary(result: Result) -> None:
    from rich.table import Table
    from rich.text import Text

    s = result.summary
    header = Text.assemble(
        _literal(s["scenario"], "bold"),
        f"  seed {s['seed']}  stopped: {s['stop_reason']}  "
        f"simulated {_fmt_time(s['sim_time_s'])}  events {s['events']:,}  "
        f"wall {result.wall_time_s:.3f} s  ({result.events_per_s / 1e6:.1f} M events/s)",
    )
    out_console().print(header, highlight=False)
    flows = Table(title="flows", title_justify="left")
    for col in (
        "flow",
        "from → to",
        "sent",
        "received",
        "lost in network",
        "sender drops",
        "loss",
        "completion",
        "goodput",
        "delay mean",
        "p99",
    ):
        flows.add_column(
            col, justify="right" if col not in ("flow", "from → to") else "left", overflow="fold"
        )
    for f in s["flows"]:
        flows.add_row(
            _literal(f["name"]),
            _literal(f"{f['from']} → {f['to']}"),
            f"{f['packets_sent']:,}",
            f"{f['packets_received']:,}",
            f"{f['lost']:,}",
            f"{f['send_drops']:,}",
            f"{100 * f['loss_fraction']:.3g}%",
            _fmt_time(f["completion_time_s"]),
            _fmt_rate(f["goodput_bps"]),
            # Statistics of no packets are no numbers.
            _fmt_time(f["delay"]["mean_s"] if f["delay"]["count"] else None),
            _fmt_time(f["delay"]["p99_s"] if f["delay"]["count"] else None),
        )
    out_console().print(flows)
    pings = [f for f in s["flows"] if "rtt" in f]
    if pings:
        rtt = Table(title="round trips", title_justify="left")
        for col in ("flow", "requests", "replies", "rtt mean", "std", "p50", "p99", "max"):
            rtt.add_column(col, justify="left" if col == "flow" else "right", overflow="fold")
        for f in pings:
            r = f["rtt"]
            rtt.add_row(
                _literal(f["name"]),
                f"{f['ping_requests']:,}",
                f"{f['ping_replies']:,}",
                *(_fmt_time(r[k]) for k in ("mean_s", "std_s", "p50_s", "p99_s", "max_s")),
            )
        out_console().print(rtt)
    tcp_flows = [f for f in s["flows"] if "fast_retransmits" in f]
    if tcp_flows:
        tcp = Table(title="tcp", title_justify="left")
        tcp_columns = ("segments", "retransmitted", "timeouts", "fast retransmits", "dup acks")
        for col in ("flow", *tcp_columns, "srtt", "transfer"):
            tcp.add_column(col, justify="left" if col == "flow" else "right", overflow="fold")
        for f in tcp_flows:
            tcp.add_row(
                _literal(f["name"]),
                f"{f['segments_sent']:,}",
                f"{f['retransmissions']:,}",
                f"{f['timeouts']:,}",
                f"{f['fast_retransmits']:,}",
                f"{f['dup_acks']:,}",
                _fmt_time(f["srtt_s"]),
                _fmt_time(f["transfer_time_s"]),
            )
        out_console().print(tcp)
    ports = Table(title="ports", title_justify="left")
    port_columns = ("frames", "drops", "lost on wire", "max queue", "mean queue", "utilization")
    for col in ("port", *port_columns):
        ports.add_column(col, justify="left" if col == "port" else "right", overflow="fold")
    for p in s["ports"]:
        if p["frames_sent"] == 0 and p["drops"] == 0 and p["wire_losses"] == 0:
            continue
        ports.add_row(
            _literal(f"{p['node']} → {p['peer']}"),
            f"{p['frames_sent']:,}",
            f"{p['drops']:,}",
            f"{p['wire_losses']:,}",
            f"{p['max_queue_bytes']:,} B",
            f"{p['mean_queue_bytes']:,.0f} B",
            f"{100 * p['utilization']:.1f}%",
        )
    out_console().print(ports)
    _print_pause(s)
    _print_eee(s)
    _print_capacity_scaling(s)
    _print_stations(s)
    _print_jobs(s)
    _print_links(s)
    _print_captures(s)


def _print_captures(s: dict[str, Any]) -> None:
    if not s.get("captures"):
        return
    from rich.table import Table

    t = Table(title="packet captures", title_justify="left")
    for col in ("port", "file", "frames", "bytes on the wire"):
        t.add_column(col, justify="left" if col in ("port", "file") else "right")
    for c in s["captures"]:
        t.add_row(
            _literal(c["port"]), _literal(c["file"]), f"{c['frames']:,}", f"{c['frame_bytes']:,}"
        )
    out_console().print(t)


def _print_stations(s: dict[str, Any]) -> None:
    """The stations of shared-medium segments (CSMA/CD), when the scenario has any."""
    from rich.table import Table

    stations = s.get("stations", [])
    if not stations:
        return
    span = "the measurement window" if s.get("window") else "the run"
    table = Table(title=f"stations (CSMA/CD, over {span})", title_justify="left")
    columns = ("station", "frames", "bit rate", "delay mean", "delay std", "excess delay")
    for col in (*columns, "collisions/frame", "drops"):
        table.add_column(col, justify="left" if col == "station" else "right", overflow="fold")
    for st in stations:
        table.add_row(
            _literal(f"{st['node']} → {st['segment']}"),
            f"{st['frames_sent']:,}",
            _fmt_rate(st["bit_rate_bps"]),
            _fmt_time(st["delay_mean_s"]),
            _fmt_time(st["delay_std_s"]),
            _fmt_time(st["excess_delay_mean_s"]),
            f"{st['collisions_per_frame']:.3f}",
            f"{st['drops']:,}",
        )
    out_console().print(table)


def _print_jobs(s: dict[str, Any]) -> None:
    """MPI jobs, when the scenario has any: the profile the EEE performance model needs."""
    from rich.table import Table

    jobs = s.get("jobs", [])
    if not jobs:
        return
    table = Table(title="mpi jobs", title_justify="left")
    columns = ("job", "ranks", "elapsed", "messages", "within hosts", "per node", "mean bytes")
    for col in columns:
        table.add_column(col, justify="left" if col == "job" else "right", overflow="fold")
    for j in jobs:
        elapsed = j["elapsed_s"]
        table.add_row(
            _literal(j["name"]),
            f"{j['ranks']} ({j['nodes']} x {j['processes_per_node']})",
            "unfinished" if elapsed is None else _fmt_time(elapsed),
            f"{j['messages']:,}",
            f"{j['intra_messages']:,}",
            f"{j['communications_per_node']:,.1f}",
            f"{j['mean_bytes']:,.0f} B",
        )
    out_console().print(table)


def _print_pause(s: dict[str, Any]) -> None:
    """PAUSE per port, when any port sent or received one."""
    from rich.table import Table

    active = [p for p in s["ports"] if p["pause_sent"] or p["pause_received"]]
    if not active:
        return
    pause = Table(title="pause (802.3x)", title_justify="left")
    for col in ("port", "sent", "received", "honours", "paused"):
        pause.add_column(col, justify="left" if col == "port" else "right", overflow="fold")
    for p in active:
        pause.add_row(
            _literal(f"{p['node']} → {p['peer']}"),
            f"{p['pause_sent']:,}",
            f"{p['pause_received']:,}",
            "yes" if p["honours_pause"] else "no",
            _fmt_time(p["paused_s"]),
        )
    out_console().print(pause)


def _print_eee(s: dict[str, Any]) -> None:
    """Low Power Idle per port, when any link has it."""
    from rich.table import Table

    ports = [p for p in s["ports"] if p["eee"]]
    if not ports:
        return
    eee = Table(title="eee (802.3az)", title_justify="left")
    for col in ("port", "active", "asleep", "waking", "sleeps", "wakes", "energy", "saved"):
        eee.add_column(col, justify="left" if col == "port" else "right", overflow="fold")
    for p in ports:
        asleep = p["lpi_sleep_s"] + p["lpi_quiet_s"] + p["lpi_refresh_s"]
        eee.add_row(
            _literal(f"{p['node']} → {p['peer']}"),
            _fmt_time(p["lpi_active_s"]),
            _fmt_time(asleep),
            _fmt_time(p["lpi_wake_s"]),
            f"{p['lpi_sleeps']:,}",
            f"{p['lpi_wakes']:,}",
            f"{p['energy_j']:.4g} J",
            f"{p['energy_saved_percent']:.1f}%",
        )
    out_console().print(eee)


def _print_capacity_scaling(s: dict[str, Any]) -> None:
    """Ports whose rate is scaled (rate switching): mean service rate and energy."""
    from rich.table import Table

    ports = [p for p in s["ports"] if p["rate_scaled"]]
    if not ports:
        return
    table = Table(title="capacity scaling", title_justify="left")
    for col in ("port", "rate changes", "mean service rate", "below fastest", "energy", "saved"):
        table.add_column(col, justify="left" if col == "port" else "right", overflow="fold")
    for p in ports:
        energy = p["service_energy_j"]
        table.add_row(
            _literal(f"{p['node']} → {p['peer']}"),
            f"{p['rate_changes']:,}",
            _fmt_rate(p["service_rate_mean_bps"]),
            f"{p['service_rate_reduction_percent']:.1f}%",
            "\N{EN DASH}" if energy is None else f"{energy:.4g} J",
            "\N{EN DASH}" if energy is None else f"{p['service_energy_saved_percent']:.1f}%",
        )
    out_console().print(table)


def _print_links(s: dict[str, Any]) -> None:
    """Links that went dark, lost frames or switched rate."""
    from rich.table import Table

    eventful = [
        link
        for link in s["links"]
        if link["outages"] > 0 or sum(link["frames_lost"]) > 0 or link["rates_bps"]
    ]
    if not eventful:
        return
    links = Table(title="links", title_justify="left")
    for col in ("link", "outages", "dark", "frames lost", "rate switches", "time at each rate"):
        links.add_column(col, justify="left" if col == "link" else "right", overflow="fold")
    for link in eventful:
        a, b = link["between"]
        lost_ab, lost_ba = link["frames_lost"]
        at_rates = ", ".join(
            f"{_fmt_rate(r)} {_fmt_time(t)}"
            for r, t in zip(link["rates_bps"], link["time_at_rate_s"], strict=True)
        )
        switches = f"{link['rate_switches']:,} ({_fmt_time(link['switching_s'])} dark)"
        links.add_row(
            _literal(f"{a} ↔ {b}"),
            f"{link['outages']:,}",
            _fmt_time(link["dark_s"]),
            f"{lost_ab:,} → / {lost_ba:,} ←",
            switches if link["rates_bps"] else "\N{EN DASH}",
            at_rates or "\N{EN DASH}",
        )
    out_console().print(links)


def _run_command(
    scenario: str,
    out: Path | None,
    sets: list[str] | None,
    seed: int | None,
    pcap: list[str] | None,
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
    if max_wall is not None:
        words += ["--max-wall", f"{max_wall:g}"]
    return words


@app.command()
@_closed_pipe_is_success
def run(
    # Taken as text: a path as the user wrote it is named as written ("dir/" stays so).
    scenario: Annotated[str, typer.Argument(help="Scenario file (TOML), or - for standard input.")],
    out: Annotated[
        Path | None, typer.Option("--out", help="Write summary.json and Parquet tables here.")
    ] = None,
    set_: SetOption = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Replace the scenario's seed.")] = None,
    pcap: Annotated[
        list[str] | None,
        typer.Option(
            "--pcap",
            help="Capture this port's frames (node->peer) to OUT/captures/ as pcapng "
            "(repeatable; needs --out).",
            metavar="PORT",
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")] = False,
    max_wall: Annotated[
        float | None,
        typer.Option(
            "--max-wall",
            help="Stop the run (exit 1, nothing written) after this many seconds of wall time.",
            min=0.0,
            metavar="SECONDS",
        ),
    ] = None,
) -> None:
    """Run a scenario and print its results."""

    if max_wall is not None and not math.isfinite(max_wall):
        raise _fail(ScenarioError(f"{max_wall} is not a number of seconds", "--max-wall"))
    watch = _Watch(max_wall)
    captures_in: Path | None = None
    try:
        try:
            if pcap and out is None:
                raise ScenarioError(
                    "a capture is written to the output folder; expected --out DIR too", "--pcap"
                )
            if out is not None:
                # Every output path is checked before the work, not after it.
                check_output_folder(out)
                captures_in = capture_folder(out)
            result = api.run(
                scenario,
                overrides=set_ or [],
                seed=seed,
                progress=watch,
                output=captures_in,
                captures=pcap or [],
            )
            result.provenance["command"] = _run_command(scenario, out, set_, seed, pcap, max_wall)
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
    finally:
        # Captures not moved into the results folder (a failed or stopped run) go.
        if captures_in is not None:
            import shutil

            shutil.rmtree(captures_in, ignore_errors=True)
    for warning in result.warnings:
        from rich.text import Text

        err_console().print(Text.assemble(("warning: ", "bold yellow"), _literal(warning)))
    for note in result.decimation_notes():
        from rich.text import Text

        err_console().print(Text.assemble(("note: ", "bold"), _literal(note)))
    if not quiet:
        _print_summary(result)
        if out is not None:
            from rich.text import Text

            written = Text.assemble("results written to ", _literal(out), "/")
            out_console().print(written, highlight=False)


@app.command()
@_closed_pipe_is_success
def validate(
    # Taken as text: a path as the user wrote it is named as written ("dir/" stays so).
    scenario: Annotated[str, typer.Argument(help="Scenario file (TOML), or - for standard input.")],
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


@app.command()
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
        sys.stdout.write(schema_doc.render(api.schema()))
    else:
        sys.stdout.write(json.dumps(api.schema(), indent=2) + "\n")


@app.command()
@_closed_pipe_is_success
def bench(
    name: Annotated[
        list[str] | None, typer.Option("--scenario", help="Run only this bench scenario.")
    ] = None,
) -> None:
    """Run the fixed bench scenarios, one process each, and print their figures as JSON."""
    try:
        figures = benchmark.run_all(name or None)
    except EthersimError as e:
        raise _fail(e) from None
    sys.stdout.write(json.dumps(figures, indent=2) + "\n")


@app.command(
    epilog=_examples(
        "ethersim report results/udp-file          # results/udp-file/report.html",
        "ethersim report results/a results/b       # results/compare-a-b.html",
        "ethersim report results/a results/b --out a-vs-b.html",
    )
)
@_closed_pipe_is_success
def report(
    folders: Annotated[
        list[str],
        typer.Argument(
            help="A results folder (of `ethersim run --out` or of a reproduction), or two "
            "run folders to compare.",
            metavar="DIR [B]",
        ),
    ],
    out: Annotated[
        str | None,
        typer.Option(
            "--out",
            help="The comparison page of two folders (default: compare-A-B.html beside A; "
            "never inside a results folder).",
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")] = False,
) -> None:
    """Write report.html (tables, interactive figures, files, scenario, version, seed)
    into a results folder, or one page comparing two run folders."""
    from ethersim.report import build_comparison, build_report

    try:
        if len(folders) > 2:
            raise ScenarioError(
                f"{len(folders)} folders given; expected one results folder, or two run "
                "folders to compare",
                "DIR",
            )
        if len(folders) == 1 and out is not None:
            raise ScenarioError(
                "--out names the page comparing two folders; the report of one folder is "
                "DIR/report.html",
                "--out",
            )
        page = (
            build_report(folders[0])
            if len(folders) == 1
            else build_comparison(folders[0], folders[1], out)
        )
    except EthersimError as e:
        raise _fail(e) from None
    if not quiet:
        from rich.text import Text

        out_console().print(Text.assemble("report written to ", _literal(page)), highlight=False)


def _add_subcommands() -> None:
    from ethersim import cli_mpi, cli_sweep, cli_whatif
    from ethersim.cli_model import model_app
    from ethersim.cli_reproduce import reproduce_app

    app.add_typer(model_app)
    app.add_typer(reproduce_app)
    cli_sweep.register(app)
    cli_mpi.register(app)
    cli_whatif.register(app)


_add_subcommands()


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        sys.stdout.write(f"ethersim {version('ethersim')}\n")
        raise typer.Exit(0)


@app.callback()
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
    """Entry point of the ``ethersim`` command."""
    import signal

    _escape_usage_errors()
    # SIGTERM stops a run as Ctrl-C does (the run checks for signals as it goes).
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        app()
    except Terminated as e:
        # A SIGTERM outside a command's own handling (while its options are parsed, or its
        # modules imported): nothing was written yet. Exit 143 with the message, not a
        # traceback.
        raise SystemExit(_stopped(e, "nothing was written").exit_code) from None


if __name__ == "__main__":
    main()

"""The ``ethersim`` command line.

Exit status: 0 success; 2 bad input (a malformed scenario, an unknown option, an output
folder that cannot be used); 3 a bug in ethersim (an internal error); 1 any other
ethersim error; 130 interrupted (Ctrl-C), with nothing written. Mapped in one place:
:func:`_exit_status`.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ethersim import api, benchmark, schema_doc
from ethersim.errors import EthersimError, InternalError, OutputError, ScenarioError
from ethersim.results import Result

if TYPE_CHECKING:
    from rich.console import Console

app = typer.Typer(
    name="ethersim",
    help="Fast, deterministic packet-level simulator for Ethernet performance and energy.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@functools.cache
def out_console() -> Console:
    """The console for results (made on first use: a quiet run never imports rich's)."""
    from rich.console import Console

    # Piped output is not wrapped at rich's 80-column default: tables stay one row per item.
    return Console(width=None if sys.stdout.isatty() else 160)


@functools.cache
def err_console() -> Console:
    """The console for errors and notices, on standard error."""
    from rich.console import Console

    return Console(stderr=True, width=None if sys.stderr.isatty() else 160)


def _exit_status(error: EthersimError) -> int:
    if isinstance(error, (ScenarioError, OutputError)):
        return 2
    if isinstance(error, InternalError):
        return 3
    return 1


def _fail(error: EthersimError) -> typer.Exit:
    kind = "error" if not isinstance(error, InternalError) else "internal error"
    err_console().print(
        f"[bold red]{kind}:[/] {error}", highlight=False, markup=True, soft_wrap=True
    )
    return typer.Exit(_exit_status(error))


SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        help="Override a scenario value: --set 'links[0].rate=10 Gb/s' (repeatable).",
    ),
]


def _fmt_time(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")):
        if abs(seconds) >= scale:
            return f"{seconds / scale:.4g} {unit}"
    return f"{seconds * 1e12:.4g} ps"


def _fmt_rate(bps: float) -> str:
    for scale, unit in ((1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s")):
        if bps >= scale:
            return f"{bps / scale:.4g} {unit}"
    return f"{bps:.4g} b/s"


def _print_summary(result: Result) -> None:
    from rich.table import Table

    s = result.summary
    out_console().print(
        f"[bold]{s['scenario']}[/]  seed {s['seed']}  stopped: {s['stop_reason']}  "
        f"simulated {_fmt_time(s['sim_time_s'])}  events {s['events']:,}  "
        f"wall {result.wall_time_s:.3f} s  ({result.events_per_s / 1e6:.1f} M events/s)",
        highlight=False,
    )
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
        flows.add_column(col, justify="right" if col not in ("flow", "from → to") else "left")
    for f in s["flows"]:
        flows.add_row(
            f["name"],
            f"{f['from']} → {f['to']}",
            f"{f['packets_sent']:,}",
            f"{f['packets_received']:,}",
            f"{f['lost']:,}",
            f"{f['send_drops']:,}",
            f"{100 * f['loss_fraction']:.3g}%",
            _fmt_time(f["completion_time_s"]),
            _fmt_rate(f["goodput_bps"]),
            _fmt_time(f["delay"]["mean_s"]),
            _fmt_time(f["delay"]["p99_s"]),
        )
    out_console().print(flows)
    pings = [f for f in s["flows"] if "rtt" in f]
    if pings:
        rtt = Table(title="round trips", title_justify="left")
        for col in ("flow", "requests", "replies", "rtt mean", "std", "p50", "p99", "max"):
            rtt.add_column(col, justify="left" if col == "flow" else "right")
        for f in pings:
            r = f["rtt"]
            rtt.add_row(
                f["name"],
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
            tcp.add_column(col, justify="left" if col == "flow" else "right")
        for f in tcp_flows:
            tcp.add_row(
                f["name"],
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
        ports.add_column(col, justify="left" if col == "port" else "right")
    for p in s["ports"]:
        if p["frames_sent"] == 0 and p["drops"] == 0 and p["wire_losses"] == 0:
            continue
        ports.add_row(
            f"{p['node']} → {p['peer']}",
            f"{p['frames_sent']:,}",
            f"{p['drops']:,}",
            f"{p['wire_losses']:,}",
            f"{p['max_queue_bytes']:,} B",
            f"{p['mean_queue_bytes']:,.0f} B",
            f"{100 * p['utilization']:.1f}%",
        )
    out_console().print(ports)
    eventful = [link for link in s["links"] if link["outages"] > 0 or sum(link["frames_lost"]) > 0]
    if eventful:
        links = Table(title="links", title_justify="left")
        for col in ("link", "outages", "dark", "frames lost"):
            links.add_column(col, justify="left" if col == "link" else "right")
        for link in eventful:
            a, b = link["between"]
            lost_ab, lost_ba = link["frames_lost"]
            links.add_row(
                f"{a} ↔ {b}",
                f"{link['outages']:,}",
                _fmt_time(link["dark_s"]),
                f"{lost_ab:,} → / {lost_ba:,} ←",
            )
        out_console().print(links)


@app.command()
def run(
    scenario: Annotated[Path, typer.Argument(help="Scenario file (TOML).")],
    out: Annotated[
        Path | None, typer.Option("--out", help="Write summary.json and Parquet tables here.")
    ] = None,
    set_: SetOption = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Replace the scenario's seed.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")] = False,
) -> None:
    """Run a scenario and print its results."""
    try:
        result = api.run(scenario, overrides=set_ or [], seed=seed)
    except EthersimError as e:
        raise _fail(e) from None
    except KeyboardInterrupt:
        err_console().print("interrupted: nothing was written", highlight=False)
        raise typer.Exit(130) from None
    if out is not None:
        try:
            result.write(out)
        except EthersimError as e:
            raise _fail(e) from None
        except KeyboardInterrupt:
            err_console().print(f"interrupted while writing results to {out}", highlight=False)
            raise typer.Exit(130) from None
    if not quiet:
        _print_summary(result)
        if out is not None:
            out_console().print(f"results written to {out}/", highlight=False)


@app.command()
def validate(
    scenario: Annotated[Path, typer.Argument(help="Scenario file (TOML).")],
    set_: SetOption = None,
) -> None:
    """Check a scenario without running it."""
    try:
        checked = api.validate(scenario, overrides=set_ or [])
    except EthersimError as e:
        raise _fail(e) from None
    out_console().print(
        f"{scenario}: ok ({len(checked['hosts'])} hosts, {len(checked['switches'])} switches, "
        f"{len(checked['links'])} links, {len(checked['apps'])} apps)",
        highlight=False,
    )


@app.command()
def schema(
    markdown: Annotated[
        bool, typer.Option("--markdown", help="Print the scenario reference as Markdown.")
    ] = False,
) -> None:
    """Print the JSON Schema of scenario files (or its Markdown reference)."""
    if markdown:
        sys.stdout.write(schema_doc.render(api.schema()))
    else:
        sys.stdout.write(json.dumps(api.schema(), indent=2) + "\n")


@app.command()
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


def main() -> None:
    """Entry point of the ``ethersim`` command."""
    app()


if __name__ == "__main__":
    main()

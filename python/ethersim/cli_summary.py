"""A run's results on the terminal: the tables ``ethersim run`` prints.

Every table fits 80 columns: short headers, light borders, numbers with their units
(:mod:`ethersim.units`) that never wrap inside a number (names may fold), and no more
than :data:`MAX_ROWS` rows, followed by a line saying how many are hidden and where
they all are. Printing therefore costs the same for ten flows or a hundred thousand;
the files (``--out``) and ``--format json`` hold every row. A table whose mechanism the
run did not use (PAUSE, EEE, rate scaling, CSMA/CD, MPI jobs, captures) is left out.
"""

from __future__ import annotations

from ethersim.cli_common import lines_output, print_lines, visible
from ethersim.cli_table import Column, render
from ethersim.units import (
    MISSING,
    fmt_bytes,
    fmt_count,
    fmt_percent,
    fmt_rate,
    fmt_time,
    human,
)

# typing is imported only by type checkers: a run does not load it (start-up, issue 29).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any

    from ethersim.results import Result

__all__ = ["MAX_ROWS", "print_summary"]

#: Rows shown per table; the rest are counted in a line under it.
MAX_ROWS = 20


def _print(
    title: str,
    columns: Sequence[Column],
    items: Sequence[Any],
    row: Callable[[Any], Iterable[str]],
    noun: str,
    total: Callable[[Sequence[Any]], Iterable[str]] | None = None,
) -> None:
    """Prints up to :data:`MAX_ROWS` of ``items`` as a table, then how many are hidden.
    With rows hidden, ``total`` (when given) makes a last row of the whole set's totals,
    so that what the terminal shows still accounts for every item."""
    if not items:
        return
    rows = [[visible(c) for c in row(item)] for item in items[:MAX_ROWS]]
    totals = None
    if total is not None and len(items) > MAX_ROWS:
        totals = [visible(c) for c in total(items)]
    output = lines_output()
    lines = render(title, columns, rows, output.width, totals=totals)
    hidden = len(items) - MAX_ROWS
    if hidden > 0:
        more = f"  ... and {hidden:,} more {noun} (every row: --out DIR or --format json)"
        lines.append([(more, "")])
    print_lines(output, lines)


def _port(p: dict[str, Any]) -> str:
    return f"{p['node']} → {p['peer']}"


def print_summary(result: Result) -> None:
    """Prints a run's header line and every table that has something to show."""
    s = result.summary
    fields = [
        f"seed {s['seed']}",
        f"stopped: {s['stop_reason']}",
        f"simulated {fmt_time(s['sim_time_s'])}",
        f"events {s['events']:,}",
        f"wall {result.wall_time_s:.3f} s ({result.events_per_s / 1e6:.1f} M events/s)",
    ]
    # A narrow terminal wraps between fields, never inside one ("wall" on one line and
    # its seconds on the next): the fields are laid out on lines of the output's width.
    output = lines_output()
    name = visible(s["scenario"])
    lines = [[name]]
    for field in fields:
        if len("  ".join([*lines[-1], field])) > output.width:
            lines.append([])
        lines[-1].append(field)
    header = [[(name, "bold"), ("".join(f"  {f}" for f in lines[0][1:]), "")]]
    header += [[("  ".join(line), "")] for line in lines[1:]]
    print_lines(output, header)
    _flows(s)
    _pings(s)
    _calls(s)
    _pages(s)
    _tcp(s)
    _ports(s)
    _records(s)
    _stations(s)
    _jobs(s)
    _links(s)
    _captures(s)


def _delay(f: dict[str, Any], key: str) -> str:
    # Statistics of no packets are no numbers.
    return fmt_time(f["delay"][key]) if f["delay"]["count"] else MISSING


def _flows(s: dict[str, Any]) -> None:
    flows = s["flows"]
    _print(
        "flows",
        [
            ("flow", True),
            ("from → to", True),
            ("sent", False),
            ("received", False),
            ("lost", False),
            ("sender drops", False),
            ("loss", False),
        ],
        flows,
        lambda f: (
            f["name"],
            f"{f['from']} → {f['to']}",
            fmt_count(f["packets_sent"]),
            fmt_count(f["packets_received"]),
            fmt_count(f["lost"]),
            fmt_count(f["send_drops"]),
            fmt_percent(100 * f["loss_fraction"]),
        ),
        "flows",
        _flow_totals,
    )
    _print(
        "delivery",
        [
            ("flow", True),
            ("completion", False),
            ("goodput", False),
            ("delay mean", False),
            ("delay p99", False),
        ],
        flows,
        lambda f: (
            f["name"],
            fmt_time(f["completion_time_s"]),
            fmt_rate(f["goodput_bps"]),
            _delay(f, "mean_s"),
            _delay(f, "p99_s"),
        ),
        "flows",
    )


def _flow_totals(flows: Sequence[dict[str, Any]]) -> tuple[str, ...]:
    """The flows table's last row with rows hidden: every flow's packets summed, and the
    loss of them all, as a flow's loss is counted (lost in the network or at the sender,
    over generated: sent plus sender drops)."""
    sent, received, lost, drops = (
        sum(f[key] for f in flows)
        for key in ("packets_sent", "packets_received", "lost", "send_drops")
    )
    generated = sent + drops
    loss = 100 * (lost + drops) / generated if generated else 0.0
    counts = (fmt_count(n) for n in (sent, received, lost, drops))
    return (f"all {len(flows):,}", "", *counts, fmt_percent(loss))


def _pings(s: dict[str, Any]) -> None:
    pings = [f for f in s["flows"] if "rtt" in f]
    _print(
        "round trips",
        [
            ("flow", True),
            ("requests", False),
            ("replies", False),
            *((c, False) for c in ("rtt mean", "std", "p50", "p99", "max")),
        ],
        pings,
        lambda f: (
            f["name"],
            fmt_count(f["ping_requests"]),
            fmt_count(f["ping_replies"]),
            *(fmt_time(f["rtt"][k]) for k in ("mean_s", "std_s", "p50_s", "p99_s", "max_s")),
        ),
        "pings",
    )


def _mos(value: float | None) -> str:
    return MISSING if value is None else f"{value:.2f}"


def _worse(values: Iterable[float | None]) -> float | None:
    """The larger of a call's two directions' figures (delay, jitter, loss), if any."""
    known = [v for v in values if v is not None]
    return max(known) if known else None


#: A call's two ends, as its figures name them.
ENDS = ("caller", "callee")


def _calls(s: dict[str, Any]) -> None:
    """Voice calls: what each end heard (``caller``: the caller's ear), as the E-model
    rates it, and the call's worse direction in words."""
    calls = [f for f in s["flows"] if f.get("kind") == "voip"]
    _print(
        "calls",
        [
            ("call", True),
            ("codec", True),
            *((c, False) for c in ("MOS caller", "MOS callee", "mouth-ear", "jitter", "loss")),
            ("call is", True),
        ],
        calls,
        lambda f: (
            f["name"],
            f["codec"],
            _mos(f["caller_mos"]),
            _mos(f["callee_mos"]),
            fmt_time(_worse(f[f"{end}_mouth_to_ear"]["mean_s"] for end in ENDS)),
            # To the picosecond: the estimator decays towards zero without reaching it.
            fmt_time(_worse(round(f[f"{end}_jitter_ms"] / 1e3, 12) for end in ENDS)),
            fmt_percent(_worse(f[f"{end}_loss_percent"] for end in ENDS)),
            f["satisfaction"] or MISSING,
        ),
        "calls",
    )


def _pages(s: dict[str, Any]) -> None:
    """Web browsing: each client's page-load times, and how the median feels (Nielsen's
    response-time limits, :mod:`ethersim.perception`)."""
    from ethersim.perception import band

    clients = [f for f in s["flows"] if f.get("kind") == "web"]
    _print(
        "pages",
        [
            ("client", True),
            *((c, False) for c in ("pages", "objects", "mean", "p50", "p95", "max", "retx")),
            ("median page", True),
        ],
        clients,
        lambda f: (
            f["name"],
            fmt_count(f["pages_loaded"]),
            fmt_count(f["objects"]),
            *(
                fmt_time(f[f"page_load_{k}_s"]) if f["pages_loaded"] else MISSING
                for k in ("mean", "p50", "p95", "max")
            ),
            fmt_count(f["retransmissions"]),
            band(f["page_load_p50_s"]) if f["pages_loaded"] else MISSING,
        ),
        "clients",
    )


def _tcp(s: dict[str, Any]) -> None:
    tcp = [f for f in s["flows"] if "fast_retransmits" in f]
    _print(
        "tcp",
        [
            ("flow", True),
            ("segments", False),
            ("retx", False),
            ("timeouts", False),
            ("fast retx", False),
            ("dup acks", False),
            ("srtt", False),
            ("transfer", False),
        ],
        tcp,
        lambda f: (
            f["name"],
            fmt_count(f["segments_sent"]),
            fmt_count(f["retransmissions"]),
            fmt_count(f["timeouts"]),
            fmt_count(f["fast_retransmits"]),
            fmt_count(f["dup_acks"]),
            fmt_time(f["srtt_s"]),
            fmt_time(f["transfer_time_s"]),
        ),
        "TCP flows",
    )


def _ports(s: dict[str, Any]) -> None:
    # A port that carried nothing and dropped nothing says nothing.
    busy = [p for p in s["ports"] if p["frames_sent"] or p["drops"] or p["wire_losses"]]
    _print(
        "ports",
        [
            ("port", True),
            ("frames", False),
            ("drops", False),
            ("lost on wire", False),
            ("max queue", False),
            ("mean queue", False),
            ("busy", False),
        ],
        busy,
        lambda p: (
            _port(p),
            fmt_count(p["frames_sent"]),
            fmt_count(p["drops"]),
            fmt_count(p["wire_losses"]),
            fmt_bytes(p["max_queue_bytes"]),
            fmt_bytes(round(p["mean_queue_bytes"])),
            fmt_percent(100 * p["utilization"]),
        ),
        "ports",
    )


def _records(s: dict[str, Any]) -> None:
    """One table per mechanism record with rows to show, rendered from its view alone
    (:mod:`ethersim.records`)."""
    from ethersim.records import record_views, shown_rows

    for view in record_views():
        columns = view["columns"]

        def row(r: dict[str, Any], columns: list[tuple[str, str]] = columns) -> list[str]:
            return [_row_name(r), *(human(c, r.get(c)) for c, _ in columns)]

        _print(
            view["title"],
            [(view["table"].removesuffix("s"), True), *((header, False) for _, header in columns)],
            shown_rows(view, s),
            row,
            view["table"],
        )


def _row_name(r: dict[str, Any]) -> str:
    """A row's name: a port's ``node → peer``, or its ``name``."""
    return _port(r) if "peer" in r else str(r.get("name", ""))


def _stations(s: dict[str, Any]) -> None:
    span = "the measurement window" if s.get("window") else "the run"
    _print(
        f"stations (CSMA/CD, over {span})",
        [
            ("station", True),
            ("frames", False),
            ("bit rate", False),
            ("delay", False),
            ("std", False),
            ("excess", False),
            ("coll/frame", False),
            ("drops", False),
        ],
        s.get("stations", []),
        lambda st: (
            f"{st['node']} → {st['segment']}",
            fmt_count(st["frames_sent"]),
            fmt_rate(st["bit_rate_bps"]),
            fmt_time(st["delay_mean_s"]),
            fmt_time(st["delay_std_s"]),
            fmt_time(st["excess_delay_mean_s"]),
            f"{st['collisions_per_frame']:.3f}",
            fmt_count(st["drops"]),
        ),
        "stations",
    )


def _jobs(s: dict[str, Any]) -> None:
    _print(
        "mpi jobs",
        [
            ("job", True),
            ("ranks", False),
            ("elapsed", False),
            ("messages", False),
            ("in hosts", False),
            ("per node", False),
            ("mean size", False),
        ],
        s.get("jobs", []),
        lambda j: (
            j["name"],
            f"{j['ranks']} ({j['nodes']} x {j['processes_per_node']})",
            "unfinished" if j["elapsed_s"] is None else fmt_time(j["elapsed_s"]),
            fmt_count(j["messages"]),
            fmt_count(j["intra_messages"]),
            f"{j['communications_per_node']:,.1f}",
            fmt_bytes(round(j["mean_bytes"])),
        ),
        "jobs",
    )


def _links(s: dict[str, Any]) -> None:
    eventful = [
        link
        for link in s["links"]
        if link["outages"] > 0 or sum(link["frames_lost"]) > 0 or link["rates_bps"]
    ]

    def row(link: dict[str, Any]) -> tuple[str, ...]:
        a, b = link["between"]
        lost_ab, lost_ba = link["frames_lost"]
        at_rates = ", ".join(
            f"{fmt_rate(r)} {fmt_time(t)}"
            for r, t in zip(link["rates_bps"], link["time_at_rate_s"], strict=True)
        )
        switches = f"{link['rate_switches']:,} ({fmt_time(link['switching_s'])} dark)"
        return (
            f"{a} ↔ {b}",
            fmt_count(link["outages"]),
            fmt_time(link["dark_s"]),
            f"{lost_ab:,} → / {lost_ba:,} ←",
            switches if link["rates_bps"] else MISSING,
            at_rates or MISSING,
        )

    _print(
        "links",
        [
            ("link", True),
            ("outages", False),
            ("dark", False),
            ("frames lost", False),
            ("rate switches", False),
            ("time at each rate", True),
        ],
        eventful,
        row,
        "links",
    )


def _captures(s: dict[str, Any]) -> None:
    _print(
        "packet captures",
        [("port", True), ("file", True), ("frames", False), ("on the wire", False)],
        s.get("captures", []),
        lambda c: (c["port"], c["file"], fmt_count(c["frames"]), fmt_bytes(c["frame_bytes"])),
        "captures",
    )

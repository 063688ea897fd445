"""Bench scenarios written by code: many hosts, links and flows that a file would spell out
line by line (a 10,000-flow scenario is most of a megabyte of TOML).

Each function returns scenario text in the ordinary format, so a generated scenario runs,
validates and prints like any other. :data:`GENERATED` names the ones ``ethersim bench``
runs beside the packaged files.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["GENERATED", "poisson_flows", "tcp_dumbbell"]


def tcp_dumbbell(flows: int = 100, *, rate: str = "10 Gb/s", buffer_frames: int = 100) -> str:
    """``flows`` long-lived TCP transfers (ethersim's default TCP: NewReno, delayed ACKs,
    receive window, per-ACK retransmission timer), each from its own sender through a left
    switch, one bottleneck link and a right switch to its own receiver, for 1 s. Access
    links 2 us, bottleneck 6 us, every link at ``rate``; the bottleneck port holds
    ``buffer_frames`` frames (drop-tail); flow i starts at 10i us. The shape of htsim's
    dumbbell benchmark, so that the two simulators can be timed on the same network."""
    lines = [
        f'name = "tcp-dumbbell-{flows}"',
        "seed = 1",
        'duration = "1 s"',
        "",
    ]
    for i in range(flows):
        lines += ["[[hosts]]", f'name = "s{i}"', "", "[[hosts]]", f'name = "r{i}"', ""]
    lines += ["[[switches]]", 'name = "L"', f"port_buffer = {{ frames = {buffer_frames} }}", ""]
    lines += ["[[switches]]", 'name = "R"', "port_buffer = { frames = 100000 }", ""]
    lines += ["[[links]]", 'between = ["L", "R"]', f'rate = "{rate}"', 'delay = "6 us"', ""]
    for i in range(flows):
        lines += ["[[links]]", f'between = ["s{i}", "L"]', f'rate = "{rate}"', 'delay = "2 us"']
        lines += ["", "[[links]]", f'between = ["R", "r{i}"]', f'rate = "{rate}"']
        lines += ['delay = "2 us"', ""]
    for i in range(flows):
        lines += ["[[apps]]", 'kind = "tcp_bulk"', f'name = "f{i}"', f'from = "s{i}"']
        lines += [f'to = "r{i}"', f'start = "{10 * i} us"', ""]
    return "\n".join(lines)


def poisson_flows(flows: int = 10_000, *, pairs: int = 100) -> str:
    """``flows`` concurrent Poisson flows of 100 kb/s each (1518-B frames, about eight a
    second) between ``pairs`` senders and ``pairs`` receivers on one switch, 10 Gb/s links,
    for 1 s: nearly every flow carries packets, so the run's peak memory is the cost of
    that many active flows."""
    lines = [f'name = "flows-poisson-{flows}"', "seed = 1", 'duration = "1 s"', ""]
    for i in range(pairs):
        lines += ["[[hosts]]", f'name = "s{i}"', "", "[[hosts]]", f'name = "r{i}"', ""]
    lines += ["[[switches]]", 'name = "sw"', ""]
    for i in range(pairs):
        for a, b in ((f"s{i}", "sw"), ("sw", f"r{i}")):
            lines += ["[[links]]", f'between = ["{a}", "{b}"]', 'rate = "10 Gb/s"']
            lines += ['delay = "1 us"', ""]
    for k in range(flows):
        sender = k % pairs
        receiver = (k // pairs + sender) % pairs
        lines += ["[[apps]]", 'kind = "poisson"', f'name = "p{k}"', f'from = "s{sender}"']
        lines += [f'to = "r{receiver}"', 'rate = "100 kb/s"', ""]
    return "\n".join(lines)


GENERATED: dict[str, Callable[[], str]] = {
    "tcp-dumbbell-100": tcp_dumbbell,
    "flows-poisson-10000": poisson_flows,
}
"""The generated bench scenarios: name → the function that writes its text."""

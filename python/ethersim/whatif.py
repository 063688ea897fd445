"""``ethersim what-if``: what Energy Efficient Ethernet would save, and what delay it would
add, on a given packet trace.

The trace is replayed (a ``replay`` application: each frame at its time with its length)
from one host to another over one link of the chosen PHY type: once with Low Power Idle
off, and once per policy: ``immediate``, ``timeout`` at each timeout given, and
``coalescing`` at each timer given. The receiving port captures every frame's arrival
(to the picosecond), so a frame's *added delay* is its arrival with the policy less its
arrival without: frame by frame, not a difference of distributions. Energy is that of the
sending port's PHY over the run, against the same PHY always active.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ethersim.api import _toml_string
from ethersim.errors import ScenarioError
from ethersim.traces import CLOCK_END_S, Trace, read_trace

if TYPE_CHECKING:
    from ethersim.results import Result

__all__ = ["PHY_RATES", "Policy", "WhatIf", "check_fits_the_clock", "policies", "run_what_if"]

#: The rate of each PHY type with a Low Power Idle profile.
PHY_RATES = {"100BASE-TX": "100 Mb/s", "1000BASE-T": "1 Gb/s", "10GBASE-T": "10 Gb/s"}

#: Transmit buffers of the sending host: enough that no frame of a trace is lost at the
#: sender while a sleeping PHY holds the queue (every frame must arrive in both runs to
#: be compared).
TX_BUFFERS = 1 << 20


@dataclass(frozen=True)
class Policy:
    """One row of the table: a policy and its setting, as scenario text."""

    #: ``off``, ``immediate``, ``timeout`` or ``coalescing``.
    kind: str
    #: Its setting as people say it (``100 us``, ``16 frames or 1 ms``), empty if none.
    setting: str
    #: The ``policy`` table of the link's ``eee`` (``None`` for off).
    toml: str | None


def policies(
    timeouts: Sequence[str], coalescing_timers: Sequence[str], frames: int
) -> list[Policy]:
    """The policies compared: LPI off, immediate, each timeout, each coalescing timer."""
    rows = [Policy("off", "", None), Policy("immediate", "", '{ kind = "immediate" }')]
    rows += [
        Policy("timeout", t, f'{{ kind = "timeout", timeout = {_toml_string(t, "--timeout")} }}')
        for t in timeouts
    ]
    rows += [
        Policy(
            "coalescing",
            f"{frames} frames or {t}",
            '{ kind = "coalescing", '
            f"frames = {frames}, timer = {_toml_string(t, '--coalesce')} }}",
        )
        for t in coalescing_timers
    ]
    return rows


@dataclass
class WhatIf:
    """A what-if question: a trace, a PHY type, the policies to compare."""

    trace: Path
    phy: str = "10GBASE-T"
    timeouts: list[str] = field(default_factory=lambda: ["10 us", "100 us", "1 ms"])
    coalescing_timers: list[str] = field(default_factory=lambda: ["100 us", "1 ms"])
    coalescing_frames: int = 16
    time_scale: float = 1.0
    jobs: int | None = None

    def scenario(self, policy: Policy) -> str:
        """The scenario of one row."""
        eee = (
            ""
            if policy.toml is None
            else f"eee = {{ phy = {_toml_string(self.phy, '--phy')}, policy = {policy.toml} }}\n"
        )
        return (
            f'name = "what-if {policy.kind} {policy.setting}"\n'
            "seed = 1\n"
            f'[[hosts]]\nname = "sender"\ntx_buffers = {TX_BUFFERS}\n'
            '[[hosts]]\nname = "receiver"\n'
            '[[links]]\nbetween = ["sender", "receiver"]\n'
            f"rate = {_toml_string(PHY_RATES[self.phy], '--phy')}\n"
            'delay = "0 s"\n'
            f"{eee}"
            '[[apps]]\nkind = "replay"\nname = "trace"\nfrom = "sender"\nto = "receiver"\n'
            f"file = {_toml_string(str(self.trace.resolve()), 'TRACE')}\n"
            f"time_scale = {self.time_scale!r}\n"
            '[[captures]]\nport = "receiver->sender"\nfile = "arrivals.pcapng"\n'
            'direction = "in"\nsnaplen = 64\nresolution = "ps"\n'
        )


def _arrivals(folder: Path) -> np.ndarray:
    t = read_trace(folder / "captures" / "arrivals.pcapng")
    return t.offset_ps.astype(np.int64) + np.int64(t.first_ps)


def _sending_port(result: Result) -> dict[str, Any]:
    """The sending host's port of a what-if run, as a row."""
    ports = result.ports
    row = ports[(ports["node"] == "sender") & (ports["peer"] == "receiver")].iloc[0]
    return {str(k): v for k, v in row.to_dict().items()}


def _at_most(value: float) -> float:
    """``value`` rounded down to three significant digits (a limit to quote that is
    itself within the limit)."""
    step = 10.0 ** (math.floor(math.log10(value)) - 2)
    return math.floor(value / step) * step


def check_fits_the_clock(q: WhatIf, trace: Trace) -> None:
    """Refuses, before any run, a ``time_scale`` that stretches the trace past the
    engine's clock: the runs would stop at its end (``clock_overflow``) and the table
    would compare only the part simulated. The replay's last frame, plus the longest
    timer a policy may hold it by, must fit."""
    from ethersim import _core

    timers = [(t, "--timeout") for t in q.timeouts]
    timers += [(t, "--coalesce") for t in q.coalescing_timers]
    longest_ps = max((_core.parse_quantity("duration", t, at) for t, at in timers), default=0)
    longest_s = longest_ps * 1e-12
    end_s = trace.replay_end_s(q.time_scale)
    if end_s + longest_s <= CLOCK_END_S:
        return
    limit = _at_most((CLOCK_END_S - longest_s) / trace.replay_end_s())
    raise ScenarioError(
        f"{q.time_scale:g} stretches the trace's {trace.span_s:.6g} s to {end_s:.4g} s "
        f"({end_s / 86_400:.3g} days), beyond the engine's clock (about 213 days): the runs "
        f"would stop there, with only part of the trace replayed; expected at most {limit:g}",
        "--time-scale",
    )


def run_what_if(q: WhatIf) -> tuple[Trace, pd.DataFrame]:
    """Runs the comparison; returns the trace and one row per policy. Each row says how
    its run ended (``stop_reason``, ``work_done`` when the whole trace was replayed)
    and the simulated time it covers (``sim_time_s``)."""
    from ethersim.batch import run_many

    if q.phy not in PHY_RATES:
        raise ScenarioError(
            f"{q.phy!r} is not a PHY type with a Low Power Idle profile; expected one of "
            + ", ".join(PHY_RATES),
            "--phy",
        )
    trace = read_trace(q.trace, "TRACE")
    check_fits_the_clock(q, trace)
    rows = policies(q.timeouts, q.coalescing_timers, q.coalescing_frames)
    with tempfile.TemporaryDirectory(prefix="ethersim-what-if-") as tmp:
        folders = [Path(tmp) / str(i) for i in range(len(rows))]
        for f in folders:
            f.mkdir()
        results = run_many([q.scenario(p) for p in rows], jobs=q.jobs, outputs=folders)
        arrivals = [_arrivals(f) for f in folders]
    base = arrivals[0]
    # The PHY's active power, from a run with LPI: its always-active energy over its span.
    lpi = results[1]
    lpi_port = _sending_port(lpi)
    active_w = float(lpi_port["energy_eee_off_j"]) / float(lpi.summary["sim_time_s"])
    table = []
    for policy, result, arrived in zip(rows, results, arrivals, strict=True):
        port = _sending_port(result)
        flow = {str(k): v for k, v in result.flows.iloc[0].to_dict().items()}
        added = (arrived - base) * 1e-6 if len(arrived) == len(base) else None
        has_lpi = policy.toml is not None
        always_on = active_w * float(result.summary["sim_time_s"])
        table.append(
            {
                "policy": policy.kind,
                "setting": policy.setting,
                "frames": int(flow["packets_received"]),
                "energy_j": float(port["energy_j"]) if has_lpi else always_on,
                "energy_eee_off_j": float(port["energy_eee_off_j"]) if has_lpi else always_on,
                "energy_saved_percent": float(port["energy_saved_percent"]) if has_lpi else 0.0,
                "sleeps": int(port["lpi_sleeps"]) if has_lpi else 0,
                "added_delay_mean_us": float(np.mean(added)) if added is not None else None,
                "added_delay_p99_us": float(np.percentile(added, 99))
                if added is not None
                else None,
                "added_delay_max_us": float(np.max(added)) if added is not None else None,
                "delay_mean_us": float(flow["delay_mean_s"]) * 1e6,
                "delay_p99_us": float(flow["delay_p99_s"]) * 1e6,
                "stop_reason": str(result.summary["stop_reason"]),
                "sim_time_s": float(result.summary["sim_time_s"]),
            }
        )
    return trace, pd.DataFrame(table)

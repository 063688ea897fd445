"""``ethersim reproduce eee-pingpong``: what Low Power Idle adds to a ping's round trip.

The study (see the project specification, "eee-pingpong"): two hosts on one 1000BASE-T
switch with Energy Efficient Ethernet, where only the link to host 0 may enter Low Power
Idle. The switch sleeps after 1 ms of idle, wakes on demand, asks for a 60 us wake time
(so the link, by 802.3az's agreement, wakes in 60 us) and lets a sleep in progress finish
before waking. Host 0 pings host 1, and then host 1 pings host 0, with 64-byte packets
(ICMP echo of 56 data bytes), 1000 pings per send interval, the interval from 0.5 to
4 ms. The response delay is the mean round trip with EEE on less the same with EEE off.

Every number comes from simulation: each interval and direction is run twice, EEE on and
off, with the same seed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ethersim.batch import Progress, default_jobs, run_many
from ethersim.studies.study import Study, TableFile

if TYPE_CHECKING:
    from collections.abc import Mapping

    import pandas as pd
    from rich.table import Table

    from ethersim.studies.contract import Findings, Published

__all__ = [
    "IDLE_TIMEOUT_US",
    "SLEEP_US",
    "STUDY",
    "WAKE_US",
    "Options",
    "Reproduction",
    "reproduce",
]

#: The switch's idle timeout, its wake time, and 1000BASE-T's sleep time (the profile's).
IDLE_TIMEOUT_US = 1000
WAKE_US = 60
SLEEP_US = 182
#: Pings start once the idle link has slept, so that every ping sees the steady state.
START_MS = 5


@dataclass(frozen=True)
class Options:
    """What a reproduction runs."""

    #: A coarser grid of intervals and 100 pings each.
    quick: bool = False
    #: Seed of every run.
    seed: int = 1
    #: Runs at once (default: every core).
    jobs: int | None = None

    @property
    def pings(self) -> int:
        """Pings per interval and direction."""
        return 100 if self.quick else 1000

    def intervals_us(self) -> list[int]:
        """Send intervals: 0.5 to 4 ms, finer around the timeout and the sleep after it
        (where the curve has its features)."""
        coarse, fine = (250, 20) if self.quick else (50, 2)
        edge = IDLE_TIMEOUT_US
        grid = set(range(500, 4001, coarse))
        grid |= set(range(edge - 100, edge + SLEEP_US + WAKE_US + 100, fine))
        return sorted(grid)


@dataclass
class Reproduction:
    """What a reproduction found."""

    options: Options
    #: ``eee_pingpong.csv``: one row per (direction, interval).
    table: pd.DataFrame
    runs: int
    wall_s: float
    jobs: int


def scenario(pinger: int, interval_us: int, eee: bool, pings: int, seed: int = 1) -> str:
    """One run as TOML text: host ``pinger`` pings the other every ``interval_us``."""
    eee_text = (
        "\n# Only the link to host 0 may sleep: 1000BASE-T (both directions together),\n"
        "# idle timeout 1 ms, the switch asks for a 60 us wake, a sleep in progress finishes.\n"
        "[links.eee]\n"
        'phy = "1000BASE-T"\n'
        f'policy = {{ kind = "timeout", timeout = "{IDLE_TIMEOUT_US} us" }}\n'
        f'wake_time = {{ switch = "{WAKE_US} us" }}\n'
        "abort_sleep = false\n"
        if eee
        else ""
    )
    src, dst = (f"h{pinger}", f"h{1 - pinger}")
    state = "on" if eee else "off"
    return f"""# EEE ping-pong study, one run: h{pinger} pings every {interval_us} us, EEE {state}.
# Written by `ethersim reproduce eee-pingpong`.
name = "eee-pingpong-h{pinger}-{interval_us}us-{"on" if eee else "off"}"
seed = {seed}

[[hosts]]
name = "h0"

[[hosts]]
name = "h1"

[[switches]]
name = "switch"

[[links]]
between = ["switch", "h0"]
rate = "1 Gb/s"
delay = "500 ns"
{eee_text}
[[links]]
between = ["switch", "h1"]
rate = "1 Gb/s"
delay = "500 ns"

[[apps]]
kind = "ping"
name = "ping"
from = "{src}"
to = "{dst}"
interval = "{interval_us} us"
start = "{START_MS} ms"     # after the idle link has gone to sleep
payload = "56 B"     # a 64-byte ICMP echo
count = {pings}
"""


def reproduce(options: Options, progress: bool = False) -> Reproduction:
    """Runs the study and returns what it found (nothing is written)."""
    import pandas as pd

    started = time.perf_counter()
    jobs = options.jobs or default_jobs()
    cells = [(p, i) for p in (0, 1) for i in options.intervals_us()]
    texts = [
        scenario(p, i, eee, options.pings, options.seed) for p, i in cells for eee in (False, True)
    ]
    show = Progress(progress)
    try:
        results = run_many(texts, jobs, show.phase("ping-pong"))
    finally:
        show.close()
    rows = []
    for k, (pinger, interval) in enumerate(cells):
        off, on = results[2 * k], results[2 * k + 1]
        f_off, f_on = off.summary["flows"][0], on.summary["flows"][0]
        rtt_off = f_off["rtt"]["mean_s"] * 1e6
        rtt_on = f_on["rtt"]["mean_s"] * 1e6
        port = next(p for p in on.summary["ports"] if p["node"] == "switch" and p["peer"] == "h0")
        rows.append(
            {
                "pinger": pinger,
                "interval_ms": interval / 1000,
                "rtt_off_us": rtt_off,
                "rtt_on_us": rtt_on,
                "response_delay_us": rtt_on - rtt_off,
                "pings": f_on["ping_replies"],
                "seed": options.seed,
                "rtt_on_max_us": f_on["rtt"]["max_s"] * 1e6,
                "lpi_sleeps": port["lpi_sleeps"],
                "lpi_wakes": port["lpi_wakes"],
                "energy_saved_percent": port["energy_saved_percent"],
            }
        )
    return Reproduction(
        options, pd.DataFrame(rows), len(texts), time.perf_counter() - started, jobs
    )


def _figure(rep: Reproduction, folder: Path, published: Published) -> None:
    from ethersim.figures import prepare, write_figure

    prepare(folder)
    import matplotlib.pyplot as plt

    from ethersim.studies.contract import draw_published

    fig, ax = plt.subplots(figsize=(8, 4.5), layout="constrained")
    for pinger in (0, 1):
        rows = rep.table[rep.table.pinger == pinger]
        ax.plot(
            rows.interval_ms,
            rows.response_delay_us,
            "o-",
            ms=2.5,
            label=f"host {pinger} pings host {1 - pinger}",
        )
    ax.axvline(IDLE_TIMEOUT_US / 1000, color="grey", ls=":", label="idle timeout (1 ms)")
    ax.axhline(WAKE_US, color="grey", ls="--", label=f"Tw ({WAKE_US} us)")
    draw_published(ax, published, "response_delay")
    ax.set_xlabel("ping interval (ms)")
    ax.set_ylabel("response delay: mean RTT, EEE on - off (us)")
    ax.set_title("1000BASE-T EEE link to host 0: idle timeout 1 ms, Tw 60 us, sleep finishes")
    ax.legend(fontsize=8)
    write_figure(fig, folder, "response_delay")


def _summary(rep: Reproduction) -> str:
    t = rep.table
    below = t[t.interval_ms * 1000 < IDLE_TIMEOUT_US - 50]
    peak = t.iloc[int(t.response_delay_us.to_numpy().argmax())]
    # Where the delay first exceeds a few wakes' worth of the first ping, and where it
    # settles at the wake time for good.
    woke = t[t.response_delay_us > 1.0].sort_values("interval_ms")
    first = woke.iloc[0]
    settled = t.response_delay_us.sub(WAKE_US).abs() < 0.5
    irregular = t[~settled & (t.interval_ms * 1000 > IDLE_TIMEOUT_US)]
    last_irregular = float(irregular.interval_ms.max())
    beyond = t[t.interval_ms > last_irregular]
    lines = [
        "# EEE ping-pong: the response delay Low Power Idle adds",
        "",
        f"{'Quick grid' if rep.options.quick else 'Full grid'}: {len(t)} (direction, interval) "
        f"cells, {rep.options.pings} pings each, EEE on and off; {rep.runs} simulations on "
        f"{rep.jobs} threads in {rep.wall_s:.1f} s; seed {rep.options.seed}.",
        "",
        f"- Intervals shorter than the idle timeout: the link sleeps only before the first "
        f"ping; the response delay is at most {below.response_delay_us.abs().max():.3f} us "
        f"(one wake spread over {rep.options.pings} pings).",
        f"- Just above the timeout ({first.interval_ms:.3f} ms, host {int(first.pinger)} "
        f"pinging) the delay jumps to {first.response_delay_us:.1f} us: a request finds the "
        f"link going to sleep and waits for the rest of the sleep ({SLEEP_US} us) and the "
        f"wake ({WAKE_US} us), up to {SLEEP_US + WAKE_US} us; its reply comes back that much "
        "later, which shortens the next idle gap below the timeout, so the next ping does not "
        "wait and the mean is about half.",
        f"- Up to {last_irregular:.3f} ms the delays of successive pings feed back into each "
        f"other's idle gaps (largest mean {peak.response_delay_us:.1f} us at "
        f"{peak.interval_ms:.3f} ms); from there on every request finds the link asleep and "
        f"waits the wake alone: {beyond.response_delay_us.min():.3f} to "
        f"{beyond.response_delay_us.max():.3f} us (Tw = {WAKE_US} us), while the link to "
        f"host 0 saves {beyond.energy_saved_percent.min():.1f} to "
        f"{beyond.energy_saved_percent.max():.1f} % of its PHY energy.",
        "",
        "Figure: `figures/response_delay.png` (and SVG). Table: `eee_pingpong.csv`.",
        "",
    ]
    return "\n".join(lines)


class _EeePingpong(Study[Options, Reproduction]):
    """The ping-pong study's command, runs and files."""

    name = "eee-pingpong"
    title = "EEE ping-pong: the delay Low Power Idle adds to a ping's round trip."
    description = (
        "EEE ping-pong: the delay Low Power Idle adds to a ping's round trip against the "
        "send interval, in each direction, on a 1000BASE-T link with a 1 ms idle timeout."
    )
    examples = (
        "ethersim reproduce eee-pingpong --quick",
        "ethersim reproduce eee-pingpong --out results/pingpong",
    )
    quick_help = "A coarser grid, 100 pings per interval."
    out_help = "Folder for the table, figure and summary."

    def configure(self, values: Mapping[str, Any]) -> Options:
        return Options(quick=values["quick"], seed=values["seed"], jobs=values["jobs"])

    def reproduce(self, options: Options, progress: bool) -> Reproduction:
        return reproduce(options, progress)

    def tables(self, rep: Reproduction) -> list[TableFile]:
        return [TableFile("eee_pingpong", rep.table)]

    def figures(self, rep: Reproduction, folder: Path, published: Published) -> None:
        _figure(rep, folder, published)

    def summary(self, rep: Reproduction) -> str:
        return _summary(rep)

    def scenario_files(self, rep: Reproduction) -> dict[str, str]:
        o = rep.options
        return {
            f"scenarios/h{pinger}-pings-1500us-eee-on.toml": scenario(
                pinger, 1500, True, o.pings, o.seed
            )
            for pinger in (0, 1)
        }

    def marker(self, rep: Reproduction) -> dict[str, Any]:
        return {
            "quick": rep.options.quick,
            "seed": rep.options.seed,
            "runs": rep.runs,
            "jobs": rep.jobs,
            "wall_time_s": rep.wall_s,
        }

    def main_table(self, rep: Reproduction) -> Table:
        from rich.table import Table

        table = Table(title="EEE ping-pong: response delay (mean RTT, EEE on - off)")
        for column in ("interval", "host 0 pings", "host 1 pings"):
            table.add_column(column, justify="right")
        t = rep.table
        shown = [0.5, 0.9, 1.0, 1.05, 1.1, 1.15, 1.2, 1.25, 1.5, 2.0, 3.0, 4.0]
        for interval in shown:
            rows = t[(t.interval_ms - interval).abs() < 1e-9]
            if len(rows) != 2:
                continue
            by = {int(r.pinger): r.response_delay_us for _, r in rows.iterrows()}
            table.add_row(f"{interval:g} ms", f"{by[0]:.1f} us", f"{by[1]:.1f} us")
        return table

    def findings(self) -> Findings[Reproduction]:
        from ethersim.studies.eee_pingpong_findings import FINDINGS

        return FINDINGS


#: The study, as :mod:`ethersim.studies.registry` lists it.
STUDY = _EeePingpong()

"""``ethersim bench``: whole-process figures for fixed scenarios.

Each bench scenario runs in a fresh Python process so that its peak resident memory
is its own. Figures: events executed, events per second, simulated packets (frames
handed to hosts) per second, wall time of the simulation, and the process's peak RSS.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources
from typing import Any

from ethersim.errors import ScenarioError

__all__ = ["bench_scenarios", "measure_one", "run_all"]


def bench_scenarios() -> dict[str, str]:
    """The bench scenarios: name → TOML text. The packaged files first, then those
    written by code (:mod:`ethersim.bench_generated`: a 100-flow TCP dumbbell, 10,000
    Poisson flows)."""
    from ethersim.bench_generated import GENERATED

    folder = resources.files("ethersim") / "bench_scenarios"
    files = {
        entry.name.removesuffix(".toml"): entry.read_text(encoding="utf-8")
        for entry in sorted(folder.iterdir(), key=lambda e: e.name)
        if entry.name.endswith(".toml")
    }
    return files | {name: write() for name, write in GENERATED.items()}


def measure_one(text: str) -> dict[str, Any]:
    """Runs one scenario in this process and returns its figures (no memory figure). A
    scenario's packet captures are written to a temporary folder, removed afterwards."""
    import tempfile

    from ethersim.api import run_text

    with tempfile.TemporaryDirectory(prefix="ethersim-bench-") as captures:
        result = run_text(text, output=captures)
    s = result.summary
    packets = sum(h["tx_packets"] for h in s["hosts"])
    return {
        "events": s["events"],
        "sim_time_s": s["sim_time_s"],
        "packets": packets,
        "wall_time_s": result.wall_time_s,
        "events_per_s": result.events_per_s,
        "packets_per_s": packets / result.wall_time_s if result.wall_time_s > 0 else 0.0,
    }


def _run_child(name: str) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "ethersim.benchmark", name]
    # A session of its own: a Ctrl-C at the terminal reaches the command alone, which
    # decides what stops (the child could not ignore one that came while its interpreter
    # started, and would print a traceback).
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, start_new_session=True)
    assert proc.stdout is not None
    try:
        with proc.stdout:
            out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
    except BaseException:
        # Stopped (Ctrl-C, SIGTERM) while the scenario runs: the child goes first, so that
        # nothing outlives the command to print after it.
        proc.kill()
        proc.wait()
        raise
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"bench scenario {name} failed with status {proc.returncode}")
    figures: dict[str, Any] = json.loads(out)
    if "peak_rss_mib" not in figures:
        # No high-water mark of its own (not Linux): the rusage's, which also counts the
        # memory of this process the child was forked from. ru_maxrss is in KiB on Linux.
        figures["peak_rss_mib"] = round(usage.ru_maxrss / 1024, 1)
    return {"scenario": name, **figures}


def _own_peak_rss_mib() -> float | None:
    """This process's peak resident memory since it started its program, in MiB: the
    kernel's high-water mark of its address space (``VmHWM``), which begins anew at
    ``exec``. (``ru_maxrss`` carries over the peak of the process it was forked from, so
    every scenario lighter than ``ethersim bench`` itself would show that one's memory.)
    ``None`` where ``/proc`` does not say."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)  # in kB
    except OSError:
        return None
    return None


def run_all(names: list[str] | None = None) -> dict[str, Any]:
    """Runs the named bench scenarios (all by default), each in its own process."""
    available = bench_scenarios()
    chosen = names or list(available)
    unknown = [n for n in chosen if n not in available]
    if unknown:
        raise ScenarioError(
            f"no bench scenario {unknown[0]!r}; available: {', '.join(available)}", "--scenario"
        )
    return {
        "machine": {"cpus": os.cpu_count(), "platform": sys.platform},
        "build": _build_profile(),
        "results": [_run_child(n) for n in chosen],
    }


def _build_profile() -> str:
    """How the extension was optimised (``ethersim._core.build_profile``): figures of a
    build with the profile-guided optimisation profile and of one without differ by
    several percent."""
    from ethersim import _core

    return _core.build_profile()


def _child_main() -> None:
    """The child process of ``ethersim bench``: one scenario's figures as JSON."""
    scenarios = bench_scenarios()
    if len(sys.argv) != 2 or sys.argv[1] not in scenarios:
        sys.stderr.write(
            "usage: python -m ethersim.benchmark NAME (one bench scenario: "
            f"{', '.join(scenarios)}); `ethersim bench` runs them all\n"
        )
        sys.exit(2)
    measured = measure_one(scenarios[sys.argv[1]])
    peak = _own_peak_rss_mib()
    if peak is not None:
        measured["peak_rss_mib"] = peak
    figures = json.dumps(measured)
    try:
        sys.stdout.write(figures)
        sys.stdout.flush()
    except BrokenPipeError:
        # The parent is gone (killed outright): the figures have no reader. Standard output
        # goes to /dev/null so that the interpreter's last flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


if __name__ == "__main__":
    _child_main()

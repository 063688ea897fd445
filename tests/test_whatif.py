"""``ethersim what-if`` and the engine's clock (issue 27): a ``--time-scale`` that
stretches the trace past the clock is refused before any run, naming the option; a run
that still stops early is said to cover only what it simulated; a replay planned past
the clock is warned of before ``ethersim run`` starts, not only once it has stopped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from cli_helpers import invoke

ROOT = Path(__file__).resolve().parents[1]
TRACE = ROOT / "examples" / "traces" / "office.pcapng"


def ethersim(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ethersim", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("scale", ["2e7", "1e300"])
def test_a_time_scale_past_the_clock_is_refused_before_any_run(tmp_path: Path, scale: str) -> None:
    # office.pcapng spans 1 s: at 2e7 its replay would last 231 days, past the clock's
    # 213; at 1e300 every frame would land at the clock's end (the table was nonsense).
    p = ethersim("what-if", str(TRACE), "--time-scale", scale, "--csv", "t.csv", cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    assert "error: --time-scale:" in p.stderr and "beyond the engine's clock" in p.stderr
    assert "expected at most 1.84e+07" in p.stderr, p.stderr
    assert "apps[0]" not in p.stderr and "Traceback" not in p.stderr
    assert p.stdout == "" and list(tmp_path.iterdir()) == []


def test_the_largest_time_scale_quoted_replays_the_whole_trace(tmp_path: Path) -> None:
    p = ethersim("what-if", str(TRACE), "--time-scale", "1.84e7", "--csv", "t.csv", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "warning" not in p.stderr, p.stderr
    table = pd.read_csv(tmp_path / "t.csv")
    assert (table.stop_reason == "work_done").all()
    assert (table.frames == 1335).all(), "every frame of the trace arrives in every run"
    assert (table.sim_time_s > 1.84e7).all()


def test_a_run_cut_short_is_named_with_its_stop_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The refusal above leaves no way to cut a run short from the command line; should
    # one stop early all the same, the table must not pass for the whole trace.
    from ethersim import whatif
    from ethersim.traces import read_trace

    row = {
        "policy": "timeout",
        "setting": "100 us",
        "frames": 1200,
        "energy_j": 1.0,
        "energy_eee_off_j": 2.0,
        "energy_saved_percent": 50.0,
        "sleeps": 1845,
        "added_delay_mean_us": 1.0,
        "added_delay_p99_us": 1.0,
        "added_delay_max_us": 1.0,
        "delay_mean_us": 1.0,
        "delay_p99_us": 1.0,
    }
    table = pd.DataFrame(
        [
            {**row, "stop_reason": "work_done", "sim_time_s": 1.0},
            {**row, "stop_reason": "clock_overflow", "sim_time_s": 18069478.4},
        ]
    )
    monkeypatch.setattr(whatif, "run_what_if", lambda q: (read_trace(TRACE), table))
    r = invoke("what-if", str(TRACE))
    assert r.exit_code == 0, r.output
    said = " ".join(r.output.split())
    assert said.count("warning:") == 1, said
    assert "the timeout 100 us run stopped at" in said
    assert "(stop_reason clock_overflow): its numbers cover only the part it simulated" in said


def test_a_replay_past_the_clock_is_warned_of_before_the_run_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ethersim import _core, api

    scenario = tmp_path / "replay.toml"
    scenario.write_text(
        'name = "stretched"\n[[hosts]]\nname = "a"\n[[hosts]]\nname = "b"\n'
        '[[links]]\nbetween = ["a", "b"]\nrate = "1 Gb/s"\n'
        f'[[apps]]\nkind = "replay"\nfrom = "a"\nto = "b"\nfile = "{TRACE}"\n'
    )
    order: list[str] = []
    core_run = _core.run

    def run(*args: object, **kwargs: object) -> str:
        order.append("run")
        return core_run(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(api._core, "run", run)
    stretched = ["apps[0].time_scale=2e7"]
    result = api.run(scenario, overrides=stretched, warn=lambda w: order.append(w))
    assert order[-1] == "run" and len(order) == 2, order
    early = order[0]
    assert early.startswith("apps[0] replays its trace (1 s at time_scale 2e+07)"), early
    assert "231 days" in early and "stop_reason clock_overflow" in early
    # The result keeps it, beside the core's own warning of where the run stopped.
    assert result.warnings[0] == early and result.summary["stop_reason"] == "clock_overflow"
    assert any("the run stopped at" in w for w in result.warnings[1:])

    # From the command line: printed once, before the core's; none at a scale that fits,
    # or with a duration (which always ends within the clock).
    p = ethersim("run", str(scenario), "--set", stretched[0], "-q", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stderr.count("apps[0] replays its trace") == 1, p.stderr
    assert p.stderr.index("apps[0] replays") < p.stderr.index("the run stopped at")
    with_duration = ["--set", stretched[0], "--set", "duration=1 s"]
    for fits in (["--set", "apps[0].time_scale=1e7"], with_duration):
        p = ethersim("run", str(scenario), *fits, "-q", cwd=tmp_path)
        assert p.returncode == 0 and "warning" not in p.stderr, p.stderr


def test_a_replay_that_fits_the_clock_is_not_warned_of() -> None:
    from ethersim import api

    text = (
        '[[apps]]\nkind = "replay"\nfrom = "a"\nto = "b"\n'
        f'file = "{TRACE}"\ntime_scale = 1e7\nrepeat = 2\n'
    )
    hosts = '[[hosts]]\nname = "a"\n[[hosts]]\nname = "b"\n[[links]]\nbetween = ["a", "b"]\n'
    # Two passes of 1 s (plus a mean gap) at 1e7: about 231 days, past the clock.
    (warning,) = api._replay_clock_warnings(hosts + text, [])
    assert "x 2 passes" in warning
    assert api._replay_clock_warnings(hosts + text, [("apps[0].repeat", "1")]) == []
    assert api._replay_clock_warnings(hosts + text, [("apps[0].stop", '"100 s"')]) == []

"""``scripts/side-by-side``, the timer of the README's side-by-side table: what it refuses
and that a rest before each run is taken, both commands alike. The runs need GNU time,
which ``scripts/install-test-tools`` installs; without it those tests skip and say so."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "side-by-side"
needs_gnu_time = pytest.mark.skipif(
    not os.access("/usr/bin/time", os.X_OK),
    reason="GNU time is not installed (apt-get install time; scripts/install-test-tools does)",
)


def _side_by_side(*words: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *words], capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("rest", ["-1", "nan", "inf", "soon"])
def test_a_rest_that_is_no_finite_span_is_refused(rest: str) -> None:
    done = _side_by_side("--rest", rest, "true", "true")
    assert done.returncode == 2
    assert "--rest" in done.stderr
    assert done.stdout == ""


def test_no_pairs_is_refused() -> None:
    done = _side_by_side("-n", "0", "true", "true")
    assert done.returncode == 2
    assert "-n must be at least 1" in done.stderr


@needs_gnu_time
def test_a_rest_comes_before_every_run_and_is_reported() -> None:
    # Two pairs, four runs of `true`: four rests of 0.25 s, so at least 1 s in all.
    started = time.monotonic()
    done = _side_by_side("-n", "2", "--rest", "0.25", "true", "true")
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert took >= 1.0
    last = done.stdout.splitlines()[-1]
    assert last.startswith("A/B cpu: median ")
    assert last.endswith("2 pairs, 0.25 s of rest before each run)")


@needs_gnu_time
def test_without_a_rest_the_report_says_nothing_of_one() -> None:
    done = _side_by_side("-n", "1", "true", "true")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].endswith("1 pairs)")

"""The published findings of ``ethersim reproduce eee-pingpong``: the quick run compares
every finding and lists every parameter it sets, and the evaluators compute what the
findings say on small hand-made tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from ethersim.studies import contract
from ethersim.studies import eee_pingpong as study
from ethersim.studies.eee_pingpong_findings import EVALUATORS, FINDINGS


@pytest.fixture(scope="module")
def quick(every_quick_study: tuple[Path, str]) -> Path:
    """This study's folder of the session's ``reproduce all --quick`` (conftest.py)."""
    return every_quick_study[0] / "eee-pingpong"


def test_the_quick_run_compares_every_finding_and_lists_every_parameter(quick: Path) -> None:
    published = FINDINGS.published()
    comparison = pd.read_csv(quick / "comparison.csv")
    assert list(comparison.columns[:7]) == list(contract.COMPARISON_COLUMNS)
    assert list(comparison.finding) == [f.id for f in published.findings]
    assert set(comparison.verdict) <= set(contract.VERDICTS)
    # A difference is explained or says it is not.
    differs = comparison[comparison.verdict == "differs"]
    assert differs.explanation.notna().all() and (differs.explanation != "").all()
    setup = pd.read_csv(quick / "setup.csv")
    assert list(setup.columns[:4]) == list(contract.SETUP_COLUMNS)
    assert not (setup.kind == "unlisted").any(), setup[setup.kind == "unlisted"].parameter
    summary = (quick / "summary.md").read_text()
    assert contract.k_of_n(comparison) in summary
    # Every finding the quick grid can judge is judged.
    assert (comparison.verdict != "not comparable").all()


def test_every_quantity_has_an_evaluator_and_the_ranges_are_well_formed() -> None:
    published = FINDINGS.published()
    assert {f.quantity for f in published.findings} <= set(EVALUATORS)
    for e in published.setup:
        assert len(e.range) <= 5, e.parameter


def _rep(rows: list[tuple[int, float, float, int, int]]) -> study.Reproduction:
    """A reproduction whose table has (pinger, interval_ms, delay, sleeps, wakes) rows
    and 100 pings each."""
    table = pd.DataFrame(
        rows, columns=["pinger", "interval_ms", "response_delay_us", "lpi_sleeps", "lpi_wakes"]
    )
    table["pings"] = 100
    return study.Reproduction(study.Options(quick=True), table, runs=0, wall_s=0.0, jobs=1)


# Both directions alike: nearly zero below 1 ms, a rise at 1.1 ms, Tw from 1.5 ms on.
ROWS = [
    (p, interval, delay, sleeps, wakes)
    for p in (0, 1)
    for interval, delay, sleeps, wakes in (
        (0.5, 0.6, 1, 1),
        (0.9, -0.2, 1, 1),
        (1.0, 3.0, 1, 1),
        (1.1, 83.0, 50, 50),
        (1.2, 140.0, 90, 90),
        (1.5, 60.0, 100, 100),
        (4.0, 60.0 + 2 * p, 100, 100),
    )
]


def _outcome(quantity: str, rows: list[Any] = ROWS, **where: Any) -> contract.Outcome:
    return EVALUATORS[quantity](_rep(rows), where)


def test_the_evaluators_compute_what_the_findings_state() -> None:
    # |delay| below the timeout: 3.0 at 1.0 ms is not below 1 ms, so 0.6.
    assert _outcome("max_abs_response_delay_below_timeout_us", timeout_ms=1.0).value == 0.6
    # The level at 4 ms: the mean of 60 and 62.
    assert _outcome("response_delay_us", interval_ms=4.0).value == pytest.approx(61.0)
    assert not _outcome("response_delay_us", interval_ms=3.0).comparable
    # Onset: the first interval over 10 us is 1.1 ms in both directions.
    assert _outcome("delay_onset_interval_ms", near_zero_us=10).value == pytest.approx(1.1)
    # The jump: 83 - mean(0.6, -0.2) = 82.8 us, after 1.0 ms at 3 us: sudden, "dozens".
    jump = _outcome(
        "delay_jump_at_timeout_us",
        timeout_ms=1.0,
        near_zero_us=10,
        jump_min_us=20,
        jump_max_us=100,
    )
    assert jump.holds and "+82.8 us at 1.1 ms" in jump.text
    big = [(p, i, 130.0 if i == 1.1 else d, s, w) for p, i, d, s, w in ROWS]
    assert not _outcome(
        "delay_jump_at_timeout_us",
        big,
        timeout_ms=1.0,
        near_zero_us=10,
        jump_min_us=20,
        jump_max_us=100,
    ).holds
    # Sleep range 1.0 < interval <= 1.182 ms: only 1.1 ms, 83 us.
    mean = _outcome("mean_response_delay_in_sleep_range_us", timeout_ms=1.0, ts_us=182)
    assert mean.value == pytest.approx(83.0)
    # Beyond Tw + 1 us: 1.1, 1.2 (and 4 ms for host 1, 62 us: outside the sleep range).
    beyond = _outcome("delay_beyond_tw_near_timeout", timeout_ms=1.0, tw_us=60, ts_us=182)
    assert not beyond.holds and "5 of 8" in beyond.text
    shape = dict(
        timeout_ms=1.0,
        near_zero_us=10,
        tw_us=60,
        tw_tolerance_us=20,
        long_ms=4.0,
        every_wake_from_ms=1.5,
    )
    assert _outcome("step_shape", **shape).holds
    # A row from 1.5 ms on that misses more than the first ping's wake breaks the shape.
    missing = [(p, i, d, s, 98 if i == 1.5 else w) for p, i, d, s, w in ROWS]
    assert not _outcome("step_shape", missing, **shape).holds

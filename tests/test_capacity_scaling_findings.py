"""The published findings of ``ethersim reproduce capacity-scaling``: the quick run
compares every finding and lists every parameter it sets; the evaluators compute what
their findings state, checked on small tables built by hand."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from ethersim.studies import capacity_scaling as study
from ethersim.studies import capacity_scaling_findings as findings
from ethersim.studies.contract import VERDICTS, parse_toml


@pytest.fixture(scope="module")
def quick(every_quick_study: tuple[Path, str]) -> Path:
    """This study's folder of the session's ``reproduce all --quick`` (conftest.py)."""
    return every_quick_study[0] / "capacity-scaling"


def test_quick_compares_every_finding_and_lists_every_parameter(quick: Path) -> None:
    published = findings.FINDINGS.published()
    comparison = pd.read_csv(quick / "comparison.csv", keep_default_na=False)
    assert list(comparison.finding) == [f.id for f in published.findings]
    assert set(comparison.verdict) <= set(VERDICTS)
    by = comparison.set_index("finding")
    # The quick grid runs RTT 10 and 50 ms only: findings at RTT 1 ms say so.
    row = by.loc["single-small-rtt-tcp-near-10-mbps"]
    assert row.verdict == "not comparable"
    assert "RTT = 1 ms" in row.explanation and "10, 50" in row.explanation
    # A finding the quick grid does run gets a verdict with numbers.
    row = by.loc["bottleneck-lowers-arrival-rate"]
    assert row.verdict in ("reproduced", "differs") and "of 4 cells" in row.simulated
    setup = pd.read_csv(quick / "setup.csv", keep_default_na=False)
    assert "unlisted" not in set(setup.kind), setup[setup.kind == "unlisted"].parameter.tolist()
    summary = (quick / "summary.md").read_text()
    assert f"of {len(published.findings)} published findings reproduced" in summary


def test_sensitivity_ranges_avoid_keys_the_sweeps_set() -> None:
    """A scenario-key range must not name a key the sweeps vary (refused) nor a key
    inside the practRA policy table (the paired fixed-policy runs refuse it); option
    entries must name real Options fields."""
    published = findings.FINDINGS.published()
    options = {f.name for f in dataclasses.fields(study.Options)}
    varied = set()
    for setting in study.SETTINGS:
        doc = parse_toml(study._sweep_text(setting, study.Options(quick=True)))
        varied |= set(doc["grid"]) | set(doc["zip"])
    assert set(findings.FINDINGS.options) <= options
    for entry in published.setup:
        if not entry.range:
            continue
        if entry.option:
            assert entry.option in options, entry.parameter
            continue
        assert entry.parameter not in varied, entry.parameter
        assert not entry.parameter.startswith(study.POLICY_KEY), entry.parameter


def _rep(rows: list[dict[str, Any]], **timeseries: pd.DataFrame) -> study.Reproduction:
    defaults = {
        "b_on_ms": math.nan,
        "bn_s": math.nan,
        "throughput_reduction_ci_percent": 0.0,
        "mean_service_rate_ci_mbps": 0.0,
    }
    table = pd.DataFrame([{**defaults, **r} for r in rows])
    return study.Reproduction(
        options=study.Options(), table=table, pairs=pd.DataFrame(), timeseries=dict(timeseries)
    )


def test_a_quantity_over_cells_reports_the_cell_farthest_from_the_claim() -> None:
    rep = _rep(
        [
            {
                "setting": "single",
                "rtt_ms": 100.0,
                "mrci_ms": m,
                "service_rate_reduction_percent": x,
            }
            for m, x in ((10.0, 25.0), (100.0, 45.0), (1000.0, 31.0))
        ]
    )
    evaluate = findings.EVALUATORS["service_rate_reduction_percent"]
    # Within 20-40 % everywhere but mRCI 100 ms: that cell is the one reported.
    assert evaluate(rep, {"setting": "single", "rtt_ms": 100, "farthest_from": 30}).value == 45.0
    # Without farthest_from: the mean.
    assert evaluate(rep, {"setting": "single", "rtt_ms": 100}).value == pytest.approx(101 / 3)
    # A cell the grid did not run: not comparable, saying which values it runs.
    out = evaluate(rep, {"setting": "single", "rtt_ms": [1, 100]})
    assert not out.comparable
    assert "RTT = 1 ms" in out.text and "100" in out.text


def test_trend_in_mrci_counts_groups_by_spearman_sign() -> None:
    rows = []
    # RTT 10 ms: reduction rises with mRCI (+1); RTT 50 ms: falls (-1); RTT 100: rises.
    for rtt, values in ((10.0, (1.0, 2.0, 3.0)), (50.0, (3.0, 2.0, 1.0)), (100.0, (0.0, 0.5, 4.0))):
        for m, v in zip((10.0, 100.0, 1000.0), values, strict=True):
            rows.append(
                {"setting": "bottleneck", "rtt_ms": rtt, "mrci_ms": m, "bn_s": 0.05}
                | {"throughput_reduction_percent": v}
            )
    rep = _rep(rows)
    out = findings.EVALUATORS["throughput_reduction_increasing_in_mrci"](
        rep, {"setting": "bottleneck", "bn_s": 0.05}
    )
    assert out.holds is True and "positive in 2 of 3 groups" in out.text
    # Drop the last rising group: 1 of 2 is not "most".
    rep.table = rep.table[rep.table.rtt_ms != 100.0]
    out = findings.EVALUATORS["throughput_reduction_increasing_in_mrci"](
        rep, {"setting": "bottleneck", "bn_s": 0.05}
    )
    assert out.holds is False and "1 of 2" in out.text


def test_loss_above_needs_most_cells_and_the_mean() -> None:
    rep = _rep(
        [
            {"setting": "background", "rtt_ms": 10.0, "mrci_ms": 10.0, "b_on_ms": 100.0}
            | {"loss_percent_pc": pc, "loss_percent_nopc": nopc}
            for pc, nopc in ((1.0, 0.5), (1.0, 0.9), (0.1, 3.0))
        ]
    )
    out = findings.EVALUATORS["loss_pc_above_nopc"](rep, {"setting": "background"})
    # Higher in 2 of 3 cells, but the mean is lower (0.70 against 1.47): does not hold.
    assert out.holds is False and "2 of 3" in out.text


def _series(arrival: np.ndarray, service: np.ndarray, pc: bool) -> pd.DataFrame:
    t = np.arange(len(arrival)) * 0.1
    return pd.DataFrame(
        {
            "t_s": t,
            "arrival_rate_mbps": arrival,
            "service_rate_mbps": service,
            "cwnd_bytes": 0.0,
            "power_control": pc,
        }
    )


def test_recovery_time_runs_from_the_drop_to_9_5_mbps() -> None:
    flat = np.full(300, 10.0)
    without = flat.copy()
    # A drop to 4 Mb/s at t = 5 s, back above 9.5 Mb/s at t = 11 s.
    without[50:110] = np.linspace(4.0, 9.4, 60)
    with_pc = flat.copy()
    # Two drops: 2 s and 4 s to recover (median 3 s); a third never recovers.
    with_pc[20:40] = 5.0
    with_pc[100:140] = 6.0
    with_pc[200:] = 3.0
    ts = pd.concat([_series(without, flat, False), _series(with_pc, flat, True)])
    rep = _rep([], single_rtt50ms_mrci10ms=ts)
    where = {"setting": "single", "mrci_ms": 10}
    assert findings.EVALUATORS["recovery_time_nopc_s"](rep, where).value == pytest.approx(6.0)
    out = findings.EVALUATORS["recovery_time_pc_s"](rep, where)
    assert out.value == pytest.approx(3.0) and "1 not recovered" in out.text
    # No series at that mRCI: not comparable.
    out = findings.EVALUATORS["recovery_time_pc_s"](rep, {"setting": "single", "mrci_ms": 1000})
    assert not out.comparable and "RTT 50/mRCI 10 ms" in out.text

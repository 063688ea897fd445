"""The evaluators of `ethersim reproduce csma`'s published findings: the quick run compares
every finding and lists every parameter it sets; a few evaluators against hand
computations on small synthetic tables."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from ethersim.studies import contract
from ethersim.studies import csma as study
from ethersim.studies import csma_findings as ev
from ethersim.studies.registry import study as study_of


@pytest.fixture(scope="module")
def quick(every_quick_study: tuple[Path, str]) -> Path:
    """This study's folder of the session's ``reproduce all --quick`` (conftest.py)."""
    return every_quick_study[0] / "csma"


def test_the_quick_run_compares_every_finding_and_lists_every_key(quick: Path) -> None:
    published = study_of("csma").published()
    comparison = pd.read_csv(quick / "comparison.csv")
    assert list(comparison.columns[:7]) == list(contract.COMPARISON_COLUMNS)
    assert list(comparison.finding) == [f.id for f in published.findings]
    assert set(comparison.verdict) <= set(contract.VERDICTS)
    by = comparison.set_index("finding")
    # The calibration target never counts as reproduced.
    assert by.loc["max-64-byte-packet-rate", "verdict"] == "not comparable"
    assert "calibration target" in by.loc["max-64-byte-packet-rate", "explanation"]
    # The quick grid has no two-cluster layout and no 20-host cell.
    assert by.loc["two-clusters-delay-1-5-percent-higher", "verdict"] == "not comparable"
    assert by.loc["bit-rate-std-20-percent-at-20-hosts", "verdict"] == "not comparable"
    # Every "differs" carries an explanation or says it has none yet.
    differs = comparison[comparison.verdict == "differs"]
    assert differs.explanation.fillna("").str.len().gt(0).all()
    setup = pd.read_csv(quick / "setup.csv")
    assert list(setup.columns[:4]) == list(contract.SETUP_COLUMNS)
    assert not (setup.kind == "unlisted").any(), setup[setup.kind == "unlisted"]
    summary = (quick / "summary.md").read_text()
    assert contract.k_of_n(comparison) in summary


def test_only_the_papers_own_findings_and_a_ranged_service_time() -> None:
    published = study_of("csma").published()
    assert not [f.id for f in published.findings if f.id.startswith("cited-")]
    service = [e for e in published.setup if e.parameter == "hosts[*].tx_interrupt"]
    assert len(service) == 1
    assert service[0].option == "tx_service_us" and service[0].kind == "calibrated"
    assert all(isinstance(v, (int, float)) for v in service[0].raw_range)


def _rep(rows: list[dict[str, object]], *, target: float | None = 13_500.0) -> study.Reproduction:
    """A reproduction of hand-made cells (the columns the evaluators read)."""
    base = {
        "layout": "long",
        "drops": 0,
        "collisions": 0,
        "bits_per_frame": 704.0,
        "bit_rate_std_percent": 0.0,
        "delay_std_ms": 0.0,
    }
    table = pd.DataFrame([{**base, **r} for r in rows])
    table["length"] = table["length"].astype(str)
    if "utilization" not in table:
        table["utilization"] = table.bit_rate_mbps / 10
    calibration = study.Calibration(100_000_000, target, 13_400.0)
    options = study.Options(quick=True)
    return study.Reproduction(options, table, len(rows), 0.0, 1, calibration)


def test_the_packet_rate_peak_and_the_calibration_target() -> None:
    rates = {1: 6_000.0, 2: 13_400.0, 3: 13_450.0, 4: 13_300.0}
    rep = _rep(
        [
            {"length": "64", "hosts": h, "packet_rate_pps": p, "bit_rate_mbps": p * 704 / 1e6}
            for h, p in rates.items()
        ]
    )
    where = {"layout": "long", "length": "64"}
    # The peak is at three hosts here, not the paper's two.
    assert ev.EVALUATORS["packet_rate_peak_hosts"](rep, where).value == 3
    calibrated = ev.EVALUATORS["max_packet_rate_pps"](rep, where)
    assert not calibrated.comparable and "calibration target" in calibrated.text
    given = ev.EVALUATORS["max_packet_rate_pps"](
        _rep(list(rep.table.to_dict("records")), target=None), where
    )
    assert given.comparable and given.value == 13_450.0
    # Without host counts 1 to 4 there is no peak to place.
    few = _rep([r for r in rep.table.to_dict("records") if r["hosts"] != 1])
    assert not ev.EVALUATORS["packet_rate_peak_hosts"](few, where).comparable


def test_the_paper_excess_delay_and_its_line() -> None:
    # 1536-byte frames: 12,480 bits, 1.248 ms each; the paper's excess is the mean delay
    # less hosts · 1.248 ms.
    delays = {2: 2.6, 4: 5.2, 8: 10.5, 24: 31.0}
    rep = _rep(
        [
            {
                "length": "1536",
                "hosts": h,
                "bits_per_frame": 12_480.0,
                "delay_mean_ms": d,
                "bit_rate_mbps": 9.7,
                "packet_rate_pps": 777.0,
            }
            for h, d in delays.items()
        ]
    )
    cell = ev.EVALUATORS["paper_excess_delay_ms"](
        rep, {"layout": "long", "length": "1536", "hosts": 24}
    )
    assert cell.value == pytest.approx(31.0 - 24 * 1.248)
    line = ev.EVALUATORS["paper_excess_delay_linear_in_hosts"](rep, {"layout": "long"})
    # Excess 0.104, 0.208, 0.516, 1.048 ms: rising, close to a line in hosts.
    assert line.holds, line.text
    ratio = ev.EVALUATORS["delay_mean_over_round_robin"](rep, {"layout": "long"})
    # 10.5 / 9.984 = 1.05 and 31 / 29.95 = 1.035: within [0.9, 1.2].
    assert ratio.holds, ratio.text
    halved = _rep(
        [{**r, "delay_mean_ms": r["delay_mean_ms"] / 2} for r in rep.table.to_dict("records")]
    )
    assert not ev.EVALUATORS["delay_mean_over_round_robin"](halved, {"layout": "long"}).holds
    assert not ev.EVALUATORS["paper_excess_delay_linear_in_hosts"](halved, {"layout": "long"}).holds


def test_hosts_ready_counts_the_service_time() -> None:
    # 100 us of service per frame: 8 hosts sending 13,000 frames/s (and 100 drops in
    # the quick grid's 1 s window) spend 13,100 · 100 us = 1.31 host-seconds per second
    # in service: Q = 6.69, Q/N = 0.836 < 0.9.
    rows = [
        {"length": "64", "hosts": 1, "packet_rate_pps": 6_000.0, "bit_rate_mbps": 4.2},
        {
            "length": "64",
            "hosts": 8,
            "packet_rate_pps": 13_000.0,
            "drops": 100,
            "bit_rate_mbps": 9.2,
        },
    ]
    rep = _rep(rows)
    one = ev.EVALUATORS["underloaded_at_one_host"](rep, {"hosts": 1, "length": "64"})
    assert one.holds and "Q 0.40" in one.text
    near = ev.EVALUATORS["hosts_ready_near_n"](rep, {})
    assert not near.holds and "0.836" in near.text

"""``ethersim reproduce eee-pingpong``: the output contract, determinism, and the
response delay against what Low Power Idle's rules imply."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from cli_helpers import invoke
from ethersim.studies import eee_pingpong as study
from ethersim.studies.eee_pingpong_findings import FINDINGS


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("eee") / "quick"
    r = invoke("reproduce", "eee-pingpong", "--quick", "--out", str(out), "-q")
    assert r.exit_code == 0, r.output
    assert (out / "report.html").is_file(), "every reproduction ends with its report"
    return out


def test_quick_writes_the_contracted_files_and_columns(quick: Path) -> None:
    t = pd.read_csv(quick / "eee_pingpong.csv")
    for column in (
        "pinger",
        "interval_ms",
        "rtt_off_us",
        "rtt_on_us",
        "response_delay_us",
        "pings",
        "seed",
    ):
        assert column in t.columns
    assert set(t.pinger) == {0, 1}
    assert t.interval_ms.min() == 0.5 and t.interval_ms.max() == 4.0
    assert (t.response_delay_us == t.rtt_on_us - t.rtt_off_us).all()
    pd.testing.assert_frame_equal(pd.read_parquet(quick / "eee_pingpong.parquet"), t)
    for ext in ("png", "svg"):
        assert (quick / "figures" / f"response_delay.{ext}").stat().st_size > 1000
    assert "Tw" in (quick / "summary.md").read_text()


def test_the_delay_follows_the_rules_of_low_power_idle(quick: Path) -> None:
    t = pd.read_csv(quick / "eee_pingpong.csv")
    pings = int(t.pings.iloc[0])
    short = t[t.interval_ms * 1000 < study.IDLE_TIMEOUT_US - 50]
    # The idle link slept before the first ping, which alone waits a wake.
    assert ((short.response_delay_us - study.WAKE_US / pings).abs() < 1e-6).all()
    assert (short.lpi_sleeps == 1).all()
    # Long intervals: every request finds the link asleep and waits exactly Tw.
    long = t[t.interval_ms >= 1.5]
    assert ((long.response_delay_us - study.WAKE_US).abs() < 1e-6).all()
    assert (long.lpi_wakes == pings).all()
    # No ping can wait more than the rest of a sleep and a wake.
    assert (t.rtt_on_max_us - t.rtt_off_us <= study.SLEEP_US + study.WAKE_US + 1e-6).all()
    # LPI loses nothing.
    assert (t.pings == pings).all()


def test_a_reproduction_is_deterministic(quick: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    r = invoke("reproduce", "eee-pingpong", "--quick", "--out", str(again), "-q")
    assert r.exit_code == 0, r.output
    assert (quick / "eee_pingpong.csv").read_bytes() == (again / "eee_pingpong.csv").read_bytes()
    svg = "figures/response_delay.svg"
    assert (quick / svg).read_bytes() == (again / svg).read_bytes()


def test_on_a_local_dask_cluster_the_reproduction_and_its_sensitivity_are_the_same(
    quick: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--dask-local runs every simulation, the sensitivity points' included, on Dask
    workers (other processes): the tables are byte-identical to the threads' run."""
    import os

    from ethersim import batch

    where: list[int] = []
    on_cluster = batch._run_on_cluster

    def counted(cluster: Any, *args: Any) -> Any:
        where.extend(cluster.client.run(os.getpid).values())
        return on_cluster(cluster, *args)

    monkeypatch.setattr(batch, "_run_on_cluster", counted)
    here, there = tmp_path / "threads", tmp_path / "dask"
    for out, extra in ((here, []), (there, ["--dask-local", "--jobs", "2"])):
        r = invoke(
            "reproduce", "eee-pingpong", "--quick", "--sensitivity", "--out", str(out), "-q",
            *extra,
        )  # fmt: skip
        assert r.exit_code == 0, r.output
    for name in ("eee_pingpong.csv", "comparison.csv", "sensitivity.csv"):
        assert (here / name).read_bytes() == (there / name).read_bytes(), name
    assert (quick / "eee_pingpong.csv").read_bytes() == (there / "eee_pingpong.csv").read_bytes()
    # The study's runs and every sensitivity point's went to the two worker processes.
    from ethersim.studies import sensitivity

    assert len(where) >= 2 * (1 + len(sensitivity.points(FINDINGS.published())))
    assert len(set(where)) == 2 and os.getpid() not in where

"""``ethersim reproduce csma``: the output contract, determinism, bad input, and the
measured capacity against the host model's closed form, the wire's limits and the
Metcalfe-Boggs estimate."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_helpers import invoke
from ethersim.studies import csma as study

BIT_S = 1e-7  # one bit time at 10 Mb/s
COLUMNS = [
    "layout",
    "length",
    "hosts",
    "bit_rate_mbps",
    "packet_rate_pps",
    "bit_rate_std_percent",
    "delay_mean_ms",
    "delay_std_ms",
    "excess_delay_ms",
    "collisions_per_frame",
    "drops",
    "seed",
]


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("csma") / "quick"
    r = invoke("reproduce", "csma", "--quick", "--out", str(out), "-q")
    assert r.exit_code == 0, r.output
    assert (out / "report.html").is_file(), "every reproduction ends with its report"
    return out


@pytest.fixture(scope="module")
def table(quick: Path) -> pd.DataFrame:
    return pd.read_csv(quick / "csma.csv", dtype={"length": "str"})


def fixed(t: pd.DataFrame) -> pd.DataFrame:
    """The rows of fixed-length frames, with their study length as a number."""
    rows = t[~t.length.str.contains("/")].copy()
    rows["L"] = rows.length.astype(int)
    return rows


def mb_mbps(bits: float, q: int) -> float:
    """Metcalfe and Boggs's estimate, written out again (slot 51.2 us, 10 Mb/s)."""
    a = 1.0 if q == 1 else (1 - 1 / q) ** (q - 1)
    p = bits / 10e6
    return 10 * p / (p + (1 - a) / a * 51.2e-6)


def test_quick_writes_the_contracted_files_and_columns(quick: Path, table: pd.DataFrame) -> None:
    assert list(table.columns[: len(COLUMNS)]) == COLUMNS
    assert "wall" not in " ".join(table.columns)
    assert set(table.layout) <= {"long", "short", "two-cluster"} and "long" in set(table.layout)
    assert {"64", "1536", "7/1"} <= set(table.length)
    assert {1, 2, 4, 8, 24} <= set(table[table.layout == "long"].hosts)
    assert not table.duplicated(["layout", "length", "hosts"]).any()
    parquet = pd.read_parquet(quick / "csma.parquet")
    pd.testing.assert_frame_equal(parquet, table, check_dtype=False)
    assert parquet.length.map(type).eq(str).all()
    for name in ("bit_rate", "packet_rate", "bit_rate_std", "delay_mean", "delay_std"):
        for ext in ("png", "svg"):
            assert (quick / "figures" / f"{name}.{ext}").stat().st_size > 1000
    for name in ("excess_delay", "collisions_per_frame", "drops", "metcalfe_boggs"):
        assert (quick / "figures" / f"{name}.png").stat().st_size > 1000
    summary = (quick / "summary.md").read_text()
    assert "Metcalfe" in summary and "14,204.5" in summary
    info = json.loads((quick / "reproduction.json").read_text())
    # One run per cell, and the calibration's runs.
    calibration_runs = len(info["calibration"]["history"])
    assert info["study"] == "csma" and info["quick"] and calibration_runs >= 1
    assert info["runs"] == len(table) + calibration_runs


def test_one_host_alone_follows_the_host_model(quick: Path, table: pd.DataFrame) -> None:
    service_s = json.loads((quick / "reproduction.json").read_text())["tx_service_ps"] * 1e-12
    one = fixed(table[table.hosts == 1])
    assert len(one) >= 2
    for _, r in one.iterrows():
        # Last bit (preamble, frame with FCS) plus the transmit service; the gap hides
        # inside the service time.
        sending_s = (8 + r.L + 4) * 8 * BIT_S
        rate = 1 / (sending_s + service_s)
        assert r.packet_rate_pps == pytest.approx(rate, rel=1e-3, abs=1.0)
        assert r.bit_rate_mbps == pytest.approx((r.L + 24) * 8 * r.packet_rate_pps / 1e6)
        assert r.delay_mean_ms == pytest.approx(sending_s * 1e3, rel=1e-9)
        assert r.delay_std_ms == 0 and r.excess_delay_ms == 0
        assert r.collisions_per_frame == 0 and r.drops == 0 and r.bit_rate_std_percent == 0


def test_the_wire_limits_every_cell(table: pd.DataFrame) -> None:
    assert (table.bit_rate_mbps <= 10).all()
    rows = fixed(table)
    assert (rows.packet_rate_pps <= 10e6 / ((rows.L + 24) * 8)).all()
    # The excess delay is the delay less the frame's collision-free time, frame by frame.
    ideal_ms = (8 + rows.L + 4) * 8 * BIT_S * 1e3
    assert np.allclose(rows.delay_mean_ms - rows.excess_delay_ms, ideal_ms, rtol=1e-9)
    assert (table.excess_delay_ms >= -1e-12).all() and (table.collisions_per_frame >= 0).all()


def test_many_hosts_beat_the_metcalfe_boggs_estimate(table: pd.DataFrame) -> None:
    for _, r in table.iterrows():
        if "/" in r.length:
            short, long = (int(x) for x in r.length.split("/"))
            bits = ((64 + 24) * 8 * short + (1536 + 24) * 8 * long) / (short + long)
        else:
            bits = (int(r.length) + 24) * 8
        estimate = mb_mbps(bits, int(r.hosts))
        assert r.metcalfe_boggs_mbps == pytest.approx(estimate, rel=1e-12)
        if r.hosts >= 8:
            assert r.bit_rate_mbps >= estimate, (r.layout, r.length, r.hosts)


def test_short_frames_use_the_net_less_well(table: pd.DataFrame) -> None:
    by = table.set_index(["layout", "hosts", "length"]).utilization
    for layout, hosts in {(r.layout, r.hosts) for r in table.itertuples()}:
        assert by[layout, hosts, "64"] < by[layout, hosts, "1536"], (layout, hosts)


def test_pooled_delays_equal_those_of_all_frames_together() -> None:
    rng = np.random.default_rng(7)
    samples = [rng.exponential(1e-3, n) for n in (1, 2, 50, 400)]
    stations = [
        {
            "frames_sent": len(x),
            "bit_rate_bps": 1e6 * (k + 1),
            "frame_rate_per_s": float(len(x)),
            "delay_mean_s": float(x.mean()),
            "delay_std_s": float(x.std(ddof=1)) if len(x) > 1 else float("nan"),
            "excess_delay_mean_s": float(x.mean()) / 2,
            "collisions": k,
            "drops": 0,
        }
        for k, x in enumerate(samples)
    ]
    every = np.concatenate(samples)
    got = study.pool(stations)
    assert got["delay_mean_ms"] == pytest.approx(every.mean() * 1e3, rel=1e-12)
    assert got["delay_std_ms"] == pytest.approx(every.std(ddof=1) * 1e3, rel=1e-12)
    assert got["excess_delay_ms"] == pytest.approx(every.mean() * 1e3 / 2, rel=1e-12)
    assert got["bit_rate_std_percent"] == pytest.approx(np.std([1, 2, 3, 4], ddof=1) / 2.5 * 100)
    assert got["collisions_per_frame"] == pytest.approx(6 / len(every))


def test_a_reproduction_is_deterministic(quick: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    r = invoke("reproduce", "csma", "--quick", "--out", str(again), "-q")
    assert r.exit_code == 0, r.output
    assert (quick / "csma.csv").read_bytes() == (again / "csma.csv").read_bytes()
    for svg in sorted((quick / "figures").glob("*.svg")):
        assert svg.read_bytes() == (again / "figures" / svg.name).read_bytes(), svg.name


def test_bad_input_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "never"
    r = invoke("reproduce", "csma", "--quick", "--seed", "-1", "--out", str(out))
    assert r.exit_code == 2 and "--seed" in r.output and "out of range" in r.output
    assert not out.exists()
    # A folder holding someone else's files is not replaced, and nothing runs.
    (tmp_path / "theirs").mkdir()
    (tmp_path / "theirs" / "notes.txt").write_text("mine")
    r = invoke("reproduce", "csma", "--quick", "--out", str(tmp_path / "theirs"))
    assert r.exit_code == 2 and "did not write" in r.output
    assert (tmp_path / "theirs" / "notes.txt").read_text() == "mine"


def test_the_calibration_target_is_the_published_packet_rate() -> None:
    from ethersim.studies import registry

    published = {f.id: f.published for f in registry.study("csma").published().findings}
    assert study.Options().calibration_target_pps == published["max-64-byte-packet-rate"]


def test_the_calibration_recovers_a_known_service_time_from_simulated_data() -> None:
    """Synthetic data made by the simulator with a known service time: the calibration,
    aimed at the two-host rate that time gives, finds it again."""
    options = study.Options(quick=True, tx_service_us=95.0)
    given = study.calibrate(options)
    assert given.tx_service_ps == 95_000_000
    found = study.calibrate(study.Options(quick=True, calibration_target_pps=given.simulated_pps))
    assert found.simulated_pps == pytest.approx(given.simulated_pps, abs=1.0)
    # One frame more or less in the 1 s window is 1 packet/s: a few ns of service time.
    assert abs(found.tx_service_ps - 95_000_000) <= 20_000

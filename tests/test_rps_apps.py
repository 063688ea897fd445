"""``ethersim reproduce rps-apps``: the quick run's tables hold what the network allows
(a pause delays a voice packet or a page by at most its length, and only when it falls in
it), the verdicts follow the bands they are defined by, and bad options exit 2."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from ethersim.perception import band, band_index
from ethersim.studies import rps_apps
from ethersim.studies.rps_apps_findings import EVALUATORS
from ethersim.studies.rps_apps_report import call_band_index, judge

#: A pause of T ms at 1 Gb/s lasts whole quanta of 512 ns: at most T + 0.512 us.
QUANTUM_S = 512e-9


@pytest.fixture(scope="module")
def quick(every_quick_study: tuple[Path, str]) -> Path:
    """This study's folder of the session's ``reproduce all --quick`` (conftest.py)."""
    return every_quick_study[0] / "rps-apps"


def test_the_quick_run_writes_every_cell(quick: Path) -> None:
    cells = pd.read_csv(quick / "rps_apps.csv")
    assert sorted(zip(cells.pause_ms, cells.server_honours_pause, strict=True)) == sorted(
        (p, h) for p in rps_apps.PAUSES_MS for h in (True, False)
    )
    for column in ("call_mos", "call_satisfaction", "page_load_p50_s", "page_load_p95_s"):
        assert cells[column].notna().all(), column
    assert (cells.pages_loaded == rps_apps.Options(quick=True).pages).all()
    control = cells[cells.pause_ms == 0]
    assert (control.call_mos_change == 0).all() and (control.page_load_p50_added_ms == 0).all()
    assert not (cells.call_noticed | cells.web_noticed)[cells.pause_ms == 0].any()


def test_a_pause_delays_voice_by_at_most_its_length(quick: Path) -> None:
    cells = pd.read_csv(quick / "rps_apps.csv")
    for honours in (True, False):
        rows = cells[cells.server_honours_pause == honours].set_index("pause_ms")
        base = rows.loc[0, "client_heard_delay_max_ms"]
        for pause in (1, 10, 20):
            held = rows.loc[pause, "client_heard_delay_max_ms"]
            assert held <= base + pause + QUANTUM_S * 1e3 + 1e-9, (pause, held)
        # Over 30 pauses of 20 ms while a talker sends every 20 ms, some packet is held.
        assert rows.loc[20, "client_heard_delay_max_ms"] > base + 1.0


def test_a_pause_delays_a_page_by_at_most_the_pauses_it_meets(quick: Path) -> None:
    pages = pd.read_csv(quick / "rps_apps_pages.csv")
    for _, p in pages.iterrows():
        met = math.floor(p.load_time_s) + 2  # pauses come once a second
        assert -1e-12 <= p.added_s <= met * (p.pause_ms * 1e-3 + QUANTUM_S) + 1e-9, p
        assert p.band == band(p.load_time_s) and p.control_band == band(p.control_load_time_s)


def test_the_server_setting_matters_only_where_the_switch_pushed_back(quick: Path) -> None:
    cells = pd.read_csv(quick / "rps_apps.csv")
    pages = pd.read_csv(quick / "rps_apps_pages.csv")
    for pause in rps_apps.PAUSES_MS:
        at = cells[cells.pause_ms == pause]
        quiet = (at.web_pause_frames_to_server == 0).all() and (at.web_switch_drops == 0).all()
        if quiet:
            by = pages[pages.pause_ms == pause].groupby("server_honours_pause")
            on, off = by.get_group(True), by.get_group(False)
            assert on.load_time_s.tolist() == off.load_time_s.tolist()


def _row(pause: int, r: float, p50: float, p95: float) -> dict:
    return {
        "pause_ms": pause,
        "server_honours_pause": True,
        "call_r_factor": r,
        "call_mos": r / 20,
        "call_satisfaction": "a band",
        "page_load_p50_s": p50,
        "page_load_p95_s": p95,
    }


def test_the_verdicts_follow_the_bands() -> None:
    assert [call_band_index(r) for r in (93.2, 90.0, 89.9, 50.0, 49.9)] == [0, 0, 1, 4, 5]
    assert [band_index(t) for t in (0.05, 0.1, 0.2, 1.0, 1.5, 10.0, 11.0)] == [0, 0, 1, 1, 2, 2, 3]
    rows = [
        _row(0, 91.0, 0.09, 0.9),
        _row(1, 90.5, 0.099, 0.95),  # the same bands: not noticed
        _row(10, 89.0, 0.09, 0.9),  # the call falls a band
        _row(20, 91.0, 0.09, 1.2),  # the 95th percentile crosses 1 s
    ]
    pages = {(p, True): [0.05, 0.5] for p in (0, 1, 10, 20)}
    pages[(20, True)] = [0.05, 1.5]
    cells, page_table = judge(rows, pages)
    noticed = cells.set_index("pause_ms")[["call_noticed", "web_noticed"]]
    assert noticed.loc[1].tolist() == [False, False]
    assert noticed.loc[10].tolist() == [True, False]
    assert noticed.loc[20].tolist() == [False, True]
    assert cells.set_index("pause_ms").loc[20, "pages_in_slower_band"] == 1
    assert len(page_table) == 8
    rep = rps_apps.Reproduction(rps_apps.Options(quick=True), cells, page_table, 1, 1.0, 1.0)
    assert EVALUATORS["call_unnoticed"](rep, {}).holds is False
    assert EVALUATORS["web_unnoticed"](rep, {}).holds is False
    calm = cells[cells.pause_ms <= 1]
    rep = rps_apps.Reproduction(rps_apps.Options(quick=True), calm, page_table, 1, 1.0, 1.0)
    assert EVALUATORS["call_unnoticed"](rep, {}).holds is True
    assert EVALUATORS["web_unnoticed"](rep, {}).holds is True


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--jitter-buffer", "1.5 ms"], "--jitter-buffer"),
        (["--jitter-buffer", "soon"], "--jitter-buffer"),
        (["--buffer", "0 B"], "--buffer"),
    ],
)
def test_bad_options_exit_2_naming_the_option(tmp_path: Path, args: list[str], option: str) -> None:
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "ethersim.cli",
            "reproduce",
            "rps-apps",
            "--quick",
            *args,
            "--out",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert option in p.stderr and "Traceback" not in p.stderr
    assert not (tmp_path / "out").exists()

"""``ethersim report``: the HTML page of a run's or a reproduction's folder opens in
headless Chromium without console errors, and every figure in it renders.

Without Chromium the browser tests skip and say so (see ``browser_helpers``). The pages'
escaping, units, figures' data, comparisons and refusals: ``test_report_pages.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_helpers import open_in_chromium, remote_references
from cli_helpers import invoke

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run with port and TCP series: capacity scaling under TCP and bursts."""
    out = tmp_path_factory.mktemp("report") / "run"
    r = invoke("run", str(ROOT / "examples" / "capacity-scaling.toml"), "--out", str(out), "-q")
    assert r.exit_code == 0, r.output
    r = invoke("report", str(out), "-q")
    assert r.exit_code == 0, r.output
    return out


def test_a_run_report_has_its_figures_tables_and_provenance(run_folder: Path) -> None:
    import json

    page = (run_folder / "report.html").read_text()
    summary = json.loads((run_folder / "summary.json").read_text())
    for port_or_flow in ("port-n1--n2", "tcp-tcp"):
        for ext in ("png", "svg"):
            assert (run_folder / "figures" / f"{port_or_flow}.{ext}").stat().st_size > 0
    assert f"<dd>{summary['seed']}</dd>" in page
    from importlib.metadata import version

    assert f"<dd>{version('ethersim')}</dd>" in page
    run_info = json.loads((run_folder / "run.json").read_text())
    from markupsafe import escape

    assert f"<dt>build</dt><dd>{escape(run_info['build'])}</dd>" in page
    assert "[[apps]]" in page, "the scenario as it ran"
    assert remote_references(page) == [], "self-contained"
    # plotly.js is embedded once, whatever the number of figures.
    assert page.count("* plotly.js v") == 1 and page.count("Plotly.newPlot") == 1


def test_a_run_report_opens_in_chromium_with_every_figure_rendered(run_folder: Path) -> None:
    seen = open_in_chromium(
        run_folder / "report.html",
        {
            "plots": "Array.from(document.querySelectorAll('.js-plotly-plot'))"
            ".map(p => p.querySelectorAll('svg.main-svg .scatterlayer path.js-line').length)"
        },
    )
    assert seen["errors"] == [] and seen["requests"] == [], "offline: nothing fetched"
    # One interactive figure per port and per TCP sender, each with its lines drawn: the
    # port's buffer (bytes, frames), gate, rate and offered load (its one PAUSE count
    # never changed); the sender's cwnd, flight, ssthresh, SRTT and RTO.
    assert seen["plots"] == [5, 5]
    assert "Flows" in seen["text"] and "Ports" in seen["text"]


def test_a_reproduction_report_opens_in_chromium(tmp_path: Path) -> None:
    out = tmp_path / "eee"
    r = invoke("reproduce", "eee-pingpong", "--quick", "--out", str(out), "-q")
    assert r.exit_code == 0, r.output
    seen = open_in_chromium(out / "report.html")
    assert seen["errors"] == []
    pngs = list(out.rglob("*.png"))
    assert len(seen["images"]) == len(pngs) > 0
    assert all(complete and width > 0 for complete, width, _ in seen["images"])
    assert "EEE ping-pong" in seen["text"], "the study's summary, rendered"


def test_report_of_a_folder_that_is_not_results_is_exit_2(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    r = invoke("report", str(tmp_path))
    assert r.exit_code == 2
    assert "neither summary.json nor reproduction.json" in " ".join(r.output.split())
    assert not (tmp_path / "report.html").exists()
    r = invoke("report", str(tmp_path / "missing"))
    assert r.exit_code == 2 and "is not a folder" in r.output

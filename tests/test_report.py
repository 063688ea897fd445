"""``ethersim report``: the HTML page of a run's or a reproduction's folder opens in
headless Chromium without console errors, and every figure in it renders.

``scripts/install-test-tools`` (run by the README's test command) installs Chromium;
without it the browser tests skip and say so.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import invoke

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
)


def open_in_chromium(page_file: Path) -> dict[str, Any]:
    """Loads ``page_file`` in headless Chromium: its console errors and page errors, and
    for every image whether it loaded and its natural size."""
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed (scripts/install-test-tools installs it)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is a test dependency")
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(page_file.resolve().as_uri(), wait_until="load")
            images = page.evaluate(
                "Array.from(document.images)"
                ".map(i => [i.complete, i.naturalWidth, i.naturalHeight])"
            )
            text = page.inner_text("body")
        finally:
            browser.close()
    return {"errors": errors, "images": images, "text": text}


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
    assert "[[apps]]" in page, "the scenario as it ran"
    assert 'src="http' not in page and "<script" not in page, "self-contained, no script"


def test_a_run_report_opens_in_chromium_with_every_figure_rendered(run_folder: Path) -> None:
    seen = open_in_chromium(run_folder / "report.html")
    assert seen["errors"] == []
    assert len(seen["images"]) == 2
    for complete, width, height in seen["images"]:
        assert complete and width > 0 and height > 0
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

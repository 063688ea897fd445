"""``ethersim reproduce all`` and what every reproduction writes beside the paper: the
comparison, the setup ledger, the index page; a bad published-findings file or a bad
sensitivity range stops a reproduction before anything runs."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from cli_helpers import invoke
from ethersim.studies import contract, registry, sensitivity

VERDICTS = set(contract.VERDICTS)


@pytest.fixture(scope="module")
def every_study(every_quick_study: tuple[Path, str]) -> tuple[Path, str]:
    """The session's ``reproduce all --quick`` (conftest.py)."""
    return every_quick_study


@pytest.mark.parametrize("name", registry.NAMES)
def test_every_study_writes_its_comparison_and_a_complete_ledger(
    every_study: tuple[Path, str], name: str
) -> None:
    out, printed = every_study
    folder = out / name
    published = registry.study(name).published()
    comparison = pd.read_csv(folder / "comparison.csv", dtype=str, keep_default_na=False)
    assert list(comparison.columns[:7]) == list(contract.COMPARISON_COLUMNS)
    # Every published finding, once, in the file's order, with a verdict.
    assert list(comparison.finding) == [f.id for f in published.findings]
    assert set(comparison.verdict) <= VERDICTS
    # Every verdict but "reproduced" says why, and no difference is left unexplained.
    assert (comparison[comparison.verdict != "reproduced"].explanation != "").all()
    differs = comparison[comparison.verdict == "differs"]
    unexplained = differs[differs.explanation == "not yet explained"].finding.tolist()
    assert unexplained == [], f"{name}: differences without an explanation: {unexplained}"
    setup = pd.read_csv(folder / "setup.csv", dtype=str, keep_default_na=False)
    assert list(setup.columns[:4]) == list(contract.SETUP_COLUMNS)
    unlisted = setup[setup.kind == "unlisted"].parameter.tolist()
    assert unlisted == [], f"{name}: scenario keys missing from the ledger: {unlisted}"
    assert set(setup.kind) <= {"stated", "assumption", "calibrated"}
    # The summary opens with the K-of-N line, and `all` printed the same.
    k, n = contract.counts(comparison)
    line = f"{k} of {n} published findings reproduced"
    assert line in (folder / "summary.md").read_text().split("\n\n")[1]
    assert f"{name}: {line}" in printed
    assert "Beside the paper" in (folder / "report.html").read_text()


@pytest.mark.parametrize("name", registry.NAMES)
def test_published_values_are_marked_on_the_same_figures(
    every_study: tuple[Path, str], name: str
) -> None:
    """Every finding with a marker is drawn, labelled with its id, on the figure it names
    (SVG keeps each text as a comment beside its glyphs)."""
    out, _ = every_study
    for f in registry.study(name).published().findings:
        if f.marker is not None:
            svg = (out / name / "figures" / f"{f.marker.figure}.svg").read_text()
            assert f.id in svg, (name, f.id, f.marker.figure)


def test_the_index_links_every_report(every_study: tuple[Path, str]) -> None:
    out, _ = every_study
    page = (out / "index.html").read_text()
    links = re.findall(r'href="([^"]+)"', page)
    assert links == [f"{name}/report.html" for name in registry.NAMES]
    for link in links:
        assert (out / link).is_file()


BAD = """
study = "eee-pingpong"
paper = "x"
seed = "x"
[[findings]]
id = "a"
claim = "x"
source = "x"
quote = "x"
kind = "qualitative"
quantity = "no_such_quantity"
computed_from = "x"
[[setup]]
parameter = "*"
kind = "stated"
source = "x"
"""


def test_a_bad_findings_file_exits_2_before_anything_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(BAD)
    monkeypatch.setattr(contract, "_data_file", lambda study: bad)
    out = tmp_path / "out"
    r = invoke("reproduce", "eee-pingpong", "--quick", "--out", str(out))
    assert r.exit_code == 2, r.output
    assert "findings[0].quantity" in r.output and "no_such_quantity" in r.output
    assert not out.exists()


def test_an_empty_sensitivity_range_exits_2_before_anything_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    study = registry.study("eee-pingpong")
    text = contract._data_file("eee-pingpong").read_text(encoding="utf-8")
    # The first ranged entry's range emptied.
    broken = re.sub(r"\nrange = \[[^\]]*\]", "\nrange = []", text, count=1)
    assert broken != text, "the eee-pingpong ledger has a ranged entry"
    bad = tmp_path / "bad.toml"
    bad.write_text(broken)
    monkeypatch.setattr(contract, "_data_file", lambda name: bad)
    with pytest.raises(Exception, match="range is empty"):
        study.published()
    out = tmp_path / "out"
    r = invoke("reproduce", "eee-pingpong", "--quick", "--sensitivity", "--out", str(out))
    assert r.exit_code == 2, r.output
    assert "range" in r.output
    assert not out.exists()
    assert not sensitivity.default_db(out).exists()


def test_a_sensitivity_run_into_folders_not_yet_made_creates_them(tmp_path: Path) -> None:
    """As on a fresh checkout, where the default --out (results/NAME) has no results/ yet:
    the sensitivity database beside the output folder is written all the same."""
    out = tmp_path / "new" / "results" / "eee-pingpong"
    r = invoke("reproduce", "eee-pingpong", "--quick", "--sensitivity", "--out", str(out), "-q")
    assert r.exit_code == 0, r.output
    assert (out / "sensitivity.csv").is_file()
    assert (out.parent / "eee-pingpong.sensitivity.duckdb").is_file()
    # A file where a folder must go is still refused before anything runs.
    blocked = tmp_path / "file"
    blocked.write_text("x")
    r = invoke(
        "reproduce", "eee-pingpong", "--quick", "--sensitivity",
        "--out", str(blocked / "results" / "eee-pingpong"), "-q",
    )  # fmt: skip
    assert r.exit_code == 2, r.output
    assert not (blocked.parent / "results").exists()

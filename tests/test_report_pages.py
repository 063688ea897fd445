"""What the report pages say and refuse: user text escaped everywhere (and nothing
injected runs in Chromium), values in human units, the TCP figure's data in segments
without the unset ssthresh, two runs compared, and folders ethersim did not write
refused with exit 2 and nothing left behind."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from browser_helpers import elements, open_in_chromium, remote_references
from cli_helpers import invoke

ROOT = Path(__file__).resolve().parents[1]

#: Text that would act if a page let it through: ends the element it is in, opens a
#: script, breaks out of an attribute.
HOSTILE = "<script>alert(1)</script>\"q' </style><img src=x onerror=alert(2)>"
FLOW = '<script>alert(3)</script>"</style>'


def _toml(text: str) -> str:
    return json.dumps(text)  # a JSON string is a TOML basic string


HOSTILE_SCENARIO = f"""
name = {_toml(HOSTILE)}
seed = 1

[[hosts]]
name = "server"

[[hosts]]
name = "client"

[[switches]]
name = "switch"
port_buffer = {{ bytes = "30 kB" }}

[[links]]
between = ["server", "switch"]
rate = "1 Gb/s"
delay = "50 us"

[[links]]
between = ["switch", "client"]
rate = "100 Mb/s"
delay = "50 us"

[[apps]]
kind = "tcp_file"
name = {_toml(FLOW)}
from = "server"
to = "client"
size = "3 MB"
tcp = {{ mss = "1460 B" }}

[[series]]
app = {_toml(FLOW)}

[[series]]
port = "switch->client"
"""


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A TCP transfer through a 100 Mb/s bottleneck with a small buffer (losses, so
    ssthresh is set), its scenario and flow named to break out of HTML, with series."""
    folder = tmp_path_factory.mktemp("hostile")
    scenario = folder / "hostile.toml"
    scenario.write_text(HOSTILE_SCENARIO)
    out = folder / "run"
    r = invoke("run", str(scenario), "--out", str(out), "-q")
    assert r.exit_code == 0, r.output
    r = invoke("report", str(out), "-q")
    assert r.exit_code == 0, r.output
    return out


def _udp_run(folder: Path, *overrides: str) -> Path:
    sets = [a for o in ("apps[0].size=5 MB", *overrides) for a in ("--set", o)]
    r = invoke("run", str(ROOT / "examples" / "udp-file.toml"), *sets, "--out", str(folder), "-q")
    assert r.exit_code == 0, r.output
    return folder


def _figures(page: str) -> list[dict[str, Any]]:
    """The plotly figures of a page, as their JSON, with typed arrays decoded."""

    def decode(value: Any) -> Any:
        if isinstance(value, dict) and set(value) == {"dtype", "bdata"}:
            return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        if isinstance(value, dict):
            return {k: decode(v) for k, v in value.items()}
        if isinstance(value, list):
            return [decode(v) for v in value]
        return value

    start = '<script type="application/json" data-ethersim data-figure="'
    figures = []
    for chunk in page.split(start)[1:]:
        body = chunk.split(">", 1)[1].split("</script>", 1)[0]
        figures.append(decode(json.loads(body)))
    return figures


# ------------------------------------------------------------------- escaping


def test_user_text_is_escaped_everywhere_and_nothing_injected_runs(hostile_run: Path) -> None:
    page = (hostile_run / "report.html").read_text()
    # Only the page's own elements: one stylesheet, no image, every script its own.
    tags = [tag for tag, _ in elements(page)]
    assert tags.count("style") == 1 and "img" not in tags
    assert all("data-ethersim" in attrs for tag, attrs in elements(page) if tag == "script")
    assert page.count("</style>") == 1
    for raw in ("<script>alert", "<img src=x", 'alert(1)</script>"q'):
        assert raw not in page, raw
    seen = open_in_chromium(
        hostile_run / "report.html",
        {
            "injected": "document.querySelectorAll("
            "'img, [onerror], script:not([data-ethersim])').length",
            "title": "document.title",
            "plots": "document.querySelectorAll('.js-plotly-plot svg.main-svg').length",
            "figure_titles": "Array.from(document.querySelectorAll('.js-plotly-plot .gtitle'))"
            ".map(t => t.textContent)",
        },
    )
    assert seen["errors"] == [] and seen["dialogs"] == [] and seen["requests"] == []
    assert seen["injected"] == 0
    # The names show as the text they are: in the title, the header, the tables, the
    # figures' titles and the scenario.
    assert HOSTILE in seen["title"] and seen["text"].count(HOSTILE) >= 2
    assert seen["text"].count(FLOW) >= 2
    assert f"TCP sender of {FLOW}" in seen["figure_titles"]
    assert seen["plots"] >= 2


def test_summary_markdown_cannot_put_html_in_the_page(tmp_path: Path) -> None:
    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "reproduction.json").write_text(json.dumps({"study": "x", "quick": True}))
    (folder / "summary.md").write_text(
        "# A study\n\nText <img src=x onerror=alert(1)> and <script>alert(2)</script>.\n\n"
        '<div onclick="alert(3)">raw block</div>\n\n[a link](javascript:alert(4))\n\n'
        "| a | b |\n|---|---|\n| 1 | 2 |\n"
    )
    r = invoke("report", str(folder))
    assert r.exit_code == 0, r.output
    seen = open_in_chromium(
        folder / "report.html",
        {
            "injected": "document.querySelectorAll('img, [onerror], [onclick], "
            'script:not([data-ethersim]), a[href^="javascript"]\').length',
            "tables": "document.querySelectorAll('table').length",
        },
    )
    assert seen["errors"] == [] and seen["dialogs"] == []
    assert seen["injected"] == 0
    assert "<img src=x onerror=alert(1)>" in seen["text"], "shown as text"
    assert seen["tables"] >= 1, "Markdown tables still render"


def test_the_comparison_with_the_paper_stays_whole_with_verdict_colours(tmp_path: Path) -> None:
    from ethersim.studies.contract import COMPARISON_COLUMNS

    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "reproduction.json").write_text(json.dumps({"study": "x"}))
    verdicts = ["reproduced", "differs", "not comparable"] * 30
    rows = [{c: f"{c} {i}" for c in COMPARISON_COLUMNS} for i in range(len(verdicts))]
    for row, verdict in zip(rows, verdicts, strict=True):
        row["verdict"] = verdict
    pd.DataFrame(rows).to_csv(folder / "comparison.csv", index=False)
    assert invoke("report", str(folder)).exit_code == 0
    page = (folder / "report.html").read_text()
    assert "30 of 90 published findings reproduced" in page
    for i in (0, 89):
        assert f"explanation {i}" in page
    cells = [a.get("class") for tag, a in elements(page) if tag == "td"]
    assert cells.count("text reproduced") == cells.count("text differs-from-paper") == 30


# ---------------------------------------------------------------------- units


def test_tables_show_human_units_links_and_missing_values(tmp_path: Path) -> None:
    out = _udp_run(tmp_path / "udp")
    assert invoke("report", str(out), "-q").exit_code == 0
    summary = json.loads((out / "summary.json").read_text())
    goodput = summary["flows"][0]["goodput_bps"]
    seen = open_in_chromium(
        out / "report.html",
        {
            "flows": "Array.from(document.querySelectorAll('h3')).find(h => h.textContent == "
            "'Flows').nextElementSibling.querySelector('table').innerText",
            "links": "Array.from(document.querySelectorAll('h3')).find(h => h.textContent == "
            "'Links').nextElementSibling.querySelector('table').innerText",
            "files": "Array.from(document.querySelectorAll('a')).map(a => a.getAttribute('href'))",
        },
    )
    # Written independently of ethersim.units: 4 significant digits in Mb/s.
    assert 1e8 < goodput < 1e9
    assert f"{goodput / 1e6:.4g} Mb/s" in seen["flows"]
    assert "goodput" in seen["flows"] and "delay mean" in seen["flows"]
    # A heading names no base unit that its scaled cells would contradict.
    assert "(b/s)" not in seen["flows"] and "(s)" not in seen["flows"]
    assert str(goodput) not in seen["text"] and "e+08" not in seen["text"]
    assert "server \N{LEFT RIGHT ARROW} switch" in seen["links"] and "[0, 0]" not in seen["text"]
    # A flow that did not retransmit (UDP) shows an en dash, not nan or None.
    assert "nan" not in seen["text"].split() and "None" not in seen["text"].split()
    # Every file in the folder, linked relative to the page.
    listed = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert set(seen["files"]) == listed - {"report.html"}


# -------------------------------------------------------------------- figures


def test_the_tcp_figure_draws_the_window_in_segments_without_the_unset_ssthresh(
    hostile_run: Path,
) -> None:
    from ethersim.report.series import INITIAL_SSTHRESH

    page = (hostile_run / "report.html").read_text()
    summary = json.loads((hostile_run / "summary.json").read_text())
    mss = summary["flows"][0]["mss"]
    assert mss == 1460
    tcp = pd.read_parquet(hostile_run / "tcp_series.parquet")
    figure = next(f for f in _figures(page) if f["layout"]["title"]["text"].startswith("TCP"))
    traces = {t["name"]: t for t in figure["data"]}
    assert set(traces) == {"cwnd", "flight", "ssthresh", "srtt", "rto"}
    cwnd = tcp[tcp.quantity == "cwnd"]
    # Every change point, in segments, then held to the end of the run.
    np.testing.assert_array_equal(traces["cwnd"]["y"][:-1], cwnd.value.to_numpy() / mss)
    np.testing.assert_array_equal(traces["cwnd"]["x"][:-1], cwnd.t_s.to_numpy())
    assert traces["cwnd"]["x"][-1] == summary["sim_time_s"]
    ssthresh = tcp[tcp.quantity == "ssthresh"]
    assert ssthresh.value.iloc[0] == INITIAL_SSTHRESH, "the run starts with it unset"
    assert len(ssthresh) >= 2, "and a loss sets it"
    assert traces["ssthresh"]["y"].max() * mss < INITIAL_SSTHRESH
    assert traces["ssthresh"]["x"][0] == ssthresh.t_s.iloc[1]
    # The window's axis is in segments; the timers are in ms on their own axis.
    yaxes = {k: v for k, v in figure["layout"].items() if k.startswith("yaxis")}
    titles = sorted(a["title"]["text"] for a in yaxes.values())
    assert titles == ["timers (ms)", "window (segments)"]
    assert traces["srtt"]["yaxis"] != traces["cwnd"]["yaxis"]


def test_the_static_tcp_figure_draws_the_same_window(hostile_run: Path) -> None:
    # The PNG and SVG are drawn from the same panels as the page: the window in segments
    # on a linear axis (ssthresh's unset value left out, so its top is a window's, not a
    # gigabyte), the timers in ms on their own (SVG keeps each text as a comment).
    from ethersim.report.series import tcp_figures

    svg = next((hostile_run / "figures").glob("tcp-*.svg")).read_text()
    assert "window (segments)" in svg and "timers (ms)" in svg

    summary = json.loads((hostile_run / "summary.json").read_text())
    spec = tcp_figures(
        pd.read_parquet(hostile_run / "tcp_series.parquet"),
        summary["flows"],
        summary["sim_time_s"],
    )[0]
    window = spec.panels[0]
    assert window.label == "window (segments)" and not window.log
    assert max(float(t.y.max()) for t in window.traces) < 1000


def test_long_lines_are_thinned_for_the_page_keeping_peaks() -> None:
    from ethersim.report.series import Trace, thin

    rng = np.random.default_rng(1)
    t = np.sort(rng.uniform(0, 10, 100_000))
    y = rng.integers(0, 1000, len(t)).astype(float)
    y[54_321] = 5000.0
    shown = thin(Trace("q", t, y), 4000)
    assert len(shown.t) <= 4000 and shown.y.max() == 5000.0
    assert shown.t[0] == t[0] and shown.t[-1] == t[-1]
    # Points kept are the line's own.
    index = np.searchsorted(t, shown.t)
    np.testing.assert_array_equal(y[index], shown.y)


# ------------------------------------------------------------------ comparing


def test_report_a_b_shows_and_highlights_the_goodput_difference(tmp_path: Path) -> None:
    a = _udp_run(tmp_path / "fast")
    b = _udp_run(tmp_path / "slow", "links[1].rate=100 Mb/s")
    r = invoke("report", str(a), str(b))
    assert r.exit_code == 0, r.output
    page_file = tmp_path / "compare-fast-slow.html"
    assert page_file.is_file(), "beside A by default"
    assert {p.name for p in a.iterdir()} == {p.name for p in b.iterdir()}, "folders untouched"
    ga, gb = (
        json.loads((f / "summary.json").read_text())["flows"][0]["goodput_bps"] for f in (a, b)
    )
    seen = open_in_chromium(
        page_file,
        {
            "goodput": "Array.from(document.querySelectorAll('tr'))"
            ".filter(tr => tr.cells[1] && tr.cells[1].textContent == 'goodput')"
            ".map(tr => [tr.className, Array.from(tr.cells).map(c => c.textContent)])",
            "highlighted": "document.querySelectorAll('tr.differs').length",
        },
    )
    assert seen["errors"] == []
    [(css, cells)] = seen["goodput"]
    assert css == "differs"
    assert cells[2] == f"{ga / 1e6:.4g} Mb/s" and cells[3] == f"{gb / 1e6:.4g} Mb/s"
    assert cells[5] == f"{100 * (gb - ga) / ga:+.3g}%"
    assert seen["highlighted"] >= 3, "goodput, the port's rate, the losses"
    assert "links[1].rate=100 Mb/s" in seen["text"], "B's header names its override"


def test_report_a_b_of_identical_runs_highlights_nothing(tmp_path: Path) -> None:
    a = _udp_run(tmp_path / "one")
    b = _udp_run(tmp_path / "two")
    out = tmp_path / "same.html"
    r = invoke("report", str(a), str(b), "--out", str(out), "-q")
    assert r.exit_code == 0, r.output
    page = out.read_text()
    assert "No value differs." in page
    assert not [a for tag, a in elements(page) if "differs" in (a.get("class") or "")]
    assert ">goodput<" in page
    assert remote_references(page) == []


def test_report_a_b_refuses_an_output_inside_a_results_folder(tmp_path: Path) -> None:
    a = _udp_run(tmp_path / "a")
    before = sorted(p.name for p in a.iterdir())
    r = invoke("report", str(a), str(a), "--out", str(a / "compare.html"))
    assert r.exit_code == 2 and "--out" in r.output and "results folder" in r.output
    assert sorted(p.name for p in a.iterdir()) == before
    r = invoke("report", str(a), "--out", str(tmp_path / "x.html"))
    assert r.exit_code == 2 and "two folders" in " ".join(r.output.split())
    r = invoke("report", str(a), str(a), str(a))
    assert r.exit_code == 2


# ------------------------------------------------------- folders it did not write


SUMMARY = {"scenario": "x", "seed": 1, "sim_time_s": 1.0, "stop_reason": "work_done", "events": 3}


@pytest.mark.parametrize(
    ("file", "text", "says"),
    [
        ("summary.json", "{}", "'scenario' is a required property"),
        ("summary.json", "[1, 2]", "is not of type 'object'"),
        ("summary.json", "{not json", "is not valid JSON"),
        ("summary.json", json.dumps({**SUMMARY, "events": None}), "at events"),
        ("summary.json", json.dumps({**SUMMARY, "flows": [{"kind": "udp"}]}), "flows[0]"),
        ("summary.json", "\xff\xfe", "not valid JSON"),
        ("run.json", "{oops", "is not valid JSON"),
        ("run.json", '"a string"', "is not of type 'object'"),
        ("series.parquet", "not parquet", "is not a Parquet table"),
    ],
)
def test_a_run_folder_ethersim_did_not_write_is_exit_2_and_nothing_is_written(
    tmp_path: Path, file: str, text: str, says: str
) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "summary.json").write_text(json.dumps(SUMMARY))
    (folder / file).write_text(text)
    r = invoke("report", str(folder))
    assert r.exit_code == 2, r.output
    message = " ".join(r.output.split())
    assert file in message and says in message and "Traceback" not in r.output
    assert sorted(p.name for p in folder.iterdir()) == sorted({"summary.json", file})
    if not file.endswith(".json"):
        return  # a comparison reads the JSON files only
    # The same folder as either side of a comparison.
    good = _udp_run(tmp_path / "good")
    r = invoke("report", str(good), str(folder), "--out", str(tmp_path / "c.html"))
    assert r.exit_code == 2 and file in " ".join(r.output.split())
    assert not (tmp_path / "c.html").exists() and not (good / "report.html").exists()


@pytest.mark.parametrize(
    ("files", "says"),
    [
        ({"reproduction.json": "{bad"}, "reproduction.json"),
        ({"reproduction.json": "[]"}, "reproduction.json"),
        ({"reproduction.json": "{}", "comparison.csv": "a,b\n1,2\n"}, "lacks the columns"),
    ],
)
def test_a_reproduction_folder_ethersim_did_not_write_is_exit_2(
    tmp_path: Path, files: dict[str, str], says: str
) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    r = invoke("report", str(tmp_path))
    assert r.exit_code == 2 and says in " ".join(r.output.split())
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(files)


def test_a_series_table_of_text_is_exit_2(tmp_path: Path) -> None:
    (tmp_path / "summary.json").write_text(json.dumps(SUMMARY))
    pd.DataFrame(
        {
            "port": ["a->b"] * 2,
            "quantity": ["queue_bytes"] * 2,
            "t_s": ["0", "1"],
            "value": ["1", "2"],
        }
    ).to_parquet(tmp_path / "series.parquet")
    r = invoke("report", str(tmp_path))
    assert r.exit_code == 2, r.output
    message = " ".join(r.output.split())
    assert "series.parquet' has columns that are not numbers: t_s, value" in message, message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["series.parquet", "summary.json"]


def test_a_folder_where_a_reproduction_has_a_figure_is_exit_2(tmp_path: Path) -> None:
    # A FIFO or a link to /dev/zero at the name: tests/test_inputs.py, in a subprocess.
    (tmp_path / "reproduction.json").write_text("{}")
    (tmp_path / "figure.png").mkdir()
    r = invoke("report", str(tmp_path))
    assert r.exit_code == 2, r.output
    message = " ".join(r.output.split())
    assert "DIR:" in message and "figure.png' is a folder; expected a results file" in message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["figure.png", "reproduction.json"]


def test_report_help_shows_examples() -> None:
    r = invoke("report", "--help")
    assert r.exit_code == 0 and "Examples:" in r.output and "--out" in r.output

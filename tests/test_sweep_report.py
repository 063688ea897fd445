"""``ethersim report SWEEP.duckdb``: one offline page per results database, its figures
holding exactly the database's statistics, every user text escaped, bad input refused."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import duckdb
import ethersim
import pytest
from browser_helpers import elements, open_in_chromium, remote_references
from cli_helpers import invoke
from ethersim.sweeps import Store
from ethersim.sweeps.frames import labels
from small_scenarios import poisson_pair

PING = poisson_pair(30)

#: A quantity key, a number key and a third key: the menu holds it.
GRID = {
    "links[0].rate": ["100 Mb/s", "1.25 Gb/s", "10 Gb/s"],
    "apps[0].count": [20, 40],
    "links[0].delay": ["1 us", "5 us"],
}
METRICS = ["flow.delay_mean_s", "flow.packets_received", "run.events"]
HOSTILE_NAME = "<script>alert(1)</script>"
HOSTILE_VALUE = 'say "hi" </style><script>alert(2)</script>'


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sweep-report")
    (folder / "base.toml").write_text(PING)
    report = ethersim.sweep(
        folder / "base.toml",
        grid=GRID,
        replications=2,
        metrics=METRICS,
        name="three",
        db=folder / "r.duckdb",
        jobs=2,
    )
    assert (report.ok, report.failed) == (24, 0)
    return folder / "r.duckdb"


@pytest.fixture(scope="module")
def hostile_db(db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sweep above renamed ``<script>...`` (sweep files forbid such names; a
    database is just a file) with a key value holding quotes and ``</style>``."""
    target = tmp_path_factory.mktemp("hostile") / "h.duckdb"
    shutil.copy(db, target)
    con = duckdb.connect(str(target))
    (definition,) = con.execute("SELECT definition FROM sweeps").fetchone()  # type: ignore[misc]
    spec = json.loads(definition)
    spec["grid"]["links[0].rate"][0] = HOSTILE_VALUE
    spec["set"] = {"note": HOSTILE_VALUE}
    con.execute("UPDATE sweeps SET sweep = ?, definition = ?", [HOSTILE_NAME, json.dumps(spec)])
    con.execute(
        "UPDATE runs SET sweep = ?, parameters = replace(parameters, '100 Mb/s', ?)",
        [HOSTILE_NAME, HOSTILE_VALUE.replace('"', '\\"')],
    )
    con.close()
    return target


def figures(page: str) -> list[dict[str, Any]]:
    start = '<script type="application/json" data-ethersim data-figure="'
    return [
        json.loads(chunk.split(">", 1)[1].split("</script>", 1)[0])
        for chunk in page.split(start)[1:]
    ]


def report(db: Path, out: Path, *args: str) -> str:
    r = invoke("report", str(db), "--out", str(out), "-q", *args)
    assert r.exit_code == 0, r.output
    return out.read_text()


def test_figures_hold_the_databases_mean_and_ci95_per_cell(db: Path, tmp_path: Path) -> None:
    page = report(db, tmp_path / "p.html")
    with Store(db, read_only=True) as store:
        tidy = store.cells("three")
    tidy = tidy.assign(label=labels(tidy)).set_index(["cell", "label"])
    found = figures(page)
    assert sorted(f["layout"]["meta"]["metric"] for f in found) == sorted(
        set(tidy.index.get_level_values("label"))
    )
    checked = 0
    for figure in found:
        metric = figure["layout"]["meta"]["metric"]
        # Two values of the third key: a menu of two, half the traces shown at first.
        assert len(figure["layout"]["updatemenus"][0]["buttons"]) == 2
        for trace in figure["data"]:
            halves = trace["error_y"]["array"]
            for x, y, half, point in zip(
                trace["x"], trace["y"], halves, trace["customdata"], strict=True
            ):
                row = tidy.loc[(point[2], metric)]
                assert y == row["mean"] and x == row["links[0].rate_bps"]
                assert (half is None and math.isnan(row["ci95"])) or half == row["ci95"]
                checked += 1
    assert checked == len(tidy)  # every cell's every metric, once
    assert found[0]["layout"]["xaxis"]["ticktext"] == GRID["links[0].rate"]
    assert found[0]["layout"]["xaxis"]["type"] == "log"  # 100 Mb/s to 10 Gb/s


def test_page_opens_offline_with_one_figure_per_metric(db: Path, tmp_path: Path) -> None:
    page = report(db, tmp_path / "p.html")
    assert remote_references(page) == []
    seen = open_in_chromium(
        tmp_path / "p.html",
        {
            # Figures are drawn as they near the view: scroll through them all.
            "drawn": """(async () => {
                for (const d of document.querySelectorAll('.plot')) {
                  d.scrollIntoView(); await new Promise(r => setTimeout(r, 100)); }
                return document.querySelectorAll('.js-plotly-plot').length; })()""",
            "plots": "document.querySelectorAll('.plot').length",
        },
    )
    assert seen["errors"] == [] and seen["requests"] == []
    assert seen["plots"] == seen["drawn"] == len(METRICS)


def test_grid_lists_every_key_and_value(db: Path, tmp_path: Path) -> None:
    report(db, tmp_path / "p.html")
    seen = open_in_chromium(
        tmp_path / "p.html",
        {
            "grid": "Array.from(document.querySelectorAll('table.grid tbody tr')).map(r => "
            "[r.cells[0].textContent, Array.from(r.querySelectorAll('li'))"
            ".map(i => i.textContent)])"
        },
    )
    assert seen["grid"] == [[k, [str(v) for v in values]] for k, values in GRID.items()]
    assert "24 ok, 0 failed, of 24" in seen["text"]


def test_hostile_names_are_text_and_inject_nothing(hostile_db: Path, tmp_path: Path) -> None:
    page = report(hostile_db, tmp_path / "p.html")
    for raw in (HOSTILE_NAME, "</style><script>"):
        assert raw not in page
    assert page.count("</style>") == 1
    assert all("data-ethersim" in a for t, a in elements(page) if t == "script")
    seen = open_in_chromium(
        tmp_path / "p.html",
        {
            "injected": "document.querySelectorAll('script:not([data-ethersim])').length",
            "title": "document.title",
            "ticks": """(async () => {
                const d = document.querySelector('.plot'); d.scrollIntoView();
                await new Promise(r => setTimeout(r, 300));
                return Array.from(d.querySelectorAll('.xtick text')).map(t => t.textContent);
            })()""",
        },
    )
    assert seen["errors"] == [] and seen["dialogs"] == [] and seen["injected"] == 0
    assert HOSTILE_NAME in seen["title"] and seen["text"].count(HOSTILE_NAME) >= 2
    assert seen["text"].count(HOSTILE_VALUE) >= 2  # the grid and [set]
    assert HOSTILE_VALUE in seen["ticks"]


def test_one_sweep_of_several(db: Path, tmp_path: Path) -> None:
    page = report(db, tmp_path / "p.html", "--sweep", "three")
    assert "Sweep three" in page


@pytest.mark.parametrize(
    ("make", "args", "message"),
    [
        (lambda p: p.write_text("not a database"), (), "not a DuckDB database"),
        (lambda p: duckdb.connect(str(p)).close(), (), "without ethersim's tables"),
        (lambda p: Store(p).close(), (), "holds no sweep"),
        (None, ("--sweep", "nope"), "no sweep 'nope'"),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(
    db: Path, tmp_path: Path, make: Any, args: tuple[str, ...], message: str
) -> None:
    source = db
    if make is not None:
        source = tmp_path / "x.duckdb"
        make(source)
    out = tmp_path / "out.html"
    r = invoke("report", str(source), "--out", str(out), *args)
    assert r.exit_code == 2 and message in r.output, r.output
    assert not out.exists() and not (tmp_path / "x-report.html").exists()


def test_sweep_option_with_folders_and_unwritable_out_exit_2(db: Path, tmp_path: Path) -> None:
    r = invoke("report", str(tmp_path), "--sweep", "three")
    assert r.exit_code == 2 and "--sweep" in r.output
    r = invoke("report", str(db), "--out", str(tmp_path / "missing" / "p.html"))
    assert r.exit_code == 2
    assert list(tmp_path.iterdir()) == []


def test_default_output_is_beside_the_database(db: Path) -> None:
    r = invoke("report", str(db), "-q")
    assert r.exit_code == 0, r.output
    assert (db.parent / "r-report.html").is_file()

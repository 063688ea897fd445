"""Sweeps as data: typed key columns, tidy statistics checked against scipy, xarray,
``ethersim results`` for people (80 columns) and machines (CSV, JSON), ``ethersim plot``,
and sweeps defined from Python."""

from __future__ import annotations

import json
import math
import re
import sys
import textwrap
from pathlib import Path

import ethersim
import pandas as pd
import pytest
from cli_helpers import invoke
from ethersim import ScenarioError
from ethersim.sweeps import Store, SweepSpec, define_sweep, load_sweep
from ethersim.sweeps.frames import labels, quantity
from ethersim.sweeps.plot import sweep_figure
from small_scenarios import poisson_pair

#: Two hosts, a Poisson flow of a few hundred microseconds.
PING = poisson_pair(50)

RATES = ["1.25 Gb/s", "100 Mb/s"]
COUNTS = [40, 80]
IDLE = [False, True]
LOSS = [0.0, 0.05]

#: A quantity (text), an integer, and a zip of a boolean and a float: 8 cells, 3 runs each.
SWEEP = """
name = "data"
scenario = "base.toml"
replications = 3
metrics = ["flow.delay_mean_s", "flow.packets_received", "run.events"]
[grid]
"links[0].rate" = ["1.25 Gb/s", "100 Mb/s"]
"apps[0].count" = [40, 80]
[zip]
record_idle_intervals = [false, true]
"links[0].loss.probability" = [0.0, 0.05]
"""

KEYS = ["links[0].rate", "apps[0].count", "record_idle_intervals", "links[0].loss.probability"]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sweep above, run once for the module."""
    folder = tmp_path_factory.mktemp("data")
    (folder / "base.toml").write_text(PING)
    (folder / "s.toml").write_text(SWEEP)
    report = ethersim.sweep(folder / "s.toml", db=folder / "r.duckdb", jobs=2)
    assert (report.ok, report.failed) == (24, 0)
    return folder / "r.duckdb"


def cells(db: Path) -> pd.DataFrame:
    with Store(db, read_only=True) as store:
        return store.cells("data")


# ----- frames ------------------------------------------------------------------------


def test_the_tidy_frame_has_one_typed_column_per_swept_key(db: Path) -> None:
    tidy = cells(db)
    assert list(tidy.columns) == [
        "cell",
        "links[0].rate",
        "links[0].rate_bps",
        "apps[0].count",
        "record_idle_intervals",
        "links[0].loss.probability",
        "scope",
        "name",
        "metric",
        "n",
        "mean",
        "std",
        "ci95",
    ]
    dtypes = {k: str(tidy[k].dtype) for k in KEYS}
    assert dtypes == {
        "links[0].rate": "object",
        "apps[0].count": "int64",
        "record_idle_intervals": "bool",
        "links[0].loss.probability": "float64",
    }
    assert sorted(tidy["links[0].rate"].unique()) == sorted(RATES)
    assert sorted(tidy["apps[0].count"].unique()) == COUNTS
    # The zip advances together: the boolean and the float come in their rows.
    pairs = set(zip(tidy["record_idle_intervals"], tidy["links[0].loss.probability"], strict=True))
    assert pairs == set(zip(IDLE, LOSS, strict=True))
    assert tidy.groupby("cell").ngroups == 8 and (tidy["n"] == 3).all()
    assert str(tidy["n"].dtype) == "int64"


def test_a_quantity_key_has_its_value_in_base_units_beside_it(db: Path) -> None:
    tidy = cells(db)
    by_text = dict(zip(tidy["links[0].rate"], tidy["links[0].rate_bps"], strict=True))
    assert by_text == {"1.25 Gb/s": 1.25e9, "100 Mb/s": 1e8}
    assert quantity("10 ms") == ("duration", 0.01)
    assert quantity("1 MiB") == ("size", 1048576.0)
    assert quantity("1.5 kB") == ("size", 1500.0)
    assert quantity("practra") is None


def test_cell_statistics_equal_scipy_over_the_runs(db: Path) -> None:
    from scipy import stats

    with Store(db, read_only=True) as store:
        runs = store.runs("data")
        metrics = store.metrics("data")
        tidy = store.cells("data")
    values = metrics.merge(runs[["run_id", "cell"]], on="run_id")
    checked = 0
    for row in tidy.itertuples():
        sample = values[
            (values.cell == row.cell) & (values.scope == row.scope) & (values.metric == row.metric)
        ].value.to_numpy()
        assert len(sample) == row.n == 3
        mean = sample.mean()
        half = stats.t.ppf(0.975, len(sample) - 1) * sample.std(ddof=1) / math.sqrt(len(sample))
        assert math.isclose(row.mean, mean, rel_tol=1e-12)
        assert math.isclose(row.ci95, half, rel_tol=1e-9, abs_tol=1e-15)
        checked += 1
    assert checked == 8 * 3


def test_runs_have_typed_keys_and_the_raw_table_keeps_parameters(db: Path) -> None:
    with Store(db, read_only=True) as store:
        runs = store.runs("data")
        raw = store.runs("data", raw=True)
    assert list(runs.columns[:4]) == ["run_id", "cell", "replication", "seed"]
    assert list(runs.columns[-3:]) == ["status", "error", "wall_s"]
    assert [c for c in runs.columns if c in KEYS] == KEYS
    assert str(runs["apps[0].count"].dtype) == "int64"
    first = raw.iloc[0]
    assert json.loads(first.parameters)["apps[0].count"] == runs.iloc[0]["apps[0].count"]


def test_statistics_of_one_run_are_nan_not_none(tmp_path: Path) -> None:
    (tmp_path / "base.toml").write_text(PING)
    report = ethersim.sweep(
        tmp_path / "base.toml", grid={"apps[0].count": [10, 20]}, db=tmp_path / "r.duckdb", jobs=1
    )
    with Store(tmp_path / "r.duckdb", read_only=True) as store:
        tidy = store.cells(report.sweep)
    assert str(tidy["ci95"].dtype) == "float64" and tidy["ci95"].isna().all()
    assert tidy["std"].isna().all() and not tidy["mean"].isna().any()


def test_to_xarray_has_a_dimension_per_swept_key(db: Path) -> None:
    pytest.importorskip("xarray")
    with Store(db, read_only=True) as store:
        data = store.to_xarray("data", metrics=["flow:*"])
        tidy = store.cells("data")
    # The zip's rows are one dimension, named after its first key.
    assert list(data.sizes) == ["links[0].rate", "apps[0].count", "record_idle_intervals"]
    assert list(data["links[0].rate"].values) == RATES
    assert list(data["links[0].rate_bps"].values) == [1.25e9, 1e8]
    assert list(data["links[0].loss.probability"].values) == LOSS
    assert set(data.data_vars) == {
        f"flow:load:{m} {s}"
        for m in ("delay_mean_s", "packets_received")
        for s in ("mean", "std", "ci95", "n")
    }
    row = tidy[(tidy.metric == "delay_mean_s")].iloc[5]
    point = data["flow:load:delay_mean_s ci95"].sel(
        {
            "links[0].rate": row["links[0].rate"],
            "apps[0].count": row["apps[0].count"],
            "record_idle_intervals": row["record_idle_intervals"],
        }
    )
    assert float(point) == row.ci95


def test_to_xarray_without_xarray_names_the_extra(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "xarray", None)
    with Store(db, read_only=True) as store, pytest.raises(ImportError) as e:
        store.to_xarray("data")
    assert 'pip install "ethersim[xarray]"' in str(e.value)
    assert 'pip install ".[xarray]"' in str(e.value), "the form a source checkout needs"


# ----- ethersim results --------------------------------------------------------------


def test_results_as_csv_and_json_parse_back_with_the_key_columns(db: Path) -> None:
    tidy = cells(db)
    csv = invoke("results", "data", "--db", str(db), "--format", "csv")
    assert csv.exit_code == 0, csv.output
    from io import StringIO

    back = pd.read_csv(StringIO(csv.stdout))
    assert list(back.columns) == list(tidy.columns)
    assert len(back) == len(tidy)
    assert back["mean"].tolist() == tidy["mean"].tolist(), "full precision"
    js = invoke("results", "data", "--db", str(db), "--format", "json", "--metrics", "run:events")
    assert js.exit_code == 0, js.output
    records = json.loads(js.stdout)
    assert len(records) == 8 and {r["metric"] for r in records} == {"events"}
    assert all(k in records[0] for k in KEYS)
    assert isinstance(records[0]["record_idle_intervals"], bool)
    assert isinstance(records[0]["apps[0].count"], int)
    runs = json.loads(
        invoke("results", "data", "--db", str(db), "--runs", "--format", "json").stdout
    )
    assert len(runs) == 24 and runs[0]["links[0].rate"] in RATES


@pytest.mark.parametrize("chosen", [[], ["--metrics", "*"], ["--metrics", "flow:*,run:*"]])
def test_the_results_table_fits_80_columns(
    db: Path, monkeypatch: pytest.MonkeyPatch, chosen: list[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    r = invoke("results", "data", "--db", str(db), *chosen)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, r.stdout
    assert "1.25 Gb/s" in r.stdout  # values as written
    # Each mean carries its unit, scaled to it; no base unit in a header contradicts it.
    assert re.search(r"\d (ns|us|ms|s) ± ", r.stdout) and "[s]" not in r.stdout
    if chosen:  # every metric chosen is shown, in blocks
        assert r.stdout.count("delay_mean_s") >= 1 and "events" in r.stdout


@pytest.mark.parametrize("view", [["data", "--runs"], ["data", "--long"], []])
def test_the_runs_metrics_and_sweeps_tables_fit_80_columns_with_a_row_bound(
    db: Path, monkeypatch: pytest.MonkeyPatch, view: list[str]
) -> None:
    from ethersim.cli_sweep_tables import MAX_ROWS
    from ethersim.sweeps import Store

    monkeypatch.setenv("COLUMNS", "80")
    r = invoke("results", *view, "--db", str(db))
    assert r.exit_code == 0, r.output
    assert max(len(line) for line in r.stdout.splitlines()) <= 80, r.stdout
    with Store(db, read_only=True) as store:
        rows = len(store.runs("data") if "--runs" in view else store.metrics("data"))
    if view:
        hidden = rows - MAX_ROWS
        assert (f"... and {hidden:,} more rows" in r.stdout) == (hidden > 0), r.stdout
    if "--runs" in view:  # every seed whole, on one line
        with Store(db, read_only=True) as store:
            for seed in store.runs("data")["seed"].head(MAX_ROWS):
                assert f" {seed} " in r.stdout or f" {seed}\n" in r.stdout, seed


def test_the_old_metric_option_still_chooses_metrics(db: Path) -> None:
    new = invoke("results", "data", "--db", str(db), "--format", "csv", "--metrics", "run:*")
    old = invoke("results", "data", "--db", str(db), "--format", "csv", "--metric", "run:*")
    assert old.exit_code == 0 and old.stdout == new.stdout
    assert "--metric " not in invoke("results", "--help").stdout.replace("--metrics", "")


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--format", "xml"], "--format"),
        (["--metrics", "port:nothing:*"], "--metrics"),
        (["--runs", "--long"], "--long"),
        (["--format", "csv", "--export", "x.csv"], "--format"),
    ],
)
def test_bad_results_options_exit_2_naming_the_option(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], option: str
) -> None:
    monkeypatch.chdir(tmp_path)
    r = invoke("results", "data", "--db", str(db), *args)
    assert r.exit_code == 2, r.output
    assert f"{option}:" in r.output and "Traceback" not in r.output
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "command",
    [
        ["results"],
        ["results", "data", "--runs"],
        ["plot", "data", "--x", "apps[0].count", "--y", "x"],
    ],
    ids=["results", "results --runs", "plot"],
)
@pytest.mark.parametrize("tables", [False, True], ids=["empty", "another program's"])
def test_a_duckdb_file_without_our_tables_is_exit_2_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str], tables: bool
) -> None:
    import duckdb

    monkeypatch.chdir(tmp_path)
    db = tmp_path / "other.duckdb"
    con = duckdb.connect(str(db))
    if tables:
        con.execute("CREATE TABLE notes (x INTEGER)")
    con.close()
    before = db.read_bytes()
    r = invoke(*command, "--db", str(db))
    assert r.exit_code == 2, r.output
    text = " ".join(r.output.split())
    assert f"--db: '{db}' holds no ethersim sweep results" in text, text
    assert "without ethersim's tables" in text and "Traceback" not in text
    assert db.read_bytes() == before and list(tmp_path.iterdir()) == [db]
    with pytest.raises(ScenarioError) as e:
        Store(db, read_only=True)
    assert e.value.path == "--db"


@pytest.mark.parametrize(
    "command", [["results"], ["plot", "data", "--x", "k", "--y", "m"]], ids=["results", "plot"]
)
@pytest.mark.parametrize(
    ("name", "words"),
    [("missing.duckdb", "no results database at 'missing.duckdb'"), (".", "'.' is a folder")],
    ids=["missing", "folder"],
)
def test_a_database_that_is_not_a_regular_file_is_exit_2_naming_db(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str], name: str, words: str
) -> None:
    # A FIFO and /dev/zero, which must not be waited on: tests/test_inputs.py.
    monkeypatch.chdir(tmp_path)
    r = invoke(*command, "--db", name)
    assert r.exit_code == 2, r.output
    assert f"--db: {words}" in " ".join(r.output.split()), r.output
    assert list(tmp_path.iterdir()) == []


# ----- ethersim plot -----------------------------------------------------------------


def test_the_figure_has_a_line_per_hue_with_means_and_intervals(db: Path) -> None:
    from matplotlib.container import ErrorbarContainer

    with Store(db, read_only=True) as store:
        tidy = store.cells("data")
        keys = store.swept_keys("data")
    figure = sweep_figure(
        tidy,
        keys,
        x="links[0].rate",
        y="flow:load:delay_mean_s",
        hue="apps[0].count",
        where={"record_idle_intervals": "false"},
    )
    (axes,) = figure.axes
    bars = [c for c in axes.containers if isinstance(c, ErrorbarContainer)]
    assert len(bars) == len(COUNTS)
    legend = [t.get_text() for t in axes.get_legend().get_texts()]
    assert legend == [str(c) for c in COUNTS]
    assert "[b/s]" in axes.get_xlabel() and "[s]" in axes.get_ylabel()
    for count, bar in zip(COUNTS, bars, strict=True):
        line, _caps, (segments,) = bar.lines
        xs, ys = line.get_xdata(), line.get_ydata()
        assert list(xs) == sorted(xs) == [1e8, 1.25e9], "x in b/s, sorted"
        rows = tidy[
            (tidy.metric == "delay_mean_s")
            & (tidy["apps[0].count"] == count)
            & ~tidy["record_idle_intervals"]
        ].sort_values("links[0].rate_bps")
        assert list(ys) == rows["mean"].tolist()
        for (low, high), half in zip(segments.get_segments(), rows["ci95"], strict=True):
            assert math.isclose((high[1] - low[1]) / 2, half, rel_tol=1e-9)
    # Ticks read as the sweep wrote the values.
    assert [t.get_text() for t in axes.get_xticklabels()] == ["100 Mb/s", "1.25 Gb/s"]


def test_the_y_axis_is_logarithmic_exactly_when_the_means_span_a_factor_of_100(
    db: Path,
) -> None:
    with Store(db, read_only=True) as store:
        tidy = store.cells("data")
        keys = store.swept_keys("data")
    scales = []
    for metric in ("flow:load:delay_mean_s", "flow:load:packets_received"):
        figure = sweep_figure(
            tidy,
            keys,
            x="links[0].rate",
            y=metric,
            hue="apps[0].count",
            where={"record_idle_intervals": "false"},
        )
        (axes,) = figure.axes
        means = [y for line in axes.get_lines() for y in line.get_ydata() if y == y]
        spans = min(means) > 0 and max(means) >= 100 * min(means)
        assert axes.get_yscale() == ("log" if spans else "linear"), (metric, means)
        scales.append(axes.get_yscale())
    assert scales == ["log", "linear"], "the delays span decades, the packet counts do not"


def test_plot_writes_png_and_the_same_svg_twice(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    common = ["plot", "data", "--db", str(db), "--x", "apps[0].count", "--y", "run:events"]
    held = ["--where", "record_idle_intervals=true", "--where", "links[0].rate=1250 Mb/s"]
    r = invoke(*common, *held)
    assert r.exit_code == 0, r.output
    (png,) = tmp_path.glob("*.png")
    assert png.name == "data-run_events-vs-apps_0_count.png"
    assert png.read_bytes().startswith(b"\x89PNG")
    svgs = []
    for name in ("a.svg", "b.svg"):
        r = invoke(*common, *held, "--hue", "links[0].loss.probability", "--out", name)
        assert r.exit_code == 0, r.output
        svgs.append((tmp_path / name).read_bytes())
    assert svgs[0] == svgs[1] and b"<svg" in svgs[0]


#: A plot of the run's events by count and rate (the zip still to be held).
BY_RATE = ["--x", "apps[0].count", "--y", "run:events", "--hue", "links[0].rate"]


@pytest.mark.parametrize(
    ("args", "option", "words"),
    [
        (["--x", "links[9].rate", "--y", "run:events"], "--x", "not a swept key"),
        (["--x", "apps[0].count", "--y", "nothing"], "--y", "matches no metric"),
        (["--x", "apps[0].count", "--y", "flow:*"], "--y", "matches 2 metrics"),
        (["--x", "apps[0].count", "--y", "run:events"], "--where", "links[0].rate"),
        (
            ["--x", "apps[0].count", "--y", "run:events", "--hue", "apps[0].count"],
            "--hue",
            "x key",
        ),
        (
            [*BY_RATE, "--where", "record_idle_intervals=maybe"],
            "--where",
            "no value",
        ),
        (
            [*BY_RATE, "--where", "record_idle_intervals"],
            "--where",
            "KEY=VALUE",
        ),
        (
            [*BY_RATE, "--where", "record_idle_intervals=true", "--out", "plot.pdf"],
            "--out",
            ".png",
        ),
    ],
)
def test_bad_plot_options_exit_2_naming_the_option_and_write_nothing(
    db: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    option: str,
    words: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    r = invoke("plot", "data", "--db", str(db), *args)
    assert r.exit_code == 2, r.output
    assert f"{option}:" in r.output and words in r.output, r.output
    assert list(tmp_path.iterdir()) == []


def test_new_commands_show_examples_in_their_help() -> None:
    for command in ("plot", "results", "sweep"):
        assert "Examples" in invoke(command, "--help").stdout


# ----- sweeps defined in Python ------------------------------------------------------


def test_a_sweep_from_python_has_the_cells_and_seeds_of_the_same_file(tmp_path: Path) -> None:
    (tmp_path / "base.toml").write_text(PING)
    (tmp_path / "s.toml").write_text(SWEEP)
    from_file = load_sweep(tmp_path / "s.toml")
    from_python = define_sweep(
        tmp_path / "base.toml",
        name="data",
        replications=3,
        metrics=["flow.delay_mean_s", "flow.packets_received", "run.events"],
        grid={"links[0].rate": RATES, "apps[0].count": COUNTS},
        zip={"record_idle_intervals": IDLE, "links[0].loss.probability": LOSS},
    )
    assert from_python.cells == from_file.cells
    assert [(t.cell, t.seed, t.run_id) for t in from_python.tasks] == [
        (t.cell, t.seed, t.run_id) for t in from_file.tasks
    ]
    # Run through ethersim.sweep, it stores those runs.
    report = ethersim.sweep(
        tmp_path / "base.toml",
        grid={"apps[0].count": range(10, 40, 10)},
        set={"links[0].rate": "100 Mb/s"},
        seed=7,
        db=tmp_path / "r.duckdb",
        jobs=2,
    )
    assert (report.sweep, report.ok) == ("base", 3)
    file = tmp_path / "same.toml"
    file.write_text(
        textwrap.dedent(
            """
            scenario = "base.toml"
            seed = 7
            [set]
            "links[0].rate" = "100 Mb/s"
            [grid]
            "apps[0].count" = [10, 20, 30]
            """
        )
    )
    with Store(tmp_path / "r.duckdb", read_only=True) as store:
        stored = store.runs("base")
    expected = load_sweep(file).tasks
    assert list(stored.seed) == [t.seed for t in expected]
    assert list(stored["apps[0].count"]) == [10, 20, 30]


def test_a_bad_sweep_from_python_names_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "base.toml").write_text(PING)
    with pytest.raises(ScenarioError) as e:
        ethersim.sweep(tmp_path / "base.toml", grid={"links[0].rate": ["1 Gb/s", "fast"]}, jobs=1)
    assert e.value.path == 'grid."links[0].rate"[1]'
    with pytest.raises(ScenarioError) as e:
        define_sweep(tmp_path / "base.toml", grid={"apps[0].count": 5})  # type: ignore[dict-item]
    assert e.value.path == 'grid."apps[0].count"'
    spec = load_sweep_of(tmp_path)
    with pytest.raises(ScenarioError) as e:
        ethersim.sweep(spec, replications=2)
    assert e.value.path == "replications"
    assert not (tmp_path / "ethersim-results.duckdb").exists()


def load_sweep_of(folder: Path) -> SweepSpec:
    (folder / "s.toml").write_text('scenario = "base.toml"\n')
    return load_sweep(folder / "s.toml")


def test_labels_join_scope_name_and_metric() -> None:
    frame = pd.DataFrame({"scope": ["port", "run"], "name": ["a->b", ""], "metric": ["x", "y"]})
    assert labels(frame).tolist() == ["port:a->b:x", "run:y"]

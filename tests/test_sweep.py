"""Sweeps: files checked before anything runs, seeds derived deterministically, every run
committed once, resumed after SIGKILL, failures recorded without stopping the rest, the
same results on a Dask cluster as on the local pool, statistics as Student t gives them."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from cli_helpers import invoke
from ethersim import ScenarioError
from ethersim.api import run_text
from ethersim.sweeps import (
    Store,
    derive_seed,
    execute,
    load_sweep,
    summarize,
    sweep,
)
from scenario_edits import edit
from small_scenarios import poisson_pair

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

#: A small scenario: a ping between two hosts over a link whose rate and delay vary.
PING = poisson_pair(200)


def write_sweep(folder: Path, body: str, scenario: str = PING) -> Path:
    (folder / "base.toml").write_text(scenario)
    path = folder / "s.toml"
    path.write_text('scenario = "base.toml"\n' + textwrap.dedent(body))
    return path


GRID = """
name = "grid"
replications = 3
metrics = ["flow.delay_mean_s", "flow.packets_received", "run.events"]
[grid]
"links[0].rate" = ["100 Mb/s", "1 Gb/s"]
"links[0].delay" = ["1 us", "10 us", "100 us"]
"""


def table(store: Store, name: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A sweep's runs (without timing) and metrics, in a stable order."""
    runs = store.runs(name).drop(columns=["wall_s"]).reset_index(drop=True)
    return runs, store.metrics(name).reset_index(drop=True)


# ----- sweep files -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "path", "words"),
    [
        ("bogus = 1\n", "bogus", "unknown key"),
        ("replications = 0\n", "replications", "minimum"),
        ('[grid]\n"links[0].rate" = []\n', 'grid."links[0].rate"', "should be non-empty"),
        ('[grid]\n"links[0].rate" = ["fast"]\n', 'grid."links[0].rate"[0]', "links[0].rate"),
        ('[grid]\n"links[7].rate" = ["1 Gb/s"]\n', 'grid."links[7].rate"[0]', "links[7]"),
        ("[zip]\na = [1, 2]\nb = [1]\n", "zip", "differ in length"),
        ("[limits]\nmax_wall_s = 0\n", "limits.max_wall_s", "less than or equal to the minimum"),
        ('metrics = ["flows.x"]\n', "metrics[0]", "does not match"),
        ('[set]\n"apps[0].rate" = "lots"\n', 'set."apps[0].rate"', "apps[0].rate"),
        ('[grid]\n"apps[0].count" = [1, 2, 1]\n', 'grid."apps[0].count"[2]', "index 0"),
        ('[zip]\na = [1, 1]\nb = ["x", "x"]\n', "zip.a[1]", "repeats"),
        (
            '[set]\n"apps[0].count" = 1\n[grid]\n"apps[0].count" = [2]\n',
            'grid."apps[0].count"',
            "set",
        ),
    ],
)
def test_a_malformed_sweep_file_names_the_key_path(
    tmp_path: Path, body: str, path: str, words: str
) -> None:
    file = write_sweep(tmp_path, body)
    with pytest.raises(ScenarioError) as e:
        load_sweep(file)
    assert e.value.path == path
    assert words in str(e.value)


def test_a_bad_sweep_file_exits_2_and_runs_nothing(tmp_path: Path) -> None:
    file = write_sweep(tmp_path, '[grid]\n"links[0].rate" = ["1 Gb/s", "slow"]\n')
    db = tmp_path / "r.duckdb"
    result = invoke("sweep", str(file), "--db", str(db))
    assert result.exit_code == 2
    assert 'grid."links[0].rate"[1]' in result.output
    assert not db.exists(), "nothing was run, not even a database created"


def test_cells_multiply_the_grid_and_zip_advances_together(tmp_path: Path) -> None:
    spec = load_sweep(
        write_sweep(
            tmp_path,
            """
            replications = 2
            [grid]
            "links[0].rate" = ["100 Mb/s", "1 Gb/s"]
            [zip]
            "apps[0].rate" = ["10 Mb/s", "20 Mb/s", "30 Mb/s"]
            "apps[0].count" = [10, 20, 30]
            """,
        )
    )
    assert len(spec.cells) == 6 and len(spec.tasks) == 12
    assert spec.cells[1] == {
        "links[0].rate": "100 Mb/s",
        "apps[0].rate": "20 Mb/s",
        "apps[0].count": 20,
    }
    assert len({t.seed for t in spec.tasks}) == 12, "every run has its own seed"
    assert len({t.run_id for t in spec.tasks}) == 12


def test_seeds_depend_on_the_cell_not_on_the_rest_of_the_sweep(tmp_path: Path) -> None:
    small = load_sweep(write_sweep(tmp_path, '[grid]\n"links[0].rate" = ["1 Gb/s"]\n'))
    large = load_sweep(
        write_sweep(tmp_path, '[grid]\n"links[0].rate" = ["100 Mb/s", "1 Gb/s", "10 Gb/s"]\n')
    )
    assert small.tasks[0].seed == large.tasks[1].seed
    assert small.tasks[0].seed == derive_seed(1, {"links[0].rate": "1 Gb/s"}, 0)
    assert derive_seed(2, {"links[0].rate": "1 Gb/s"}, 0) != small.tasks[0].seed


def test_paired_parameters_stay_out_of_the_seed(tmp_path: Path) -> None:
    spec = load_sweep(
        write_sweep(
            tmp_path,
            """
            replications = 3
            paired = ["apps[0].rate"]
            [grid]
            "links[0].rate" = ["100 Mb/s", "1 Gb/s"]
            "apps[0].rate" = ["10 Mb/s", "20 Mb/s"]
            """,
        )
    )
    by_cell: dict[tuple[str, int], set[int]] = {}
    for t in spec.tasks:
        key = (t.parameters["links[0].rate"], t.replication)
        by_cell.setdefault(key, set()).add(t.seed)
        assert t.seed == derive_seed(
            1, {"links[0].rate": t.parameters["links[0].rate"]}, t.replication
        )
    # Runs that differ only in the paired parameter share their seed; nothing else does.
    assert all(len(seeds) == 1 for seeds in by_cell.values())
    assert len({next(iter(s)) for s in by_cell.values()}) == 6
    assert len({t.run_id for t in spec.tasks}) == 12, "the runs stay distinct"


def test_a_paired_key_must_be_varied(tmp_path: Path) -> None:
    path = write_sweep(
        tmp_path, 'paired = ["apps[0].rate"]\n[grid]\n"links[0].rate" = ["1 Gb/s"]\n'
    )
    with pytest.raises(ScenarioError) as e:
        load_sweep(path)
    assert e.value.path == "paired[0]" and "not a grid or zip parameter" in str(e.value)


def test_the_sweep_schema_is_printed(tmp_path: Path) -> None:
    result = invoke("schema", "--sweep")
    assert result.exit_code == 0
    assert json.loads(result.output)["title"] == "ethersim sweep"


# ----- running -----------------------------------------------------------------------


def test_a_sweep_stores_what_the_simulator_reports_for_each_run(tmp_path: Path) -> None:
    spec = load_sweep(write_sweep(tmp_path, GRID))
    report = sweep(spec, db=tmp_path / "r.duckdb", jobs=2)
    assert (report.runs, report.ok, report.failed, report.skipped) == (18, 18, 0, 0)
    with Store(tmp_path / "r.duckdb", read_only=True) as store:
        runs, metrics = table(store, "grid")
    assert len(runs) == 18 and set(runs.status) == {"ok"}
    # One run, again by hand: the stored values are the simulator's.
    task = spec.tasks[7]
    direct = run_text(PING, overrides=task.overrides, seed=task.seed).summary
    mine = metrics[metrics.run_id == task.run_id].set_index(["scope", "metric"]).value
    assert mine[("run", "events")] == direct["events"]
    assert mine[("flow", "delay_mean_s")] == direct["flows"][0]["delay"]["mean_s"]
    assert set(metrics.metric) == {"delay_mean_s", "packets_received", "events"}


def test_a_rerun_skips_what_is_stored_and_the_same_sweep_gives_the_same_database(
    tmp_path: Path,
) -> None:
    file = write_sweep(tmp_path, GRID)
    first = sweep(file, db=tmp_path / "a.duckdb", jobs=2)
    again = sweep(file, db=tmp_path / "a.duckdb", jobs=2)
    assert (again.skipped, again.ok) == (18, 0)
    forced = sweep(file, db=tmp_path / "a.duckdb", jobs=2, force=True)
    assert (forced.skipped, forced.ok) == (0, 18)
    sweep(file, db=tmp_path / "b.duckdb", jobs=1)
    with (
        Store(tmp_path / "a.duckdb", read_only=True) as a,
        Store(tmp_path / "b.duckdb", read_only=True) as b,
    ):
        for x, y in zip(table(a, "grid"), table(b, "grid"), strict=True):
            pd.testing.assert_frame_equal(x, y)
    assert first.ok == 18


def test_an_edited_sweep_keeps_only_the_runs_it_still_defines(tmp_path: Path) -> None:
    db = tmp_path / "r.duckdb"
    sweep(write_sweep(tmp_path, '[grid]\n"apps[0].count" = [100, 200]\n'), db=db, jobs=2)
    # 100 goes, 300 comes: the run of 200 is kept and becomes cell 0.
    edited = sweep(write_sweep(tmp_path, '[grid]\n"apps[0].count" = [200, 300]\n'), db=db, jobs=2)
    assert (edited.removed, edited.skipped, edited.ok) == (1, 1, 1)
    with Store(db, read_only=True) as store:
        runs = store.runs("s")
        cells = store.cells("s", wide=True)
    assert list(runs.cell) == [0, 1] and len(runs) == 2
    assert list(runs["apps[0].count"]) == [200, 300]
    assert list(cells["flow:load:packets_sent mean"]) == [200, 300]


def foreign_database(path: Path, *, tables: bool) -> Path:
    """A DuckDB file without ethersim's tables: empty (as ``duckdb.connect`` leaves one,
    and a sweep stopped before its first commit), or another program's, with a row."""
    import duckdb

    db = duckdb.connect(str(path))
    if tables:
        db.execute("CREATE TABLE notes (x INTEGER); INSERT INTO notes VALUES (7)")
    db.close()
    return path


def tables_of(path: Path) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The tables of a DuckDB file, and the rows of ``notes`` if it has one."""
    import duckdb

    db = duckdb.connect(str(path), read_only=True)
    try:
        names = sorted(
            r[0] for r in db.execute("SELECT table_name FROM duckdb_tables()").fetchall()
        )
        rows = db.execute("SELECT * FROM notes").fetchall() if "notes" in names else []
        return names, rows
    finally:
        db.close()


def test_a_sweep_initialises_an_empty_duckdb_file(tmp_path: Path) -> None:
    db = foreign_database(tmp_path / "r.duckdb", tables=False)
    file = write_sweep(tmp_path, '[grid]\n"apps[0].count" = [100, 200]\n')
    dry = invoke("sweep", str(file), "--db", str(db), "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert "0 already stored" in dry.output and tables_of(db) == ([], []), (
        "a dry run writes nothing"
    )
    r = invoke("sweep", str(file), "--db", str(db), "-q")
    assert r.exit_code == 0, r.output
    with Store(db, read_only=True) as store:
        assert list(store.runs("s").status) == ["ok", "ok"]


@pytest.mark.parametrize("dry", [False, True], ids=["sweep", "dry run"])
def test_a_sweep_refuses_another_programs_database_and_leaves_it_alone(
    tmp_path: Path, dry: bool
) -> None:
    db = foreign_database(tmp_path / "other.duckdb", tables=True)
    file = write_sweep(tmp_path, "")
    r = invoke("sweep", str(file), "--db", str(db), *(["--dry-run"] if dry else []))
    assert r.exit_code == 2, r.output
    text = " ".join(r.output.split())
    assert f"--db: '{db}' holds no ethersim sweep results" in text, text
    assert "other tables: notes" in text and "Traceback" not in text
    assert tables_of(db) == (["notes"], [(7,)])


def test_a_dry_run_on_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    # In its own process, with a timeout: DuckDB opening a FIFO waits for a writer.
    fifo = tmp_path / "r.duckdb"
    os.mkfifo(fifo)
    file = write_sweep(tmp_path, "")
    try:
        p = subprocess.run(
            [sys.executable, "-m", "ethersim", "sweep", str(file), "--db", str(fifo), "--dry-run"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("sweep --dry-run still waited on the FIFO after 20 s")
    assert p.returncode == 2, p.stderr
    assert "--db:" in p.stderr and "is a FIFO" in p.stderr, p.stderr


def test_sweep_names_must_differ_by_more_than_case(tmp_path: Path) -> None:
    db = tmp_path / "r.duckdb"
    sweep(write_sweep(tmp_path, 'name = "Load"\n'), db=db, jobs=1)
    with pytest.raises(ScenarioError) as e:
        sweep(write_sweep(tmp_path, 'name = "load"\n'), db=db, jobs=1)
    assert e.value.path == "name" and "only in case" in str(e.value)


def test_cell_statistics_are_the_student_t_interval(tmp_path: Path) -> None:
    sweep(write_sweep(tmp_path, GRID), db=tmp_path / "r.duckdb", jobs=2)
    with Store(tmp_path / "r.duckdb", read_only=True) as store:
        runs, metrics = table(store, "grid")
        cells = store.cells("grid", wide=True)
    joined = metrics.merge(runs[["run_id", "cell"]], on="run_id")
    for cell in range(6):
        values = joined[(joined.cell == cell) & (joined.metric == "delay_mean_s")].value
        s = summarize(list(values))
        row = cells[cells.cell == cell].iloc[0]
        assert row["runs_ok"] == 3
        assert math.isclose(row["flow:load:delay_mean_s mean"], s.mean, rel_tol=1e-12)
        assert math.isclose(row["flow:load:delay_mean_s std"], s.std, rel_tol=1e-9)
        assert math.isclose(row["flow:load:delay_mean_s ci95"], s.ci95, rel_tol=1e-9)
    # Two degrees of freedom: t = 4.302652729911275.
    assert math.isclose(summarize([1.0, 2.0, 3.0]).ci95, 4.302652729911275 / math.sqrt(3))


def test_failed_runs_are_recorded_and_the_rest_finish(tmp_path: Path) -> None:
    body = """
    name = "budgets"
    [grid]
    "apps[0].count" = [50, 100000]
    [limits]
    max_events = 2000
    """
    report = sweep(write_sweep(tmp_path, body), db=tmp_path / "r.duckdb", jobs=2)
    assert (report.ok, report.failed) == (1, 1)
    with Store(tmp_path / "r.duckdb", read_only=True) as store:
        runs = store.runs("budgets")
        assert store.metrics("budgets").run_id.isin(runs[runs.status == "ok"].run_id).all()
    failed = runs[runs.status == "failed"].iloc[0]
    assert failed.cell == 1 and "event budget of 2,000 events" in failed.error


def test_a_run_over_its_wall_budget_fails(tmp_path: Path) -> None:
    long = poisson_pair(5_000_000)
    body = '[limits]\nmax_wall_s = 0.05\n[grid]\n"apps[0].count" = [5000000]\n'
    report = sweep(write_sweep(tmp_path, body, long), db=tmp_path / "r.duckdb", jobs=1)
    assert report.failed == 1
    with Store(tmp_path / "r.duckdb", read_only=True) as store:
        assert "wall budget of 0.05 s" in store.runs("s").error.iloc[0]


def test_a_panic_in_a_run_is_a_failed_outcome(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from ethersim import _core, api

    def panicking(*args: Any, **kwargs: Any) -> None:
        _core._trigger_panic()

    monkeypatch.setattr(api, "run_text", panicking)
    task = load_sweep(write_sweep(tmp_path, "")).tasks[0]
    outcome = execute(task)
    assert outcome.status == "failed" and outcome.error.startswith("InternalError")


def test_a_worker_that_dies_fails_its_run_alone(tmp_path: Path) -> None:
    from sweep_workers import dies_on_cell_1

    spec = load_sweep(write_sweep(tmp_path, '[grid]\n"apps[0].count" = [10, 20, 30, 40]\n'))
    report = sweep(spec, db=tmp_path / "r.duckdb", jobs=2, worker=dies_on_cell_1)
    assert (report.ok, report.failed) == (3, 1)
    with Store(tmp_path / "r.duckdb", read_only=True) as store:
        runs = store.runs("s")
    assert list(runs[runs.status == "failed"].cell) == [1]
    assert "worker process running it died" in runs[runs.cell == 1].error.iloc[0]


def test_a_sweep_killed_partway_resumes_and_equals_an_uninterrupted_one(tmp_path: Path) -> None:
    body = edit(GRID, "replications = 3", "replications = 6")
    file = write_sweep(tmp_path, body)
    db = tmp_path / "killed.duckdb"
    child = textwrap.dedent(
        f"""
        import sys
        from ethersim.sweeps import sweep
        def said(outcome):
            print(outcome.task.run_id, flush=True)
        sweep({str(file)!r}, db={str(db)!r}, jobs=2, on_commit=said)
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", child], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    assert proc.stdout is not None
    committed = [proc.stdout.readline() for _ in range(8)]
    os.killpg(proc.pid, signal.SIGKILL)  # the coordinator and its workers
    proc.wait()
    proc.stdout.close()
    assert all(committed)
    with Store(db, read_only=True) as store:
        stored = len(store.runs("grid"))
    assert 8 <= stored < 36, stored
    resumed = sweep(file, db=db, jobs=2)
    assert resumed.skipped == stored and resumed.ok == 36 - stored
    sweep(file, db=tmp_path / "whole.duckdb", jobs=2)
    with Store(db, read_only=True) as a, Store(tmp_path / "whole.duckdb", read_only=True) as b:
        runs, metrics = table(a, "grid")
        assert runs.run_id.is_unique and len(runs) == 36
        for x, y in zip((runs, metrics), table(b, "grid"), strict=True):
            pd.testing.assert_frame_equal(x, y)


def test_an_interrupted_sweep_stops_its_workers_and_keeps_what_it_committed(
    tmp_path: Path,
) -> None:
    # The coordinator is interrupted (SIGINT) after its fifth commit, with runs in flight.
    body = edit(GRID, "replications = 3", "replications = 6")
    file = write_sweep(tmp_path, body)
    db = tmp_path / "r.duckdb"
    # The child takes SIGINT as Ctrl-C even if this test runs where SIGINT is ignored (see
    # test_cli's test_ctrl_c_stops_a_long_run).
    child = textwrap.dedent(
        f"""
        import os, signal
        signal.signal(signal.SIGINT, signal.default_int_handler)
        from ethersim.sweeps import sweep
        done = 0
        def said(outcome):
            global done
            done += 1
            if done == 5:
                os.kill(os.getpid(), signal.SIGINT)
        try:
            sweep({str(file)!r}, db={str(db)!r}, jobs=2, on_commit=said)
        except KeyboardInterrupt:
            raise SystemExit(130)
        """
    )
    finished = subprocess.run([sys.executable, "-c", child], timeout=60, check=False)
    assert finished.returncode == 130
    with Store(db, read_only=True) as store:
        runs = store.runs("grid")
        metrics = store.metrics("grid")
    assert 5 <= len(runs) < 36 and set(runs.status) == {"ok"}
    assert set(metrics.run_id) == set(runs.run_id), "no run without its metrics, none extra"
    assert sweep(file, db=db, jobs=2).ok == 36 - len(runs)


def test_a_script_without_a_main_guard_gets_a_clear_error(tmp_path: Path) -> None:
    # Spawned workers import the main script: one that sweeps as it is imported would
    # sweep again in every worker. The sweep says so instead of failing every run.
    file = write_sweep(tmp_path, "")
    script = tmp_path / "unguarded.py"
    db = tmp_path / "r.duckdb"
    script.write_text(f"import ethersim\nethersim.sweep({str(file)!r}, db={str(db)!r}, jobs=1)\n")
    p = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=False
    )
    assert p.returncode != 0
    assert "if __name__ == '__main__':" in p.stderr, p.stderr[-2000:]
    with Store(db, read_only=True) as store:
        assert store.runs().empty, "no run recorded as failed"


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_die_with_a_coordinator_killed_outright(tmp_path: Path) -> None:
    import time

    file = write_sweep(tmp_path, edit(GRID, "replications = 3", "replications = 50"))
    child = textwrap.dedent(
        f"""
        from ethersim.sweeps import sweep
        def said(outcome):
            print(outcome.task.run_id, flush=True)
        sweep({str(file)!r}, db={str(tmp_path / "r.duckdb")!r}, jobs=2, on_commit=said)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    proc.stdout.readline()  # workers are up
    workers = _children(proc.pid)
    assert workers, "the coordinator has worker processes"
    proc.kill()  # the coordinator alone, as the OOM killer would
    proc.wait()
    proc.stdout.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(Path(f"/proc/{w}").exists() for w in workers):
        time.sleep(0.1)
    for w in workers:  # reaped by init, or a zombie at most
        status = Path(f"/proc/{w}/stat")
        assert not status.exists() or status.read_text().rsplit(")", 1)[1].split()[0] == "Z"


def test_a_sweep_on_dask_without_distributed_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    sweep = ROOT / "examples" / "fan-in-sweep.toml"
    result = invoke("sweep", str(sweep), "--db", str(tmp_path / "r.duckdb"), "--dask-local")
    assert result.exit_code == 1, result.output  # docs/cli.md: an error of no other kind
    assert 'pip install "ethersim[dask]"' in result.output
    assert 'pip install ".[dask]"' in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "r.duckdb").exists(), "nothing written before the refusal"


def _stop(processes: list[subprocess.Popen[bytes]]) -> None:
    """Ask `processes` to end (SIGTERM) and kill any still running after 20 s."""
    for p in processes:
        p.terminate()
    for p in processes:
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def test_a_dask_cluster_gives_the_local_pools_results(tmp_path: Path) -> None:
    # A real scheduler and two worker processes, started as a user would (dask's own
    # commands), reached through --scheduler.
    import time

    pytest.importorskip("distributed")
    file = write_sweep(tmp_path, GRID)
    address_file = tmp_path / "scheduler.json"
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    scheduler = subprocess.Popen(
        [*dask, "--scheduler-file", str(address_file), "--port", "0", "--no-dashboard"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    workers = []
    try:
        deadline = time.monotonic() + 60
        while not address_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        address = json.loads(address_file.read_text())["address"]
        worker = ["distributed.cli.dask_worker", address, "--nthreads", "1", "--no-dashboard"]
        workers = [
            subprocess.Popen(
                [sys.executable, "-m", *worker],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for _ in range(2)
        ]
        result = invoke(
            "sweep", str(file), "--db", str(tmp_path / "dask.duckdb"),
            "--scheduler", address, "--quiet",
        )  # fmt: skip
        assert result.exit_code == 0, result.output
    finally:
        # Workers first, while the scheduler can still take their goodbyes: a worker whose
        # scheduler is already gone retries the connection during its graceful close
        # (distributed's connect timeout is 30 s), which once outlasted this wait in CI.
        _stop(workers)
        _stop([scheduler])
    sweep(file, db=tmp_path / "local.duckdb", jobs=2)
    with (
        Store(tmp_path / "dask.duckdb", read_only=True) as a,
        Store(tmp_path / "local.duckdb", read_only=True) as b,
    ):
        for x, y in zip(table(a, "grid"), table(b, "grid"), strict=True):
            pd.testing.assert_frame_equal(x, y)


def test_a_local_dask_cluster_runs_a_sweep(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    result = invoke(
        "sweep", str(write_sweep(tmp_path, GRID)), "--db", str(tmp_path / "r.duckdb"),
        "--dask-local", "--jobs", "2", "--quiet",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    with Store(tmp_path / "r.duckdb", read_only=True) as store:
        assert (store.runs("grid").status == "ok").sum() == 18


# ----- the command line --------------------------------------------------------------


def test_the_example_sweep_runs_and_its_results_export(tmp_path: Path) -> None:
    db = tmp_path / "r.duckdb"
    result = invoke("sweep", str(EXAMPLES / "fan-in-sweep.toml"), "--db", str(db))
    assert result.exit_code == 0, result.output
    assert "40 ok, 0 failed" in result.output
    listed = invoke("results", "--db", str(db))
    assert "fan-in-sweep" in listed.output
    for suffix in (".csv", ".parquet"):
        out = tmp_path / f"cells{suffix}"
        assert (
            invoke("results", "fan-in-sweep", "--db", str(db), "--export", str(out)).exit_code == 0
        )
        cells = pd.read_csv(out) if suffix == ".csv" else pd.read_parquet(out)
        assert len(cells) == 10 and (cells.runs_ok == 4).all()
    # More buffer never drops more (means over four replications, at 64% load).
    drops = cells["port:switch->h0:drops mean"].tolist()
    assert drops[5:] == sorted(drops[5:], reverse=True) and drops[-1] == 0
    long = tmp_path / "metrics.parquet"
    assert (
        invoke(
            "results", "fan-in-sweep", "--db", str(db), "--long", "--export", str(long)
        ).exit_code
        == 0
    )
    # 18 ports and 8 flows with two metrics each, and the run's events.
    assert len(pd.read_parquet(long)) == 40 * (18 * 2 + 8 * 2 + 1)
    missing = invoke("results", "nothing", "--db", str(db))
    assert missing.exit_code == 2 and "no sweep named 'nothing'" in missing.output


def test_a_sweep_with_failures_exits_1(tmp_path: Path) -> None:
    file = write_sweep(tmp_path, "[limits]\nmax_events = 10\n")
    result = invoke("sweep", str(file), "--db", str(tmp_path / "r.duckdb"))
    assert result.exit_code == 1
    assert "1 runs failed" in result.output

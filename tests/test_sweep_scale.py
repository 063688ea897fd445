"""Sweeps at scale: a large grid says its size before it is planned, is planned from a
few of its cells without changing any run's identity, is still refused for a bad value
before anything runs, and logs its progress where there is no terminal."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from cli_helpers import invoke
from ethersim import ScenarioError, _core
from ethersim.sweeps import Store, derive_seed, load_sweep, plan, sweep
from ethersim.sweeps.spec import SweepSpec
from scenario_edits import edit
from test_sweep import write_sweep

#: 3 x 4 cells x 2 zip rows, a paired key, a budget and set values: every part of a cell's
#: identity.
SMALL = """
name = "small"
replications = 2
seed = 7
paired = ["links[0].delay"]
metrics = ["run.events"]
[set]
"apps[0].count" = 20
[limits]
max_events = 100000
[grid]
"links[0].rate" = ["100 Mb/s", "1 Gb/s", "10 Gb/s"]
"links[0].delay" = ["1 us", "10 us", "100 us", "1 ms"]
[zip]
"apps[0].rate" = ["10 Mb/s", "20 Mb/s"]
"apps[0].payload" = ["100 B", "1000 B"]
"""


def identities_one_by_one(spec: SweepSpec) -> list[tuple[str, int, str]]:
    """Each run's (id, seed, scenario hash) as the contract defines them, each cell's
    scenario asked of the core: the way sweeps were planned before they were composed."""
    out = []
    for run in range(spec.runs):
        task = spec.task(run)
        overrides = [tuple(o.split("=", 1)) for o in task.overrides]
        checked = json.loads(_core.validate(task.scenario_text, overrides))  # type: ignore[arg-type]
        checked.pop("seed", None)
        canonical = json.dumps(checked, sort_keys=True, separators=(",", ":"))
        scenario_hash = hashlib.sha256(canonical.encode()).hexdigest()[:32]
        unpaired = {k: v for k, v in task.parameters.items() if k != "links[0].delay"}
        seed = derive_seed(7, unpaired, task.replication)
        run_key = f"{spec.name}|{scenario_hash}|{seed}"
        run_id = hashlib.blake2b(run_key.encode(), digest_size=8).hexdigest()
        out.append((run_id, seed, scenario_hash))
    return out


def test_a_composed_plan_gives_every_run_the_identity_the_contract_defines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = write_sweep(tmp_path, SMALL)
    exact = load_sweep(file)
    monkeypatch.setattr(plan, "EXACT_CELLS", 0)
    composed = load_sweep(file)
    assert exact.plan.exact and not composed.plan.exact
    expected = identities_one_by_one(exact)
    assert len(expected) == 48 and len({i for i, _, _ in expected}) == 48
    for spec in (exact, composed):
        got = [(t.run_id, t.seed, t.scenario_hash) for t in spec.tasks]
        assert got == expected
        assert [t.cell for t in spec.tasks] == [c for c in range(24) for _ in range(2)]


def test_a_sweep_planned_the_fast_way_resumes_a_database_written_the_exact_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = write_sweep(tmp_path, SMALL)
    db = tmp_path / "r.duckdb"
    first = sweep(load_sweep(file), db=db, jobs=1)
    assert (first.ok, first.failed) == (48, 0)
    monkeypatch.setattr(plan, "EXACT_CELLS", 0)
    again = sweep(load_sweep(file), db=db, jobs=1)
    assert (again.runs, again.skipped, again.ok, again.removed) == (48, 48, 0, 0)


def test_a_bad_value_is_refused_before_anything_runs_when_planned_the_fast_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plan, "EXACT_CELLS", 0)
    bad = edit(SMALL, '"10 Gb/s"]', '"10 Gb/z"]')
    with pytest.raises(ScenarioError) as e:
        load_sweep(write_sweep(tmp_path, bad))
    assert e.value.path == 'grid."links[0].rate"[2]'
    assert "(cell 16)" in str(e.value)  # the first cell with that value
    db = tmp_path / "r.duckdb"
    result = invoke("sweep", str(tmp_path / "s.toml"), "--db", str(db))
    assert result.exit_code == 2 and not db.exists()


def test_a_large_grid_says_its_size_and_a_dry_run_creates_no_database(tmp_path: Path) -> None:
    frames = ", ".join(str(n) for n in range(1, 121))
    delays = ", ".join(f'"{n} us"' for n in range(1, 101))
    file = write_sweep(
        tmp_path,
        f"""
        name = "big"
        [grid]
        "links[0].delay" = [{delays}]
        "apps[0].count" = [{frames}]
        """,
    )
    db = tmp_path / "r.duckdb"
    result = invoke("sweep", str(file), "--db", str(db), "--dry-run")
    assert result.exit_code == 0, result.output
    assert "sweep big: 12,000 cells × 1 replications = 12,000 runs" in result.stderr  # noqa: RUF001
    assert "warning: sweep big is large (12,000 runs)" in result.stderr
    assert "same command resumes" in result.stderr
    assert "12,000 runs planned, 0 already stored, 12,000 to run" in result.stdout
    assert not db.exists()
    quiet = invoke("sweep", str(file), "--db", str(db), "--dry-run", "-q")
    assert "cells ×" not in quiet.stderr and "is large" in quiet.stderr  # noqa: RUF001


def test_a_dry_run_counts_the_runs_already_stored(tmp_path: Path) -> None:
    file = write_sweep(tmp_path, SMALL)
    db = tmp_path / "r.duckdb"
    sweep(load_sweep(file), db=db, jobs=1)
    result = invoke("sweep", str(file), "--db", str(db), "--dry-run")
    assert result.exit_code == 0, result.output
    assert "48 runs planned, 48 already stored, 0 to run" in result.stdout
    with Store(db, read_only=True) as store:
        assert len(store.runs("small")) == 48


def test_progress_is_logged_as_lines_where_standard_error_is_no_terminal(tmp_path: Path) -> None:
    file = write_sweep(tmp_path, SMALL)
    db = tmp_path / "r.duckdb"
    result = invoke("sweep", str(file), "--db", str(db), "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert "sweep small: 24 cells × 2 replications = 48 runs" in result.stderr  # noqa: RUF001
    last = [line for line in result.stderr.splitlines() if "runs done" in line][-1]
    assert last.startswith("sweep small: 48 of 48 runs done, 0 failed, elapsed ")
    assert ", left 0:00:00, " in last and last.endswith(" runs/s")
    quiet = invoke("sweep", str(file), "--db", str(db), "--jobs", "1", "--force", "-q")
    assert quiet.exit_code == 0 and "runs done" not in quiet.stderr and quiet.stderr == ""

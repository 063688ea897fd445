"""Running the capacity-scaling study: its sweeps on the sweeps machinery (runs kept in a
DuckDB database, so a stopped reproduction resumes), the recorded time series, and what a
reproduction found (:class:`Reproduction`). Re-exported by
:mod:`ethersim.studies.capacity_scaling`."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ethersim.batch import Progress, active_overrider, default_jobs, run_many
from ethersim.safe_write import make_folders
from ethersim.studies.capacity_scaling_options import SETTINGS, Options, check
from ethersim.studies.capacity_scaling_scenarios import _sweep_text, scenario

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class Reproduction:
    """What a reproduction found."""

    options: Options
    #: ``capacity_scaling.csv``: one row per cell.
    table: pd.DataFrame
    #: One row per pair of runs (cell and replication), with both runs' metrics.
    pairs: pd.DataFrame
    #: Time series per chosen cell: ``name -> table``.
    timeseries: dict[str, pd.DataFrame] = field(default_factory=dict)
    #: The sweep files and base scenarios run: ``file name -> text``.
    sweep_files: dict[str, str] = field(default_factory=dict)
    runs: int = 0
    skipped: int = 0
    wall_s: float = 0.0
    jobs: int = 1
    db: Path = Path()
    #: The same grid under each of ``options.also_profiles``, by profile name.
    profiles: dict[str, Reproduction] = field(default_factory=dict)


def point_db(db: Path, changes: Mapping[str, Any]) -> Path:
    """The database of a run with the study's options changed by ``changes`` (a
    sensitivity point): in the folder ``DB.points`` beside ``db``, named by the changes;
    ``db`` itself for none."""
    if not changes:
        return db
    digest = hashlib.sha256(json.dumps(changes, sort_keys=True, default=str).encode())
    return db.parent / f"{db.name}.points" / f"{digest.hexdigest()[:10]}{db.suffix}"


def _record_timeseries(options: Options, jobs: int, tick: Any) -> dict[str, pd.DataFrame]:
    """The chosen cells' time series, with and without power control (a run each, the
    same seed)."""
    import pandas as pd

    from ethersim.studies import capacity_scaling_tables as tables

    texts, names = [], []
    for rtt, mrci in options.timeseries_cells():
        for pc in (True, False):
            texts.append(scenario("single", options, rtt, mrci, power_control=pc, series=True))
            names.append((f"single_rtt{rtt}ms_mrci{mrci}ms", pc))
    results = run_many(texts, jobs, tick)
    out: dict[str, list[pd.DataFrame]] = {}
    for (name, pc), result in zip(names, results, strict=True):
        out.setdefault(name, []).append(tables.timeseries(result, 0.1).assign(power_control=pc))
    return {name: pd.concat(parts, ignore_index=True) for name, parts in out.items()}


def default_db(out: Path) -> Path:
    """The results database of a reproduction written to ``out``: beside it."""
    return out.parent / f"{out.name}.duckdb"


def reproduce(options: Options, db: Path, progress: bool = False) -> Reproduction:
    """Runs the study on the sweeps machinery (runs stored in ``db``; those already
    there are not run again) under ``options.tcp_profile`` and again under each of
    ``options.also_profiles``, and returns what it found (nothing else is written)."""
    check(options)
    started = time.perf_counter()
    show = Progress(progress)
    try:
        rep = _reproduce_one(options, db, show, "")
        for profile in options.also_profiles:
            other = replace(options, tcp_profile=profile, also_profiles=())
            rep.profiles[profile] = _reproduce_one(other, db, show, f"{profile}: ")
    finally:
        show.close()
    rep.wall_s = time.perf_counter() - started
    rep.runs += sum(r.runs for r in rep.profiles.values())
    rep.skipped += sum(r.skipped for r in rep.profiles.values())
    return rep


def _reproduce_one(options: Options, db: Path, show: Progress, label: str) -> Reproduction:
    """The study's grid under ``options.tcp_profile`` alone."""
    import tempfile

    import pandas as pd

    from ethersim.studies import capacity_scaling_tables as tables
    from ethersim.sweeps import Store, parse_sweep, sweep

    started = time.perf_counter()
    jobs = options.jobs or default_jobs()
    make_folders(db.parent)
    files: dict[str, str] = {}
    pairs, runs, skipped = [], 0, 0
    with tempfile.TemporaryDirectory(prefix="ethersim-capacity-") as tmp:
        overrider = active_overrider()
        for setting in SETTINGS:
            files[f"{setting}.toml"] = scenario(setting, options)
            fixed = [
                (path, value)
                for path, _, value in (
                    o.partition("=")
                    for o in (overrider(files[f"{setting}.toml"]) if overrider else [])
                )
            ]
            files[f"{setting}-sweep.toml"] = _sweep_text(setting, options, fixed)
            for name in (f"{setting}.toml", f"{setting}-sweep.toml"):
                (Path(tmp) / name).write_text(files[name], encoding="utf-8")
            spec = parse_sweep(files[f"{setting}-sweep.toml"], Path(tmp) / f"{setting}-sweep.toml")
            tick = show.phase(f"{label}{setting}")

            def sweep_tick(done: int, total: int, failed: int, tick: Any = tick) -> None:
                tick(done, total)

            report = sweep(
                spec,
                db=db,
                jobs=jobs,
                scheduler=options.scheduler,
                dask_local=options.dask_local,
                tick=sweep_tick,
            )
            runs += report.runs
            skipped += report.skipped
            with Store(db, read_only=True) as store:
                runs_table = store.runs(spec.name, raw=True)  # the parameters as JSON
                pairs.append(tables.pairs(setting, runs_table, store.metrics(spec.name)))
    timeseries = _record_timeseries(options, jobs, show.phase(f"{label}time series"))
    all_pairs = pd.concat(pairs, ignore_index=True)
    return Reproduction(
        options=options,
        table=tables.cells(all_pairs).assign(tcp_profile=options.tcp_profile, queue=options.queue),
        pairs=all_pairs,
        timeseries=timeseries,
        sweep_files=files,
        runs=runs + 2 * len(options.timeseries_cells()),
        skipped=skipped,
        wall_s=time.perf_counter() - started,
        jobs=jobs,
        db=db,
    )

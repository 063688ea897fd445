"""The results database: an embedded DuckDB file that the sweep coordinator alone writes.

Tables (a stable contract):

- ``runs``: ``run_id``, ``sweep``, ``cell``, ``replication``, ``seed``, ``scenario_hash``,
  ``parameters`` (JSON), ``status`` (``ok`` | ``failed``), ``error``, ``wall_s``,
  ``version``.
- ``metrics``: long form, ``run_id``, ``scope`` (run, flow, port, host, link), ``name``
  (the flow, port, host or link; empty for the run), ``metric``, ``value``.
- ``sweeps``: one row per sweep (its file, base seed, replications, cells, definition).
- ``cell_stats`` (a view): per sweep, cell and metric, the number of successful runs and
  the mean, standard deviation and 95% confidence interval (Student t) of the value.
- ``"sweep:NAME"`` (a view per sweep): one row per cell, its parameters, runs ok and
  failed, and for each metric ``SCOPE:NAME:METRIC mean``, ``... std`` and ``... ci95``
  (the interval's half-width).

Read from Python, :meth:`Store.cells` and :meth:`Store.runs` give the swept keys as
typed columns rather than JSON (see :mod:`ethersim.sweeps.frames`), and
:meth:`Store.to_xarray` an xarray Dataset with a dimension per swept key.

Finished runs are written in one transaction (those that finished together share one;
each run's ``runs`` row and its metrics are always together), so a sweep killed at any
moment leaves every run either whole or absent.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ethersim.errors import OutputError, ScenarioError, install_hint
from ethersim.sweeps.stats import t_quantiles

if TYPE_CHECKING:
    import duckdb
    import pandas as pd
    import xarray as xr

    from ethersim.sweeps.frames import SweptKey
    from ethersim.sweeps.spec import SweepSpec
    from ethersim.sweeps.worker import Outcome

__all__ = ["DEFAULT_DB", "Store", "finished_runs"]

#: The database a sweep writes when no other is named (in the working folder).
DEFAULT_DB = "ethersim-results.duckdb"

#: Replications up to which the Student t quantile is tabulated; beyond, the normal
#: quantile (they differ by less than 0.01% there).
_T_TABLE_MAX = 10_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id VARCHAR PRIMARY KEY,
    sweep VARCHAR NOT NULL,
    cell INTEGER NOT NULL,
    replication INTEGER NOT NULL,
    seed UBIGINT NOT NULL,
    scenario_hash VARCHAR NOT NULL,
    parameters JSON NOT NULL,
    status VARCHAR NOT NULL,
    error VARCHAR NOT NULL,
    wall_s DOUBLE NOT NULL,
    version VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS metrics (
    run_id VARCHAR NOT NULL,
    scope VARCHAR NOT NULL,
    name VARCHAR NOT NULL,
    metric VARCHAR NOT NULL,
    value DOUBLE NOT NULL
);
CREATE TABLE IF NOT EXISTS sweeps (
    sweep VARCHAR PRIMARY KEY,
    file VARCHAR NOT NULL,
    scenario_file VARCHAR NOT NULL,
    base_seed UBIGINT NOT NULL,
    replications INTEGER NOT NULL,
    cells INTEGER NOT NULL,
    definition JSON NOT NULL
);
CREATE TABLE IF NOT EXISTS student_t (df INTEGER PRIMARY KEY, t975 DOUBLE NOT NULL);
"""


def _quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def _columns(db: duckdb.DuckDBPyConnection) -> dict[str, set[str]]:
    """The columns of each table and view of the database's main schema."""
    rows = db.execute(
        "SELECT table_name, column_name FROM information_schema.columns "
        "WHERE table_catalog = current_database() AND table_schema = 'main'"
    ).fetchall()
    tables: dict[str, set[str]] = {}
    for table, column in rows:
        tables.setdefault(table, set()).add(column)
    return tables


@functools.cache
def _our_columns() -> dict[str, set[str]]:
    """The columns of each table ``_SCHEMA`` creates, read from an empty in-memory
    database made with it (so that the check on opening follows the schema)."""
    import duckdb

    db = duckdb.connect()
    try:
        db.execute(_SCHEMA)
        return _columns(db)
    finally:
        db.close()


class Store:
    """An open results database (created if absent). Use as a context manager.

    ``option`` names where the path was given (``--db``) in the errors raised. Read-only,
    the path must be a regular file (checked without blocking: DuckDB would wait on a
    FIFO) holding ethersim's tables; with ``allow_empty``, a DuckDB file without any
    table (one a sweep stopped before its first commit leaves) is accepted too, as
    :attr:`empty` (nothing may be read from it then). To write, the path must be nothing
    yet, a DuckDB file without any table (which is then initialised) or one with
    ethersim's tables: another program's database is never added to. A file that is not
    such a database is a :class:`ScenarioError` (exit status 2), saying what it holds."""

    def __init__(
        self,
        path: str | Path = DEFAULT_DB,
        *,
        read_only: bool = False,
        option: str = "--db",
        allow_empty: bool = False,
    ) -> None:
        import duckdb

        self.path = Path(path)
        if read_only:
            from ethersim.inputs import check_regular_file

            check_regular_file(self.path, option, "results database")
        else:
            # DuckDB updates its file in place: it must be a regular file or nothing yet,
            # never a device, FIFO, link or folder (see ethersim.safe_write).
            from ethersim.safe_write import check_writable_file

            check_writable_file(self.path, option)
        try:
            self.db: duckdb.DuckDBPyConnection = duckdb.connect(
                os.fspath(self.path), read_only=read_only
            )
        except duckdb.Error as e:
            raise OutputError(
                f"cannot open results database {os.fspath(path)!r}: {e}", option
            ) from None
        #: Whether the database holds no table at all (read-only with ``allow_empty``).
        self.empty = False
        try:
            self._check_tables(read_only=read_only, option=option, allow_empty=allow_empty)
            if not read_only:
                self._create()
        except BaseException:
            self.db.close()
            raise

    def _check_tables(self, *, read_only: bool, option: str, allow_empty: bool) -> None:
        """Raises :class:`ScenarioError` unless the database holds ethersim's tables (each
        with its columns), or no table at all where that is accepted (see the class)."""
        present = _columns(self.db)
        if all(columns <= present.get(t, set()) for t, columns in _our_columns().items()):
            return
        if not present and not read_only:
            return  # initialised by _create
        if not present and allow_empty:
            self.empty = True
            return
        shown = os.fspath(self.path)
        if present:
            names = sorted(present)
            more = f" and {len(names) - 5} more" if len(names) > 5 else ""
            holds = f"it holds other tables: {', '.join(names[:5])}{more}"
        else:
            holds = "it holds no table"
        expected = (
            "a results database of `ethersim sweep`"
            if read_only
            else "a results database of `ethersim sweep`, or a new file name (a sweep adds "
            "nothing to another program's database)"
        )
        raise ScenarioError(
            f"{shown!r} holds no ethersim sweep results: it is a DuckDB database without "
            f"ethersim's tables ({holds}); expected {expected}",
            option,
        )

    def _create(self) -> None:
        self.db.execute("BEGIN")
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                self.db.execute(statement)
        self.db.execute(
            """CREATE OR REPLACE VIEW cell_stats AS
            WITH s AS (
                SELECT r.sweep, r.cell, m.scope, m.name, m.metric, count(*) AS n,
                       avg(m.value) AS mean, stddev_samp(m.value) AS std
                FROM metrics m JOIN runs r USING (run_id)
                WHERE r.status = 'ok'
                GROUP BY ALL
            )
            SELECT s.*, coalesce(t.t975, 1.959963984540054) * s.std / sqrt(s.n) AS ci95
            FROM s LEFT JOIN student_t t ON t.df = s.n - 1"""
        )
        if self.db.execute("SELECT count(*) FROM student_t").fetchall() == [(0,)]:
            import pyarrow as pa

            # One Arrow table: 10,000 single-row inserts took 3.5 s on a new database.
            quantiles = list(t_quantiles(_T_TABLE_MAX))
            table = pa.table(
                {
                    "df": pa.array(range(1, len(quantiles) + 1), pa.int32()),
                    "t975": pa.array(quantiles, pa.float64()),
                }
            )
            self.db.register("ethersim_student_t", table)
            self.db.execute("INSERT INTO student_t SELECT * FROM ethersim_student_t")
            self.db.unregister("ethersim_student_t")
        self.db.execute("COMMIT")

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Closes the database (everything committed stays)."""
        self.db.close()

    def register(self, spec: SweepSpec) -> int:
        """Records (or updates) the sweep's definition, and brings the runs stored under
        its name in line with it: runs the definition no longer has (a value taken out of
        the grid, a changed budget or base scenario) are removed, so that no statistic
        mixes them in, and the runs it still has take its current cell numbers. Returns
        how many runs were removed."""
        import pyarrow as pa

        clash = self.db.execute(
            "SELECT sweep FROM sweeps WHERE lower(sweep) = lower(?) AND sweep <> ?",
            [spec.name, spec.name],
        ).fetchone()
        if clash is not None:
            raise ScenarioError(
                f"{spec.name!r} differs only in case from the sweep {clash[0]!r} in "
                f"{os.fspath(self.path)!r}; expected another name (the database does not "
                "tell names apart by case)",
                "name",
            )
        plan = spec.plan
        cells = pa.array(plan.cells, pa.int32())
        current = pa.table(
            {
                "run_id": pa.array(plan.run_ids, pa.string()),
                "cell": cells,
                "replication": pa.array(plan.replications, pa.int32()),
                "parameters": pa.array(plan.parameters_json, pa.string()).take(cells),
            }
        )
        self.db.execute("BEGIN")
        try:
            self.db.execute(
                "INSERT OR REPLACE INTO sweeps VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    spec.name,
                    spec.file,
                    spec.scenario_file,
                    spec.seed,
                    spec.replications,
                    len(spec.cells),
                    # In file order (not sorted): the swept keys' columns follow it.
                    json.dumps(spec.definition, default=str),
                ],
            )
            self.db.register("ethersim_current", current)
            stale = self.db.execute(
                """SELECT run_id FROM runs WHERE sweep = ?
                   AND run_id NOT IN (SELECT run_id FROM ethersim_current)""",
                [spec.name],
            ).fetchall()
            if stale:
                gone = [r[0] for r in stale]
                self.db.execute("DELETE FROM metrics WHERE run_id IN ?", [gone])
                self.db.execute("DELETE FROM runs WHERE run_id IN ?", [gone])
            self.db.execute(
                """UPDATE runs SET cell = c.cell, replication = c.replication,
                   parameters = c.parameters FROM ethersim_current c
                   WHERE runs.run_id = c.run_id AND (runs.cell <> c.cell
                   OR runs.replication <> c.replication)"""
            )
            self.db.unregister("ethersim_current")
            self.db.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise
        return len(stale)

    def _rollback(self) -> None:
        import duckdb

        try:
            self.db.execute("ROLLBACK")
        except duckdb.Error:
            pass  # the transaction had ended (an interrupt just after its commit)

    def finished(self, sweep: str) -> set[str]:
        """The ids of the sweep's runs stored as ``ok`` (a rerun skips them)."""
        ids = self.db.execute(
            "SELECT run_id FROM runs WHERE sweep = ? AND status = 'ok'", [sweep]
        ).fetchnumpy()["run_id"]
        return set(ids.tolist())

    def stored(self, sweep: str) -> set[str]:
        """The ids of every run of the sweep on record, ok or failed."""
        ids = self.db.execute("SELECT run_id FROM runs WHERE sweep = ?", [sweep]).fetchnumpy()
        return set(ids["run_id"].tolist())

    def commit(self, outcomes: list[Outcome], replace: set[str] | None = None) -> None:
        """Stores finished runs and their metrics in one transaction (each run whole,
        with all its metrics, or not at all), replacing earlier records of the runs whose
        ids are in ``replace`` (default: of every run given)."""
        import pyarrow as pa

        ids = [o.task.run_id for o in outcomes]
        old = set(ids) if replace is None else {i for i in ids if i in replace}
        rows = [(o.task.run_id, *m) for o in outcomes for m in o.metrics]
        columns = list(zip(*rows, strict=True)) or [(), (), (), (), ()]
        # Inserted as one Arrow table: row by row costs several times the transaction.
        batch = pa.table(
            {
                name: pa.array(values, kind)
                for name, values, kind in zip(
                    ("run_id", "scope", "name", "metric", "value"),
                    columns,
                    (pa.string(), pa.string(), pa.string(), pa.string(), pa.float64()),
                    strict=True,
                )
            }
        )
        self.db.execute("BEGIN")
        try:
            if old:
                gone = sorted(old)
                self.db.execute("DELETE FROM metrics WHERE run_id IN ?", [gone])
                self.db.execute("DELETE FROM runs WHERE run_id IN ?", [gone])
            self.db.executemany(
                "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    [
                        o.task.run_id,
                        o.task.sweep,
                        o.task.cell,
                        o.task.replication,
                        o.task.seed,
                        o.task.scenario_hash,
                        json.dumps(o.task.parameters, sort_keys=True, default=str),
                        o.status,
                        o.error,
                        o.wall_s,
                        o.version,
                    ]
                    for o in outcomes
                ],
            )
            if rows:
                self.db.register("ethersim_batch", batch)
                self.db.execute("INSERT INTO metrics SELECT * FROM ethersim_batch")
                self.db.unregister("ethersim_batch")
            self.db.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise

    def refresh_view(self, sweep: str) -> None:
        """(Re)creates the sweep's wide view, one row per cell, over the metrics stored."""
        keys = self.db.execute(
            """SELECT DISTINCT m.scope, m.name, m.metric FROM metrics m JOIN runs r
               USING (run_id) WHERE r.sweep = ? ORDER BY ALL""",
            [sweep],
        ).fetchall()
        columns = []
        taken: set[str] = set()
        for scope, name, metric in keys:
            label = f"{scope}:{name}:{metric}" if name else f"{scope}:{metric}"
            # Column names are not told apart by case: a flow "Load" beside "load" gets
            # its label marked rather than a column silently renamed.
            while label.lower() in taken:
                label += "'"
            taken.add(label.lower())
            where = f"scope = '{scope}' AND name = {_literal(name)} AND metric = {_literal(metric)}"
            for stat in ("mean", "std", "ci95"):
                columns.append(f"max({stat}) FILTER (WHERE {where}) AS {_quote(f'{label} {stat}')}")
        stats = (", " + ", ".join(columns)) if columns else ""
        self.db.execute(
            f"""CREATE OR REPLACE VIEW {_quote("sweep:" + sweep)} AS
            WITH c AS (
                SELECT cell, any_value(parameters) AS parameters,
                       count(*) FILTER (WHERE status = 'ok') AS runs_ok,
                       count(*) FILTER (WHERE status = 'failed') AS runs_failed
                FROM runs WHERE sweep = {_literal(sweep)} GROUP BY cell
            ),
            s AS (
                SELECT cell{stats} FROM cell_stats WHERE sweep = {_literal(sweep)}
                GROUP BY cell
            )
            SELECT c.*{", s.* EXCLUDE (cell)" if columns else ""}
            FROM c LEFT JOIN s USING (cell) ORDER BY cell"""
        )

    # ----- reading -------------------------------------------------------------------

    def sweeps(self) -> pd.DataFrame:
        """One row per sweep: its definition and how many runs are ok and failed."""
        return self.db.execute(
            """SELECT s.sweep, s.file, s.cells, s.replications, s.cells * s.replications AS runs,
                      count(r.run_id) FILTER (WHERE r.status = 'ok') AS ok,
                      count(r.run_id) FILTER (WHERE r.status = 'failed') AS failed,
                      coalesce(sum(r.wall_s), 0) AS wall_s
               FROM sweeps s LEFT JOIN runs r USING (sweep)
               GROUP BY ALL ORDER BY s.sweep"""
        ).df()

    def runs(self, sweep: str | None = None, *, raw: bool = False) -> pd.DataFrame:
        """One row per run of ``sweep``: ``run_id``, ``cell``, ``replication``, ``seed``,
        a typed column per swept key (see :mod:`ethersim.sweeps.frames`), ``status``,
        ``error`` and ``wall_s``. With ``raw``, or without a sweep (sweeps vary different
        keys), the ``runs`` table as stored (``parameters`` as JSON). In a stable order."""
        where, args = ("WHERE sweep = ?", [sweep]) if sweep else ("", [])
        table = self.db.execute(
            f"SELECT * FROM runs {where} ORDER BY sweep, cell, replication", args
        ).df()
        if raw or sweep is None:
            return table
        keys, _ = self._keys(sweep)
        front = table[["run_id", "cell", "replication", "seed"]]
        back = table[["status", "error", "wall_s"]]
        typed = front.merge(keys, on="cell", how="left", validate="many_to_one")
        return typed.join(back)

    def metrics(self, sweep: str | None = None) -> pd.DataFrame:
        """The ``metrics`` table (of one sweep's runs, or all), in a stable order."""
        where, args = ("WHERE r.sweep = ?", [sweep]) if sweep else ("", [])
        return self.db.execute(
            f"""SELECT m.* FROM metrics m JOIN runs r USING (run_id) {where}
                ORDER BY r.sweep, r.cell, r.replication, m.scope, m.name, m.metric""",
            args,
        ).df()

    def cells(self, sweep: str, *, wide: bool = False) -> pd.DataFrame:
        """The sweep's statistics, tidy: one row per cell and metric, with ``cell``, a
        typed column per swept key (and a numeric companion per quantity key), then
        ``scope``, ``name``, ``metric``, ``n``, ``mean``, ``std`` and ``ci95`` (the 95%
        interval's half-width, Student t; NaN with fewer than two runs). Cells without
        an ``ok`` run have no rows. See :mod:`ethersim.sweeps.frames`.

        With ``wide``, the sweep's view instead: one row per cell, ``cell``, the key
        columns, ``parameters`` (JSON), ``runs_ok``, ``runs_failed``, then
        ``LABEL mean``, ``LABEL std`` and ``LABEL ci95`` for every metric."""
        from ethersim.sweeps.frames import tidy_cells

        keys, _ = self._keys(sweep)
        if not wide:
            stats = self.db.execute(
                """SELECT cell, scope, name, metric, n, mean, std, ci95 FROM cell_stats
                   WHERE sweep = ?""",
                [sweep],
            ).df()
            return tidy_cells(keys, stats)
        view = _quote("sweep:" + sweep)
        exists = self.db.execute(
            "SELECT count(*) FROM duckdb_views() WHERE view_name = ?", ["sweep:" + sweep]
        ).fetchone()
        if exists == (0,):
            frame = self.db.execute(
                "SELECT cell, parameters FROM runs WHERE sweep = ? GROUP BY ALL ORDER BY cell",
                [sweep],
            ).df()
        else:
            frame = self.db.execute(f"SELECT * FROM {view}").df()
        typed = keys.merge(frame, on="cell", how="right", validate="one_to_one")
        return typed[["cell", *keys.columns.drop("cell"), *frame.columns.drop("cell")]]

    def swept_keys(self, sweep: str) -> list[SweptKey]:
        """The keys the sweep varies (grid, then zip), each with its values in the
        sweep's order and whether they are quantities."""
        return self._keys(sweep)[1]

    def to_xarray(self, sweep: str, metrics: Iterable[str] | None = None) -> xr.Dataset:
        """The sweep's statistics as an xarray Dataset: a dimension per swept key (the
        zip's rows are one dimension, named after its first key), quantity companions
        as coordinates, and for each metric (all, or those the ``metrics`` globs over
        labels such as ``port:*:drops`` match) the variables ``LABEL mean``, ``LABEL
        std``, ``LABEL ci95`` and ``LABEL n``. Needs xarray (``pip install
        "ethersim[xarray]"``)."""
        try:
            import xarray  # noqa: F401
        except ImportError:
            raise ModuleNotFoundError(
                f"Store.to_xarray needs xarray: {install_hint('xarray')}", name="xarray"
            ) from None
        from ethersim.sweeps.frames import labels, match_metrics, to_dataset

        tidy = self.cells(sweep)
        if metrics is not None:
            names = labels(tidy)
            chosen = match_metrics(list(dict.fromkeys(names)), metrics, "metrics")
            tidy = tidy[names.isin(chosen)]
        zipped = self._definition(sweep).get("zip", {})
        return to_dataset(tidy, self.swept_keys(sweep), list(zipped))

    def _definition(self, sweep: str) -> dict[str, Any]:
        row = self.db.execute("SELECT definition FROM sweeps WHERE sweep = ?", [sweep]).fetchone()
        if row is None:
            raise OutputError(f"no sweep named {sweep!r} in {os.fspath(self.path)!r}")
        definition: dict[str, Any] = json.loads(row[0])
        return definition

    def _keys(self, sweep: str) -> tuple[pd.DataFrame, list[SweptKey]]:
        """The sweep's key frame (one row per cell run at least once) and its keys."""
        from ethersim.sweeps.frames import key_frame, swept_keys

        definition = self._definition(sweep)
        rows = self.db.execute(
            "SELECT cell, any_value(parameters) FROM runs WHERE sweep = ? GROUP BY cell "
            "ORDER BY cell",
            [sweep],
        ).fetchall()
        cells = [(int(cell), json.loads(parameters)) for cell, parameters in rows]
        return key_frame(swept_keys(definition, (p for _, p in cells)), cells)

    def has_sweep(self, sweep: str) -> bool:
        """Whether the database holds a sweep of that name."""
        row = self.db.execute("SELECT count(*) FROM sweeps WHERE sweep = ?", [sweep]).fetchone()
        return row is not None and row[0] > 0


def finished_runs(path: str | Path, sweep: str, option: str = "--db") -> set[str]:
    """The ids of the runs of ``sweep`` stored as ``ok`` in the database at ``path``, for
    a dry run: what a sweep writing it would skip. Nothing when there is no file yet or
    a DuckDB file without any table (which the sweep would initialise). Raises what the
    sweep would raise (a link, FIFO, device or folder at ``path``, another program's
    database); creates and changes nothing."""
    from ethersim.safe_write import check_writable_file

    check_writable_file(path, option)
    if not os.path.exists(path):
        return set()
    with Store(path, read_only=True, option=option, allow_empty=True) as store:
        return set() if store.empty else store.finished(sweep)


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"

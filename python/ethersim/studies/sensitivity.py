"""``ethersim reproduce NAME --sensitivity``: how much each assumption matters.

Every setup-ledger entry with a ``range`` (an assumption or a calibrated value, see
:mod:`ethersim.studies.contract`) is varied over that range, one parameter at a time,
the others at the study's own values (and the data file's ``[[joint]]`` points set
several at once, where a mechanism needs them together): the whole reproduction is run
again with the value set in every scenario it builds (calibration runs included, so a calibration is
fitted anew under the changed assumption), and every published finding is evaluated
again. The result is ``sensitivity.csv`` (``parameter``, ``value``, ``finding``,
``simulated``, ``verdict``), a figure of the verdicts, and a paragraph of the summary
saying which findings are robust and which hinge on an assumption.

Each point is committed to a DuckDB file as it finishes (``OUT.sensitivity.duckdb``
beside the output folder, keyed by the study's options and the point), so a stopped
sensitivity run resumes where it stopped; each point's runs use every local core.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ethersim.batch import overriding
from ethersim.errors import ScenarioError
from ethersim.studies.contract import Findings, Published, compare, parse_toml

__all__ = [
    "SENSITIVITY_COLUMNS",
    "Point",
    "check_points",
    "check_ranges",
    "default_db",
    "override_paths",
    "points",
    "robustness",
    "run",
    "summary_section",
    "write",
]

#: ``sensitivity.csv``'s columns, in order (the output contract; more may follow).
SENSITIVITY_COLUMNS = ("parameter", "value", "finding", "simulated", "verdict")

_SEGMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\[(\*|\d+)\])?$")


@dataclass(frozen=True)
class Point:
    """One sensitivity run: a ledger parameter set to one value of its range (a
    scenario key path in every scenario, or, with ``option``, a study option); or, with
    ``parts``, a joint point setting each of its parts at once (``parameter`` and
    ``value`` then join the parts' with " + ")."""

    parameter: str
    value: str
    option: str = ""
    raw: Any = None
    parts: tuple[Point, ...] = ()

    def settings(self) -> tuple[Point, ...]:
        """The one-parameter points this point sets."""
        return self.parts or (self,)


def points(published: Published) -> list[Point]:
    """Every point the sensitivity run tries: each (parameter, value) in ledger order,
    then the file's ``[[joint]]`` points."""
    single = [
        Point(e.parameter, v, e.option, raw)
        for e in published.setup
        for v, raw in zip(e.range, e.raw_range or e.range, strict=True)
    ]
    joint = []
    for j in published.joints:
        parts = tuple(
            next(p for p in single if p.parameter == parameter and p.raw == raw)
            for parameter, raw in j.settings
        )
        joint.append(
            Point(
                " + ".join(p.parameter for p in parts),
                " + ".join(p.value for p in parts),
                parts=parts,
            )
        )
    return single + joint


def check_ranges(published: Published) -> None:
    """Raises :class:`ScenarioError` (with the ledger key path) for a ranged parameter
    that cannot be set by key path: only keys and ``[index]`` or ``[*]`` are allowed."""
    for i, e in enumerate(published.setup):
        if not e.range or e.option:
            continue
        for part in e.parameter.split("."):
            if not _SEGMENT.match(part):
                raise ScenarioError(
                    f"{e.parameter!r} cannot be set for a sensitivity run; expected keys "
                    "and indices like hosts[0].tx_buffers or hosts[*].tx_buffers",
                    f"{published.path}: setup[{i}].parameter",
                )


def override_paths(parameter: str, doc: Mapping[str, Any]) -> list[str]:
    """The concrete key paths ``parameter`` names in a parsed scenario: ``[*]`` is every
    element the scenario's array has (none if it has no such array); a key the scenario
    leaves at its default is named all the same, so the override sets it."""
    paths: list[tuple[str, Any]] = [("", doc)]
    for part in parameter.split("."):
        m = _SEGMENT.match(part)
        assert m is not None, parameter  # check_ranges refused anything else
        key, index = m.group(1), m.group(2)
        found: list[tuple[str, Any]] = []
        for prefix, node in paths:
            path = f"{prefix}.{key}" if prefix else key
            child = node.get(key) if isinstance(node, Mapping) else None
            if index is None:
                found.append((path, child if isinstance(child, Mapping) else {}))
            elif isinstance(child, list):
                wanted = range(len(child)) if index == "*" else [int(index)]
                found += [(f"{path}[{i}]", child[i]) for i in wanted if i < len(child)]
        paths = found
    return [p for p, _ in paths]


class _Overrider:
    """The overrides of one point for each scenario text: the concrete paths
    :func:`override_paths` names, kept only where the scenario accepts the value (a TCP
    setting is not set on a UDP application, a link's EEE setting not on a link without
    EEE). Remembers whether any scenario took it, and why the last one refused it."""

    def __init__(self, point: Point) -> None:
        self.point = point
        self.applied = 0
        self.refusal = ""

    def __call__(self, text: str) -> list[str]:
        from ethersim import _core

        kept = []
        for path in override_paths(self.point.parameter, parse_toml(text)):
            try:
                # Read as --set reads it: a TOML value where it is one (16, 0.65, true),
                # a string otherwise (64 KiB).
                _core.validate(text, [(path, self.point.value)])
            except ScenarioError as e:
                self.refusal = str(e)
                continue
            kept.append(f"{path}={self.point.value}")
        self.applied += len(kept)
        return kept


def check_points(published: Published, texts: Iterable[str]) -> None:
    """Raises :class:`ScenarioError` (the ledger entry and value) for a point on a
    scenario key that no scenario of ``texts`` (those the study's own run ran) accepts:
    it would change nothing. Cheap: run before the sensitivity runs start."""
    distinct = list(dict.fromkeys(texts))
    for point in points(published):
        if point.option or point.parts:  # a joint point's parts are checked alone
            continue
        overrider = _Overrider(point)
        for text in distinct:
            if overrider(text):
                break
        else:
            raise ScenarioError(
                f"{point.value!r} is set in no scenario the study runs"
                + (f" (the last refused it: {overrider.refusal})" if overrider.refusal else "")
                + "; expected a key path and value a scenario of the study accepts",
                f"{published.path}: setup.{point.parameter}",
            )


def default_db(out: Path) -> Path:
    """The sensitivity database of an output folder: ``OUT.sensitivity.duckdb`` beside it."""
    return out.parent / f"{out.name}.sensitivity.duckdb"


def _fingerprint(study: str, options: Mapping[str, Any]) -> str:
    text = json.dumps({"study": study, **options}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def run(
    study: Findings[Any],
    published: Published,
    reproduce: Callable[..., Any],
    *,
    options: Mapping[str, Any],
    db: Path,
    tick: Callable[[int, int], object] | None = None,
) -> pd.DataFrame:
    """Runs every point not yet in ``db`` and returns ``sensitivity.csv``'s rows for
    every point, in ledger order. ``reproduce(**changes)`` runs the study once with its
    options changed by ``changes``: a point on a study option passes it there; a point
    on a scenario key sets it in every scenario through
    :func:`ethersim.batch.overriding`."""
    import duckdb

    from ethersim.safe_write import check_writable_file, make_folders

    check_ranges(published)
    check_writable_file(db, "--sensitivity database", missing_folders=True)
    make_folders(db.parent)  # beside an output folder not yet written
    key = _fingerprint(published.study, options)
    todo = points(published)
    con = duckdb.connect(str(db))
    try:
        con.execute(
            "CREATE TABLE IF NOT EXISTS sensitivity (key VARCHAR, parameter VARCHAR, "
            "value VARCHAR, rows VARCHAR, PRIMARY KEY (key, parameter, value))"
        )
        frames = []
        for n, point in enumerate(todo):
            got = con.execute(
                "SELECT rows FROM sensitivity WHERE key = ? AND parameter = ? AND value = ?",
                [key, point.parameter, point.value],
            ).fetchone()
            if got is None:
                rep = _run_point(point, published, reproduce)
                comparison = compare(published, study, rep)
                rows = comparison[["finding", "simulated", "verdict", "deviation"]].to_json(
                    orient="records"
                )
                con.execute(
                    "INSERT INTO sensitivity VALUES (?, ?, ?, ?)",
                    [key, point.parameter, point.value, rows],
                )
            else:
                rows = got[0]
            frame = pd.DataFrame(json.loads(rows))
            frame.insert(0, "value", point.value)
            frame.insert(0, "parameter", point.parameter)
            frames.append(frame)
            if tick is not None:
                tick(n + 1, len(todo))
    finally:
        con.close()
    if not frames:
        return pd.DataFrame(columns=[*SENSITIVITY_COLUMNS, "deviation"])
    return pd.concat(frames, ignore_index=True)[[*SENSITIVITY_COLUMNS, "deviation"]]


def _run_point(point: Point, published: Published, reproduce: Callable[..., Any]) -> Any:
    """Runs the study once with every setting of ``point``: study options passed to
    ``reproduce``, scenario keys set in every scenario it runs."""
    changes = {p.option: p.raw for p in point.settings() if p.option}
    keyed = [_Overrider(p) for p in point.settings() if not p.option]
    if not keyed:
        return reproduce(**changes)
    with overriding(lambda text: [o for each in keyed for o in each(text)]):
        rep = reproduce(**changes)
    for overrider in keyed:
        if not overrider.applied:
            raise ScenarioError(
                f"{overrider.point.value!r} was set in no scenario the study runs"
                + (f" (the last refused it: {overrider.refusal})" if overrider.refusal else "")
                + "; expected a key path and value a scenario of the study accepts",
                f"{published.path}: setup.{overrider.point.parameter}",
            )
    return rep


def robustness(
    published: Published, comparison: pd.DataFrame, table: pd.DataFrame
) -> dict[str, list[str]]:
    """For each finding, the parameters whose range changes its verdict from the one the
    reproduction gives (an empty list: robust over every range tried)."""
    base = dict(zip(comparison.finding, comparison.verdict, strict=True))
    hinges: dict[str, list[str]] = {f.id: [] for f in published.findings}
    for (parameter, finding), rows in table.groupby(["parameter", "finding"], sort=False):
        fid, name = str(finding), str(parameter)
        if any(v != base.get(fid) for v in rows.verdict) and name not in hinges[fid]:
            hinges[fid].append(name)
    return hinges


def summary_section(published: Published, comparison: pd.DataFrame, table: pd.DataFrame) -> str:
    """The summary's sensitivity paragraph: robust findings, and for each finding that
    hinges on an assumption, which values of it move the verdict."""
    hinges = robustness(published, comparison, table)
    untested = {
        str(f) for f, rows in table.groupby("finding") if (rows.verdict == "not comparable").all()
    }
    robust = [f for f, ps in hinges.items() if not ps and f not in untested]
    lines = [
        "## Sensitivity",
        "",
        f"{len(points(published)) - len(published.joints)} runs, each with one assumed or "
        "calibrated parameter "
        "set to one value of its plausible range (`setup.csv`, `sensitivity.csv`)"
        + (
            f", and {len(published.joints)} with several set together (a parameter written a + b)"
            if published.joints
            else ""
        )
        + ".",
        "",
        f"Robust (the same verdict over every range): {', '.join(robust) or 'none'}.",
        "",
    ]
    if untested:
        ordered = [f.id for f in published.findings if f.id in untested]
        lines += [f"Not comparable at any point of this run: {', '.join(ordered)}.", ""]
    for finding, parameters in hinges.items():
        for parameter in parameters:
            rows = table[(table.finding == finding) & (table.parameter == parameter)]
            shown = "; ".join(f"{r.value}: {r.verdict} ({r.simulated})" for r in rows.itertuples())
            lines.append(f"- **{finding}** hinges on `{parameter}` — {shown}")
    if any(hinges.values()):
        lines.append("")
    return "\n".join(lines)


def write(
    published: Published, comparison: pd.DataFrame, table: pd.DataFrame, folder: Path
) -> None:
    """Writes ``sensitivity.csv``, its figure, and the summary's sensitivity section."""
    from ethersim.batch import write_csv

    write_csv(table, folder / "sensitivity.csv")
    _figure(published, table, folder / "figures")
    summary = folder / "summary.md"
    text = summary.read_text(encoding="utf-8") if summary.exists() else ""
    summary.write_text(
        text.rstrip("\n") + "\n\n" + summary_section(published, comparison, table),
        encoding="utf-8",
    )


_COLOURS = {"reproduced": "#4c9a2a", "differs": "#c0392b", "not comparable": "#bdbdbd"}


def _figure(published: Published, table: pd.DataFrame, figures: Path) -> None:
    """Verdict of every finding (rows) at every sensitivity point (columns)."""
    from ethersim.figures import prepare, write_figure

    prepare(figures)
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    columns = list(dict.fromkeys(zip(table.parameter, table.value, strict=True)))
    findings = [f.id for f in published.findings]
    codes = {v: i for i, v in enumerate(_COLOURS)}
    grid = [[float("nan")] * len(columns) for _ in findings]
    for r in table.itertuples():
        grid[findings.index(str(r.finding))][columns.index((r.parameter, r.value))] = codes[
            str(r.verdict)
        ]
    width = max(6.0, 0.3 * len(columns) + 0.07 * max(len(f) for f in findings) + 3)
    height = max(3.0, 0.22 * len(findings) + 0.07 * max(len(f"{p} = {v}") for p, v in columns) + 1)
    fig, ax = plt.subplots(figsize=(width, height))
    ax.imshow(grid, cmap=ListedColormap(list(_COLOURS.values())), vmin=0, vmax=2, aspect="auto")
    ax.set_xticks(range(len(columns)), [f"{p} = {v}" for p, v in columns], rotation=90, fontsize=7)
    ax.set_yticks(range(len(findings)), findings, fontsize=7)
    ax.set_title(f"{published.study}: verdict of each finding as one assumption varies")
    ax.legend(
        handles=[Patch(color=c, label=v) for v, c in _COLOURS.items()],
        loc="upper left",
        bbox_to_anchor=(1.01, 1),
    )
    fig.tight_layout()
    write_figure(fig, figures, "sensitivity", dpi=110)

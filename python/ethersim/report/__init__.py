"""``ethersim report``: one self-contained HTML page for a run's or a reproduction's
output folder, or for two runs side by side.

Each page is one file that works offline (no CDN, no network at view time) and shows
where its results came from (the version, the seed, the scenario or the study's options)
before what they say, every value in human units:

- a **run's folder** (``ethersim run --out``): the headline figures; the flows, ports and
  links tables; interactive figures of its time series (a port's queue, gate, rate,
  offered load and PHY state; a TCP sender's window in segments and its timers in ms),
  also written as PNG and SVG to ``figures/``; links to every file in the folder; the
  scenario as it ran;
- a **reproduction's folder** (``ethersim reproduce ...``, which builds the page itself):
  the study's options, its summary, every published finding beside ours, its figures
  and tables, the scenario files it wrote, links to every file;
- **two runs** (:func:`build_comparison`): both headers, their flows, ports and links
  joined by name with the differences highlighted.

Everything is read and checked first (:mod:`ethersim.report.inputs`: a folder ethersim
did not write is a :class:`ScenarioError` naming the file) and built in memory; files
are written only at the end, each whole or not at all. The pages are Jinja2 templates
(``ethersim/templates/``) with every value escaped.
"""

from __future__ import annotations

import base64
import difflib
import functools
import os
import shlex
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ethersim.errors import OutputError, ScenarioError
from ethersim.report import inputs, tables
from ethersim.report.files import FileLink, folder_files
from ethersim.report.render import markdown, render
from ethersim.safe_write import check_writable_file, write_file, write_text
from ethersim.units import fmt_count, fmt_time, heading, human

__all__ = ["REPORT", "build_comparison", "build_index", "build_report"]

#: The page's file name in the folder.
REPORT = "report.html"

#: The CSS class of each verdict of a comparison with the paper (its colour).
VERDICT_CLASSES = {
    "reproduced": "reproduced",
    "differs": "differs-from-paper",
    "not comparable": "not-comparable",
}


# ---------------------------------------------------------------------------- runs


def run_meta(summary: dict[str, Any], run_info: dict[str, Any]) -> list[tuple[str, str]]:
    """A run's provenance and headline figures, as (name, value) pairs."""
    from importlib.metadata import version

    overrides = run_info.get("overrides") or []
    command = run_info.get("command")
    wall = run_info.get("wall_time_s")
    return [
        ("scenario", summary["scenario"]),
        ("scenario file", run_info.get("scenario") or "(text)"),
        ("overrides", "; ".join(overrides) if overrides else "none"),
        ("seed", str(summary["seed"])),
        ("ethersim", run_info.get("ethersim") or version("ethersim")),
        ("git commit", run_info.get("git_commit") or "not known"),
        ("command", shlex.join(command) if command else "(from Python)"),
        ("stopped", summary["stop_reason"]),
        ("simulated time", fmt_time(summary["sim_time_s"])),
        ("events", fmt_count(summary["events"])),
        ("wall time", fmt_time(wall)),
        ("build", run_info.get("build") or "not known"),
    ]


def _run_page(folder: Path, argument: str) -> tuple[str, dict[str, bytes]]:
    """The page of a run's folder, and the figure files (``figures/NAME`` → bytes)."""
    from ethersim.report import interactive, series, static
    from ethersim.results import capture_notes, decimation_notes

    summary = inputs.read_summary(folder, argument)
    run_info = inputs.read_run_json(folder, argument)
    end = float(summary["sim_time_s"])
    specs = [
        *series.port_figures(inputs.read_series(folder, "series.parquet", argument), end),
        *series.tcp_figures(
            inputs.read_series(folder, "tcp_series.parquet", argument),
            summary.get("flows", []),
            end,
        ),
    ]
    to_write: dict[str, bytes] = {}
    plots, figures = [], []
    for i, spec in enumerate(specs, start=1):
        for name, data in static.draw(spec).items():
            to_write[f"figures/{name}"] = data
        figures.append((f"figure-{i}", interactive.figure_json(spec)))
        plots.append(
            {
                "id": f"figure-{i}",
                "caption": spec.caption,
                "png": f"figures/{spec.stem}.png",
                "svg": f"figures/{spec.stem}.svg",
            }
        )
    thinned = any(
        len(tr.t) > interactive.MAX_POINTS for s in specs for p in s.panels for tr in p.traces
    )
    scenario = folder / "scenario.toml"
    title = f"ethersim run: {summary['scenario']}"
    page = render(
        "run.html.j2",
        title=title,
        meta=run_meta(summary, run_info),
        tables=[
            tables.from_records("Flows", summary.get("flows", []), tables.FLOW_COLUMNS),
            tables.from_records("Ports", summary.get("ports", []), tables.PORT_COLUMNS),
            *tables.record_tables(summary),
            tables.from_records("Links", summary.get("links", [])),
            tables.from_records(
                "Packet captures",
                summary.get("captures", []),
                notes=[
                    "Files in the folder (linked below), readable by Wireshark.",
                    *(f"{note}." for note in capture_notes(summary)),
                ],
            ),
        ],
        plots=plots,
        figures=figures,
        plotly_js=interactive.plotly_js() if figures else "",
        decimation=decimation_notes(summary),
        thinned=thinned,
        max_points=f"{interactive.MAX_POINTS:,}",
        files=folder_files(
            folder, folder, to_write={k: len(v) for k, v in to_write.items()}, skip=REPORT
        ),
        scenario=inputs.read_text(scenario, argument) if scenario.exists() else "",
    )
    return page, to_write


# ------------------------------------------------------------------ reproductions


def _reproduction_page(folder: Path, argument: str) -> str:
    """The page of a reproduction's folder."""
    info = inputs.read_reproduction_json(folder, argument)
    summary = folder / "summary.md"
    comparison_csv = folder / "comparison.csv"
    comparison = None
    if comparison_csv.exists():
        comparison = _comparison(inputs.read_comparison(comparison_csv, argument))
    images = [
        (
            p.relative_to(folder).as_posix(),
            "data:image/png;base64,"
            + base64.b64encode(inputs.read_bytes(p, argument)).decode("ascii"),
        )
        for p in sorted(folder.rglob("*.png"))
    ]
    csv_tables = [
        tables.from_frame(p.name, inputs.read_csv(p, argument))
        for p in sorted(folder.glob("*.csv"))
        if p.name != "comparison.csv"  # shown whole above
    ]
    return render(
        "reproduction.html.j2",
        title=f"ethersim reproduction: {info.get('study', folder.name)}",
        meta=[(heading(k), v if isinstance(v, str) else human(k, v)) for k, v in info.items()],
        summary=markdown(inputs.read_text(summary, argument)) if summary.exists() else "",
        comparison=comparison,
        images=images,
        tables=csv_tables,
        scenarios=[
            (p.relative_to(folder).as_posix(), inputs.read_text(p, argument))
            for p in sorted(folder.rglob("*.toml"))
        ],
        files=folder_files(folder, folder, skip=REPORT),
        figures=[],
    )


def _comparison(df: Any) -> dict[str, Any]:
    """Every published finding beside what ethersim gives, whole (never cut), each
    verdict in its colour."""
    from ethersim.studies.contract import COMPARISON_COLUMNS

    rows = []
    for record in df.to_dict("records"):
        rows.append(
            [
                tables.Cell(
                    str(record[c]),
                    css=f"text {VERDICT_CLASSES.get(str(record[c]), '')}".strip()
                    if c == "verdict"
                    else "text",
                )
                for c in COMPARISON_COLUMNS
            ]
        )
    k = int((df.verdict == "reproduced").sum())
    return {
        "line": f"{k} of {len(df)} published findings reproduced",
        "columns": list(COMPARISON_COLUMNS),
        "rows": rows,
    }


def build_index(folder: str | Path, names: Iterable[str]) -> Path:
    """Writes ``index.html`` into ``folder``, the parent of the reproductions ``names``
    (``ethersim reproduce all``): each study's K-of-N line, a link to its report, and
    the findings it did not reproduce. Returns the page's path."""
    folder = Path(folder)
    studies = []
    for name in names:
        sub = folder / name
        comparison = inputs.read_comparison(sub / "comparison.csv", "--out")
        info = inputs.read_reproduction_json(sub, "--out")
        k = int((comparison.verdict == "reproduced").sum())
        studies.append(
            {
                "name": name,
                "href": f"{name}/{REPORT}",
                "line": f"{k} of {len(comparison)} published findings reproduced",
                "quick": bool(info.get("quick")),
                "others": comparison[comparison.verdict != "reproduced"].to_dict("records"),
            }
        )
    page = render("index.html.j2", title="ethersim reproductions", studies=studies, figures=[])
    return write_text(folder / "index.html", page, "--out")


# --------------------------------------------------------------------------- entry


def _results_folder(folder: Path, argument: str) -> str:
    """What ``folder`` is: ``"run"`` or ``"reproduction"``; else a ScenarioError."""
    if not folder.is_dir():
        raise ScenarioError(f"{str(folder)!r} is not a folder; expected a results folder", argument)
    names = {p.name for p in folder.iterdir()}
    if "summary.json" in names:
        return "run"
    if "reproduction.json" in names:
        return "reproduction"
    raise ScenarioError(
        f"{str(folder)!r} holds neither summary.json nor reproduction.json; expected the "
        "folder of `ethersim run --out` or of `ethersim reproduce`",
        argument,
    )


def build_report(folder: str | Path, *, before_writing: Callable[[], object] | None = None) -> Path:
    """Writes ``report.html`` (and, for a run, ``figures/``) into ``folder``: a run's or a
    reproduction's output folder. Returns the page's path. Raises
    :class:`ScenarioError` for a folder that is neither or holds files ethersim did not
    write (nothing is written then), :class:`OutputError` if it cannot be written. Each
    file is replaced whole or not at all. ``before_writing`` is called once everything is
    built, before the first file is written (the command holds its signals there)."""
    folder = Path(folder)
    kind = _results_folder(folder, "DIR")
    to_write: dict[str, bytes] = {}
    if kind == "run":
        page, to_write = _run_page(folder, "DIR")
    else:
        page = _reproduction_page(folder, "DIR")
    # Everything is built: now written, the page last (it links to the figures).
    for name in [*to_write, REPORT]:
        check_writable_file(folder / name, "DIR", missing_folders=True)
    if before_writing is not None:
        before_writing()
    try:
        if to_write:
            (folder / "figures").mkdir(exist_ok=True)
        for name, data in to_write.items():
            write_file(folder / name, functools.partial(Path.write_bytes, data=data), "DIR")
    except OSError as e:
        raise OutputError(f"cannot write the figures in {str(folder)!r}: {e}", "DIR") from None
    return write_text(folder / REPORT, page, "DIR")


def default_comparison_path(a: str | Path, b: str | Path) -> Path:
    """Where ``ethersim report A B`` writes without ``--out``: beside A (in its parent
    folder, never in a results folder), ``compare-A-B.html`` after the folders' names."""
    a, b = Path(os.path.realpath(a)), Path(os.path.realpath(b))
    return a.parent / f"compare-{a.name}-{b.name}.html"


@dataclass
class _Side:
    """One of the two runs compared: its label (A or B), folder, summary, provenance,
    files (linked from the page's folder) and scenario text."""

    label: str
    folder: str
    summary: dict[str, Any]
    meta: list[tuple[str, str]]
    files: list[FileLink]
    scenario: str | None


def _side(label: str, folder: Path, page_dir: Path) -> _Side:
    summary = inputs.read_summary(folder, label)
    scenario = folder / "scenario.toml"
    return _Side(
        label,
        str(folder),
        summary,
        run_meta(summary, inputs.read_run_json(folder, label)),
        folder_files(folder, page_dir, skip=REPORT),
        inputs.read_text(scenario, label) if scenario.exists() else None,
    )


def build_comparison(
    a: str | Path,
    b: str | Path,
    out: str | Path | None = None,
    *,
    before_writing: Callable[[], object] | None = None,
) -> Path:
    """Writes one page comparing the run folders ``a`` and ``b`` to ``out`` (default
    :func:`default_comparison_path`) and returns its path. Raises
    :class:`ScenarioError` if either is not a run's folder, :class:`OutputError` if
    ``out`` may not be written or lies in a results folder (which holds only what
    ethersim writes there, docs/cli.md "Output folders"). ``before_writing`` is called
    once the page is built, before it is written."""
    from ethersim.report.compare import TOLERANCE, differences

    for label, folder in (("A", Path(a)), ("B", Path(b))):
        if _results_folder(folder, label) != "run":
            raise ScenarioError(
                f"{str(folder)!r} is a reproduction's folder; expected the folder of "
                "`ethersim run --out`",
                label,
            )
    target = Path(out) if out is not None else default_comparison_path(a, b)
    check_writable_file(target, "--out")
    parent = Path(os.path.realpath(target.parent))
    if {"summary.json", "reproduction.json"} & {p.name for p in parent.iterdir()}:
        raise OutputError(
            f"{str(target)!r} would be inside the results folder {str(parent)!r}, which holds "
            "only what ethersim writes there; expected a file outside it",
            "--out",
        )
    sides = [_side("A", Path(a), parent), _side("B", Path(b), parent)]
    diff_tables = differences(sides[0].summary, sides[1].summary)
    n = sum(row.differs for t in diff_tables for row in t.rows)
    scenario_diff = ""
    if sides[0].scenario is not None and sides[1].scenario is not None:
        scenario_diff = "".join(
            difflib.unified_diff(
                sides[0].scenario.splitlines(keepends=True),
                sides[1].scenario.splitlines(keepends=True),
                "A/scenario.toml",
                "B/scenario.toml",
            )
        )
    page = render(
        "compare.html.j2",
        title=f"ethersim: {Path(a).name} (A) beside {Path(b).name} (B)",
        sides=sides,
        tables=diff_tables,
        verdict=(f"{n} value{'s' if n != 1 else ''} differ." if n else "No value differs."),
        tolerance=f"{TOLERANCE:.1%}",
        scenario_diff=scenario_diff,
        figures=[],
    )
    if before_writing is not None:
        before_writing()
    return write_text(target, page, "--out")

"""The study contract: what every reproduction states beside its own numbers.

A study's paper is read once, by a person, into a data file in
``ethersim/studies/published/<study>.toml``:

- ``[[findings]]``: every result the paper states in its text or tables, quantitative
  (a number, its unit and the tolerance a reader would accept, with the reason) or
  qualitative (a claim in words), each with its place in the paper and the quantity an
  evaluator computes from the reproduction's own tables, and, where ethersim differs,
  its ``explanation`` (the cause and the run that shows it);
- ``[causes]``: a cause shared by several findings, written once and named by each
  finding's ``cause``;
- ``[[joint]]``: ledger assumptions the sensitivity run also sets together (``set``, a
  value of each one's range, and the ``reason``);
- ``[[setup]]``: the setup ledger, every parameter the study's scenarios set, each
  ``stated`` by the paper (quoted), an ``assumption`` of ours (with the reason and a
  plausible range) or ``calibrated`` (the published target and the procedure, which runs
  in code at reproduce time).

This module loads and checks those files (an unknown quantity, a bad kind or an empty
range is a :class:`~ethersim.errors.ScenarioError` naming the key path in the file,
before anything runs), evaluates the findings against a reproduction
(``comparison.csv``), writes the ledger with the values the scenarios really set
(``setup.csv``), and opens the summary with how many findings were reproduced and why
the others were not. :mod:`ethersim.studies.sensitivity` varies the ledger's assumptions.
The file's types are in :mod:`ethersim.studies.contract_types` and its tables are parsed
and checked in :mod:`ethersim.studies.contract_parse`; both are re-exported here.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Generic, TypeVar

import pandas as pd

from ethersim.errors import ScenarioError
from ethersim.studies.contract_parse import (
    _causes,
    _finding,
    _joints,
    _list,
    _setup,
    _str,
    is_toml_value,
    parse_toml,
)
from ethersim.studies.contract_types import Evaluator as Evaluator  # re-exported
from ethersim.studies.contract_types import (
    Finding,
    Joint,
    Marker,
    Outcome,
    Published,
    SetupEntry,
    _number,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = [
    "COMPARISON_COLUMNS",
    "SETUP_COLUMNS",
    "VERDICTS",
    "Finding",
    "Findings",
    "Joint",
    "Marker",
    "Outcome",
    "Published",
    "SetupEntry",
    "compare",
    "counts",
    "draw_published",
    "flatten",
    "is_toml_value",
    "k_of_n",
    "ledger",
    "load_published",
    "matches",
    "parse_toml",
    "rows_where",
    "set_keys",
    "summary_header",
    "uncovered",
    "write",
]

#: ``comparison.csv``'s columns, in order (the output contract; more may follow).
COMPARISON_COLUMNS = (
    "finding",
    "source",
    "published",
    "simulated",
    "deviation",
    "verdict",
    "explanation",
)
#: ``setup.csv``'s columns, in order (the output contract; more may follow).
SETUP_COLUMNS = ("parameter", "value", "kind", "source")
#: What a comparison can conclude.
VERDICTS = ("reproduced", "differs", "not comparable")

Rep = TypeVar("Rep")


@dataclass(frozen=True)
class Findings(Generic[Rep]):
    """What the contract needs of one study: its name and its evaluators by quantity
    (each study's ``*_findings`` module has one, ``FINDINGS``).

    The setup ledger is checked against every scenario the reproduction ran through
    :func:`ethersim.batch.run_many` (recorded there); a study that runs
    scenarios another way (on the sweeps machinery) names them with ``scenarios`` and
    the key paths its sweep grids set with ``extra_keys``.
    """

    name: str
    evaluators: Mapping[str, Evaluator]
    scenarios: Callable[[Rep], Iterable[str]] = field(default=lambda rep: ())
    extra_keys: Callable[[Rep], Iterable[str]] = field(default=lambda rep: ())
    #: The names of the study's options a ledger entry may vary (``option = ...``).
    options: tuple[str, ...] = ()

    def published(self) -> Published:
        """The study's data file, checked against its evaluators and options."""
        return load_published(self.name, self.evaluators, options=self.options)


def _data_file(study: str) -> Any:
    return resources.files("ethersim.studies") / "published" / f"{study}.toml"


def load_published(
    study: str,
    evaluators: Mapping[str, Evaluator],
    text: str | None = None,
    options: Iterable[str] = (),
) -> Published:
    """Reads and checks ``published/<study>.toml`` (or ``text``). Raises
    :class:`ScenarioError` with the key path in the file for anything malformed: a
    missing or mistyped field, a duplicate id, a kind not known, a quantity no evaluator
    computes, an empty or malformed sensitivity range, a setup entry naming an unknown
    finding."""
    where = f"studies/published/{study}.toml"
    if text is None:
        text = _data_file(study).read_text(encoding="utf-8")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"not valid TOML: {e}", where) from None
    causes = _causes(doc, where)
    findings = tuple(
        _finding(raw, f"{where}: findings[{i}]", evaluators, causes)
        for i, raw in enumerate(_list(doc, "findings", where))
    )
    ids = [f.id for f in findings]
    for i, fid in enumerate(ids):
        if fid in ids[:i]:
            raise ScenarioError(
                f"{fid!r} is given twice; expected unique ids", f"{where}: findings[{i}].id"
            )
    setup = tuple(
        _setup(raw, f"{where}: setup[{i}]", set(ids), set(options))
        for i, raw in enumerate(_list(doc, "setup", where))
    )
    joints = _joints(doc, where, setup)
    return Published(
        study=_str(doc, "study", where),
        paper=_str(doc, "paper", where),
        seed=_str(doc, "seed", where),
        findings=findings,
        setup=setup,
        path=where,
        joints=joints,
    )


def draw_published(ax: Any, published: Published, figure: str, panel: str = "") -> None:
    """Draws on ``ax`` every published value whose marker names ``figure`` and ``panel``:
    black stars, one legend entry ("paper") for all of them, each labelled with its
    finding's id (:func:`ethersim.figures.mark_published`). Draws nothing where no
    finding has such a marker."""
    from ethersim.figures import mark_published

    mark_published(
        ax,
        (
            (x, f.published, f.id)
            for f in published.findings
            if f.marker is not None and f.marker.figure == figure and f.marker.panel == panel
            for x in f.marker.x
            if f.published is not None
        ),
    )


# --- comparison -------------------------------------------------------------------------


def compare(published: Published, study: Findings[Rep], rep: Rep) -> pd.DataFrame:
    """``comparison.csv``: every published finding beside what the reproduction gives."""
    rows = []
    for f in published.findings:
        outcome = study.evaluators[f.quantity](rep, f.where)
        rows.append(_row(f, outcome))
    return pd.DataFrame(rows, columns=[*COMPARISON_COLUMNS, "claim", "kind", "unit", "tolerance"])


def _row(f: Finding, outcome: Outcome) -> dict[str, Any]:
    deviation = ""
    if not outcome.comparable:
        verdict, simulated = "not comparable", outcome.text
    elif f.kind == "quantitative":
        if outcome.value is None or not math.isfinite(outcome.value):
            verdict, simulated = "not comparable", outcome.text or "no value"
        else:
            assert f.published is not None
            verdict = "reproduced" if f.accepts(outcome.value) else "differs"
            simulated = f"{_number(outcome.value)} {f.unit}".strip()
            deviation = f"{outcome.value - f.published:+.4g} {f.unit}".strip()
            if f.published != 0:
                deviation += f" ({100 * (outcome.value - f.published) / abs(f.published):+.1f}%)"
    else:
        verdict = "reproduced" if outcome.holds else "differs"
        simulated = outcome.text
    explanation = ""
    if verdict == "differs":
        explanation = f.explanation or "not yet explained"
    elif verdict == "not comparable":
        explanation = outcome.text
    tolerance = ""
    if f.kind == "quantitative":
        parts = []
        if f.tolerance is not None:
            parts.append(f"±{_number(f.tolerance)} {f.unit}".strip())
        if f.tolerance_percent is not None:
            parts.append(f"±{_number(f.tolerance_percent)}%")
        tolerance = " or ".join(parts)
    return {
        "finding": f.id,
        "source": f.source,
        "published": f.published_text(),
        "simulated": simulated,
        "deviation": deviation,
        "verdict": verdict,
        "explanation": explanation,
        "claim": f.claim,
        "kind": f.kind,
        "unit": f.unit,
        "tolerance": tolerance,
    }


def counts(comparison: pd.DataFrame) -> tuple[int, int]:
    """(findings reproduced, findings in all)."""
    return int((comparison.verdict == "reproduced").sum()), len(comparison)


def k_of_n(comparison: pd.DataFrame) -> str:
    """The line every summary opens with."""
    k, n = counts(comparison)
    rest = comparison.verdict.value_counts()
    extra = ", ".join(
        f"{int(rest[v])} {v}" for v in ("differs", "not comparable") if v in rest.index
    )
    return f"{k} of {n} published findings reproduced" + (f" ({extra})" if extra else "")


def summary_header(published: Published, comparison: pd.DataFrame) -> str:
    """The opening of a study's ``summary.md``: the K-of-N line, then every finding that
    was not reproduced, with its explanation."""
    lines = [f"**{k_of_n(comparison)}** — {published.paper}", ""]
    others = comparison[comparison.verdict != "reproduced"]
    if len(others):
        lines += ["Not reproduced:", ""]
        for r in others.itertuples():
            if r.verdict == "not comparable":
                lines.append(f"- **{r.finding}** ({r.source}; not comparable): {r.explanation}")
            else:
                lines.append(
                    f"- **{r.finding}** ({r.source}; differs): published {r.published}; "
                    f"simulated {r.simulated}. {r.explanation}"
                )
        lines.append("")
    lines += [
        "Every finding, its source and tolerance: `comparison.csv`; every parameter and "
        "whether the paper states it, we assume it or we calibrate it: `setup.csv`.",
        "",
    ]
    return "\n".join(lines)


def rows_where(
    table: pd.DataFrame, where: Mapping[str, Any], keys: Iterable[str] | None = None
) -> pd.DataFrame:
    """The rows of a reproduction's ``table`` that a finding's ``where`` selects: for each
    of ``keys`` (default: every key of ``where``) that ``where`` gives and ``table`` has as a
    column, the rows equal to its value, or to any value of a list; a text column compares
    as text (``length = 64`` selects ``"64"``). Other keys of ``where`` (thresholds an
    evaluator reads) select nothing."""
    rows = table
    for key in where if keys is None else keys:
        if key not in where or key not in rows.columns:
            continue
        value = where[key]
        accepted = list(value) if isinstance(value, list) else [value]
        if rows[key].dtype == object:
            accepted = [str(v) for v in accepted]
        rows = rows[rows[key].isin(accepted)]
    return rows


# --- the setup ledger -------------------------------------------------------------------


def flatten(doc: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """A parsed scenario's leaves by key path: ``links[0].rate``, ``hosts[1].pause.honour``.
    An array of tables is indexed; any other array is one leaf."""
    out: dict[str, Any] = {}
    for key, value in doc.items():
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            out.update(flatten(value, path))
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for i, item in enumerate(value):
                out.update(flatten(item, f"{path}[{i}]"))
        else:
            out[path] = value
    return out


def _pattern(glob: str) -> re.Pattern[str]:
    """A ledger parameter as a regular expression: ``[*]`` any index, ``*`` anything."""
    text = re.escape(glob).replace(r"\[\*\]", r"\[\d+\]").replace(r"\*", ".*")
    return re.compile(f"^{text}$")


def matches(parameter: str, path: str) -> bool:
    """Whether the ledger's ``parameter`` (a glob) names the key path ``path``."""
    return _pattern(parameter).match(path) is not None


def set_keys(study: Findings[Rep], rep: Rep, ran: Iterable[str]) -> dict[str, list[Any]]:
    """Every key path the reproduction's scenarios set, with the values they set: the
    scenario texts it ran (``ran``), those the study names, and its sweeps' grid keys."""
    keys: dict[str, list[Any]] = {}
    for text in dict.fromkeys([*ran, *study.scenarios(rep)]):
        for path, value in flatten(tomllib.loads(text)).items():
            keys.setdefault(path, []).append(value)
    for path in study.extra_keys(rep):
        keys.setdefault(path, [])
    return keys


def uncovered(published: Published, keys: Mapping[str, list[Any]]) -> list[str]:
    """Key paths set (see :func:`set_keys`) that no ledger entry lists."""
    patterns = [_pattern(e.parameter) for e in published.setup]
    return sorted(p for p in keys if not any(r.match(p) for r in patterns))


def _shown(values: list[Any]) -> str:
    distinct = list(dict.fromkeys(_leaf(v) for v in values))
    if len(distinct) > 6:
        return "; ".join(distinct[:5]) + f"; … ({len(distinct)} values)"
    return "; ".join(distinct)


def _leaf(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ", ".join(_leaf(x) for x in v) + "]"
    return str(v)


def ledger(published: Published, keys: Mapping[str, list[Any]]) -> pd.DataFrame:
    """``setup.csv``: every ledger entry with the values the scenarios really set (see
    :func:`set_keys`), or the ledger's own value where they leave the parameter at its
    default. A key path no entry lists is a row of kind ``unlisted`` (a test fails on
    it: every parameter a study sets must be in its ledger)."""
    rows = []
    for e in published.setup:
        pattern = _pattern(e.parameter)
        values = [v for path, vs in keys.items() if pattern.match(path) for v in vs]
        used = _shown(values) if values else ""
        rows.append(
            {
                "parameter": e.parameter,
                "value": used or e.value,
                "kind": e.kind,
                "source": e.source,
                "stated_or_chosen": e.value,
                "range": "; ".join(e.range),
                "range_reason": e.range_reason,
                "findings": "; ".join(e.findings),
                "set_by_scenarios": bool(values),
            }
        )
    for path in uncovered(published, keys):
        rows.append(
            {
                "parameter": path,
                "value": _shown(keys[path]),
                "kind": "unlisted",
                "source": "set by the study's scenarios but missing from its ledger",
                "set_by_scenarios": True,
            }
        )
    return pd.DataFrame(rows)


def write(
    published: Published, study: Findings[Rep], rep: Rep, ran: Iterable[str], folder: Path
) -> pd.DataFrame:
    """Writes ``comparison.csv`` and ``setup.csv`` into ``folder`` and opens its
    ``summary.md`` (written by the study) with :func:`summary_header`. ``ran`` are the
    scenario texts the reproduction ran. Returns the comparison."""
    from ethersim.batch import write_csv

    comparison = compare(published, study, rep)
    write_csv(comparison, folder / "comparison.csv")
    write_csv(ledger(published, set_keys(study, rep, ran)), folder / "setup.csv")
    summary = folder / "summary.md"
    body = summary.read_text(encoding="utf-8") if summary.exists() else ""
    title, _, rest = body.partition("\n")
    if title.startswith("# "):
        text = f"{title}\n\n{summary_header(published, comparison)}{rest.lstrip()}"
    else:
        text = summary_header(published, comparison) + body
    summary.write_text(text, encoding="utf-8")
    return comparison

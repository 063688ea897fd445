"""Parsing and checking a study's published-findings file, table by table.

:func:`ethersim.studies.contract.load_published` finds ``published/<study>.toml`` and
hands each of its tables to the helpers here: ``[[findings]]`` (with their ``marker`` and
the ``[causes]`` they name), ``[[setup]]`` and ``[[joint]]``. Anything malformed is a
:class:`~ethersim.errors.ScenarioError` naming the key path in the file. Also the TOML
helpers the studies share (:func:`parse_toml`, :func:`is_toml_value`), re-exported by
:mod:`ethersim.studies.contract`.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from ethersim.errors import ScenarioError
from ethersim.studies.contract_types import Evaluator, Finding, Joint, Marker, SetupEntry

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = ["KINDS", "SETUP_KINDS", "is_toml_value", "parse_toml"]

KINDS = ("quantitative", "qualitative")
SETUP_KINDS = ("stated", "assumption", "calibrated")


def parse_toml(text: str) -> dict[str, Any]:
    """``text`` parsed as TOML (raises ``TOMLDecodeError``)."""
    return tomllib.loads(text)


def is_toml_value(text: str) -> bool:
    """Whether ``text`` is a TOML value (``16``, ``true``, ``"1 Gb/s"``) rather than bare
    text (``64 KiB``); an override reads the first as the value, the second as a string."""
    try:
        tomllib.loads(f"v = {text}")
    except tomllib.TOMLDecodeError:
        return False
    return True


def _joints(doc: Mapping[str, Any], where: str, setup: Iterable[SetupEntry]) -> tuple[Joint, ...]:
    """The file's ``[[joint]]`` points: each ``set`` names two or more ranged ledger
    entries (by parameter) with a value of each one's range."""
    ranged = {e.parameter: e for e in setup if e.range}
    raws = doc.get("joint", [])
    if not isinstance(raws, list) or not all(isinstance(r, dict) for r in raws):
        raise ScenarioError("expected [[joint]] tables", f"{where}: joint")
    joints = []
    for i, raw in enumerate(raws):
        at = f"{where}: joint[{i}]"
        settings = raw.get("set")
        if not isinstance(settings, dict) or len(settings) < 2:
            raise ScenarioError(
                f"expected a table of two or more ledger parameters and values, got {settings!r}",
                f"{at}.set",
            )
        for parameter, value in settings.items():
            entry = ranged.get(parameter)
            if entry is None:
                raise ScenarioError(
                    f"{parameter!r} is no ledger entry with a range; expected one of "
                    f"{', '.join(ranged) or '(none)'}",
                    f"{at}.set",
                )
            given = entry.raw_range or entry.range
            if value not in given:
                raise ScenarioError(
                    f"{value!r} is outside the entry's range; expected one of "
                    f"{', '.join(map(repr, given))}",
                    f"{at}.set.{parameter}",
                )
        joints.append(Joint(tuple(settings.items()), _str(raw, "reason", at)))
    return tuple(joints)


def _list(doc: Mapping[str, Any], key: str, where: str) -> list[Mapping[str, Any]]:
    items = doc.get(key)
    if not isinstance(items, list) or not items or not all(isinstance(i, dict) for i in items):
        raise ScenarioError(f"expected one or more [[{key}]] tables", f"{where}: {key}")
    return items


def _str(raw: Mapping[str, Any], key: str, where: str, default: str | None = None) -> str:
    value = raw.get(key, default)
    if not isinstance(value, str) or (default is None and not value.strip()):
        raise ScenarioError(f"expected a non-empty string, got {value!r}", f"{where}.{key}")
    return value


def _num(raw: Mapping[str, Any], key: str, where: str) -> float | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ScenarioError(f"expected a finite number, got {value!r}", f"{where}.{key}")
    return float(value)


def _causes(doc: Mapping[str, Any], where: str) -> dict[str, str]:
    """The file's ``[causes]``: a cause of a difference shared by several findings (the
    run that shows it, once), keyed by a name the findings' ``cause`` gives."""
    causes = doc.get("causes", {})
    if not isinstance(causes, dict):
        raise ScenarioError(f"expected a table of named texts, got {causes!r}", f"{where}: causes")
    for name in causes:
        _str(causes, name, f"{where}: causes")
    return dict(causes)


def _explanation(raw: Mapping[str, Any], where: str, causes: Mapping[str, str]) -> str:
    """A finding's own ``explanation`` followed by the text of each cause it names."""
    named = raw.get("cause", [])
    names = [named] if isinstance(named, str) else named
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ScenarioError(
            f"expected a cause's name or a list of them, got {named!r}", f"{where}.cause"
        )
    parts = [_str(raw, "explanation", where, "")]
    for name in names:
        if name not in causes:
            raise ScenarioError(
                f"{name!r} is no cause of this file; expected one of "
                f"{', '.join(sorted(causes)) or '(none: add a [causes] table)'}",
                f"{where}.cause",
            )
        parts.append(causes[name])
    return " ".join(p.strip() for p in parts if p.strip())


def _finding(
    raw: Mapping[str, Any],
    where: str,
    evaluators: Mapping[str, Evaluator],
    causes: Mapping[str, str],
) -> Finding:
    kind = _str(raw, "kind", where)
    if kind not in KINDS:
        raise ScenarioError(f"{kind!r}; expected one of {', '.join(KINDS)}", f"{where}.kind")
    quantity = _str(raw, "quantity", where)
    if quantity not in evaluators:
        raise ScenarioError(
            f"{quantity!r} is no quantity this study computes; expected one of "
            f"{', '.join(sorted(evaluators))}",
            f"{where}.quantity",
        )
    selector = raw.get("where", {})
    if not isinstance(selector, dict):
        raise ScenarioError(f"expected a table, got {selector!r}", f"{where}.where")
    published = _num(raw, "published", where)
    tolerance = _num(raw, "tolerance", where)
    tolerance_percent = _num(raw, "tolerance_percent", where)
    if kind == "quantitative":
        if published is None:
            raise ScenarioError(
                "a quantitative finding needs its published value", f"{where}.published"
            )
        if tolerance is None and tolerance_percent is None:
            raise ScenarioError(
                "a quantitative finding needs tolerance or tolerance_percent", f"{where}.tolerance"
            )
        for key, value in (("tolerance", tolerance), ("tolerance_percent", tolerance_percent)):
            if value is not None and value < 0:
                raise ScenarioError(f"{value} is negative; expected 0 or more", f"{where}.{key}")
        _str(raw, "tolerance_reason", where)
    return Finding(
        id=_str(raw, "id", where),
        claim=_str(raw, "claim", where),
        source=_str(raw, "source", where),
        quote=_str(raw, "quote", where),
        kind=kind,
        quantity=quantity,
        where=dict(selector),
        published=published if kind == "quantitative" else None,
        unit=_str(raw, "unit", where, ""),
        tolerance=tolerance,
        tolerance_percent=tolerance_percent,
        tolerance_reason=_str(raw, "tolerance_reason", where, ""),
        computed_from=_str(raw, "computed_from", where),
        explanation=_explanation(raw, where, causes),
        marker=_marker(raw, where, kind),
    )


def _marker(raw: Mapping[str, Any], where: str, kind: str) -> Marker | None:
    """A finding's ``marker = { figure, x, panel }``; quantitative findings only."""
    spec = raw.get("marker")
    if spec is None:
        return None
    if not isinstance(spec, dict):
        raise ScenarioError(f"expected a table, got {spec!r}", f"{where}.marker")
    if kind != "quantitative":
        raise ScenarioError("only a quantitative finding has a value to mark", f"{where}.marker")
    xs = spec.get("x")
    xs = [xs] if isinstance(xs, (int, float)) and not isinstance(xs, bool) else xs
    if (
        not isinstance(xs, list)
        or not xs
        or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs)
    ):
        raise ScenarioError(
            f"expected a number or a list of numbers, got {spec.get('x')!r}", f"{where}.marker.x"
        )
    return Marker(
        figure=_str(spec, "figure", f"{where}.marker"),
        x=tuple(float(x) for x in xs),
        panel=_str(spec, "panel", f"{where}.marker", ""),
    )


def _setup(raw: Mapping[str, Any], where: str, ids: set[str], options: set[str]) -> SetupEntry:
    kind = _str(raw, "kind", where)
    if kind not in SETUP_KINDS:
        raise ScenarioError(f"{kind!r}; expected one of {', '.join(SETUP_KINDS)}", f"{where}.kind")
    values = raw.get("range", [])
    if not isinstance(values, list):
        raise ScenarioError(f"expected a list of values, got {values!r}", f"{where}.range")
    if kind != "stated" and "range" in raw and not values:
        raise ScenarioError("the range is empty; expected the values to try", f"{where}.range")
    for j, v in enumerate(values):
        if not isinstance(v, (str, int, float, bool)):
            raise ScenarioError(
                f'{v!r}; expected a number, true or false, or a quantity like "64 KiB"',
                f"{where}.range[{j}]",
            )
    affected = raw.get("findings", [])
    if not isinstance(affected, list):
        raise ScenarioError(
            f"expected a list of finding ids, got {affected!r}", f"{where}.findings"
        )
    for j, fid in enumerate(affected):
        if fid not in ids:
            raise ScenarioError(f"{fid!r} is no finding of this study", f"{where}.findings[{j}]")
    option = _str(raw, "option", where, "")
    if option and option not in options:
        raise ScenarioError(
            f"{option!r} is no option of this study; expected one of "
            f"{', '.join(sorted(options)) or '(none)'}",
            f"{where}.option",
        )
    if option and not values:
        raise ScenarioError("an option entry needs the values to try", f"{where}.range")
    raw_value = raw.get("value", "")
    return SetupEntry(
        parameter=_str(raw, "parameter", where),
        kind=kind,
        value=str(raw_value),
        source=_str(raw, "source", where),
        range=tuple(_toml_value(v) for v in values),
        range_reason=_str(raw, "range_reason", where, ""),
        findings=tuple(affected),
        option=option,
        raw_range=tuple(values),
    )


def _toml_value(v: str | float | bool) -> str:
    """A range value as an override writes it (``"64 KiB"`` stays a string)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return v
    return repr(v) if isinstance(v, float) else str(v)

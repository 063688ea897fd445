"""A sweep's metric against a swept key: the mean over each cell's runs with its 95%
confidence interval (the database's Student t half-width) as error bars, one line per
value of a second key.

Every other key the sweep varies must be held at one value (``where``), or the points
would average over it silently. A quantity key (``"1.25 Gb/s"``) is drawn on a numeric
axis in base units (logarithmic when its values span a factor of 100 or more), its ticks
labelled as the sweep wrote the values; a text or boolean key is categorical, in the
sweep's order. Built on a bare :class:`matplotlib.figure.Figure` (no pyplot state).

Errors are :class:`ScenarioError` whose path is the argument at fault (``x``, ``y``,
``hue``, ``where``), which the command line shows as its option (``--x``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ethersim.errors import ScenarioError
from ethersim.sweeps.frames import SweptKey, glob, labels, quantity

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = [
    "Line",
    "PlotChoice",
    "XAxis",
    "choose_metric",
    "choose_plot",
    "draw",
    "lines",
    "loose_keys",
    "resolve_value",
    "save_figure",
    "shown",
    "sweep_figure",
    "x_axis",
]

#: Up to this many distinct x values, the ticks are the values themselves.
_MAX_VALUE_TICKS = 8


def _plain(text: str) -> str:
    """User text for matplotlib: a ``$`` is shown, never read as the start of math."""
    return text.replace("$", r"\$")


def shown(value: object) -> str:
    """A key's value as a label: text as written, numbers and booleans via units."""
    from ethersim.units import fmt_number

    return value if isinstance(value, str) else fmt_number(value)


def choose_metric(available: Sequence[str], wanted: str) -> str:
    """The metric label ``wanted`` names: itself, or the one label its glob matches.
    Anything else is a :class:`ScenarioError` at ``y`` listing the candidates."""
    if wanted in available:
        return wanted
    hits = [a for a in available if glob(wanted, a)]
    if len(hits) == 1:
        return hits[0]
    if hits:
        listed = ", ".join(hits[:10]) + (f" (and {len(hits) - 10} more)" if len(hits) > 10 else "")
        raise ScenarioError(f"{wanted!r} matches {len(hits)} metrics: {listed}; expected one", "y")
    near = [a for a in available if wanted.lower() in a.lower()] or list(available)
    listed = ", ".join(near[:10]) + (f" (and {len(near) - 10} more)" if len(near) > 10 else "")
    raise ScenarioError(f"{wanted!r} matches no metric; expected one of {listed}", "y")


def resolve_value(key: SweptKey, given: object) -> Any:
    """The value of ``key`` that ``given`` names: the value itself, or text that reads as
    it (``4`` for 4, ``true`` for True, ``1250 Mb/s`` for ``"1.25 Gb/s"``: quantities
    compare by magnitude). Raises :class:`ScenarioError` at ``where`` listing the
    key's values."""
    for value in key.values:
        if type(value) is type(given) and value == given:
            return value
    if isinstance(given, str):
        text = given.strip()
        for value in key.values:
            if isinstance(value, bool):
                if text.lower() in (("true", "yes") if value else ("false", "no")):
                    return value
            elif isinstance(value, (int, float)):
                try:
                    if float(text.replace(",", "")) == value:
                        return value
                except ValueError:
                    pass
            elif value == text:
                return value
        if key.quantity is not None:
            parsed = quantity(text)
            for value in key.values:
                other = quantity(value)
                if parsed is not None and other is not None and parsed == other:
                    return value
    values = ", ".join(shown(v) for v in key.values)
    raise ScenarioError(f"{key.path} has no value {given!r}; expected one of {values}", "where")


def _key(keys: Sequence[SweptKey], path: str, what: str) -> SweptKey:
    for key in keys:
        if key.path == path:
            return key
    swept = ", ".join(k.path for k in keys) or "none"
    raise ScenarioError(f"{path!r} is not a swept key; expected one of: {swept}", what)


def _positions(key: SweptKey, frame: pd.DataFrame) -> pd.Series:
    """Where each row sits on an axis of ``key``: its number (in base units for a
    quantity), or its rank in the sweep's order for text and booleans."""
    if key.companion is not None:
        return frame[key.companion].astype("float64")
    if key.numeric:
        return frame[key.path].astype("float64")
    rank = {v: i for i, v in enumerate(key.values)}
    return frame[key.path].map(rank).astype("float64")


@dataclass(frozen=True)
class PlotChoice:
    """What a plot shows, checked: the metric, the keys on the axes, the keys held and
    the rows of the tidy frame that make the points."""

    label: str
    x: SweptKey
    hue: SweptKey | None
    #: Key path -> the value it is held at.
    held: dict[str, Any]
    rows: pd.DataFrame


def choose_plot(
    tidy: pd.DataFrame,
    keys: Sequence[SweptKey],
    *,
    x: str,
    y: str,
    hue: str | None = None,
    where: Mapping[str, object] | None = None,
) -> PlotChoice:
    """Checks a plot of metric ``y`` against key ``x`` (by ``hue``, the keys in
    ``where`` held) and picks its rows; see :func:`sweep_figure`. Raises
    :class:`ScenarioError` at the argument at fault, nothing drawn."""
    x_key = _key(keys, x, "x")
    hue_key = None if hue is None else _key(keys, hue, "hue")
    if hue_key is not None and hue_key.path == x_key.path:
        raise ScenarioError(f"{hue!r} is the x key too; expected another swept key", "hue")
    frame = tidy
    held: dict[str, Any] = {}
    for path, given in (where or {}).items():
        key = _key(keys, path, "where")
        if path in (x_key.path, hue):
            raise ScenarioError(
                f"{path!r} is on the plot (--x or --hue); expected another key", "where"
            )
        held[path] = resolve_value(key, given)
        frame = frame[frame[path] == held[path]]
    label = choose_metric(list(dict.fromkeys(labels(tidy))), y)
    frame = frame[labels(frame) == label]
    loose = loose_keys(frame, keys, x_key, hue_key, held)
    if loose:
        how = " ".join(f"--where '{k.path}={shown(k.values[0])}'" for k in loose)
        names = ", ".join(k.path for k in loose)
        verb = "varies" if len(loose) == 1 else "vary"
        raise ScenarioError(
            f"{names} {verb} too; expected each held at one value, e.g. {how}", "where"
        )
    if frame.empty:
        raise ScenarioError(f"no cell with {label} has these values; expected others", "where")
    return PlotChoice(label, x_key, hue_key, held, frame)


def loose_keys(
    frame: pd.DataFrame,
    keys: Sequence[SweptKey],
    x: SweptKey,
    hue: SweptKey | None,
    held: Mapping[str, object] | None = None,
) -> list[SweptKey]:
    """The keys of ``frame`` (a tidy frame) besides ``x``, ``hue`` and those ``held``
    that would mix their values into one point (x and hue fixed): each must be held at
    one value for the points to mean anything."""
    group = [x.path] + ([hue.path] if hue is not None else [])
    free = [k for k in keys if k.path not in group and k.path not in (held or {})]
    # A key varies on its own when a point (x and hue fixed) would mix its values; zip
    # partners of x or hue move with them and need no holding.
    grouped = frame.groupby(group, sort=False)
    return [k for k in free if (grouped[k.path].nunique() > 1).any()]


@dataclass(frozen=True)
class Line:
    """One line of a sweep plot, its points in x order: the hue value it is for
    (``None`` without hue), the x positions (:func:`x_axis` says how they read), the
    means, the 95% half-widths (NaN where a cell has one run) and the index in the
    tidy frame of each point's row."""

    hue: Any
    x: np.ndarray
    mean: np.ndarray
    ci95: np.ndarray
    rows: np.ndarray


def lines(choice: PlotChoice) -> list[Line]:
    """The lines of a checked :class:`PlotChoice`: one per value of its hue key that has
    points, in the sweep's order (one line without hue)."""
    import numpy as np

    frame = choice.rows
    positions = _positions(choice.x, frame).to_numpy()
    means = frame["mean"].to_numpy(dtype="float64")
    halves = frame["ci95"].to_numpy(dtype="float64")
    index = frame.index.to_numpy()
    if choice.hue is None:
        masks: list[tuple[Any, np.ndarray]] = [(None, np.ones(len(frame), dtype=bool))]
    else:
        column = frame[choice.hue.path].to_numpy()
        masks = [(value, column == value) for value in choice.hue.values]
    out = []
    for value, mask in masks:
        if not mask.any():
            continue
        order = np.argsort(positions[mask], kind="stable")
        out.append(
            Line(
                value,
                positions[mask][order],
                means[mask][order],
                halves[mask][order],
                index[mask][order],
            )
        )
    return out


@dataclass(frozen=True)
class XAxis:
    """How a sweep plot's x axis reads: logarithmic or not, and its ticks, each value as
    the sweep wrote it (``ticks`` empty: left to the plotting library)."""

    log: bool
    ticks: list[float]
    labels: list[str]


def x_axis(choice: PlotChoice) -> XAxis:
    """The x axis of a checked :class:`PlotChoice`: a quantity or number key is
    numeric (logarithmic when its values span a factor of 100 or more), ticked at its
    values when there are at most eight; a text or boolean key is categorical, ticked at
    the values present in the sweep's order."""
    key, frame = choice.x, choice.rows
    if not key.numeric:
        present = [v for v in key.values if v in set(frame[key.path])]
        return XAxis(
            False, [float(key.values.index(v)) for v in present], list(map(shown, present))
        )
    positions = _positions(key, frame)
    distinct = sorted(set(positions))
    log = distinct[0] > 0 and distinct[-1] >= 100 * distinct[0]
    if len(distinct) > _MAX_VALUE_TICKS:
        return XAxis(log, [], [])
    by_position = dict(zip(positions, frame[key.path], strict=True))
    return XAxis(log, distinct, [shown(by_position[p]) for p in distinct])


def spans_decades(values: Iterable[float]) -> bool:
    """Whether a y axis over ``values`` reads better logarithmic: every value (NaN
    aside) is positive and the largest is 100 or more times the smallest, so lines
    microseconds apart stay apart under one a thousand times higher (the x axis's rule,
    :func:`x_axis`)."""
    import numpy as np

    finite = np.asarray([v for v in values if not math.isnan(v)], dtype=float)
    return bool(finite.size) and bool(finite.min() > 0) and bool(finite.max() >= 100 * finite.min())


def sweep_figure(
    tidy: pd.DataFrame,
    keys: Sequence[SweptKey],
    *,
    x: str,
    y: str,
    hue: str | None = None,
    where: Mapping[str, object] | None = None,
    title: str = "",
) -> Figure:
    """The figure of metric ``y`` (a label, or a glob matching one) against key ``x``
    from a sweep's tidy frame (:meth:`ethersim.sweeps.Store.cells`) and its keys
    (:meth:`ethersim.sweeps.Store.swept_keys`): one line per value of key ``hue``, each
    point the mean over a cell's runs with its 95% interval as an error bar (none where
    a cell has one run). Every other key that varies must be held in ``where`` (key
    path → value, or text that reads as it).

    >>> with Store("results.duckdb", read_only=True) as store:  # doctest: +SKIP
    ...     figure = sweep_figure(store.cells("fan-in-sweep"), store.swept_keys("fan-in-sweep"),
    ...                           x="switches[0].port_buffer.frames",
    ...                           y="port:switch->h0:drops", hue="links[0].rate")
    """
    choice = choose_plot(tidy, keys, x=x, y=y, hue=hue, where=where)
    return draw(choice, title)


def draw(choice: PlotChoice, title: str = "") -> Figure:
    """The figure of a checked :class:`PlotChoice` (see :func:`sweep_figure`)."""
    import numpy as np
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter, NullFormatter

    from ethersim.units import human, unit_of

    label, x_key, hue_key, fixed = choice.label, choice.x, choice.hue, choice.held
    figure = Figure(figsize=(7, 4.5), layout="constrained")
    axes = figure.add_subplot()
    for line in lines(choice):
        axes.errorbar(
            line.x,
            line.mean,
            # A cell of one run has no interval: no bar, rather than a bar of nothing.
            yerr=np.nan_to_num(line.ci95, nan=0.0),
            marker="o",
            capsize=3,
            label=None if line.hue is None else _plain(shown(line.hue)),
        )
    axis = x_axis(choice)
    if axis.log:
        axes.set_xscale("log")
    if spans_decades(v for line in lines(choice) for v in line.mean):
        axes.set_yscale("log")
    if axis.ticks:
        axes.xaxis.set_minor_formatter(NullFormatter())
        axes.set_xticks(axis.ticks, [_plain(t) for t in axis.labels])
    elif x_key.companion is not None:
        companion = x_key.companion
        axes.xaxis.set_major_formatter(FuncFormatter(lambda v, _: human(companion, v)))
    x_unit = unit_of(x_key.companion) if x_key.companion is not None else ""
    axes.set_xlabel(_plain(x_key.path) + (f" [{x_unit}]" if x_unit else ""))
    y_unit = unit_of(label)
    axes.set_ylabel(_plain(label) + (f" [{y_unit}]" if y_unit else ""))
    if y_unit:
        axes.yaxis.set_major_formatter(FuncFormatter(lambda v, _: human(label, v)))
    if hue_key is not None:
        axes.legend(title=_plain(hue_key.path))
    held = ", ".join(f"{k} = {shown(v)}" for k, v in fixed.items())
    parts = [_plain(t) for t in (title, held) if t]
    heading = "mean and 95% confidence interval over each cell's runs"
    axes.set_title("\n".join([*parts, heading]), fontsize="medium")
    axes.grid(True, alpha=0.3)
    return figure


def save_figure(figure: Figure, path: Path) -> None:
    """Saves ``figure`` as PNG or SVG by ``path``'s suffix; SVG without a date and with
    fixed element ids, PNG without the matplotlib version, so that the same data writes
    the same bytes (:mod:`ethersim.figures`)."""
    from ethersim.figures import save_png, save_svg

    if path.suffix.lower() == ".svg":
        save_svg(figure, path)
    else:
        save_png(figure, path, dpi=120, software=False)

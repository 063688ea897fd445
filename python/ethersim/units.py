"""Numbers as a person reads them: one set of formatters for the terminal, the reports
and the sweep tables, so that a value looks the same wherever it is shown.

Every formatter takes the value in the unit its result column is named for (seconds for
``*_s``, bit/s for ``*_bps``, bytes for ``*_bytes``, joules for ``*_j``, a fraction for
``*_fraction``, percent for ``*_percent``) and returns short text with its unit: SI
prefixes are decimal (1 Mb/s = 10^6 bit/s, 1 kB = 1000 B), as the scenario files read
them. A missing value (``None`` or NaN) is an en dash, never ``nan``. Four significant
digits, digits never split by a thousands separator inside a mantissa.

:func:`human` picks the formatter from a column's name, which is how the reports and
``ethersim results`` show a table they did not build themselves.
"""

from __future__ import annotations

import math
import sys

# For type checkers only: collections.abc loads all of collections, numbers its abstract
# classes (start-up, issue 29).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import numbers
    from collections.abc import Callable
    from typing import TypeGuard

__all__ = [
    "MISSING",
    "fmt_bytes",
    "fmt_count",
    "fmt_energy",
    "fmt_fraction",
    "fmt_number",
    "fmt_percent",
    "fmt_power",
    "fmt_rate",
    "fmt_time",
    "formatter_for",
    "heading",
    "human",
    "is_integral",
    "is_missing",
    "is_real",
    "unit_of",
]

#: What a missing value (statistics of nothing, a mechanism a run did not use) shows.
MISSING = "\N{EN DASH}"


def is_integral(value: object) -> TypeGuard[numbers.Integral]:
    """``isinstance(value, numbers.Integral)``, Python's own types answered without
    importing :mod:`numbers`: its abstract classes cost about half a millisecond of
    every run's start-up (issue 29), and a run's summary holds only ``int``,
    ``float``, ``bool``, text and ``None``."""
    kind = type(value)
    if kind is int or kind is bool:
        return True
    if kind is float or kind is str or value is None:
        return False
    import numbers  # numpy's and other registered integers

    return isinstance(value, numbers.Integral)


def is_real(value: object) -> TypeGuard[numbers.Real]:
    """``isinstance(value, numbers.Real)``, answered as :func:`is_integral` is."""
    kind = type(value)
    if kind is int or kind is float or kind is bool:
        return True
    if kind is str or value is None:
        return False
    import numbers  # numpy's and other registered real numbers

    return isinstance(value, numbers.Real)


def is_missing(value: object) -> bool:
    """Whether ``value`` stands for no value: ``None``, NaN, or pandas' missing marker."""
    if value is None:
        return True
    if is_real(value) and not is_integral(value):
        return math.isnan(float(value))
    # pandas' NA and NaT, only when pandas is loaded already (the CLI's start stays light).
    pd = sys.modules.get("pandas")
    if pd is not None and type(value).__module__.startswith("pandas"):
        try:
            return bool(pd.isna(value))
        except (TypeError, ValueError):
            return False
    return False


def _scaled(value: float, scales: tuple[tuple[float, str], ...], smallest: str) -> str:
    """``value`` with the largest prefix whose scale it reaches, to 4 significant digits."""
    for scale, unit in scales:
        if abs(value) >= scale:
            return f"{value / scale:.4g} {unit}"
    return f"{value:.4g} {smallest}" if smallest else f"{value:.4g}"


def fmt_time(seconds: float | None) -> str:
    """A duration or instant in seconds: ``12.5 ms``, ``3.2 us``, ``850 ps``."""
    if is_missing(seconds):
        return MISSING
    assert seconds is not None  # is_missing said so
    if seconds == 0:
        return "0 s"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")):
        if abs(seconds) >= scale:
            return f"{seconds / scale:.4g} {unit}"
    return f"{seconds * 1e12:.4g} ps"


def fmt_rate(bps: float | None) -> str:
    """A bit rate in bit/s: ``1 Gb/s``, ``948.8 Mb/s``."""
    if is_missing(bps):
        return MISSING
    assert bps is not None
    return _scaled(bps, ((1e12, "Tb/s"), (1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s")), "b/s")


def fmt_bytes(n: float | None) -> str:
    """A size in bytes, decimal prefixes: ``1.5 kB``, ``500 MB``; below 1000 exact (``64 B``)."""
    if is_missing(n):
        return MISSING
    assert n is not None
    if abs(n) < 1000:
        return f"{n:.4g} B" if not float(n).is_integer() else f"{int(n)} B"
    return _scaled(n, ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")), "B")


def fmt_energy(joules: float | None) -> str:
    """Energy in joules: ``12.3 J``, ``4.5 mJ``, ``2.1 kJ``."""
    if is_missing(joules):
        return MISSING
    assert joules is not None
    if joules == 0:
        return "0 J"
    return _scaled(joules, ((1e6, "MJ"), (1e3, "kJ"), (1.0, "J"), (1e-3, "mJ"), (1e-6, "uJ")), "J")


def fmt_power(watts: float | None) -> str:
    """Power in watts: ``0.5 W``, ``120 mW``."""
    if is_missing(watts):
        return MISSING
    assert watts is not None
    if watts == 0:
        return "0 W"
    return _scaled(watts, ((1e3, "kW"), (1.0, "W"), (1e-3, "mW"), (1e-6, "uW")), "W")


def fmt_percent(percent: float | None) -> str:
    """A value already in percent: ``12.5%``."""
    if is_missing(percent):
        return MISSING
    assert percent is not None
    return f"{percent:.3g}%"


def fmt_fraction(fraction: float | None) -> str:
    """A fraction in [0, 1] shown in percent: 0.125 → ``12.5%``."""
    if is_missing(fraction):
        return MISSING
    assert fraction is not None
    return fmt_percent(100 * fraction)


def fmt_count(n: float | None) -> str:
    """A count with thousands separators: ``1,234,567``; a non-integer to 4 digits."""
    if is_missing(n):
        return MISSING
    assert n is not None
    if float(n).is_integer():
        return f"{int(n):,}"
    return fmt_number(n)


def fmt_number(x: object) -> str:
    """Any other value: a float to 4 significant digits (``1.235e+09`` beyond 10^6),
    a bool as yes/no, text as it is."""
    if is_missing(x):
        return MISSING
    if isinstance(x, bool):
        return "yes" if x else "no"
    if is_integral(x):
        return f"{int(x):,}"
    if is_real(x):
        f = float(x)
        if f.is_integer() and abs(f) < 1e15:
            return f"{int(f):,}"
        return f"{f:.4g}"
    return str(x)


def _in(unit: str) -> Callable[[float | None], str]:
    """A formatter for values a table gives in ``unit`` (a paper's ms or us), kept in it
    so that its rows read against the paper's figures."""

    def fmt(value: float | None) -> str:
        return MISSING if value is None or is_missing(value) else f"{float(value):.4g} {unit}"

    return fmt


#: Column-name endings and the formatter and unit they call for, most specific first.
#: (The studies' tables name times in ``_ms`` and ``_us`` after the papers they follow.)
_BY_SUFFIX: tuple[tuple[str, Callable[[float | None], str], str], ...] = (
    ("_percent", fmt_percent, "%"),
    ("_fraction", fmt_fraction, "%"),
    ("utilization", fmt_fraction, "%"),
    ("_ms", _in("ms"), "ms"),
    ("_us", _in("us"), "us"),
    ("_bps", fmt_rate, "b/s"),
    ("_bytes", fmt_bytes, "B"),
    ("_j", fmt_energy, "J"),
    ("_w", fmt_power, "W"),
    ("_s", fmt_time, "s"),
)

#: Names that are counts although they end like nothing above.
_COUNT_WORDS = (
    "frames",
    "packets",
    "drops",
    "events",
    "segments",
    "retransmissions",
    "timeouts",
    "sent",
    "received",
    "lost",
    "changes",
    "switches",
    "sleeps",
    "wakes",
    "collisions",
    "outages",
    "messages",
    "acks",
)


def _bare(column: str) -> str:
    """The metric name in a column label such as ``port:s1->h1:drops mean`` or
    ``flow.delay_mean_s``: its last word, without the statistic."""
    name = str(column)
    for stat in (" mean", " std", " ci95", " min", " max", " p50", " p99"):
        if name.endswith(stat):
            name = name[: -len(stat)]
            break
    for sep in (":", "."):
        name = name.rsplit(sep, 1)[-1]
    return name


def formatter_for(column: str) -> Callable[[object], str]:
    """The formatter a column's values call for, from its name (``delay_mean_s`` →
    times, ``goodput_bps`` → rates, ``drops`` → counts; anything else: plain numbers)."""
    name = _bare(column)
    for suffix, fmt, _unit in _BY_SUFFIX:
        if name.endswith(suffix):
            return lambda v, fmt=fmt: fmt(v) if _numeric(v) else fmt_number(v)  # type: ignore[misc]
    if any(word in name for word in _COUNT_WORDS):
        return lambda v: fmt_count(v) if _numeric(v) else fmt_number(v)  # type: ignore[arg-type]
    return fmt_number


def _numeric(value: object) -> bool:
    return (is_real(value) and not isinstance(value, bool)) or is_missing(value)


def unit_of(column: str) -> str:
    """The unit a column's name says its values are in (``s``, ``b/s``, ``B``, ``J``,
    ``W``, ``%``), or ``""``."""
    name = _bare(column)
    for suffix, _fmt, unit in _BY_SUFFIX:
        if name.endswith(suffix):
            return unit
    return ""


def human(column: str, value: object) -> str:
    """``value`` of the column named ``column``, as a person reads it. A list (a link's
    rates, a value per direction) is its items so formatted, joined by commas; an empty
    one is missing."""
    if isinstance(value, (list, tuple)) or type(value).__name__ == "ndarray":
        items = list(value)  # type: ignore[call-overload]
        return ", ".join(human(column, v) for v in items) if items else MISSING
    return formatter_for(column)(value)


def heading(column: str) -> str:
    """A column's name as a table heading, in words: the ending that says its unit goes
    (``goodput_bps`` → ``goodput``, ``delay_mean_s`` → ``delay mean``), because each
    cell carries its own unit, scaled to its value (``948.8 Mb/s``, ``500 ns``); a base
    unit above them would contradict them. A word that says the unit (utilization)
    stays; a name that says none keeps its words (``packets_sent`` → ``packets sent``)."""
    name = str(column)
    unit = unit_of(name)
    for suffix, _fmt, suffix_unit in _BY_SUFFIX:
        if suffix.startswith("_") and suffix_unit == unit and name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return name.replace("_", " ").strip()

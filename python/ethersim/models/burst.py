"""Burst loss of link-rate switching: how much of a burst a link loses while it is dark.

A link that switches rate (or wakes from a low-power state) carries nothing for a time
``T``. A burst of ``B`` bytes arriving at rate ``R`` in that time fills the buffer of
``S`` bytes in front of the link; what does not fit is lost::

    L = max(0, R * min(8B / R, T) - 8S)              bits
    lost packets = ceil((L / 8) / mean packet length in bytes)

Units: ``B`` and ``S`` are given in bytes (hence the 8s), ``R`` in bit/s, ``T`` in
seconds; ``L`` is in bits (:attr:`BurstLoss.lost_bits`), ``L / 8`` in bytes
(:attr:`BurstLoss.lost_bytes`).

``R`` is the rate at which the burst fills the buffer: frame bytes per second * 8, not
the line rate. On a link carrying back-to-back frames of ``F`` bytes at line rate ``C``
it is ``C * F / (F + 20)``, because the preamble and start-of-frame delimiter (8 bytes)
and the inter-frame gap (12 bytes) take time on the wire but do not enter the buffer.

Assumptions:

- nothing drains from the buffer while the link is dark;
- the buffer is empty when the burst starts;
- the link drains faster than ``R`` once it is back, so nothing is lost after that.

This model is the test oracle for the simulator's link-rate switching: a simulated burst
into a dark link must lose what it predicts.

Arithmetic is exact (:class:`fractions.Fraction`) on the decimal values the arguments
print as (a float ``0.01`` counts as exactly 1/100), and results are rounded to float
once at the end; so :attr:`BurstLoss.lost_packets` is never one off because of binary
rounding.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ethersim.errors import ScenarioError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = ["CURVE_COLUMNS", "BurstLoss", "Number", "burst_loss", "burst_loss_curve"]

#: A quantity the model takes: an int, a float, an exact fraction (numpy numbers and
#: :class:`decimal.Decimal` are taken too).
Number = float | Fraction | Decimal

#: The columns of :func:`burst_loss_curve`'s table, in order.
CURVE_COLUMNS = (
    "rate_gbps",
    "buffer_bytes",
    "lost_percent",
    "rate_bps",
    "burst_bytes",
    "dark_s",
    "lost_bytes",
    "lost_packets",
)


@dataclass(frozen=True)
class BurstLoss:
    """What a burst into a dark link loses (see the module documentation for the model)."""

    #: Rate at which the burst fills the buffer, bit/s (frame bytes per second * 8).
    rate_bps: float
    #: Size of the burst, bytes.
    burst_bytes: float
    #: Time the link is dark, seconds.
    dark_s: float
    #: Buffer in front of the link, bytes (empty when the burst starts).
    buffer_bytes: float
    #: Bits lost: ``max(0, R * min(8B / R, T) - 8S)``.
    lost_bits: float
    #: Bytes lost: ``lost_bits / 8``.
    lost_bytes: float
    #: Share of the burst lost, 0 to 1.
    lost_fraction: float
    #: Share of the burst lost, percent (0 to 100).
    lost_percent: float
    #: Packets lost, ``ceil(lost_bytes / packet_bytes)``; ``None`` when no packet length
    #: was given.
    lost_packets: int | None


def _exact(value: object, path: str, expected: str) -> Fraction:
    """``value`` as an exact fraction, or a :class:`ScenarioError` at ``path`` saying that
    it is not a finite real number (``expected`` says what is)."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, Decimal)):
        raise ScenarioError(f"{value!r} is not a number; expected {expected}", path)
    if isinstance(value, Decimal) and value.is_finite() and abs(value.adjusted()) > 400:
        # Decimal("1e-999999999") is a short string but a Fraction with a billion-digit
        # denominator: refused before it is built.
        raise ScenarioError(f"{value!r} is out of range; expected {expected}", path)
    try:
        if isinstance(value, (numbers.Rational, Decimal)):
            exact = Fraction(value)  # ints, fractions, decimals: exact already
        else:
            # A float (or numpy float) is taken as the decimal it prints as, which is the
            # number its writer meant: 0.01 is 1/100, not 0.01000000000000000020816...
            exact = Fraction(repr(float(value)))
    except (ValueError, OverflowError, ArithmeticError):  # nan, inf
        raise ScenarioError(
            f"{value!r} is not a finite number; expected {expected}", path
        ) from None
    try:
        float(exact)  # results are floats: a value beyond their range is refused here
    except OverflowError:
        raise ScenarioError(f"{value!r} is out of range; expected {expected}", path) from None
    return exact


def _positive(value: object, path: str, what: str) -> Fraction:
    expected = f"a finite number of {what} greater than 0"
    exact = _exact(value, path, expected)
    if exact <= 0:
        raise ScenarioError(f"{value!r} is not greater than 0; expected {expected}", path)
    return exact


def _non_negative(value: object, path: str, what: str) -> Fraction:
    expected = f"a finite number of {what}, 0 or more"
    exact = _exact(value, path, expected)
    if exact < 0:
        raise ScenarioError(f"{value!r} is negative; expected {expected}", path)
    return exact


def _loss(
    rate: Fraction, burst: Fraction, dark: Fraction, buffer: Fraction, packet: Fraction | None
) -> BurstLoss:
    """The model on checked, exact values (bit/s, bytes, seconds, bytes, bytes)."""
    # R * min(8B / R, T) is min(8B, R * T): the burst ends before the link is back, or not.
    arrived_bits = min(8 * burst, rate * dark)
    lost_bits = max(Fraction(0), arrived_bits - 8 * buffer)
    lost_bytes = lost_bits / 8
    return BurstLoss(
        rate_bps=float(rate),
        burst_bytes=float(burst),
        dark_s=float(dark),
        buffer_bytes=float(buffer),
        lost_bits=float(lost_bits),
        lost_bytes=float(lost_bytes),
        lost_fraction=float(lost_bytes / burst),
        lost_percent=float(100 * lost_bytes / burst),
        lost_packets=None if packet is None else math.ceil(lost_bytes / packet),
    )


def burst_loss(
    rate_bps: Number,
    burst_bytes: Number,
    dark_s: Number,
    buffer_bytes: Number,
    packet_bytes: Number | None = None,
) -> BurstLoss:
    """What a burst of ``burst_bytes`` arriving at ``rate_bps`` loses into a link dark
    for ``dark_s`` seconds behind a buffer of ``buffer_bytes``.

    ``rate_bps`` is the rate at which the burst fills the buffer (frame bytes per
    second * 8): on a link of line rate ``C`` carrying back-to-back frames of ``F``
    bytes, ``C * F / (F + 20)`` (preamble, SFD and inter-frame gap never enter the
    buffer). ``packet_bytes``, the mean packet length, gives
    :attr:`BurstLoss.lost_packets`.

    Every argument must be a finite real number (not a bool); ``rate_bps``,
    ``burst_bytes`` and ``packet_bytes`` greater than 0, ``dark_s`` and ``buffer_bytes``
    0 or more. Otherwise raises :class:`~ethersim.errors.ScenarioError` whose ``path``
    is the parameter's name.

    >>> burst_loss(2e9, 10e6, 0.01, 0).lost_percent  # 2.5 MB of 10 MB
    25.0
    """
    return _loss(
        _positive(rate_bps, "rate_bps", "bits per second"),
        _positive(burst_bytes, "burst_bytes", "bytes"),
        _non_negative(dark_s, "dark_s", "seconds"),
        _non_negative(buffer_bytes, "buffer_bytes", "bytes"),
        None if packet_bytes is None else _positive(packet_bytes, "packet_bytes", "bytes"),
    )


def _each(values: object, path: str) -> list[object]:
    if isinstance(values, (str, bytes, bytearray)) or not isinstance(values, Iterable):
        raise ScenarioError(f"{values!r} is not a list of numbers; expected a list", path)
    return list(values)


def burst_loss_curve(
    rates_bps: Iterable[Number],
    buffers_bytes: Iterable[Number],
    burst_bytes: Number,
    dark_s: Number,
    packet_bytes: Number | None = None,
) -> pd.DataFrame:
    """:func:`burst_loss` over a grid of rates and buffers, as a table.

    One row per distinct (rate, buffer) pair, ordered by rate, then buffer, both
    ascending; columns :data:`CURVE_COLUMNS`: ``rate_gbps``, ``buffer_bytes``,
    ``lost_percent``, ``rate_bps``, ``burst_bytes``, ``dark_s``, ``lost_bytes``,
    ``lost_packets`` (nullable integers, all missing when ``packet_bytes`` is not
    given). Bad input raises :class:`~ethersim.errors.ScenarioError` at the parameter's
    name, with the index for an item of a list (``rates_bps[2]``).
    """
    import numpy as np
    import pandas as pd

    rates = sorted(
        {
            _positive(r, f"rates_bps[{i}]", "bits per second")
            for i, r in enumerate(_each(rates_bps, "rates_bps"))
        }
    )
    buffers = sorted(
        {
            _non_negative(s, f"buffers_bytes[{i}]", "bytes")
            for i, s in enumerate(_each(buffers_bytes, "buffers_bytes"))
        }
    )
    burst = _positive(burst_bytes, "burst_bytes", "bytes")
    dark = _non_negative(dark_s, "dark_s", "seconds")
    packet = None if packet_bytes is None else _positive(packet_bytes, "packet_bytes", "bytes")
    rows = [_loss(r, burst, dark, s, packet) for r in rates for s in buffers]

    def floats(values: Iterable[float]) -> np.ndarray[Any, np.dtype[np.float64]]:
        return np.array(list(values), dtype=np.float64)

    return pd.DataFrame(
        {
            "rate_gbps": floats(float(r / 10**9) for r in rates for _ in buffers),
            "buffer_bytes": floats(row.buffer_bytes for row in rows),
            "lost_percent": floats(row.lost_percent for row in rows),
            "rate_bps": floats(row.rate_bps for row in rows),
            "burst_bytes": floats(row.burst_bytes for row in rows),
            "dark_s": floats(row.dark_s for row in rows),
            "lost_bytes": floats(row.lost_bytes for row in rows),
            "lost_packets": pd.array([row.lost_packets for row in rows], dtype="Int64"),
        },
        columns=list(CURVE_COLUMNS),
    )

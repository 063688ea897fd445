"""The EEE performance model for parallel applications: how much longer an application
runs when its links sleep (802.3az Low Power Idle with an idle timeout).

A node makes ``n`` communications of ``S`` bytes on average over a link of bandwidth
``B`` during an application that takes ``T_base`` without EEE. Between two
communications its link is idle for, on average::

    I = T_base / n - 8 S / B                      (seconds; B in bit/s)

Each communication then pays a penalty ``f(I)``: nothing while the gap is shorter than
the timeout ``t`` (the link never sleeps), and a cost that grows towards ``c`` (about a
wake time) as the link has longer to fall asleep::

    f(I) = 0                                  for I <= t
    f(I) = c (1 - exp(-alpha (I - t)))        for I > t

    T = T_base + n f(I)

``c``, ``alpha`` and ``t`` are fitted by least squares to measured or simulated
(``I``, overhead per communication) points, then used to predict other applications from
their profiles (``n``, ``S``, ``T_base``, ``B``).

The mean interval hides the intervals longer than the timeout (the study that proposed
the model named this its weak point), and processes sharing a node break its periodic
assumption. The distribution-aware variant averages ``f`` over the idle intervals a
simulation measured instead of applying it to their mean: ``T = T_base + n E[f(I_k)]``.

Units here: intervals, ``t`` and ``c`` in microseconds, ``alpha`` per microsecond.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ethersim.errors import ScenarioError

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = [
    "EeeModel",
    "Fit",
    "fit_distribution",
    "fit_gaps",
    "fit_mean_interval",
    "gaps_penalty_us",
    "idle_interval_us",
    "penalty_us",
]


@dataclass(frozen=True)
class EeeModel:
    """The model's parameters."""

    #: The penalty a communication approaches after a long idle interval, us.
    c_us: float
    #: How fast the penalty approaches ``c`` as the interval grows past ``t``, per us.
    alpha_per_us: float
    #: The idle interval below which a communication pays nothing (the timeout), us.
    t_us: float

    def penalty_us(self, interval_us: ArrayLike) -> NDArray[np.float64]:
        """``f(I)`` for each interval (us)."""
        return penalty_us(interval_us, self.c_us, self.alpha_per_us, self.t_us)

    def elapsed_s(
        self, t_base_s: float, communications: float, mean_bytes: float, bandwidth_bps: float
    ) -> float:
        """Predicted elapsed time with EEE (the mean-interval model), s."""
        interval = idle_interval_us(t_base_s, communications, mean_bytes, bandwidth_bps)
        return t_base_s + communications * float(self.penalty_us(interval)) * 1e-6

    def elapsed_from_intervals_s(
        self, t_base_s: float, communications: float, intervals_us: ArrayLike
    ) -> float:
        """Predicted elapsed time with EEE from measured idle intervals (the
        distribution-aware model: ``f`` averaged over them), s."""
        mean_penalty = float(np.mean(self.penalty_us(intervals_us)))
        return t_base_s + communications * mean_penalty * 1e-6


def gaps_penalty_us(model: EeeModel, gap_us: ArrayLike, per_communication: ArrayLike) -> float:
    """The distribution-aware overhead per communication: ``f`` summed over measured idle
    gaps, each weighted by how many such gaps a node has per communication (us)."""
    return float(np.sum(np.asarray(per_communication, dtype=float) * model.penalty_us(gap_us)))


def penalty_us(
    interval_us: ArrayLike, c_us: float, alpha_per_us: float, t_us: float
) -> NDArray[np.float64]:
    """``f(I) = c (1 - exp(-alpha (I - t)))`` for ``I > t``, else 0 (all in us)."""
    past = np.maximum(np.asarray(interval_us, dtype=float) - t_us, 0.0)
    return np.asarray(c_us * -np.expm1(-alpha_per_us * past), dtype=float)


def idle_interval_us(
    t_base_s: float, communications: float, mean_bytes: float, bandwidth_bps: float
) -> float:
    """The mean idle interval between communications, ``T_base / n - 8 S / B``, in us.

    Raises :class:`ScenarioError` for a profile that has none (no communications, no
    bandwidth, or more bytes than the time could carry)."""
    if not communications > 0:
        raise ScenarioError(
            f"{communications} communications; expected more than 0", "communications"
        )
    if not bandwidth_bps > 0:
        raise ScenarioError(f"{bandwidth_bps} b/s; expected a bandwidth above 0", "bandwidth_bps")
    if not (t_base_s >= 0 and mean_bytes >= 0):
        raise ScenarioError("times and sizes must not be negative", "t_base_s")
    interval = (t_base_s / communications - 8.0 * mean_bytes / bandwidth_bps) * 1e6
    if interval < 0:
        raise ScenarioError(
            f"the profile's communications need more than its time ({interval:.3f} us of idle "
            "per communication); expected T_base / n >= 8 S / B",
            "t_base_s",
        )
    return interval


@dataclass(frozen=True)
class Fit:
    """A fitted model and how well it fits its points."""

    model: EeeModel
    #: Root mean square of the residuals (overhead per communication), us.
    rms_us: float
    #: Points fitted.
    points: int


def _best_fit(residuals: object, starts: Sequence[tuple[float, float, float]], points: int) -> Fit:
    """Least squares from each start (``t`` is a threshold: the cost is not smooth in it,
    so several starts are tried); the best, deterministically (first of equals)."""
    from scipy.optimize import least_squares

    best = None
    for x0 in starts:
        r = least_squares(
            residuals,  # type: ignore[arg-type]
            x0=np.asarray(x0, dtype=float),
            bounds=([0.0, 1e-12, 0.0], [np.inf, np.inf, np.inf]),
            method="trf",
        )
        if best is None or r.cost < best.cost:
            best = r
    assert best is not None
    c, alpha, t = (float(v) for v in best.x)
    rms = float(np.sqrt(2.0 * best.cost / points)) if points else 0.0
    return Fit(EeeModel(c, alpha, t), rms, points)


def _starts(
    intervals: NDArray[np.float64], overheads: NDArray[np.float64]
) -> list[tuple[float, float, float]]:
    c0 = float(max(overheads.max(), 1e-9))
    span = float(max(intervals.max() - intervals.min(), 1e-9))
    ts = np.quantile(intervals, [0.0, 0.1, 0.25, 0.5, 0.75])
    return [(c0, a, float(t)) for t in ts for a in (1.0 / span, 10.0 / span, 100.0 / span)]


def _check_points(
    intervals: ArrayLike, overheads: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    i = np.asarray(intervals, dtype=float)
    o = np.asarray(overheads, dtype=float)
    if i.shape != o.shape or i.ndim != 1:
        raise ScenarioError("expected as many overheads as intervals, one each", "points")
    if len(i) < 3:
        raise ScenarioError(
            f"{len(i)} points; the model has 3 parameters, give at least 3", "points"
        )
    if not (np.isfinite(i).all() and np.isfinite(o).all()):
        raise ScenarioError("every interval and overhead must be a finite number", "points")
    return i, o


def fit_mean_interval(intervals_us: ArrayLike, overheads_us: ArrayLike) -> Fit:
    """Fits ``c``, ``alpha`` and ``t`` to (mean idle interval, overhead per communication)
    points, both in us."""
    i, o = _check_points(intervals_us, overheads_us)

    def residuals(x: NDArray[np.float64]) -> NDArray[np.float64]:
        return penalty_us(i, x[0], x[1], x[2]) - o

    return _best_fit(residuals, _starts(i, o), len(i))


def fit_distribution(intervals_us: Sequence[ArrayLike], overheads_us: ArrayLike) -> Fit:
    """Fits the distribution-aware variant: each point's overhead per communication
    against ``f`` averaged over that point's measured idle intervals (us)."""
    o = np.asarray(overheads_us, dtype=float)
    samples = [np.asarray(s, dtype=float) for s in intervals_us]
    if len(samples) != len(o):
        raise ScenarioError("expected one set of intervals per overhead", "points")
    if any(len(s) == 0 or not np.isfinite(s).all() for s in samples):
        raise ScenarioError("every point needs finite measured intervals", "points")
    means = np.array([s.mean() for s in samples])
    _check_points(means, o)

    def residuals(x: NDArray[np.float64]) -> NDArray[np.float64]:
        means = np.array([penalty_us(s, x[0], x[1], x[2]).mean() for s in samples], dtype=float)
        return np.asarray(means - o, dtype=float)

    return _best_fit(residuals, _starts(np.concatenate(samples), o), len(o))


def fit_gaps(gaps: Sequence[tuple[ArrayLike, ArrayLike]], overheads_us: ArrayLike) -> Fit:
    """Fits the distribution-aware variant to points whose idle gaps were measured as a
    histogram: each point is (gap values in us, gaps of each value per communication), and
    its overhead per communication is modelled as ``sum(w f(gap))`` (so a node that idles
    once per several communications pays once)."""
    o = np.asarray(overheads_us, dtype=float)
    values = [np.asarray(v, dtype=float) for v, _ in gaps]
    weights = [np.asarray(w, dtype=float) for _, w in gaps]
    if len(values) != len(o):
        raise ScenarioError("expected one set of gaps per overhead", "points")
    for v, w in zip(values, weights, strict=True):
        if v.shape != w.shape or v.ndim != 1:
            raise ScenarioError("expected one weight per gap value", "points")
        if not (np.isfinite(v).all() and np.isfinite(w).all() and (w >= 0).all()):
            raise ScenarioError("gaps and weights must be finite; weights not negative", "points")
    # A point with no gap at all has no penalty whatever the model: its mean is 0.
    means = np.array(
        [
            float(np.average(v, weights=w)) if w.sum() > 0 else 0.0
            for v, w in zip(values, weights, strict=True)
        ]
    )
    _check_points(means, o)

    def residuals(x: NDArray[np.float64]) -> NDArray[np.float64]:
        model = EeeModel(x[0], x[1], x[2])
        pred = [gaps_penalty_us(model, v, w) for v, w in zip(values, weights, strict=True)]
        return np.asarray(np.asarray(pred, dtype=float) - o, dtype=float)

    every = np.concatenate([v for v in values if len(v)]) if any(len(v) for v in values) else means
    return _best_fit(residuals, _starts(every, o), len(o))

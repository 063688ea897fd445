"""Statistics over replications: mean, standard deviation and the 95% confidence
interval of the mean (Student t), for the results database and the tables that
``reproduce`` writes."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Summary", "summarize", "t_quantiles"]


def t_quantiles(max_df: int) -> list[float]:
    """The 97.5% quantile of Student's t for 1 to ``max_df`` degrees of freedom."""
    import numpy as np
    from scipy.stats import t

    quantiles = np.asarray(t.ppf(0.975, np.arange(1, max_df + 1)), dtype=float)
    return [float(q) for q in quantiles]


@dataclass(frozen=True)
class Summary:
    """Mean, sample standard deviation and 95% confidence half-width of ``n`` values
    (std and half-width are NaN for fewer than two)."""

    n: int
    mean: float
    std: float
    ci95: float


def summarize(values: Sequence[float]) -> Summary:
    """The :class:`Summary` of ``values`` (Student t interval of the mean)."""
    from scipy.stats import t

    n = len(values)
    if n == 0:
        return Summary(0, math.nan, math.nan, math.nan)
    mean = math.fsum(values) / n
    if n < 2:
        return Summary(n, mean, math.nan, math.nan)
    std = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    return Summary(n, mean, std, float(t.ppf(0.975, n - 1)) * std / math.sqrt(n))

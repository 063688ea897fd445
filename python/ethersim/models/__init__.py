"""Analytic models beside the simulator: closed forms a user can evaluate directly, and
the oracles the simulator's tests check it against.

- :mod:`ethersim.models.burst`: what a burst loses into a link that is dark while
  it switches rate.
- :mod:`ethersim.models.eee_perf`: how much longer a parallel application runs when its
  links sleep (the EEE performance model, mean-interval and distribution-aware).
"""

from __future__ import annotations

from ethersim.models.burst import (
    CURVE_COLUMNS,
    BurstLoss,
    Number,
    burst_loss,
    burst_loss_curve,
)

__all__ = ["CURVE_COLUMNS", "BurstLoss", "Number", "burst_loss", "burst_loss_curve"]

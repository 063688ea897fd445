"""Evaluators of the published findings of `ethersim reproduce eee-pingpong` (see
studies/published/eee-pingpong.toml): each computes, from the reproduction's own table
(``eee_pingpong.csv``, one row per direction and send interval), the quantity a finding
states.

The thresholds a finding is judged by (the 1 ms timeout the paper names, its "nearly
zero", Tw) are given in the finding's ``where``, so that each evaluator reads only the
reproduction's table and the finding.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ethersim.studies import eee_pingpong as study
from ethersim.studies.contract import Findings, Outcome

__all__ = ["EVALUATORS", "FINDINGS"]


def _f(where: Mapping[str, Any], key: str, default: float) -> float:
    return float(where.get(key, default))


def _pingers(t: pd.DataFrame) -> list[int]:
    return sorted(int(p) for p in t.pinger.unique())


def _below(t: pd.DataFrame, where: Mapping[str, Any]) -> pd.DataFrame:
    """Rows whose send interval is shorter than the timeout the paper names."""
    return t[t.interval_ms < _f(where, "timeout_ms", 1.0) - 1e-9]


def _onset_ms(rows: pd.DataFrame, near_zero_us: float) -> float | None:
    """The smallest interval whose response delay exceeds ``near_zero_us``."""
    woke = rows[rows.response_delay_us > near_zero_us].sort_values("interval_ms")
    return None if woke.empty else float(woke.interval_ms.iloc[0])


def _max_abs_below(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Largest |response delay| over every interval shorter than the timeout, both
    directions."""
    rows = _below(rep.table, where)
    if rows.empty:
        return Outcome(comparable=False, text="the grid has no interval below the timeout")
    return Outcome(value=float(rows.response_delay_us.abs().max()))


def _response_delay(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """The response delay at ``where['interval_ms']``, the mean of both directions (the
    paper reads one level off both lines of Fig. 3)."""
    t = rep.table
    rows = t[(t.interval_ms - float(where["interval_ms"])).abs() < 1e-9]
    if rows.empty:
        return Outcome(comparable=False, text=f"the grid has no {where['interval_ms']} ms interval")
    return Outcome(value=float(rows.response_delay_us.mean()))


def _onset(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """The smallest interval whose delay exceeds the "nearly zero" bound, the mean of
    both directions' onsets."""
    near_zero = _f(where, "near_zero_us", 10.0)
    onsets = [_onset_ms(rep.table[rep.table.pinger == p], near_zero) for p in _pingers(rep.table)]
    found = [o for o in onsets if o is not None]
    if len(found) != len(onsets) or not found:
        return Outcome(comparable=False, text=f"no interval's delay exceeds {near_zero:g} us")
    return Outcome(value=sum(found) / len(found))


def _jump(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if, in each direction, the delay at the first interval above the timeout
    whose delay exceeds the "nearly zero" bound, less the mean delay below the timeout,
    is "dozens" of microseconds (``jump_min_us`` to ``jump_max_us``, 20 to 100), and the
    grid interval just before it is still nearly zero (a sudden rise, not a ramp)."""
    near_zero = _f(where, "near_zero_us", 10.0)
    lo, hi = _f(where, "jump_min_us", 20.0), _f(where, "jump_max_us", 100.0)
    timeout = _f(where, "timeout_ms", 1.0)
    parts, holds = [], True
    for p in _pingers(rep.table):
        rows = rep.table[rep.table.pinger == p].sort_values("interval_ms")
        base = _below(rows, where)
        above = rows[(rows.interval_ms > timeout + 1e-9) & (rows.response_delay_us > near_zero)]
        if base.empty or above.empty:
            return Outcome(comparable=False, text=f"host {p}: no rise above the timeout")
        first = above.iloc[0]
        before = rows[rows.interval_ms < first.interval_ms]
        sudden = not before.empty and float(before.response_delay_us.iloc[-1]) <= near_zero
        jump = float(first.response_delay_us) - float(base.response_delay_us.mean())
        holds = holds and sudden and lo <= jump <= hi
        prev = f"{float(before.interval_ms.iloc[-1]):g} ms" if not before.empty else "none"
        parts.append(
            f"host {p}: +{jump:.1f} us at {float(first.interval_ms):g} ms "
            f"(previous grid interval {prev}: "
            f"{float(before.response_delay_us.iloc[-1]) if not before.empty else 0:.1f} us)"
        )
    return Outcome(holds=holds, text="; ".join(parts) + f"; 'dozens' read as {lo:g}-{hi:g} us")


def _beyond_tw(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if some intervals above the timeout have a delay over Tw + 1 us, and all
    of them lie where a request can meet a sleep in progress: timeout < interval <=
    timeout + (Ts + Tw + 100 us)."""
    timeout = _f(where, "timeout_ms", 1.0)
    tw, ts = _f(where, "tw_us", 60.0), _f(where, "ts_us", 182.0)
    edge = timeout + (ts + tw + 100.0) / 1000
    rows = rep.table[rep.table.interval_ms > timeout + 1e-9]
    if rows.empty:
        return Outcome(comparable=False, text="the grid has no interval above the timeout")
    over = rows[rows.response_delay_us > tw + 1.0]
    inside = bool((over.interval_ms <= edge + 1e-9).all())
    share = len(over) / len(rows)
    text = (
        f"{len(over)} of {len(rows)} (direction, interval) rows above {timeout:g} ms exceed "
        f"Tw + 1 us ({100 * share:.0f}%)"
    )
    if len(over):
        text += (
            f", at {float(over.interval_ms.min()):g} to {float(over.interval_ms.max()):g} ms "
            f"(up to {float(over.response_delay_us.max()):.1f} us); the sleep range ends at "
            f"{edge:g} ms"
        )
    return Outcome(holds=len(over) > 0 and inside, text=text)


def _sleep_range_mean(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Mean delay over intervals timeout < interval <= timeout + Ts (idle gaps that end
    within the sleep after the timeout), both directions."""
    timeout = _f(where, "timeout_ms", 1.0)
    ts = _f(where, "ts_us", 182.0)
    t = rep.table
    rows = t[(t.interval_ms > timeout + 1e-9) & (t.interval_ms <= timeout + ts / 1000 + 1e-9)]
    if rows.empty:
        return Outcome(comparable=False, text="the grid has no interval in the sleep range")
    return Outcome(value=float(rows.response_delay_us.mean()))


def _step_shape(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if, in both directions: every interval below the timeout has |delay| <=
    ``near_zero_us`` and at most one sleep (the one before the first ping); the delay at
    ``long_ms`` is within ``tw_tolerance_us`` of Tw; and every interval from
    ``every_wake_from_ms`` on wakes the link for every ping but the first (which may
    find the link still awake when the pings start on an awake link)."""
    near_zero = _f(where, "near_zero_us", 10.0)
    tw, tol = _f(where, "tw_us", 60.0), _f(where, "tw_tolerance_us", 20.0)
    long_ms, wake_from = _f(where, "long_ms", 4.0), _f(where, "every_wake_from_ms", 1.5)
    t = rep.table
    below = _below(t, where)
    long = t[(t.interval_ms - long_ms).abs() < 1e-9]
    late = t[t.interval_ms >= wake_from - 1e-9]
    if below.empty or long.empty or late.empty:
        return Outcome(comparable=False, text="the grid lacks intervals the test needs")
    quiet = float(below.response_delay_us.abs().max())
    sleeps = int(below.lpi_sleeps.max())
    at_long = [float(v) for v in long.response_delay_us]
    short_wakes = int((late.lpi_wakes < late.pings - 1).sum())
    holds = (
        quiet <= near_zero
        and sleeps <= 1
        and all(abs(v - tw) <= tol for v in at_long)
        and short_wakes == 0
    )
    return Outcome(
        holds=holds,
        text=f"below the timeout: |delay| <= {quiet:.2f} us, at most {sleeps} sleep; at "
        f"{long_ms:g} ms: {', '.join(f'{v:.1f}' for v in at_long)} us; from {wake_from:g} ms "
        f"on, {len(late) - short_wakes} of {len(late)} rows wake for every ping after the first",
    )


EVALUATORS = {
    "max_abs_response_delay_below_timeout_us": _max_abs_below,
    "response_delay_us": _response_delay,
    "delay_onset_interval_ms": _onset,
    "delay_jump_at_timeout_us": _jump,
    "delay_beyond_tw_near_timeout": _beyond_tw,
    "mean_response_delay_in_sleep_range_us": _sleep_range_mean,
    "step_shape": _step_shape,
}
FINDINGS: Findings[study.Reproduction] = Findings("eee-pingpong", EVALUATORS)

"""The CSMA/CD findings' evaluators of delay and offered load (see
:mod:`ethersim.studies.csma_findings`): how long frames wait, against the host count
and the ideal round-robin time (§3.5, Figs. 3-7 to 3-9), and Q, how many hosts hold a
frame ready (§3.3, §3.4)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ethersim.studies import csma as study
from ethersim.studies.contract import Outcome
from ethersim.studies.contract import rows_where as _select
from ethersim.studies.csma_findings_select import (
    LINEAR_R2,
    _curve,
    _fixed,
    _hosts_ready,
    _ideal_ms,
    _lacks,
    _lengths,
    _line,
    _where_text,
)

# --- delay (§3.5, Figs. 3-7 to 3-9) ---------------------------------------------------------


def _linear(rep: study.Reproduction, where: Mapping[str, Any], column: str, what: str) -> Outcome:
    rows = _fixed(_select(rep.table, where))
    if rows.hosts.nunique() < 3:
        return _lacks(rep, f"three host counts at {_where_text(where)}")
    parts, ok = [], True
    for length in _lengths(rows):
        c = _curve(rows, length)
        y = (
            (c.delay_mean_ms - _ideal_ms(c)).to_numpy(dtype=float)
            if column == "paper_excess"
            else c[column].to_numpy(dtype=float)
        )
        slope, r2 = _line(c.hosts.to_numpy(dtype=float), y)
        ok &= slope > 0 and r2 >= LINEAR_R2
        parts.append(f"{length} B: slope {slope:.4g} ms/host, R^2 {r2:.3f}")
    return Outcome(holds=ok, text=f"{what} against hosts: " + "; ".join(parts))


def _delay_mean_linear_in_hosts(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Claim: "The average transmission delay increases linearly with increasing number of
    hosts": per fixed length, a least-squares line of delay_mean_ms over every host count
    run has a positive slope and R^2 >= 0.95. Holds if so for every fixed length."""
    return _linear(rep, where, "delay_mean_ms", "mean delay")


def _delay_std_linear_in_hosts(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Claim: "The standard deviation of the packet delay ... increases linearly with number
    of hosts": as delay-increases-linearly-with-hosts, with delay_std_ms."""
    return _linear(rep, where, "delay_std_ms", "std of delay")


def _paper_excess_delay_linear_in_hosts(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> Outcome:
    """The paper's excess delay (the mean delay less the ideal time for every host to
    send one packet, hosts · bits per frame / 10 Mb/s; not csma.csv's excess_delay_ms)
    "increases linearly with increasing number of hosts": the same line test."""
    return _linear(rep, where, "paper_excess", "mean delay less hosts · frame time")


def _delay_mean_over_round_robin(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Claim: "For each packet a host sends, it waits while N-1 other packets are sent": in the
    selected fixed-length cells with 8 hosts or more, delay_mean_ms over the time for
    every host to send one packet (its own included) lies in [0.9, 1.2] (up to the
    collision overhead of the paper's least efficient curve, 85%: 1/0.85 = 1.18)."""
    rows = _fixed(_select(rep.table, where))
    rows = rows[rows.hosts >= 8]
    if rows.empty:
        return _lacks(rep, f"cell with 8 hosts or more at {_where_text(where)}")
    ratio = (rows.delay_mean_ms / _ideal_ms(rows)).to_numpy(dtype=float)
    lo, hi = int(ratio.argmin()), int(ratio.argmax())
    out = int(((ratio < 0.9) | (ratio > 1.2)).sum())
    a, b = rows.iloc[lo], rows.iloc[hi]
    return Outcome(
        holds=out == 0,
        text=(
            f"delay / (hosts · frame time) from {ratio[lo]:.3f} ({a.length} B, {int(a.hosts)} "
            f"hosts) to {ratio[hi]:.3f} ({b.length} B, {int(b.hosts)} hosts); "
            f"{out} of {len(ratio)} cells outside [0.9, 1.2]"
        ),
    )


def _max_delay_std_to_mean_ratio(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """The largest delay_std_ms / delay_mean_ms over the selected fixed-length cells
    (the row it comes from is in the text)."""
    rows = _fixed(_select(rep.table, where))
    rows = rows[rows.delay_mean_ms > 0]
    if rows.empty:
        return _lacks(rep, f"cell at {_where_text(where)}")
    ratio = (rows.delay_std_ms / rows.delay_mean_ms).to_numpy(dtype=float)
    top = rows.iloc[int(ratio.argmax())]
    return Outcome(
        value=float(ratio.max()),
        text=f"at {top.length} B, {int(top.hosts)} hosts",
    )


def _one_cell(rep: study.Reproduction, where: Mapping[str, Any]) -> pd.DataFrame | Outcome:
    rows = _select(rep.table, where)
    if len(rows) != 1:
        return _lacks(rep, f"cell at {_where_text(where)}")
    return rows


def _delay_mean_ms(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """delay_mean_ms of the one selected cell."""
    rows = _one_cell(rep, where)
    if isinstance(rows, Outcome):
        return rows
    return Outcome(value=float(rows.delay_mean_ms.iloc[0]))


def _paper_excess_delay_ms(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """The paper's excess delay of the one selected cell: delay_mean_ms less hosts ·
    bits per frame / 10 Mb/s, ms."""
    rows = _one_cell(rep, where)
    if isinstance(rows, Outcome):
        return rows
    return Outcome(value=float((rows.delay_mean_ms - _ideal_ms(rows)).iloc[0]))


def _utilization_percent(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """100 · utilization of the one selected cell."""
    rows = _one_cell(rep, where)
    if isinstance(rows, Outcome):
        return rows
    return Outcome(value=100 * float(rows.utilization.iloc[0]))


def _min_utilization_percent(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """100 · the smallest utilization over the selected cells with 2 hosts or more."""
    rows = _select(rep.table, where)
    rows = rows[rows.hosts >= 2]
    if rows.empty:
        return _lacks(rep, f"cell with 2 hosts or more at {_where_text(where)}")
    return Outcome(value=100 * float(rows.utilization.min()))


# --- offered load (§3.3, §3.4) --------------------------------------------------------------


def _underloaded_at_one_host(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Claim: "When N and the packet size are both small, we could not generate packets fast
    enough to overload the network, so Q is less than one": holds if in every selected
    cell Q (the mean number of hosts with a frame ready, see :func:`_hosts_ready`) is
    below 1; the utilization is reported beside."""
    rows = _select(rep.table, where)
    if rows.empty:
        return _lacks(rep, f"cell at {_where_text(where)}")
    q = _hosts_ready(rep, rows).to_numpy(dtype=float)
    used = rows.utilization.to_numpy(dtype=float)
    shown = "; ".join(
        f"{layout} net: Q {qi:.2f}, utilization {100 * ui:.1f}%"
        for layout, qi, ui in zip(rows.layout, q, used, strict=True)
    )
    return Outcome(holds=bool((q < 1).all()), text=shown)


def _hosts_ready_near_n(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Claim: "For large N or for large packet sizes, the network is the bottleneck, and Q
    (offered load) is approximately equal to N": over the selected cells with 8 hosts or
    more, or of a fixed length of 1024 bytes or more, Q / N is at least 0.9 (Q: the mean
    number of hosts with a frame ready, see :func:`_hosts_ready`)."""
    rows = _select(rep.table, where)
    length = pd.to_numeric(rows.length, errors="coerce")  # a mix: NaN
    rows = rows[(rows.hosts >= 8) | (length >= 1024)]
    if rows.empty:
        return _lacks(rep, "cell with 8 hosts or more or 1024-byte frames or longer")
    share = (_hosts_ready(rep, rows) / rows.hosts).to_numpy(dtype=float)
    low = rows.iloc[int(share.argmin())]
    out = int((share < 0.9).sum())
    return Outcome(
        holds=out == 0,
        text=(
            f"Q/N from {share.min():.3f} ({low.layout} net, {low.length} B, "
            f"{int(low.hosts)} hosts) up; {out} of {len(share)} cells below 0.9"
        ),
    )


def _receiver_not_run(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """The pair test of §3.4 (one host sending to another, the receiver's keeping up)."""
    return Outcome(
        comparable=False,
        text=(
            "the study runs no sender-receiver pair: its hosts address frames to "
            "themselves, as the paper's did after this test (§3.4)"
        ),
    )

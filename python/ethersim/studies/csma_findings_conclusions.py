"""The CSMA/CD findings' evaluators of the paper's conclusions (abstract, §2.5, §5; see
:mod:`ethersim.studies.csma_findings`): nominal bandwidth, fair allocation, the 37%
myth and the sensitivity to packet size and collision detection time, some of them
built on the evaluators of the rates and the layouts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ethersim.studies import csma as study
from ethersim.studies.contract import Outcome
from ethersim.studies.contract import rows_where as _select
from ethersim.studies.csma_findings_layouts import _short_net_bit_rate_at_least_long
from ethersim.studies.csma_findings_rates import (
    _bit_rate_increasing_in_length,
    _bit_rate_std_decreasing_in_hosts,
)
from ethersim.studies.csma_findings_select import _fixed, _lacks

# --- conclusions (abstract, §2.5, §5) -------------------------------------------------------


def _near_nominal_bandwidth(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Claim: "Ethernet is capable of carrying its nominal bandwidth of useful traffic": over
    the selected cells of fixed lengths of 1024 bytes or more with 2 hosts or more, the
    utilization is at least 95% (the paper's own example is about 97% for 1536-byte
    frames and 24 hosts)."""
    rows = _fixed(_select(rep.table, where))
    rows = rows[(rows.length.astype(int) >= 1024) & (rows.hosts >= 2)]
    if rows.empty:
        return _lacks(rep, "fixed length of 1024 bytes or more")
    low = rows.iloc[int(rows.utilization.to_numpy().argmin())]
    return Outcome(
        holds=bool((rows.utilization >= 0.95).all()),
        text=(
            f"utilization at least {100 * low.utilization:.1f}% ({low.length} B, "
            f"{int(low.hosts)} hosts) over {len(rows)} cells"
        ),
    )


def _fair_allocation(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Claim: "Allocates the bandwidth fairly": at every host count from 16, the mean over
    fixed lengths of bit_rate_std_percent is at most 25% (the paper's "about 20% of
    mean" at 20 hosts, with its tolerance), and fairness-increases-with-hosts holds."""
    rows = _fixed(_select(rep.table, where))
    rows = rows[rows.hosts >= 16]
    if rows.empty:
        return _lacks(rep, "cell with 16 hosts or more")
    means = rows.groupby("hosts").bit_rate_std_percent.mean()
    trend = _bit_rate_std_decreasing_in_hosts(rep, where)
    worst = int(means.index.to_numpy()[int(means.to_numpy().argmax())])
    holds = bool((means <= 25).all()) and bool(trend.holds)
    return Outcome(
        holds=holds,
        text=(
            f"largest mean std of per-host bit rate from 16 hosts: {means[worst]:.1f}% at "
            f"{worst} hosts; fairness rises with hosts: {'yes' if trend.holds else 'no'}"
        ),
    )


def _min_utilization_above_37_percent(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Claim: "Ethernets saturate at an offered load of 37%" is a myth: holds if the smallest
    utilization over the selected cells with 2 hosts or more is above 37%. Reported
    beside: the smallest simulated bit rate less the Metcalfe-Boggs estimate with 8
    hosts or more (context, not the verdict)."""
    rows = _select(rep.table, where)
    rows = rows[rows.hosts >= 2]
    if rows.empty:
        return _lacks(rep, "cell with 2 hosts or more")
    low = rows.iloc[int(rows.utilization.to_numpy().argmin())]
    text = (
        f"lowest utilization {100 * low.utilization:.1f}% ({low.layout} net, {low.length} B, "
        f"{int(low.hosts)} hosts)"
    )
    many = rows[rows.hosts >= 8]
    if len(many):
        text += (
            "; simulated - Metcalfe-Boggs from 8 hosts at least "
            f"{(many.bit_rate_mbps - many.metcalfe_boggs_mbps).min():+.3f} Mb/s"
        )
    return Outcome(holds=bool(low.utilization > 0.37), text=text)


def _sensitivity_to_length_and_round_trip(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> Outcome:
    """Claim: "The performance of CSMA/CD is sensitive to packet size and the time it takes to
    detect a collision": holds if bit-rate-increases-with-length (long net) and
    short-net-more-efficient both hold."""
    length = _bit_rate_increasing_in_length(rep, {"layout": "long"})
    detect = _short_net_bit_rate_at_least_long(rep, {"layout": ["short", "long"]})
    if not length.comparable or not detect.comparable:
        return Outcome(comparable=False, text=length.text if not length.comparable else detect.text)
    return Outcome(
        holds=bool(length.holds) and bool(detect.holds),
        text=(
            f"bit rate rises with length: {'yes' if length.holds else 'no'}; short net "
            f"carries more: {'yes' if detect.holds else 'no'} ({detect.text})"
        ),
    )

"""Evaluators of the capacity-scaling findings about the single flow (§6.1 of the paper, at
small and at large RTT), each from the reproduction's table (``rep.table``); listed in
:data:`ethersim.studies.capacity_scaling_findings.EVALUATORS`."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ethersim.studies import capacity_scaling as study
from ethersim.studies.capacity_scaling_findings_select import (
    _cell,
    _each,
    _first,
    _grid_name,
    _last,
    _NotRun,
    _select,
    _spearman,
)
from ethersim.studies.contract import Outcome

#: TCP's payload ceiling on a 10 Mb/s Ethernet link: 1460 B of 1538 line bytes.
PAYLOAD_CEILING_MBPS = study.MAX_MBPS * 1460 / 1538


# --- §6.1, single flow, small RTT --------------------------------------------------------


def _no_saving_no_degradation(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if every selected cell has service_rate_reduction_percent < 5 (under half a
    1-Mb/s step: 'no significant energy saving') and throughput_reduction_percent < 2
    ('no QoS degradation')."""
    rows = _select(rep, where)
    ok = (rows.service_rate_reduction_percent < 5) & (rows.throughput_reduction_percent < 2)
    text = "; ".join(
        f"{_cell(r)}: service rate {r.service_rate_reduction_percent:.1f}% below 10 Mb/s, "
        f"throughput reduction {r.throughput_reduction_percent:.1f}%"
        for r in _each(rows)
    )
    return Outcome(holds=bool(ok.all()), text=text)


def _throughput_reduction_near_zero(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if in every selected cell |throughput_reduction_percent| < 2 or its 95%
    interval includes 0 ('almost zero')."""
    rows = _select(rep, where)
    r, ci = rows.throughput_reduction_percent, rows.throughput_reduction_ci_percent.fillna(0)
    ok = (r.abs() < 2) | (r.abs() <= ci)
    text = "; ".join(
        f"{_cell(x)}: {x.throughput_reduction_percent:.1f} ± "
        f"{0 if math.isnan(x.throughput_reduction_ci_percent) else x.throughput_reduction_ci_percent:.1f}%"  # noqa: E501
        for x in _each(rows)
    )
    return Outcome(holds=bool(ok.all()), text=f"throughput reduction {text}")


def _loss_pc_near_nopc(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if in every selected cell |loss_percent_pc - loss_percent_nopc| <=
    max(0.1 point, 20% of loss_percent_nopc) ('almost the same')."""
    rows = _select(rep, where)
    gap = (rows.loss_percent_pc - rows.loss_percent_nopc).abs()
    ok = gap <= np.maximum(0.1, 0.2 * rows.loss_percent_nopc)
    text = "; ".join(
        f"{_cell(r)}: loss {r.loss_percent_pc:.2f}% with power control, "
        f"{r.loss_percent_nopc:.2f}% without"
        for r in _each(rows)
    )
    return Outcome(holds=bool(ok.all()), text=text)


def _slight_reduction_and_degradation(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if in every selected cell service_rate_reduction_percent and
    throughput_reduction_percent are > 0 and below those of the cell at RTT
    ``against_rtt_ms`` with the same mRCI ('small', 'slight': against the large RTT)."""
    rows = _select(rep, where)
    against = _select(
        rep,
        {
            "setting": where["setting"],
            "rtt_ms": where["against_rtt_ms"],
            "mrci_ms": where["mrci_ms"],
        },
    )
    ok, parts = True, []
    for r in _each(rows):
        big = against[np.isclose(against.mrci_ms, r.mrci_ms)].pipe(_first)
        good = (
            0 < r.service_rate_reduction_percent < big.service_rate_reduction_percent
            and 0 < r.throughput_reduction_percent < big.throughput_reduction_percent
        )
        ok = ok and good
        parts.append(
            f"{_cell(r)}: service rate -{r.service_rate_reduction_percent:.1f}% "
            f"(RTT {big.rtt_ms:g} ms: -{big.service_rate_reduction_percent:.1f}%), "
            f"throughput -{r.throughput_reduction_percent:.1f}% "
            f"(RTT {big.rtt_ms:g} ms: -{big.throughput_reduction_percent:.1f}%)"
        )
    return Outcome(holds=ok, text="; ".join(parts))


def _rate_changes_decreasing_in_mrci(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Cells ordered by mRCI: holds if rate_changes never increases with mRCI and at the
    largest mRCI is at most a tenth of its value at the smallest ('disappear')."""
    rows = _select(rep, where).sort_values("mrci_ms")
    if rows.mrci_ms.nunique() < 2:
        raise _NotRun(f"the {_grid_name(rep)} runs one mRCI only here")
    rc = rows.rate_changes.to_numpy(dtype=float)
    ok = bool(np.all(np.diff(rc) <= 0) and rc[-1] <= rc[0] / 10)
    text = "rate changes per run by mRCI: " + ", ".join(
        f"{r.mrci_ms:g} ms: {r.rate_changes:.0f}" for r in _each(rows)
    )
    return Outcome(holds=ok, text=text)


def _converges_to_no_pc_in_mrci(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Cells ordered by mRCI: holds if mean_service_rate_mbps never decreases and
    |throughput_reduction_percent| never increases from one mRCI to the next, a step
    within the two cells' 95% half-widths counting as a tie."""
    rows = _select(rep, where).sort_values("mrci_ms")
    if rows.mrci_ms.nunique() < 2:
        raise _NotRun(f"the {_grid_name(rep)} runs one mRCI only here")
    ok = True
    rs = list(_each(rows))
    for a, b in itertools.pairwise(rs):
        slack_s = np.nan_to_num(a.mean_service_rate_ci_mbps) + np.nan_to_num(
            b.mean_service_rate_ci_mbps
        )
        slack_t = np.nan_to_num(a.throughput_reduction_ci_percent) + np.nan_to_num(
            b.throughput_reduction_ci_percent
        )
        ok = ok and b.mean_service_rate_mbps >= a.mean_service_rate_mbps - slack_s
        ok = ok and abs(b.throughput_reduction_percent) <= abs(a.throughput_reduction_percent) + (
            slack_t
        )
    text = "by mRCI: " + "; ".join(
        f"{r.mrci_ms:g} ms: service {r.mean_service_rate_mbps:.2f} Mb/s, throughput "
        f"-{r.throughput_reduction_percent:.1f}%"
        for r in rs
    )
    return Outcome(holds=bool(ok), text=text)


# --- §6.1, single flow, large RTT --------------------------------------------------------


def _rate_changes_increasing_in_rtt(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if, for every mRCI, rate_changes at RTT ``large_rtt_ms`` exceeds that at RTT
    ``small_rtt_ms``; reports the Spearman correlation with RTT per mRCI beside."""
    small = _select(rep, {**where, "rtt_ms": where["small_rtt_ms"]})
    large = _select(rep, {**where, "rtt_ms": where["large_rtt_ms"]})
    rows = _select(rep, where)
    ok, parts = True, []
    for s in _each(small):
        big = large[np.isclose(large.mrci_ms, s.mrci_ms)]
        if big.empty:
            continue
        b = big.pipe(_first)
        ok = ok and b.rate_changes > s.rate_changes
        g = rows[np.isclose(rows.mrci_ms, s.mrci_ms)]
        rho = _spearman(list(g.rtt_ms), list(g.rate_changes))
        parts.append(
            f"mRCI {s.mrci_ms:g} ms: {s.rate_changes:.0f} at RTT {s.rtt_ms:g} ms, "
            f"{b.rate_changes:.0f} at {b.rtt_ms:g} ms (Spearman with RTT {rho:+.2f})"
        )
    return Outcome(holds=bool(ok), text="; ".join(parts))


def _throughput_reduction_higher_at_large_rtt(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> Outcome:
    """Holds if the smallest throughput_reduction_percent over the cells at RTT
    ``large_rtt_ms`` exceeds the largest over the 'previous cases' (RTT ``small_rtt_ms``,
    mRCI in ``small_rtt_mrci_ms``)."""
    large = _select(rep, {**where, "rtt_ms": where["large_rtt_ms"]})
    small = _select(
        rep, {**where, "rtt_ms": where["small_rtt_ms"], "mrci_ms": where["small_rtt_mrci_ms"]}
    )
    lo = large.throughput_reduction_percent.min()
    hi = small.throughput_reduction_percent.max()
    return Outcome(
        holds=bool(lo > hi),
        text=f"throughput reduction at RTT {where['large_rtt_ms']} ms: "
        f"{lo:.1f} to {large.throughput_reduction_percent.max():.1f}%; at RTT "
        f"{where['small_rtt_ms']} ms, mRCI {where['small_rtt_mrci_ms']}: at most {hi:.1f}%",
    )


def _loss_pc_above_nopc(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if loss_percent_pc > loss_percent_nopc in more than half of the selected
    cells and on their mean."""
    rows = _select(rep, where)
    above = int((rows.loss_percent_pc > rows.loss_percent_nopc).sum())
    diff = float((rows.loss_percent_pc - rows.loss_percent_nopc).mean())
    return Outcome(
        holds=above > len(rows) / 2 and diff > 0,
        text=f"loss higher with power control in {above} of {len(rows)} cells; mean "
        f"{rows.loss_percent_pc.mean():.2f}% with, {rows.loss_percent_nopc.mean():.2f}% "
        f"without ({diff:+.2f} points)",
    )


def _throughput_reduction_decreasing_in_mrci(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> Outcome:
    """Holds if throughput_reduction_percent at the smallest mRCI exceeds that at the
    largest and its Spearman correlation with mRCI is negative."""
    rows = _select(rep, where).sort_values("mrci_ms")
    if rows.mrci_ms.nunique() < 2:
        raise _NotRun(f"the {_grid_name(rep)} runs one mRCI only here")
    rho = _spearman(list(rows.mrci_ms), list(rows.throughput_reduction_percent))
    first, last = rows.pipe(_first), rows.pipe(_last)
    ok = first.throughput_reduction_percent > last.throughput_reduction_percent and rho < 0
    text = "throughput reduction by mRCI: " + ", ".join(
        f"{r.mrci_ms:g} ms: {r.throughput_reduction_percent:.1f}%" for r in _each(rows)
    )
    return Outcome(holds=bool(ok), text=f"{text} (Spearman {rho:+.2f})")


def _tcp_below_link_at_large_rtt(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if TCP alone (throughput_nopc_mbps, mean over the selected cells) is below
    90% of the payload ceiling 9.49 Mb/s ('not able to completely exploit') and below its
    mean at RTT ``small_rtt_ms``."""
    rows = _select(rep, where)
    small = _select(rep, {**where, "rtt_ms": where["small_rtt_ms"]})
    big, little = rows.throughput_nopc_mbps.mean(), small.throughput_nopc_mbps.mean()
    ok = big < 0.9 * PAYLOAD_CEILING_MBPS and big < little
    return Outcome(
        holds=bool(ok),
        text=f"TCP alone {big:.2f} Mb/s at RTT {where['rtt_ms']} ms (with power control "
        f"{rows.throughput_pc_mbps.mean():.2f}); {little:.2f} Mb/s at RTT "
        f"{where['small_rtt_ms']} ms; ceiling {PAYLOAD_CEILING_MBPS:.2f} Mb/s",
    )

"""Evaluators of the capacity-scaling findings about trends over the grid (with mRCI, RTT
and bON, §6.2), the bottleneck setting, and the paper's conclusions (§7), each from the
reproduction's table (``rep.table``); listed in
:data:`ethersim.studies.capacity_scaling_findings.EVALUATORS`."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ethersim.studies import capacity_scaling as study
from ethersim.studies.capacity_scaling_findings_select import (
    _cell,
    _each,
    _first,
    _grid_name,
    _groups,
    _guard,
    _last,
    _NotRun,
    _select,
    _spearman,
)
from ethersim.studies.contract import Evaluator, Outcome

# --- trends over the grid ---------------------------------------------------------------


def _per_group_spearman(
    rows: pd.DataFrame, metric: str, against: str, by: Sequence[str]
) -> list[tuple[str, float]]:
    out = []
    for label, g in _groups(rows, by):
        out.append((label, _spearman(list(g[against]), list(g[metric]))))
    return out


def _throughput_reduction_increasing_in_mrci(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> Outcome:
    """Per (setting, RTT, bON or BN): Spearman correlation of
    throughput_reduction_percent with mRCI; holds if positive in more than half of the
    groups."""
    rows = _select(rep, where)
    rhos = _per_group_spearman(
        rows, "throughput_reduction_percent", "mrci_ms", ["setting", "rtt_ms", "b_on_ms", "bn_s"]
    )
    positive = sum(1 for _, r in rhos if r > 0)
    text = f"positive in {positive} of {len(rhos)} groups: " + "; ".join(
        f"{label}: {rho:+.2f}" for label, rho in rhos
    )
    return Outcome(holds=positive > len(rhos) / 2, text=text)


def _service_rate_low_and_decreasing_in_rtt(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> Outcome:
    """Holds if service_rate_reduction_percent >= 10 (a whole rate step: 'substantially')
    in more than half of the selected cells and its Spearman correlation with RTT is
    positive for every mRCI."""
    rows = _select(rep, where)
    if rows.rtt_ms.nunique() < 2:
        raise _NotRun(f"the {_grid_name(rep)} runs one RTT only here")
    low = int((rows.service_rate_reduction_percent >= 10).sum())
    rhos = _per_group_spearman(rows, "service_rate_reduction_percent", "rtt_ms", ["mrci_ms"])
    ok = low > len(rows) / 2 and all(r > 0 for _, r in rhos)
    return Outcome(
        holds=ok,
        text=f"service rate 10% or more below 10 Mb/s in {low} of {len(rows)} cells "
        f"({rows.service_rate_reduction_percent.min():.1f} to "
        f"{rows.service_rate_reduction_percent.max():.1f}%); Spearman with RTT: "
        + "; ".join(f"{label}: {rho:+.2f}" for label, rho in rhos),
    )


def _rate_changes_increasing_in_mrci(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if rate_changes has a positive Spearman correlation with mRCI at every RTT
    and its mean relative rise over mRCI (largest against smallest mRCI, per RTT)
    exceeds its mean relative rise over RTT (largest against smallest RTT, per mRCI)."""
    rows = _select(rep, where)
    rhos = _per_group_spearman(rows, "rate_changes", "mrci_ms", ["rtt_ms"])

    def rise(along: str, per: str) -> float:
        out = []
        for _, g in rows.groupby(per):
            g = g.sort_values(along)
            series = g.rate_changes.to_numpy(dtype=float)
            first, last = float(series[0]), float(series[-1])
            if first > 0:
                out.append(last / first - 1)
        return float(np.mean(out)) if out else math.nan

    by_mrci, by_rtt = rise("mrci_ms", "rtt_ms"), rise("rtt_ms", "mrci_ms")
    ok = all(r > 0 for _, r in rhos) and by_mrci > by_rtt
    return Outcome(
        holds=bool(ok),
        text=f"mean relative change of rate changes from the smallest to the largest mRCI "
        f"{100 * by_mrci:+.0f}%, from the smallest to the largest RTT {100 * by_rtt:+.0f}%; "
        "Spearman with mRCI: " + "; ".join(f"{label}: {rho:+.2f}" for label, rho in rhos),
    )


def _throughput_reduction_increasing_in_rtt(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> Outcome:
    """Holds if throughput_reduction_percent has a positive Spearman correlation with
    RTT for every mRCI and is at least 20% ('huge') in more than half of the cells at
    RTT ``large_rtt_ms``."""
    rows = _select(rep, where)
    large = _select(rep, {**where, "rtt_ms": where["large_rtt_ms"]})
    rhos = _per_group_spearman(rows, "throughput_reduction_percent", "rtt_ms", ["mrci_ms"])
    huge = int((large.throughput_reduction_percent >= 20).sum())
    ok = all(r > 0 for _, r in rhos) and huge > len(large) / 2
    return Outcome(
        holds=ok,
        text=f"throughput reduction at RTT {where['large_rtt_ms']} ms: "
        f"{large.throughput_reduction_percent.min():.1f} to "
        f"{large.throughput_reduction_percent.max():.1f}% (20% or more in {huge} of "
        f"{len(large)}); Spearman with RTT: "
        + "; ".join(f"{label}: {rho:+.2f}" for label, rho in rhos),
    )


def _degradation_text(rows: pd.DataFrame) -> str:
    return "; ".join(
        f"RTT {r.rtt_ms:g} ms: throughput -{r.throughput_reduction_percent:.1f}%, loss "
        f"{r.loss_percent_pc:.2f}% with power control vs {r.loss_percent_nopc:.2f}%"
        for r in _each(rows.sort_values("rtt_ms"))
    )


def _small_mrci_degradation_growing_in_rtt(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> Outcome:
    """Holds if at every RTT throughput_reduction_percent > 0 and loss_percent_pc >
    loss_percent_nopc, and both the throughput reduction and loss_percent_pc are higher
    at the largest RTT than at the smallest ('specially for large values of RTT')."""
    rows = _select(rep, where).sort_values("rtt_ms")
    if rows.rtt_ms.nunique() < 2:
        raise _NotRun(f"the {_grid_name(rep)} runs one RTT only here")
    each = bool(
        (
            (rows.throughput_reduction_percent > 0)
            & (rows.loss_percent_pc > rows.loss_percent_nopc)
        ).all()
    )
    first, last = rows.pipe(_first), rows.pipe(_last)
    grows = (
        last.throughput_reduction_percent > first.throughput_reduction_percent
        and last.loss_percent_pc > first.loss_percent_pc
    )
    return Outcome(holds=bool(each and grows), text=_degradation_text(rows))


def _degradation_in_most_cells(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if throughput_reduction_percent > 0 and loss_percent_pc > loss_percent_nopc
    in more than half of the selected cells."""
    rows = _select(rep, where)
    both = int(
        (
            (rows.throughput_reduction_percent > 0)
            & (rows.loss_percent_pc > rows.loss_percent_nopc)
        ).sum()
    )
    return Outcome(
        holds=both > len(rows) / 2,
        text=f"both in {both} of {len(rows)} cells: {_degradation_text(rows)}",
    )


def _trend_signs(rows: pd.DataFrame) -> dict[str, bool]:
    """The three §6.2 trends of one bON: loss higher with power control in most cells;
    throughput reduction and service-rate reduction rising with RTT for most mRCI."""
    out = {
        "loss higher with power control": bool(
            (rows.loss_percent_pc > rows.loss_percent_nopc).sum() > len(rows) / 2
        )
    }
    for metric, name in (
        ("throughput_reduction_percent", "throughput reduction rising with RTT"),
        ("service_rate_reduction_percent", "service-rate reduction rising with RTT"),
    ):
        rhos = [r for _, r in _per_group_spearman(rows, metric, "rtt_ms", ["mrci_ms"])]
        out[name] = sum(1 for r in rhos if r > 0) > len(rhos) / 2
    return out


def _background_trends_hold_for_all_bon(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> Outcome:
    """The trends of :func:`_trend_signs` at each selected bON against bON
    ``reference_b_on_ms``: holds if each trend agrees with the reference at more than
    half of the bON values."""
    rows = _select(rep, where)
    ref = _select(rep, {"setting": where["setting"], "b_on_ms": where["reference_b_on_ms"]})
    if rows.rtt_ms.nunique() < 2:
        raise _NotRun(f"the {_grid_name(rep)} runs one RTT only here")
    base = _trend_signs(ref)
    agree = dict.fromkeys(base, 0)
    bons = sorted(rows.b_on_ms.unique())
    for b in bons:
        signs = _trend_signs(rows[np.isclose(rows.b_on_ms, b)])
        for k in base:
            agree[k] += signs[k] == base[k]
    ok = all(v > len(bons) / 2 for v in agree.values())
    return Outcome(
        holds=ok,
        text=f"at bON {where['reference_b_on_ms']} ms: "
        + ", ".join(f"{k}: {'yes' if v else 'no'}" for k, v in base.items())
        + f"; same at {', '.join(f'{k} {v} of {len(bons)}' for k, v in agree.items())} "
        f"other bON ({', '.join(f'{b:g}' for b in bons)} ms)",
    )


def _bottleneck_against_background(metric: str, higher: bool) -> Evaluator:
    """Not comparable: the paper's Figure 7 has background traffic (bON 100 ms) on top
    of the bottleneck, ours none. The nearest proxy is reported in the text: per (RTT,
    mRCI), ``metric`` of the bottleneck cells (BN ``bn_s``) against the background cells
    (bON ``b_on_ms``)."""

    def proxy(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
        why = (
            "not run: the paper's Figure 7 case has background traffic (bON 100 ms) on top "
            "of the bottleneck; our bottleneck setting has none"
        )
        try:
            bn = _select(rep, {"setting": "bottleneck", "bn_s": where["bn_s"]})
            bg = _select(rep, {"setting": "background", "b_on_ms": where["b_on_ms"]})
        except _NotRun as e:
            return Outcome(comparable=False, text=f"{why}; and {e}")
        merged = bn.merge(bg, on=["rtt_ms", "mrci_ms"], suffixes=("_bn", "_bg"))
        a, b = merged[f"{metric}_bn"], merged[f"{metric}_bg"]
        wins = int(((a > b) if higher else (a < b)).sum())
        by_rtt = merged.assign(d=a - b).groupby("rtt_ms").d.mean()
        return Outcome(
            comparable=False,
            text=f"{why}. Proxy (bottleneck alone against background alone): "
            f"{metric} {'higher' if higher else 'lower'} with the bottleneck in {wins} of "
            f"{len(merged)} cells; mean difference by RTT: "
            + ", ".join(f"{r:g} ms {d:+.1f}" for r, d in by_rtt.items()),
        )

    proxy.__name__ = f"_bottleneck_{metric}"
    return _guard(proxy)


def _bottleneck_lowers_tcp_rate(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if in every bottleneck cell (every BN) TCP alone (throughput_nopc_mbps) is
    slower than the single flow at the same RTT and mRCI."""
    bn = _select(rep, {**where, "setting": "bottleneck"})
    single = _select(rep, {"setting": "single"})
    merged = bn.merge(single, on=["rtt_ms", "mrci_ms"], suffixes=("_bn", "_single"))
    lower = int((merged.throughput_nopc_mbps_bn < merged.throughput_nopc_mbps_single).sum())
    return Outcome(
        holds=lower == len(merged) and len(merged) > 0,
        text=f"TCP alone slower behind the bottleneck in {lower} of {len(merged)} cells: mean "
        f"{merged.throughput_nopc_mbps_bn.mean():.2f} Mb/s against "
        f"{merged.throughput_nopc_mbps_single.mean():.2f} Mb/s alone",
    )


def _bottleneck_saving_at_a_cost(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if service_rate_reduction_percent > 0, throughput_reduction_percent > 0 and
    loss_percent_pc > loss_percent_nopc each in more than half of the selected
    bottleneck cells, and their mean rate_changes is within a factor 2 of the background
    cells' at bON ``against_b_on_ms`` ('similar')."""
    rows = _select(rep, where)
    bg = _select(rep, {"setting": "background", "b_on_ms": where["against_b_on_ms"]})
    half = len(rows) / 2
    saving = int((rows.service_rate_reduction_percent > 0).sum())
    cost = int((rows.throughput_reduction_percent > 0).sum())
    loss = int((rows.loss_percent_pc > rows.loss_percent_nopc).sum())
    ratio = float(rows.rate_changes.mean() / bg.rate_changes.mean())
    ok = saving > half and cost > half and loss > half and 0.5 <= ratio <= 2
    return Outcome(
        holds=ok,
        text=f"of {len(rows)} cells: saving in {saving}, throughput reduced in {cost}, loss "
        f"higher in {loss}; rate changes {rows.rate_changes.mean():.0f} per run against "
        f"{bg.rate_changes.mean():.0f} with background (x{ratio:.2f}); our bottleneck has "
        "no background traffic, the paper's has",
    )


# --- §7 ---------------------------------------------------------------------------------


def _drastic_degradation_somewhere(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if every setting has a cell with throughput_reduction_percent >= 30
    ('drastic'), leaving out cells where TCP alone is below 1 Mb/s."""
    rows = _select(rep, where)
    rows = rows[rows.throughput_nopc_mbps >= 1]
    ok, parts = True, []
    for setting in study.SETTINGS:
        g = rows[rows.setting == setting]
        if g.empty:
            ok = False
            parts.append(f"{setting}: no cell with TCP alone at 1 Mb/s or more")
            continue
        worst = g.sort_values("throughput_reduction_percent").pipe(_last)
        ok = ok and worst.throughput_reduction_percent >= 30
        parts.append(
            f"{setting}: worst {worst.throughput_reduction_percent:.1f}% at {_cell(worst)}"
        )
    return Outcome(holds=ok, text="; ".join(parts))


def _saving_and_degradation_trends(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Per setting (and bON or BN): Spearman correlations of
    service_rate_reduction_percent and throughput_reduction_percent with RTT (per mRCI)
    and with mRCI (per RTT). Holds if, for both metrics, at least half of the defined
    correlations with RTT are positive and at least half of those with mRCI negative."""
    rows = _select(rep, where)
    group = ["setting", "b_on_ms", "bn_s"]
    shares, ok = [], True
    for metric, name in (
        ("service_rate_reduction_percent", "saving"),
        ("throughput_reduction_percent", "degradation"),
    ):
        for against, per, sign, word in (
            ("rtt_ms", "mrci_ms", 1, "rising with RTT"),
            ("mrci_ms", "rtt_ms", -1, "falling with mRCI"),
        ):
            rhos = [
                r
                for _, g in _groups(rows, group)
                for _, r in _per_group_spearman(g, metric, against, [per])
                if not math.isnan(r)
            ]
            good = sum(1 for r in rhos if sign * r > 0)
            ok = ok and bool(rhos) and good >= len(rhos) / 2
            shares.append(f"{name} {word} in {good} of {len(rhos)}")
    return Outcome(holds=ok, text="; ".join(shares))

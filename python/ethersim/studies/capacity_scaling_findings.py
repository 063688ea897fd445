"""Evaluators of the published findings of `ethersim reproduce capacity-scaling` (see
studies/published/capacity-scaling.toml): each computes, from the reproduction's own tables
(``capacity_scaling.csv`` as ``rep.table``, the time series ``rep.timeseries``), the quantity
a finding states.

A finding's ``where`` selects rows of the table by its columns (``setting``, ``rtt_ms``,
``mrci_ms``, ``b_on_ms``, ``bn_s``; a scalar or a list of accepted values, every value of a
key left out). Its other keys are the evaluator's parameters (``farthest_from``,
``against_rtt_ms``, ...). A value a finding names that the grid run lacks (RTT 1 ms in the
quick grid, say) makes the finding not comparable, with the values the grid does run.

This module lists the evaluators (:data:`EVALUATORS`) and the study's :data:`FINDINGS`; the
evaluators themselves are in ``capacity_scaling_findings_single`` (the single flow, §6.1),
``capacity_scaling_findings_series`` (the recorded time series) and
``capacity_scaling_findings_trends`` (trends over the grid, the bottleneck, §7), their
shared helpers in ``capacity_scaling_findings_select``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ethersim.studies import capacity_scaling as study
from ethersim.studies.capacity_scaling_findings_select import CELL_KEYS as CELL_KEYS
from ethersim.studies.capacity_scaling_findings_select import _grid_name, _guard, _NotRun, _select
from ethersim.studies.capacity_scaling_findings_series import (
    _not_run,
    _recovery,
    _rising_slope_same_across_mrci,
    _service_above_arrival_at_large_mrci,
)
from ethersim.studies.capacity_scaling_findings_single import (
    PAYLOAD_CEILING_MBPS as PAYLOAD_CEILING_MBPS,
)
from ethersim.studies.capacity_scaling_findings_single import (
    _converges_to_no_pc_in_mrci,
    _loss_pc_above_nopc,
    _loss_pc_near_nopc,
    _no_saving_no_degradation,
    _rate_changes_decreasing_in_mrci,
    _rate_changes_increasing_in_rtt,
    _slight_reduction_and_degradation,
    _tcp_below_link_at_large_rtt,
    _throughput_reduction_decreasing_in_mrci,
    _throughput_reduction_higher_at_large_rtt,
    _throughput_reduction_near_zero,
)
from ethersim.studies.capacity_scaling_findings_trends import (
    _background_trends_hold_for_all_bon,
    _bottleneck_against_background,
    _bottleneck_lowers_tcp_rate,
    _bottleneck_saving_at_a_cost,
    _degradation_in_most_cells,
    _drastic_degradation_somewhere,
    _rate_changes_increasing_in_mrci,
    _saving_and_degradation_trends,
    _service_rate_low_and_decreasing_in_rtt,
    _small_mrci_degradation_growing_in_rtt,
    _throughput_reduction_increasing_in_mrci,
    _throughput_reduction_increasing_in_rtt,
)
from ethersim.studies.contract import Evaluator, Findings, Outcome, parse_toml

__all__ = ["EVALUATORS", "FINDINGS"]


# --- quantitative: one column over the selected cells ------------------------------------


def _column(column: str) -> Evaluator:
    """The column over the selected cells: the value farthest from ``farthest_from``
    where given (every cell must lie within the tolerance), else their mean."""

    def value(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
        rows = _select(rep, where)
        if rows.empty:
            raise _NotRun(f"no cell of the {_grid_name(rep)} matches")
        x = rows[column].astype(float)
        if "farthest_from" in where:
            centre = float(where["farthest_from"])
            values = x.to_numpy(dtype=float)
            return Outcome(value=float(values[np.argmax(np.abs(values - centre))]))
        return Outcome(value=float(x.mean()))

    value.__name__ = f"_{column}"
    return _guard(value)


EVALUATORS: dict[str, Evaluator] = {
    "mean_service_rate_mbps": _column("mean_service_rate_mbps"),
    "service_rate_reduction_percent": _column("service_rate_reduction_percent"),
    "throughput_nopc_mbps": _column("throughput_nopc_mbps"),
    "throughput_pc_mbps": _column("throughput_pc_mbps"),
    "no_saving_no_degradation": _guard(_no_saving_no_degradation),
    "throughput_reduction_near_zero": _guard(_throughput_reduction_near_zero),
    "loss_pc_near_nopc": _guard(_loss_pc_near_nopc),
    "slight_reduction_and_degradation": _guard(_slight_reduction_and_degradation),
    "rate_changes_decreasing_in_mrci": _guard(_rate_changes_decreasing_in_mrci),
    "converges_to_no_pc_in_mrci": _guard(_converges_to_no_pc_in_mrci),
    "rate_changes_increasing_in_rtt": _guard(_rate_changes_increasing_in_rtt),
    "throughput_reduction_higher_at_large_rtt": _guard(_throughput_reduction_higher_at_large_rtt),
    "loss_pc_above_nopc": _guard(_loss_pc_above_nopc),
    "throughput_reduction_decreasing_in_mrci": _guard(_throughput_reduction_decreasing_in_mrci),
    "tcp_below_link_at_large_rtt": _guard(_tcp_below_link_at_large_rtt),
    "recovery_time_nopc_s": _recovery(pc=False),
    "recovery_time_pc_s": _recovery(pc=True),
    "service_above_arrival_at_large_mrci": _guard(_service_above_arrival_at_large_mrci),
    "rising_slope_same_across_mrci": _guard(_rising_slope_same_across_mrci),
    "not_run": _not_run,
    "throughput_reduction_increasing_in_mrci": _guard(_throughput_reduction_increasing_in_mrci),
    "service_rate_low_and_decreasing_in_rtt": _guard(_service_rate_low_and_decreasing_in_rtt),
    "rate_changes_increasing_in_mrci": _guard(_rate_changes_increasing_in_mrci),
    "throughput_reduction_increasing_in_rtt": _guard(_throughput_reduction_increasing_in_rtt),
    "small_mrci_degradation_growing_in_rtt": _guard(_small_mrci_degradation_growing_in_rtt),
    "degradation_in_most_cells": _guard(_degradation_in_most_cells),
    "background_trends_hold_for_all_bon": _guard(_background_trends_hold_for_all_bon),
    "bottleneck_saving_above_background": _bottleneck_against_background(
        "service_rate_reduction_percent", higher=True
    ),
    "bottleneck_reduction_below_background": _bottleneck_against_background(
        "throughput_reduction_percent", higher=False
    ),
    "bottleneck_lowers_tcp_rate": _guard(_bottleneck_lowers_tcp_rate),
    "bottleneck_saving_at_a_cost": _guard(_bottleneck_saving_at_a_cost),
    "drastic_degradation_somewhere": _guard(_drastic_degradation_somewhere),
    "saving_and_degradation_trends": _guard(_saving_and_degradation_trends),
}


def _base_scenarios(rep: study.Reproduction) -> list[str]:
    """The base scenarios the sweeps run (``<setting>.toml``)."""
    return [text for name, text in rep.sweep_files.items() if not name.endswith("-sweep.toml")]


def _sweep_keys(rep: study.Reproduction) -> list[str]:
    """The key paths every sweep sets through its [grid] and [zip]."""
    keys: list[str] = []
    for name, text in rep.sweep_files.items():
        if name.endswith("-sweep.toml"):
            doc = parse_toml(text)
            for table in ("grid", "zip", "set"):
                keys += [k for k in doc.get(table, {}) if k not in keys]
    return keys


FINDINGS: Findings[study.Reproduction] = Findings(
    "capacity-scaling",
    EVALUATORS,
    scenarios=_base_scenarios,
    extra_keys=_sweep_keys,
    options=(
        "seed",
        "delay_bound_ms",
        "ewma_weight",
        "sample_ms",
        "burst_rate_mbps",
        "queue",
    ),
)

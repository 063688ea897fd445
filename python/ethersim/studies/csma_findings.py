"""Evaluators of the published findings of `ethersim reproduce csma` (see
studies/published/csma.toml): each computes, from the reproduction's own tables, the
quantity a finding states.

Everything is read from ``rep.table`` (``csma.csv``: one row per layout, length and
host count) and, where a finding is about the hosts' transmit service time, from
``rep.calibration`` and ``rep.options``. A finding's ``where`` selects rows by the
table's columns (a scalar or a list of accepted values; ``length`` is a string, "64" or
a mix's ratio "7/1"). "Fixed lengths" are the rows whose length has no "/".

The tests of qualitative claims were fixed from the paper's words before the
reproduction's numbers were looked at; each evaluator's docstring states its rule. The
rules share a few readings:

- "X increases (decreases) with the number of hosts", a trend read off a figure: the
  Spearman rank correlation of X with the host count is at least +0.8 (at most -0.8)
  over the host counts run: a clear monotone trend that allows a local swap or two from
  single runs (the paper ran one test per cell too).
- "increases linearly": a least-squares line over the host counts run has a positive
  slope and explains at least 95% of the variance (R^2 >= 0.95).
- Bit rates closer than 0.05 Mb/s (half a percent of the 10 Mb/s axis of the paper's
  figures, about a line's width) are a tie: the paper could not have seen them apart.
- A comparison of two whole figures (short net against long, two clusters against four)
  holds if it holds in at least 90% of the cells both ran: single runs per cell.

The thresholds of these readings and the helpers the evaluators share are in
:mod:`~ethersim.studies.csma_findings_select`; the evaluators are in
:mod:`~ethersim.studies.csma_findings_rates` (packet rate, collisions, bit rate,
fairness), :mod:`~ethersim.studies.csma_findings_load` (delay, offered load),
:mod:`~ethersim.studies.csma_findings_layouts` (short net, two clusters, the mix) and
:mod:`~ethersim.studies.csma_findings_conclusions` (the paper's conclusions). This
module names them: :data:`EVALUATORS` and :data:`FINDINGS`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ethersim.studies import csma as study
from ethersim.studies.contract import Findings, Outcome
from ethersim.studies.csma_findings_conclusions import (
    _fair_allocation,
    _min_utilization_above_37_percent,
    _near_nominal_bandwidth,
    _sensitivity_to_length_and_round_trip,
)
from ethersim.studies.csma_findings_layouts import (
    _mix_bit_rate_above_all_short,
    _short_net_bit_rate_at_least_long,
    _short_net_gain_largest_for_64,
    _short_net_similar_to_long,
    _two_cluster_bit_rate_below_long,
    _two_cluster_delay_increase_percent,
    _two_cluster_difference_percent,
    _two_cluster_utilization_decrease_percent,
)
from ethersim.studies.csma_findings_load import (
    _delay_mean_linear_in_hosts,
    _delay_mean_ms,
    _delay_mean_over_round_robin,
    _delay_std_linear_in_hosts,
    _hosts_ready_near_n,
    _max_delay_std_to_mean_ratio,
    _min_utilization_percent,
    _paper_excess_delay_linear_in_hosts,
    _paper_excess_delay_ms,
    _receiver_not_run,
    _underloaded_at_one_host,
    _utilization_percent,
)
from ethersim.studies.csma_findings_rates import (
    _bit_rate_decreasing_in_hosts,
    _bit_rate_increasing_in_length,
    _bit_rate_rises_before_saturation,
    _bit_rate_std_decreasing_in_hosts,
    _bit_rate_std_percent_mean,
    _bit_rate_std_three_hosts_above_many,
    _collisions_per_frame_increasing_in_hosts,
    _collisions_present,
    _collisions_total,
    _max_packet_rate_pps,
    _packet_rate_peak_hosts,
    _packet_rate_std_decreasing_in_hosts,
    _packet_rate_std_highest_for_64,
)
from ethersim.studies.csma_findings_select import CAPACITY_MBPS as CAPACITY_MBPS
from ethersim.studies.csma_findings_select import FIGURE_SHARE as FIGURE_SHARE
from ethersim.studies.csma_findings_select import LINEAR_R2 as LINEAR_R2
from ethersim.studies.csma_findings_select import TIE_MBPS as TIE_MBPS
from ethersim.studies.csma_findings_select import TREND_RHO as TREND_RHO

__all__ = ["EVALUATORS", "FINDINGS"]


EVALUATORS: dict[str, Callable[[study.Reproduction, Mapping[str, Any]], Outcome]] = {
    "packet_rate_peak_hosts": _packet_rate_peak_hosts,
    "collisions_total": _collisions_total,
    "collisions_present": _collisions_present,
    "max_packet_rate_pps": _max_packet_rate_pps,
    "bit_rate_increasing_in_length": _bit_rate_increasing_in_length,
    "bit_rate_decreasing_in_hosts": _bit_rate_decreasing_in_hosts,
    "collisions_per_frame_increasing_in_hosts": _collisions_per_frame_increasing_in_hosts,
    "bit_rate_rises_before_saturation": _bit_rate_rises_before_saturation,
    "bit_rate_std_decreasing_in_hosts": _bit_rate_std_decreasing_in_hosts,
    "bit_rate_std_three_hosts_above_many": _bit_rate_std_three_hosts_above_many,
    "bit_rate_std_percent_mean": _bit_rate_std_percent_mean,
    "packet_rate_std_decreasing_in_hosts": _packet_rate_std_decreasing_in_hosts,
    "packet_rate_std_highest_for_64": _packet_rate_std_highest_for_64,
    "delay_mean_linear_in_hosts": _delay_mean_linear_in_hosts,
    "delay_std_linear_in_hosts": _delay_std_linear_in_hosts,
    "paper_excess_delay_linear_in_hosts": _paper_excess_delay_linear_in_hosts,
    "delay_mean_over_round_robin": _delay_mean_over_round_robin,
    "max_delay_std_to_mean_ratio": _max_delay_std_to_mean_ratio,
    "delay_mean_ms": _delay_mean_ms,
    "paper_excess_delay_ms": _paper_excess_delay_ms,
    "utilization_percent": _utilization_percent,
    "min_utilization_percent": _min_utilization_percent,
    "short_net_similar_to_long": _short_net_similar_to_long,
    "short_net_bit_rate_at_least_long": _short_net_bit_rate_at_least_long,
    "short_net_gain_largest_for_64": _short_net_gain_largest_for_64,
    "mix_bit_rate_above_all_short": _mix_bit_rate_above_all_short,
    "two_cluster_bit_rate_below_long": _two_cluster_bit_rate_below_long,
    "two_cluster_delay_increase_percent": _two_cluster_delay_increase_percent,
    "two_cluster_utilization_decrease_percent": _two_cluster_utilization_decrease_percent,
    "two_cluster_difference_percent": _two_cluster_difference_percent,
    "underloaded_at_one_host": _underloaded_at_one_host,
    "hosts_ready_near_n": _hosts_ready_near_n,
    "receiver_not_run": _receiver_not_run,
    "near_nominal_bandwidth": _near_nominal_bandwidth,
    "fair_allocation": _fair_allocation,
    "min_utilization_above_37_percent": _min_utilization_above_37_percent,
    "sensitivity_to_length_and_round_trip": _sensitivity_to_length_and_round_trip,
}

FINDINGS: Findings[study.Reproduction] = Findings(
    "csma", EVALUATORS, options=("tx_service_us", "seed")
)

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
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from ethersim.studies import csma as study
from ethersim.studies.contract import Findings, Outcome
from ethersim.studies.contract import rows_where as _select

__all__ = ["EVALUATORS", "FINDINGS"]

#: A trend "with hosts": |Spearman rank correlation| at least this, in the stated direction.
TREND_RHO = 0.8
#: "Linearly": a straight-line fit explains at least this share of the variance.
LINEAR_R2 = 0.95
#: Bit rates closer than this are a tie (Mb/s): invisible on the paper's 10 Mb/s axes.
TIE_MBPS = 0.05
#: A comparison of two figures holds in at least this share of the cells both ran.
FIGURE_SHARE = 0.9
CAPACITY_MBPS = study.RATE_BPS / 1e6


# --- selection ------------------------------------------------------------------------------


def _fixed(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows of fixed lengths (no mix)."""
    return rows[~rows.length.astype(str).str.contains("/", regex=False)]


def _lengths(rows: pd.DataFrame) -> list[str]:
    """The lengths present, fixed lengths in increasing order, then the mixes."""
    labels = [str(x) for x in dict.fromkeys(rows.length)]
    fixed = sorted((x for x in labels if "/" not in x), key=int)
    return fixed + [x for x in labels if "/" in x]


def _curve(rows: pd.DataFrame, length: str) -> pd.DataFrame:
    """One length's rows, by increasing host count."""
    return rows[rows.length == length].sort_values("hosts")


def _grid(rep: study.Reproduction) -> str:
    return "the quick grid" if rep.options.quick else "the reproduction"


def _lacks(rep: study.Reproduction, what: str) -> Outcome:
    """Not comparable: the grid did not run ``what``."""
    more = " (the full grid runs it)" if rep.options.quick else ""
    return Outcome(comparable=False, text=f"{_grid(rep)} runs no {what}{more}")


def _where_text(where: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in where.items()) or "every cell"


def _spearman(x: np.ndarray[Any, Any], y: np.ndarray[Any, Any]) -> float:
    """Spearman's rank correlation (average ranks for ties); NaN if either is constant."""
    rx = pd.Series(x).rank().to_numpy(dtype=float)
    ry = pd.Series(y).rank().to_numpy(dtype=float)
    if len(rx) < 2 or np.ptp(rx) == 0 or np.ptp(ry) == 0:
        return float("nan")
    return float(np.corrcoef(rx, ry)[0, 1])


def _line(x: np.ndarray[Any, Any], y: np.ndarray[Any, Any]) -> tuple[float, float]:
    """The least-squares line's slope and its R^2 (1 for a constant ``y`` it fits)."""
    slope, intercept = np.polyfit(x, y, 1)
    residual = float(((y - (slope * x + intercept)) ** 2).sum())
    total = float(((y - y.mean()) ** 2).sum())
    return float(slope), (1.0 - residual / total) if total > 0 else 1.0


def _ideal_ms(rows: pd.DataFrame) -> pd.Series[float]:
    """The time for every host to send one frame without collision, ms: hosts · bits
    per frame / 10 Mb/s (the paper's "ideal time to send one packet and wait for each
    other host to send one packet")."""
    return rows.hosts * rows.bits_per_frame / study.RATE_BPS * 1e3


def _service_s(rep: study.Reproduction) -> float:
    """The hosts' transmit service time of every run, s."""
    return rep.tx_service_ps * 1e-12


def _window_s(rep: study.Reproduction) -> float:
    _, start, until = rep.options.window_s
    return until - start


def _hosts_ready(rep: study.Reproduction, rows: pd.DataFrame) -> pd.Series[float]:
    """Q, the mean number of hosts holding a frame ready for the cable (waiting for it,
    contending or sending): every host has a frame ready except while its transmit
    service runs, which it does once per frame sent or dropped. Q = N - (frames sent +
    dropped per second) · service time. (The service time is the runs' fixed one: a
    sensitivity point that adds jitter to it makes each service longer than that, and Q
    is then overstated.)"""
    per_s = rows.packet_rate_pps + rows.drops / _window_s(rep)
    return rows.hosts - per_s * _service_s(rep)


# --- the packet rate and collisions of 64-byte frames (§3.5, Fig. 3-5) --------------------


def _packet_rate_peak_hosts(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """The host count of the largest packet_rate_pps on the selected curve (the fewest
    hosts on a tie). Needs hosts 1 to 4 at least."""
    rows = _select(rep.table, where).sort_values("hosts")
    if not {1, 2, 3, 4} <= set(rows.hosts):
        return _lacks(rep, f"host counts 1 to 4 at {_where_text(where)}")
    hosts = rows.hosts.to_numpy(dtype=float)
    return Outcome(value=float(hosts[int(rows.packet_rate_pps.to_numpy().argmax())]))


def _collisions_total(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """The collisions summed over the selected cells; a claim of "no collisions"
    (without contention) holds if the sum is 0."""
    rows = _select(rep.table, where)
    if rows.empty:
        return _lacks(rep, f"cell at {_where_text(where)}")
    total = int(rows.collisions.sum())
    hit = rows[rows.collisions > 0]
    text = f"{total:,} collisions over {len(rows)} cells ({_where_text(where)})"
    if len(hit):
        worst = hit.iloc[int(hit.collisions.to_numpy().argmax())]
        text += (
            f"; {len(hit)} cells have some, most {int(worst.collisions):,} "
            f"({worst.layout} net, length {worst.length}, {int(worst.hosts)} hosts)"
        )
    return Outcome(value=float(total), holds=total == 0, text=text)


def _collisions_present(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Claim: "When three or more hosts are sending ... a collision will occur at the end of
    each packet": holds if every selected cell with 3 hosts or more has collisions.
    Collisions per frame at 3 hosts are reported (about one per packet would fit the
    sentence), not judged."""
    rows = _select(rep.table, where).sort_values("hosts")
    rows = rows[rows.hosts >= 3]
    if 3 not in set(rows.hosts):
        return _lacks(rep, f"3-host cell at {_where_text(where)}")
    none = rows[rows.collisions == 0]
    per = ", ".join(
        f"{h}: {c:.2f}"
        for h, c in zip(
            rows.hosts.to_numpy(dtype=int), rows.collisions_per_frame.to_numpy(), strict=True
        )
    )
    text = f"collisions per frame by hosts, {per}"
    if len(none):
        text += f"; none at hosts {', '.join(str(int(h)) for h in none.hosts)}"
    return Outcome(holds=none.empty, text=text)


def _max_packet_rate_pps(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """The largest packet_rate_pps of the selected curve. When the reproduction
    calibrated the hosts' service time to this very rate (two hosts, 64-byte frames,
    long net), agreement is by construction: not comparable. With a service time given
    (``--tx-service``, the sensitivity run's points) it is a prediction and is judged."""
    rows = _select(rep.table, where).sort_values("hosts")
    if rows.empty:
        return _lacks(rep, f"cell at {_where_text(where)}")
    top = rows.iloc[int(rows.packet_rate_pps.to_numpy().argmax())]
    cal = rep.calibration
    if cal is not None and cal.target_pps is not None:
        return Outcome(
            comparable=False,
            text=(
                f"calibration target: the hosts' transmit service time "
                f"({rep.tx_service_ps / 1e6:.2f} us) is fitted so two hosts on the long net "
                f"send 64-byte frames at {cal.target_pps:,.0f} packets/s, so agreement is by "
                f"construction (simulated {cal.simulated_pps:,.0f} packets/s at 2 hosts; "
                f"largest {top.packet_rate_pps:,.0f} at {int(top.hosts)} hosts)"
            ),
        )
    return Outcome(value=float(top.packet_rate_pps))


# --- total bit rate (§3.5, Fig. 3-3) ------------------------------------------------------


def _bit_rate_increasing_in_length(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Claim: "The bit rate increases with increasing packet size": at every host count, the
    fixed lengths' bit rates in order of length never fall by more than a tie (0.05
    Mb/s). Holds if so at every host count; the breaks are reported."""
    rows = _fixed(_select(rep.table, where))
    lengths = _lengths(rows)
    if len(lengths) < 2:
        return _lacks(rep, f"two fixed lengths at {_where_text(where)}")
    breaks = []
    for hosts, cell in rows.groupby("hosts"):
        by = cell.set_index("length").bit_rate_mbps
        seq = [(x, float(by[x])) for x in lengths if x in by.index]
        for (a, ra), (b, rb) in itertools.pairwise(seq):
            if rb < ra - TIE_MBPS:
                breaks.append(f"{hosts} hosts: {b} B {rb:.3f} < {a} B {ra:.3f} Mb/s")
    n = rows.hosts.nunique()
    text = f"bit rate ordered by length ({', '.join(lengths)} B) at {n} host counts"
    text += "; breaks: " + "; ".join(breaks) if breaks else " at every one"
    return Outcome(holds=not breaks, text=text)


def _bit_rate_decreasing_in_hosts(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Claim: "The bit rate decreases with increasing number of hosts" (after the rise of
    few hosts and short packets, a separate finding): per fixed length, from the host
    count of the curve's largest bit rate on, at least 3 host counts and a Spearman
    correlation with hosts of at most -0.8. Holds if so for every fixed length."""
    rows = _fixed(_select(rep.table, where))
    if rows.empty:
        return _lacks(rep, f"fixed length at {_where_text(where)}")
    parts, ok = [], True
    for length in _lengths(rows):
        c = _curve(rows, length)
        peak = int(c.bit_rate_mbps.to_numpy().argmax())
        tail = c.iloc[peak:]
        rho = _spearman(tail.hosts.to_numpy(), tail.bit_rate_mbps.to_numpy())
        good = len(tail) >= 3 and rho <= -TREND_RHO
        ok &= good
        parts.append(
            f"{length} B: peak {c.bit_rate_mbps.iloc[peak]:.3f} Mb/s at "
            f"{int(c.hosts.iloc[peak])} hosts, {c.bit_rate_mbps.iloc[-1]:.3f} at "
            f"{int(c.hosts.iloc[-1])}, rho {rho:.2f}"
        )
    return Outcome(holds=ok, text="; ".join(parts))


def _collisions_per_frame_increasing_in_hosts(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> Outcome:
    """Claim: "For larger numbers of hosts, there are more collisions per packet": per fixed
    length, over the host counts from 2, the Spearman correlation of collisions_per_frame
    with hosts is at least +0.8. Holds if so for every fixed length."""
    rows = _fixed(_select(rep.table, where))
    rows = rows[rows.hosts >= 2]
    if rows.hosts.nunique() < 3:
        return _lacks(rep, f"three host counts from 2 at {_where_text(where)}")
    parts, ok = [], True
    for length in _lengths(rows):
        c = _curve(rows, length)
        rho = _spearman(c.hosts.to_numpy(), c.collisions_per_frame.to_numpy())
        ok &= rho >= TREND_RHO
        parts.append(
            f"{length} B: {c.collisions_per_frame.iloc[0]:.2f} at {int(c.hosts.iloc[0])} hosts "
            f"to {c.collisions_per_frame.iloc[-1]:.2f} at {int(c.hosts.iloc[-1])}, rho {rho:.2f}"
        )
    return Outcome(holds=ok, text="; ".join(parts))


def _bit_rate_rises_before_saturation(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Claim: "For small numbers of hosts and small packet size, bit rate first increases":
    holds if the selected curve's bit rate at 2 hosts exceeds that at 1 host and its
    largest bit rate is at 2 hosts or more."""
    rows = _select(rep.table, where).sort_values("hosts")
    if not {1, 2} <= set(rows.hosts):
        return _lacks(rep, f"1- and 2-host cells at {_where_text(where)}")
    by = rows.set_index("hosts").bit_rate_mbps
    top = int(rows.hosts.iloc[int(rows.bit_rate_mbps.to_numpy().argmax())])
    holds = bool(by[2] > by[1]) and top >= 2
    return Outcome(
        holds=holds,
        text=f"{by[1]:.3f} Mb/s at 1 host, {by[2]:.3f} at 2; largest {by[top]:.3f} at {top}",
    )


# --- fairness (§3.5, Figs. 3-4 and 3-6) -----------------------------------------------------


def _std_trend(rep: study.Reproduction, where: Mapping[str, Any], what: str) -> Outcome:
    rows = _fixed(_select(rep.table, where))
    rows = rows[rows.hosts >= 3]
    if rows.hosts.nunique() < 3:
        return _lacks(rep, f"three host counts from 3 at {_where_text(where)}")
    parts, ok = [], True
    for length in _lengths(rows):
        c = _curve(rows, length)
        rho = _spearman(c.hosts.to_numpy(), c.bit_rate_std_percent.to_numpy())
        ok &= rho <= -TREND_RHO
        parts.append(
            f"{length} B: {c.bit_rate_std_percent.iloc[0]:.1f}% at {int(c.hosts.iloc[0])} hosts "
            f"to {c.bit_rate_std_percent.iloc[-1]:.1f}% at {int(c.hosts.iloc[-1])}, rho {rho:.2f}"
        )
    return Outcome(holds=ok, text=f"{what}: " + "; ".join(parts))


def _bit_rate_std_decreasing_in_hosts(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Claim: "As the number of hosts increases, the fairness increases": per fixed length,
    over host counts from 3 (one host has no spread, two take turns without contention),
    the Spearman correlation of bit_rate_std_percent with hosts is at most -0.8. Holds
    if so for every fixed length."""
    return _std_trend(rep, where, "std of per-host bit rate")


def _packet_rate_std_decreasing_in_hosts(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> Outcome:
    """Claim: "The unfairness [of per-host packet rates] decreases as the number of hosts
    increases": for a fixed length a host's packet rate is its bit rate over the bits
    per frame, so the spread in % of the mean is bit_rate_std_percent; the test is that
    of fairness-increases-with-hosts (fixed lengths, hosts from 3, Spearman <= -0.8)."""
    return _std_trend(rep, where, "std of per-host packet rate (= bit rate's, fixed lengths)")


def _bit_rate_std_three_hosts_above_many(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> Outcome:
    """Claim: "When N = 3 ... the standard deviation becomes a sizeable fraction of the mean",
    against "for 20 hosts ... about 20% of mean": holds if the mean over fixed lengths
    of bit_rate_std_percent at 3 hosts exceeds the same mean at 20 hosts (at the most
    hosts run if 20 was not)."""
    rows = _fixed(_select(rep.table, where))
    if 3 not in set(rows.hosts):
        return _lacks(rep, f"3-host cell at {_where_text(where)}")
    many = 20 if 20 in set(rows.hosts) else int(rows.hosts.max())
    three = float(rows[rows.hosts == 3].bit_rate_std_percent.mean())
    other = float(rows[rows.hosts == many].bit_rate_std_percent.mean())
    return Outcome(
        holds=three > other,
        text=f"mean over fixed lengths {three:.1f}% at 3 hosts, {other:.1f}% at {many}",
    )


def _bit_rate_std_percent_mean(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """The mean over fixed lengths of bit_rate_std_percent in the selected cells."""
    rows = _fixed(_select(rep.table, where))
    if rows.empty:
        return _lacks(rep, f"cell at {_where_text(where)}")
    return Outcome(value=float(rows.bit_rate_std_percent.mean()))


def _packet_rate_std_highest_for_64(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Claim: "The high variance for 64-byte packets": per fixed length, the mean over host
    counts from 3 of bit_rate_std_percent (the packet-rate spread in % for a fixed
    length); holds if 64 bytes has the largest."""
    rows = _fixed(_select(rep.table, where))
    rows = rows[rows.hosts >= 3]
    lengths = _lengths(rows)
    if "64" not in lengths or len(lengths) < 2:
        return _lacks(rep, f"64-byte and other fixed-length cells at {_where_text(where)}")
    means = {x: float(_curve(rows, x).bit_rate_std_percent.mean()) for x in lengths}
    top = max(means, key=lambda x: means[x])
    shown = ", ".join(f"{x} B {m:.1f}%" for x, m in means.items())
    return Outcome(holds=top == "64", text=f"mean over hosts >= 3: {shown}")


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


# --- short net and two clusters (§3.6, §3.7) -----------------------------------------------


def _paired(
    rep: study.Reproduction, where: Mapping[str, Any], a: str, b: str, fixed: bool = True
) -> pd.DataFrame:
    """The cells (length, hosts) both layouts ``a`` and ``b`` ran, side by side: columns
    suffixed ``_a`` and ``_b``."""
    rows = _select(rep.table, {k: v for k, v in where.items() if k != "layout"})
    if fixed:
        rows = _fixed(rows)
    return pd.merge(
        rows[rows.layout == a],
        rows[rows.layout == b],
        on=["length", "hosts"],
        how="inner",
        suffixes=("_a", "_b"),
    )


def _short_net_similar_to_long(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Claim: "The data for this experiment look very similar to the previous set": over every
    (length, hosts) both nets ran, the median of |short / long - 1| is below 10% for each
    of bit_rate_mbps, packet_rate_pps and delay_mean_ms."""
    both = _paired(rep, where, "short", "long", fixed=False)
    if both.empty:
        return _lacks(rep, "cell on both the short and the long net")
    medians = {
        m: float((both[f"{m}_a"] / both[f"{m}_b"] - 1).abs().median() * 100)
        for m in ("bit_rate_mbps", "packet_rate_pps", "delay_mean_ms")
    }
    shown = ", ".join(f"{m} {v:.2f}%" for m, v in medians.items())
    return Outcome(
        holds=all(v < 10 for v in medians.values()),
        text=f"median |short/long - 1| over {len(both)} cells: {shown}",
    )


def _share_at_least(both: pd.DataFrame, better: str, worse: str, what: str) -> tuple[bool, str]:
    ok = both[f"bit_rate_mbps_{better}"] >= both[f"bit_rate_mbps_{worse}"] - TIE_MBPS
    share = float(ok.mean())
    bad = both[~ok]
    text = f"{what} in {int(ok.sum())} of {len(both)} cells ({100 * share:.0f}%)"
    if len(bad):
        gap = (bad[f"bit_rate_mbps_{worse}"] - bad[f"bit_rate_mbps_{better}"]).to_numpy()
        r = bad.iloc[int(gap.argmax())]
        text += f"; worst {r.length} B, {int(r.hosts)} hosts, by {gap.max():.3f} Mb/s"
    return share >= FIGURE_SHARE, text


def _short_net_bit_rate_at_least_long(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Claim: "Network efficiency increases as the collision resolution time decreases": over
    the fixed-length cells with 2 to 23 hosts both nets ran, the short net's bit rate is
    at least the long net's less a tie (0.05 Mb/s) in at least 90% of them."""
    both = _paired(rep, where, "short", "long")
    both = both[(both.hosts >= 2) & (both.hosts <= 23)]
    if both.empty:
        return _lacks(rep, "cell on both the short and the long net")
    holds, text = _share_at_least(both, "a", "b", "short net >= long net")
    return Outcome(holds=holds, text=text)


def _short_net_gain_largest_for_64(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Claim: "The effect is most pronounced with short packets": at the most hosts both nets
    ran, the short net's bit rate less the long net's, per fixed length; holds if the
    largest gain is at 64 bytes."""
    both = _paired(rep, where, "short", "long")
    if both.empty or both.length.nunique() < 2 or "64" not in set(both.length):
        return _lacks(rep, "64-byte and other fixed-length cells on both nets")
    most = int(both.hosts.max())
    cell = both[both.hosts == most]
    gain = dict(zip(cell.length, cell.bit_rate_mbps_a - cell.bit_rate_mbps_b, strict=True))
    top = max(gain, key=lambda x: gain[x])
    shown = ", ".join(f"{x} B {gain[x]:+.3f}" for x in _lengths(cell))
    return Outcome(holds=top == "64", text=f"short - long at {most} hosts, Mb/s: {shown}")


def _mix_bit_rate_above_all_short(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Claim: "When only one out of eight packets is long, the utilization is much higher than
    when all the packets are short": the 7/1 mix's bit rate exceeds the 64-byte one at
    every host count from 2, and at the most hosts run, where the curves are furthest
    from the idle-host regime, by at least 0.5 Mb/s (5 points of utilization, a third of
    the 15 points the paper's 64-byte curve loses: "much")."""
    rows = _select(rep.table, where)
    rows = rows[rows.hosts >= 2]
    mix = rows[rows.length == "7/1"].set_index("hosts").bit_rate_mbps
    short = rows[rows.length == "64"].set_index("hosts").bit_rate_mbps
    hosts = sorted(set(mix.index) & set(short.index))
    if not hosts:
        return _lacks(rep, f"7/1-mix and 64-byte cells at {_where_text(where)}")
    gaps = {h: float(mix[h] - short[h]) for h in hosts}
    low = min(gaps, key=lambda h: gaps[h])
    most = hosts[-1]
    holds = gaps[low] > 0 and gaps[most] >= 0.5
    return Outcome(
        holds=holds,
        text=(
            f"7/1 - 64 B: {gaps[most]:+.3f} Mb/s at {most} hosts; smallest "
            f"{gaps[low]:+.3f} at {low} hosts"
        ),
    )


def _two_cluster_bit_rate_below_long(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Claim: "The collision resolution time is increased and the efficiency is decreased"
    with two clusters: over the cells with 3 hosts or more both layouts ran (every
    length), the two-cluster bit rate is at most the four-cluster one plus a tie (0.05
    Mb/s) in at least 90% of them."""
    both = _paired(rep, where, "two-cluster", "long", fixed=False)
    both = both[both.hosts >= 3]
    if both.empty:
        return _lacks(rep, "two-cluster layout")
    holds, text = _share_at_least(both, "b", "a", "two clusters <= four")
    return Outcome(holds=holds, text=text)


def _two_cluster_pair(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> pd.Series[Any] | Outcome:
    both = _paired(rep, where, "two-cluster", "long", fixed=False)
    if len(both) != 1:
        return _lacks(rep, f"two-cluster layout cell at {_where_text(where)}")
    return both.iloc[0]


def _two_cluster_delay_increase_percent(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> Outcome:
    """100 · (two-cluster delay_mean_ms / four-cluster (long) delay_mean_ms - 1)."""
    r = _two_cluster_pair(rep, where)
    if isinstance(r, Outcome):
        return r
    return Outcome(value=100 * (float(r.delay_mean_ms_a) / float(r.delay_mean_ms_b) - 1))


def _two_cluster_utilization_decrease_percent(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> Outcome:
    """100 · (1 - two-cluster bit_rate_mbps / four-cluster (long) bit_rate_mbps)."""
    r = _two_cluster_pair(rep, where)
    if isinstance(r, Outcome):
        return r
    return Outcome(value=100 * (1 - float(r.bit_rate_mbps_a) / float(r.bit_rate_mbps_b)))


def _two_cluster_difference_percent(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Claim: "No appreciable difference": holds if |two-cluster / four-cluster bit rate - 1|
    is below 0.5% (half the 1.1% the paper reports as a difference for 64-byte frames);
    the delay's difference is reported beside."""
    r = _two_cluster_pair(rep, where)
    if isinstance(r, Outcome):
        return r
    bit = 100 * (float(r.bit_rate_mbps_a) / float(r.bit_rate_mbps_b) - 1)
    delay = 100 * (float(r.delay_mean_ms_a) / float(r.delay_mean_ms_b) - 1)
    return Outcome(
        holds=abs(bit) < 0.5,
        text=f"two clusters against four: bit rate {bit:+.2f}%, mean delay {delay:+.2f}%",
    )


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

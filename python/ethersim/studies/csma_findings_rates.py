"""The CSMA/CD findings' evaluators of the rates of §3.5 (see
:mod:`ethersim.studies.csma_findings`): the packet rate and collisions of 64-byte
frames (Fig. 3-5), the total bit rate against length and host count (Fig. 3-3), and
fairness, the spread of per-host rates (Figs. 3-4 and 3-6)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from ethersim.studies import csma as study
from ethersim.studies.contract import Outcome
from ethersim.studies.contract import rows_where as _select
from ethersim.studies.csma_findings_select import (
    TIE_MBPS,
    TREND_RHO,
    _curve,
    _fixed,
    _lacks,
    _lengths,
    _spearman,
    _where_text,
)

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

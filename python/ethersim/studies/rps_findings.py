"""Evaluators of the published findings of `ethersim reproduce rps` (see
studies/published/rps.toml): each computes, from the reproduction's own tables, the
quantity a finding states.

What a ``--quick`` run can be compared on: its grid sends a 50 MB file instead of the
paper's 500 MB, so a transfer meets one (TCP) or two (UDP) pauses instead of about 15
and 28. Whatever accrues per pause event (extra transfer time, lost datagrams as a share
of all sent, pauses counted) is therefore compared in the full run only; what does not
depend on how many pauses a transfer meets (no loss with PAUSE honoured, loss against
the run's own paused share of time, the control time scaled to the file, the burst
runs) is compared in both.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from ethersim.studies import rps as study
from ethersim.studies.contract import Findings, Outcome
from ethersim.studies.contract import rows_where as _select

__all__ = ["EVALUATORS", "FINDINGS"]

#: Pause events the paper's 500 MB transfers met, about one per second of its control
#: times (§III.C: "in 15 s of transfer time there were 15 emulated RPS switches"); used
#: only to say why a quick run is not comparable.
PAPER_PAUSES = {p: math.floor(t) for p, t in study.STUDY_CONTROL_S.items()}
#: Timing tolerances of the two tables (rps.toml: Table I to a few 10 ms, Table II's
#: run-to-run spread 0.1 s).
TCP_TOLERANCE_S = 0.05
UDP_TOLERANCE_S = 0.1
#: The pause times of the grid that are not the control.
PAUSED_MS = tuple(p for p in study.PAUSES_MS if p)


def _row(rep: study.Reproduction, where: Mapping[str, Any]) -> pd.Series | None:
    rows = _select(rep.cells, where)
    return None if rows.empty else rows.iloc[0]


def _missing(where: Mapping[str, Any]) -> Outcome:
    return Outcome(comparable=False, text=f"the grid has no cell {dict(where)}")


def _quick(rep: study.Reproduction, protocol: str) -> Outcome | None:
    """The not-comparable outcome of a quantity that accrues per pause event, in a quick
    run; ``None`` in the full run."""
    if not rep.options.quick:
        return None
    names = {"tcp": "TCP", "udp": "UDP"}
    protocols = [protocol] if protocol in names else list(names)
    seen = [int(_select(rep.cells, {"protocol": p}).client_pauses.max()) for p in protocols]
    if len(protocols) == 1:
        paper = f"{names[protocols[0]]} transfer sees about {PAPER_PAUSES[protocols[0]]} pauses"
        this = f"this run's {seen[0]}"
    else:
        paper = (
            "transfers see about "
            + " and ".join(f"{PAPER_PAUSES[p]} ({names[p]})" for p in protocols)
            + " pauses"
        )
        this = "this run's " + " and ".join(str(n) for n in seen)
    return Outcome(
        comparable=False,
        text=(
            f"the --quick grid runs a {rep.options.file_bytes / 1e6:g} MB file; the paper's "
            f"500 MB {paper}, {this}: what accrues per pause is compared in the full run only"
        ),
    )


def _records(rows: pd.DataFrame) -> list[dict[str, Any]]:
    return [{str(k): v for k, v in r.items()} for r in rows.to_dict("records")]


def _cells(rep: study.Reproduction, where: Mapping[str, Any]) -> pd.DataFrame:
    """The paused cells (pause_ms 1, 10, 20) matching ``where``, by pause time."""
    rows = _select(rep.cells, where)
    return rows[rows.pause_ms > 0].sort_values("pause_ms")


def _ms(x: float) -> str:
    return f"{1000 * x:.1f} ms"


# --- the grid's cells ----------------------------------------------------------------


def _transfer_time_s(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """rps.csv ``transfer_time_s`` of the cell ``where``. The control cell with PAUSE
    honoured is the calibration's target (not comparable); the other control cell is
    compared scaled to the paper's 500 MB file (no pauses: the host-limited throughput
    is the same for any file); a paused cell in the full run only."""
    row = _row(rep, where)
    if row is None:
        return _missing(where)
    t = float(row.transfer_time_s)
    if int(row.pause_ms) == 0:
        scaled = t * study.STUDY_FILE_BYTES / rep.options.file_bytes
        if bool(row.server_honours_pause):
            cal = next(c for c in rep.calibrations if c.protocol == row.protocol)
            return Outcome(
                comparable=False,
                text=(
                    f"calibration target: the server's {cal.host_key} is fitted "
                    f"({cal.tx_processing_ps / 1e6:.3f} us per packet) so that this cell "
                    f"lasts {cal.target_s:g} s (the paper's time scaled to the "
                    f"{rep.options.file_bytes / 1e6:g} MB file), so agreement is by "
                    f"construction (simulated {t:.4f} s, {scaled:.3f} s for 500 MB)"
                ),
            )
        return Outcome(value=scaled)
    return _quick(rep, str(row.protocol)) or Outcome(value=t)


def _loss_percent(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """rps.csv ``loss_percent`` of the cell ``where``. With pauses and PAUSE ignored the
    loss is a share of the datagrams sent, which depends on how many pauses the transfer
    met: full run only. No loss (controls; PAUSE honoured) holds per pause: both runs."""
    row = _row(rep, where)
    if row is None:
        return _missing(where)
    if int(row.pause_ms) > 0 and not bool(row.server_honours_pause):
        quick = _quick(rep, str(row.protocol))
        if quick is not None:
            return quick
    return Outcome(value=float(row.loss_percent))


def _extra_time_s(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """rps.csv ``extra_time_s`` (transfer time less its control) of the cell ``where``,
    full run only."""
    row = _row(rep, where)
    if row is None:
        return _missing(where)
    return _quick(rep, str(row.protocol)) or Outcome(value=float(row.extra_time_s))


def _client_pauses(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """rps.csv ``client_pauses`` (PAUSE frames the client sent while the file ran) of the
    cell ``where``, full run only."""
    row = _row(rep, where)
    if row is None:
        return _missing(where)
    return _quick(rep, str(row.protocol)) or Outcome(value=float(row.client_pauses))


# --- claims on the grid --------------------------------------------------------------


def _extra_time_about_pause_total(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """TCP, PAUSE ignored: the transfer takes longer by "roughly" the pauses added up.
    Holds if at 20 ms |extra_time_s - pause_total_s| ≤ 0.05 s (the paper's own 20 ms
    cell: +0.29 s against ~0.30 s) and at 1 and 10 ms extra_time_s ≤ pause_total_s +
    0.05 s (the paper shows +0.00 s there). Full run only."""
    rows = _cells(rep, where)
    if rows.empty:
        return _missing(where)
    quick = _quick(rep, str(where.get("protocol", "")))
    if quick is not None:
        return quick
    holds = True
    parts = []
    for r in _records(rows):
        extra, total = float(r["extra_time_s"]), float(r["pause_total_s"])
        if int(r["pause_ms"]) == max(PAUSED_MS):
            holds &= abs(extra - total) <= TCP_TOLERANCE_S
        else:
            holds &= extra <= total + TCP_TOLERANCE_S
        parts.append(f"{r['pause_ms']} ms: {extra:+.3f} s against {total:.3f} s of pauses")
    return Outcome(holds=holds, text="; ".join(parts))


def _extra_time_equals_pause_total(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """UDP, PAUSE honoured: the transfer takes longer "by an amount equal to the total
    emulated switching time" and nothing is lost. Holds if at 10 and 20 ms
    |extra_time_s - pause_total_s| ≤ 0.1 s (Table II's run-to-run spread) and
    loss_percent = 0 at every pause time; 1 ms is reported, not judged (the paper's own
    1 ms cell, +0.17 s against ~0.03 s, fits only loosely). Full run only."""
    rows = _cells(rep, where)
    if rows.empty:
        return _missing(where)
    quick = _quick(rep, str(where.get("protocol", "")))
    if quick is not None:
        return quick
    holds = bool((rows.loss_percent == 0).all())
    parts = []
    for r in _records(rows):
        extra, total = float(r["extra_time_s"]), float(r["pause_total_s"])
        if int(r["pause_ms"]) >= 10:
            holds &= abs(extra - total) <= UDP_TOLERANCE_S
        parts.append(
            f"{r['pause_ms']} ms: {extra:+.3f} s against {total:.3f} s of pauses, "
            f"loss {float(r['loss_percent']):.3g} %"
        )
    return Outcome(holds=holds, text="; ".join(parts))


def _tcp_loss_recovery_cost_s(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """TCP, 20 ms, PAUSE ignored: recovery from the switch's drops costs nothing beyond
    the pauses. Holds if extra_time_s - pause_total_s ≤ 0.05 s; not comparable where no
    loss occurred (switch_drops or retransmissions 0: the claim is not exercised). Full
    run only."""
    row = _row(rep, where)
    if row is None:
        return _missing(where)
    quick = _quick(rep, "tcp")
    if quick is not None:
        return quick
    drops, retx = int(row.switch_drops), int(row.retransmissions or 0)
    if drops == 0 or retx == 0:
        return Outcome(
            comparable=False,
            text=f"no loss to recover from ({drops} switch drops, {retx} retransmissions)",
        )
    cost = float(row.extra_time_s) - float(row.pause_total_s)
    return Outcome(
        holds=cost <= TCP_TOLERANCE_S,
        text=(
            f"{drops} switch drops, {retx} retransmissions ({int(row.timeouts or 0)} "
            f"timeouts); extra {float(row.extra_time_s):+.3f} s against "
            f"{float(row.pause_total_s):.3f} s of pauses: recovery cost {cost:+.3f} s"
        ),
    )


def _extra_time_exceeds_pause_total(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """TCP, PAUSE honoured: the transfer takes longer than the pauses added up. Holds if
    extra_time_s > pause_total_s at every pause time (the paper's margins, 0.5 to 0.7 s,
    are far beyond its timing accuracy). Full run only."""
    rows = _cells(rep, where)
    if rows.empty:
        return _missing(where)
    quick = _quick(rep, str(where.get("protocol", "")))
    if quick is not None:
        return quick
    holds = bool((rows.extra_time_s > rows.pause_total_s).all())
    text = "; ".join(
        f"{r['pause_ms']} ms: {float(r['extra_time_s']):+.3f} s against "
        f"{float(r['pause_total_s']):.3f} s of pauses"
        for r in _records(rows)
    )
    return Outcome(holds=holds, text=text)


def _honoured_minus_ignored_time_s(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """TCP: honouring PAUSE is slower than ignoring it. Holds if transfer_time_s(honoured)
    - transfer_time_s(ignored) > 0.05 s (the TCP timing tolerance) at every pause time.
    Full run only."""
    rows = _cells(rep, where)
    if rows.empty:
        return _missing(where)
    quick = _quick(rep, str(where.get("protocol", "")))
    if quick is not None:
        return quick
    holds = True
    parts = []
    for pause in PAUSED_MS:
        at = rows[rows.pause_ms == pause]
        on = at[at.server_honours_pause].transfer_time_s
        off = at[~at.server_honours_pause].transfer_time_s
        if on.empty or off.empty:
            return _missing({**where, "pause_ms": pause})
        diff = float(on.iloc[0]) - float(off.iloc[0])
        holds &= diff > TCP_TOLERANCE_S
        parts.append(f"{pause} ms: honoured - ignored {diff:+.3f} s")
    return Outcome(holds=holds, text="; ".join(parts))


def _relative_extra_time_percent(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """TCP, PAUSE ignored: the pauses cost about 2 % of the transfer at most. Holds if
    100 x extra_time_s / control time ≤ 2.5 % at every pause time (300 ms in 15 s is 2 %;
    2.5 % allows the "about"). Full run only."""
    rows = _cells(rep, where)
    if rows.empty:
        return _missing(where)
    quick = _quick(rep, str(where.get("protocol", "")))
    if quick is not None:
        return quick
    share = 100 * rows.extra_time_s / (rows.transfer_time_s - rows.extra_time_s)
    text = "; ".join(f"{p} ms: {s:+.2f} %" for p, s in zip(rows.pause_ms, share, strict=True))
    return Outcome(holds=bool((share <= 2.5).all()), text=text)


def _udp_time_change_s(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """UDP, PAUSE ignored: the transfer time does not change with the pause time, and
    datagrams are lost instead. Holds if |extra_time_s| ≤ 0.1 s (Table II's spread) at
    every pause time and loss_percent > 0 at 10 and 20 ms. Full run only."""
    rows = _cells(rep, where)
    if rows.empty:
        return _missing(where)
    quick = _quick(rep, str(where.get("protocol", "")))
    if quick is not None:
        return quick
    holds = bool((rows.extra_time_s.abs() <= UDP_TOLERANCE_S).all())
    holds &= bool((rows[rows.pause_ms >= 10].loss_percent > 0).all())
    text = "; ".join(
        f"{r['pause_ms']} ms: {float(r['extra_time_s']):+.3f} s, "
        f"loss {float(r['loss_percent']):.3g} %"
        for r in _records(rows)
    )
    return Outcome(holds=holds, text=text)


def _loss_per_pause_fraction(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """UDP, PAUSE ignored: "packet loss was roughly equal to the percentage of RPS
    switching time". The percentage of switching time is the run's own: 100 x
    pause_total_s / transfer_time_s (about pause_ms / 10 % in the full run, one pause a
    second). Holds if loss_percent / that percentage is within a factor of two of 1
    (0.5 to 2) at every pause time (Table II's own ratios: 0.50, 1.00, 0.99). Both runs:
    the ratio does not depend on how many pauses the transfer met."""
    rows = _cells(rep, where)
    if rows.empty:
        return _missing(where)
    holds = True
    parts = []
    for r in _records(rows):
        paused = 100 * float(r["pause_total_s"]) / float(r["transfer_time_s"])
        ratio = float(r["loss_percent"]) / paused if paused > 0 else math.nan
        holds &= 0.5 <= ratio <= 2
        parts.append(
            f"{r['pause_ms']} ms: loss {float(r['loss_percent']):.3g} % against "
            f"{paused:.3g} % of the time paused (ratio {ratio:.2f})"
        )
    return Outcome(holds=holds, text="; ".join(parts))


def _pause_prevents_loss(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """UDP: PAUSE back-pressure prevents the loss. Holds if at 10 and 20 ms
    loss_percent = 0 with PAUSE honoured while loss_percent > 0 with it ignored, and
    the switch sent PAUSE to the server (pause_frames_to_server > 0) in the honoured
    cells. Both runs: whether a pause loses datagrams does not depend on how many."""
    rows = _cells(rep, where)
    rows = rows[rows.pause_ms >= 10]
    if rows.empty:
        return _missing(where)
    holds = True
    parts = []
    for pause in sorted(set(rows.pause_ms)):
        at = rows[rows.pause_ms == pause]
        on, off = at[at.server_honours_pause], at[~at.server_honours_pause]
        if on.empty or off.empty:
            return _missing({**where, "pause_ms": pause})
        lost_on, lost_off = float(on.loss_percent.iloc[0]), float(off.loss_percent.iloc[0])
        frames = int(on.pause_frames_to_server.iloc[0])
        holds &= lost_on == 0 and lost_off > 0 and frames > 0
        parts.append(
            f"{pause} ms: loss {lost_on:.3g} % honoured ({frames} PAUSE frames to the "
            f"server), {lost_off:.3g} % ignored"
        )
    return Outcome(holds=holds, text="; ".join(parts))


def _perceived_difference(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """§III.D's trial with two people surfing the web and calling over Skype: not run."""
    return Outcome(
        comparable=False,
        text=(
            "this reproduction runs no web or VoIP workload; `ethersim reproduce rps-apps` "
            "runs the trial with a call and page loads"
        ),
    )


# --- the burst-loss model --------------------------------------------------------------


def _simulated_bursts(rep: study.Reproduction) -> pd.DataFrame:
    bursts = rep.bursts
    return bursts[bursts.lost_percent_simulated.notna()]


def _burst_loss_model_error_packets(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Eq. (1) with its ceiling against the simulated bursts: holds if
    |lost_packets_simulated - lost_packets| ≤ 1 in every simulated row of
    burst_loss.csv (the model is a fluid; its packets are a ceiling)."""
    sim = _simulated_bursts(rep)
    if sim.empty:
        return Outcome(comparable=False, text="no burst was simulated")
    error = (sim.lost_packets_simulated.astype(float) - sim.lost_packets.astype(float)).abs()
    rates = ", ".join(str(r) for r in sorted(set(sim.rate_gbps)))
    worst = sim.iloc[int(error.to_numpy().argmax())]
    return Outcome(
        holds=bool((error <= 1).all()),
        text=(
            f"{len(sim)} simulated bursts (R = {rates} Gb/s, "
            f"{sim.buffer_bytes.min():,} B to {sim.buffer_bytes.max():,} B of buffer): "
            f"largest difference {int(error.max())} packets ({int(worst.lost_packets_simulated)} "
            f"simulated against {int(worst.lost_packets)} at {worst.rate_gbps} Gb/s, "
            f"{int(worst.buffer_bytes):,} B)"
        ),
    )


def _burst_loss_nonincreasing_in_buffer(
    rep: study.Reproduction, where: Mapping[str, Any]
) -> Outcome:
    """Fig. 2: a larger buffer loses a smaller share of the burst. Holds if, for every
    rate, lost_percent (eq. (1)) and lost_percent_simulated (where simulated), sorted by
    buffer_bytes, never increase."""
    if rep.bursts.empty:
        return Outcome(comparable=False, text="no burst-loss table")
    holds = True
    parts = []
    for rate, rows in rep.bursts.sort_values("buffer_bytes").groupby("rate_gbps"):
        model = rows.lost_percent.astype(float)
        sim = rows.lost_percent_simulated.dropna().astype(float)
        ok = bool((model.diff().dropna() <= 1e-9).all() and (sim.diff().dropna() <= 1e-9).all())
        holds &= ok
        text = f"{rate} Gb/s: model {model.iloc[0]:.1f} % → {model.iloc[-1]:.1f} %"
        if not sim.empty:
            text += f", simulated {sim.iloc[0]:.1f} % → {sim.iloc[-1]:.1f} %"
        text += f" from 0 to {int(rows.buffer_bytes.max()):,} B" + ("" if ok else " (rises)")
        parts.append(text)
    return Outcome(holds=holds, text="; ".join(parts))


def _worst_case_burst_alignment(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """§II's worst case (the burst arrives as the link goes dark): not compared."""
    return Outcome(
        comparable=False,
        text=(
            "every simulated burst starts exactly as the link goes dark (burst_loss.csv), "
            "the worst case itself; no burst arriving earlier or later is run to compare with"
        ),
    )


EVALUATORS = {
    "transfer_time_s": _transfer_time_s,
    "loss_percent": _loss_percent,
    "extra_time_s": _extra_time_s,
    "client_pauses": _client_pauses,
    "extra_time_about_pause_total": _extra_time_about_pause_total,
    "extra_time_equals_pause_total": _extra_time_equals_pause_total,
    "tcp_loss_recovery_cost_s": _tcp_loss_recovery_cost_s,
    "extra_time_exceeds_pause_total": _extra_time_exceeds_pause_total,
    "honoured_minus_ignored_time_s": _honoured_minus_ignored_time_s,
    "relative_extra_time_percent": _relative_extra_time_percent,
    "udp_time_change_s": _udp_time_change_s,
    "loss_per_pause_fraction": _loss_per_pause_fraction,
    "pause_prevents_loss": _pause_prevents_loss,
    "perceived_difference": _perceived_difference,
    "burst_loss_model_error_packets": _burst_loss_model_error_packets,
    "burst_loss_nonincreasing_in_buffer": _burst_loss_nonincreasing_in_buffer,
    "worst_case_burst_alignment": _worst_case_burst_alignment,
}
FINDINGS: Findings[study.Reproduction] = Findings(
    "rps", EVALUATORS, options=("host_bottleneck", "buffer_bytes", "switch_releases")
)

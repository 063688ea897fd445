"""Evaluators of the published findings of `ethersim reproduce rps-apps` (see
studies/published/rps-apps.toml): the paper's two-person trial (§III.D), judged from the
reproduction's own table (``rps_apps.csv``, one row per pause time and PAUSE setting).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ethersim.studies import rps_apps as study
from ethersim.studies.contract import Findings, Outcome

__all__ = ["EVALUATORS", "FINDINGS"]


def _setting(honours: bool) -> str:
    return "honoured" if honours else "ignored"


def _call_unnoticed(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if no paused cell puts the call in a worse G.109 band than its control."""
    t = rep.cells
    paused = t[t.pause_ms > 0]
    if paused.empty:
        return Outcome(comparable=False, text="no paused cell")
    parts = [
        f"{r.pause_ms} ms {_setting(bool(r.server_honours_pause))}: MOS {r.call_mos:.2f} "
        f"({r.call_mos_change:+.3f}, {r.call_satisfaction})"
        for _, r in paused.sort_values(["server_honours_pause", "pause_ms"]).iterrows()
    ]
    return Outcome(holds=not bool(paused.call_noticed.any()), text="; ".join(parts))


def _web_unnoticed(rep: study.Reproduction, where: Mapping[str, Any]) -> Outcome:
    """Holds if no paused cell moves the median or 95th-percentile page load into a
    slower response-time band than its control."""
    t = rep.cells
    paused = t[t.pause_ms > 0]
    if paused.empty:
        return Outcome(comparable=False, text="no paused cell")
    parts = [
        f"{r.pause_ms} ms {_setting(bool(r.server_honours_pause))}: median "
        f"{r.page_load_p50_s * 1e3:.1f} ms ({r.page_load_p50_added_ms:+.2f}), 95th "
        f"{r.page_load_p95_s * 1e3:.1f} ms ({r.page_load_p95_added_ms:+.2f})"
        for _, r in paused.sort_values(["server_honours_pause", "pause_ms"]).iterrows()
    ]
    return Outcome(holds=not bool(paused.web_noticed.any()), text="; ".join(parts))


EVALUATORS = {
    "call_unnoticed": _call_unnoticed,
    "web_unnoticed": _web_unnoticed,
}
FINDINGS: Findings[study.Reproduction] = Findings(
    "rps-apps", EVALUATORS, options=("buffer_bytes", "jitter_buffer_ms")
)

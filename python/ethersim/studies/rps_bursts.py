"""The burst-loss part of ``ethersim reproduce rps``: a burst into a link that goes dark
while it switches rate, simulated, beside the analytic model of
:mod:`ethersim.models.burst` (``burst_loss.csv``).

The study's curves: a 10 MB burst arriving at 2, 4 or 6 Gb/s into a link that switches
from 1 to 10 Gb/s as the burst begins and is dark for 10 ms, behind a switch buffer of
0 to 8 MB.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

from ethersim.models import burst_loss

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "BURST_BYTES",
    "BURST_DARK_MS",
    "BURST_RATES_GBPS",
    "FRAME_BYTES",
    "FRAME_PAYLOAD",
    "burst_scenario",
    "burst_table",
]

#: The burst-loss curves: burst, dark time, rates, link rate.
BURST_BYTES = 10_000_000
BURST_DARK_MS = 10
BURST_RATES_GBPS = (2, 4, 6)
#: Maximum frame, and the payload it carries, of the simulated bursts.
FRAME_BYTES = 1518
FRAME_PAYLOAD = 1472


def burst_scenario(
    rate_bps: int, frames: int, buffer_bytes: int, dark_ms: int, seed: int = 1
) -> tuple[str, Fraction]:
    """A burst of ``frames`` maximum frames arriving at ``rate_bps`` of frame bytes (paced
    by the source over a 10 Gb/s link) into a link that switches from 1 to 10 Gb/s as
    the burst begins, dark for ``dark_ms``, behind ``buffer_bytes`` of switch buffer.
    Returns the scenario and the exact rate (bit/s) at which its frames fill the buffer:
    the payload rate is a whole number of bit/s, so the fill rate is that times
    1518/1472."""
    payload_rate = round(rate_bps * FRAME_PAYLOAD / FRAME_BYTES)
    fill_rate = Fraction(payload_rate * FRAME_BYTES, FRAME_PAYLOAD)
    text = f"""# A burst into a link that switches rate: written by `ethersim reproduce rps`.
name = "burst-{rate_bps}bps-{buffer_bytes}B"
seed = {seed}

[[hosts]]
name = "source"

[[hosts]]
name = "sink"

[[switches]]
name = "switch"
port_buffer = {{ bytes = "{buffer_bytes} B" }}

[[links]]
between = ["source", "switch"]
rate = "10 Gb/s"

[[links]]
between = ["switch", "sink"]
rate = "1 Gb/s"

# Switches up to 10 Gb/s as the burst begins: dark {dark_ms} ms.
[links.rate_switching]
rates = ["1 Gb/s", "10 Gb/s"]
switch_time = "{dark_ms} ms"
policy = {{ kind = "schedule", changes = [{{ at = "0 s", rate = "10 Gb/s" }}] }}

[[apps]]
kind = "udp_file"
name = "burst"
from = "source"
to = "sink"
size = "{frames * FRAME_PAYLOAD} B"
rate = "{payload_rate} b/s"   # {float(fill_rate) / 1e9:.6g} Gb/s of frame bytes
"""
    return text, fill_rate


def burst_table(simulated: dict[tuple[int, int], float]) -> pd.DataFrame:
    """``burst_loss.csv``: the analytic curves on a fine grid of buffers, with the simulated
    points (``simulated``: lost percent by (rate in Gb/s, buffer in bytes))."""
    import pandas as pd

    frames = math.ceil(BURST_BYTES / FRAME_BYTES)
    burst = frames * FRAME_BYTES
    fine = [k * 250_000 for k in range(0, 33)]
    rows = []
    for rate in BURST_RATES_GBPS:
        payload_rate = round(rate * 10**9 * FRAME_PAYLOAD / FRAME_BYTES)
        fill = Fraction(payload_rate * FRAME_BYTES, FRAME_PAYLOAD)
        buffers = sorted(set(fine) | {b for (r, b) in simulated if r == rate})
        for b in buffers:
            model = burst_loss(fill, burst, Fraction(BURST_DARK_MS, 1000), b, FRAME_BYTES)
            sim = simulated.get((rate, b))
            rows.append(
                {
                    "rate_gbps": rate,
                    "buffer_bytes": b,
                    "lost_percent": model.lost_percent,
                    "lost_percent_simulated": sim,
                    "lost_packets": model.lost_packets,
                    "lost_packets_simulated": None if sim is None else round(sim * frames / 100),
                    "burst_bytes": burst,
                    "dark_ms": BURST_DARK_MS,
                    "fill_rate_bps": float(fill),
                }
            )
    table = pd.DataFrame(rows)
    table["lost_packets_simulated"] = table["lost_packets_simulated"].astype("Int64")
    return table

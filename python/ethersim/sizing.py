"""Sizing helpers for scenarios: buffers from the bandwidth-delay product.

>>> from ethersim.sizing import bdp_bytes
>>> bdp_bytes(10e6, 0.05)     # 10 Mb/s, 50 ms round trip
62500
>>> bdp_bytes(10e6, 0.001)    # below two maximum frames: two frames
3036
"""

from __future__ import annotations

import math

__all__ = ["MAX_FRAME_BYTES", "MIN_BUFFER_BYTES", "bdp_bytes"]

#: The largest standard Ethernet frame (1500 B MTU, header and FCS).
MAX_FRAME_BYTES = 1518
#: The smallest buffer :func:`bdp_bytes` gives: two maximum frames. An ethersim buffer
#: holds the frame being sent until its last bit leaves, so this is one frame on the wire
#: and one waiting: what a queue limit of one packet that excludes the packet in service
#: gives in other simulators. With less, a window of two back-to-back segments always
#: loses one, and TCP lives on timeouts.
MIN_BUFFER_BYTES = 2 * MAX_FRAME_BYTES


def bdp_bytes(rate_bps: float, rtt_s: float, at_least: int = MIN_BUFFER_BYTES) -> int:
    """A buffer of one bandwidth-delay product, ``rate * RTT`` in bytes (rounded up), and
    at least ``at_least`` bytes (by default :data:`MIN_BUFFER_BYTES`, two maximum frames).
    Raises ``ValueError`` for a negative or non-finite rate or RTT."""
    for name, value in (("rate_bps", rate_bps), ("rtt_s", rtt_s)):
        if not (math.isfinite(value) and value >= 0):
            raise ValueError(f"{name} = {value!r}; expected a finite number >= 0")
    return max(at_least, math.ceil(rate_bps * rtt_s / 8))

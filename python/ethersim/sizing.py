"""Sizing helpers for scenarios: buffers from the bandwidth-delay product, in bytes or
in frames, under a stated queue convention.

>>> from ethersim.sizing import bdp_bytes, bdp_frames
>>> bdp_bytes(10e6, 0.05)     # 10 Mb/s, 50 ms round trip
62500
>>> bdp_bytes(10e6, 0.001)    # below two maximum frames: two frames
3036
>>> bdp_frames(10e6, 0.1, 1500)                            # 83.3 packets, in all
84
>>> bdp_frames(10e6, 0.1, 1500, counts_in_service=False)   # 83 waiting + 1 being sent
83

What a queue of N frames holds depends on whether the frame being sent counts
(``port_buffer.counts_in_service`` in a scenario). ethersim's default counts it until its
last bit has left, as ns-2's ``DropTail`` does: its ``enque`` drops when
``q_->length() + 1 >= qlim_``, and the packet on the link has already left ``q_``, so a
``queue-limit`` of N holds N packets in all. ns-3's ``DropTailQueue`` (``MaxSize`` N) on a
point-to-point device does not: N wait behind the one being sent.
"""

from __future__ import annotations

import math

__all__ = ["MAX_FRAME_BYTES", "MIN_BUFFER_BYTES", "MIN_BUFFER_FRAMES", "bdp_bytes", "bdp_frames"]

#: The largest standard Ethernet frame (1500 B MTU, header and FCS).
MAX_FRAME_BYTES = 1518
#: The smallest buffer :func:`bdp_bytes` gives: two maximum frames. An ethersim buffer
#: holds the frame being sent until its last bit leaves, so this is one frame on the wire
#: and one waiting. With less, a window of two back-to-back segments always loses one,
#: and TCP lives on timeouts.
MIN_BUFFER_BYTES = 2 * MAX_FRAME_BYTES
#: The fewest frames in all :func:`bdp_frames` gives: one being sent and one waiting
#: (ns-2's ``DropTail`` with a limit of 1 drops every packet).
MIN_BUFFER_FRAMES = 2


def _check(rate_bps: float, rtt_s: float) -> None:
    for name, value in (("rate_bps", rate_bps), ("rtt_s", rtt_s)):
        if not (math.isfinite(value) and value >= 0):
            raise ValueError(f"{name} = {value!r}; expected a finite number >= 0")


def bdp_bytes(rate_bps: float, rtt_s: float, at_least: int = MIN_BUFFER_BYTES) -> int:
    """A buffer of one bandwidth-delay product, ``rate * RTT`` in bytes (rounded up), and
    at least ``at_least`` bytes (by default :data:`MIN_BUFFER_BYTES`, two maximum frames).
    As a ``port_buffer.bytes`` it counts the frame being sent (the default convention).
    Raises ``ValueError`` for a negative or non-finite rate or RTT."""
    _check(rate_bps, rtt_s)
    return max(at_least, math.ceil(rate_bps * rtt_s / 8))


def bdp_frames(
    rate_bps: float,
    rtt_s: float,
    frame_bytes: int = MAX_FRAME_BYTES,
    *,
    counts_in_service: bool = True,
    at_least: int = MIN_BUFFER_FRAMES,
) -> int:
    """The ``port_buffer.frames`` limit of a buffer that holds one bandwidth-delay product
    of ``frame_bytes`` frames in all: ``ceil(rate * RTT / 8 / frame_bytes)`` frames,
    and at least ``at_least`` (:data:`MIN_BUFFER_FRAMES`). With ``counts_in_service``
    (ethersim's default, and ns-2's ``queue-limit``) that is the limit; without it (ns-3's
    ``MaxSize``) the frame being sent is not counted, so the limit is one less, and at
    least 1. Raises ``ValueError`` for a negative or non-finite rate or RTT, or a frame
    size or minimum below 1."""
    _check(rate_bps, rtt_s)
    if frame_bytes < 1 or at_least < 1:
        raise ValueError(
            f"frame_bytes = {frame_bytes!r}, at_least = {at_least!r}; expected integers >= 1"
        )
    # Rounded to 1e-9 first, so that an exact product in floating point (10 Mb/s x 10 ms
    # of 1250-B frames) is not pushed up a frame by its last bit.
    in_all = max(at_least, math.ceil(round(rate_bps * rtt_s / 8 / frame_bytes, 9)))
    return in_all if counts_in_service else max(1, in_all - 1)

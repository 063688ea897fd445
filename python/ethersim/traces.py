"""Packet traces (pcap or pcapng files) as frame times and lengths: what a ``replay``
application sends, and what ``ethersim what-if`` reads. The file is parsed by the
simulator's core (the ``pcap-file`` crate), so Python and a replay see the same frames."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ethersim import _core

__all__ = ["CLOCK_END_S", "Trace", "read_trace"]

#: The last instant the engine's clock holds, seconds after a run's start: 2^64 - 2
#: picoseconds, about 213 days. A run whose next event lies beyond it stops there
#: (``stop_reason`` ``clock_overflow``) with the results up to that instant.
CLOCK_END_S = (2**64 - 2) * 1e-12


@dataclass(frozen=True)
class Trace:
    """A trace's frames in timestamp order."""

    #: The first frame's timestamp, picoseconds since the file's epoch (1970 for a capture
    #: of a real network; the run's start for a capture ethersim wrote).
    first_ps: int
    #: Each frame's timestamp, picoseconds after the first frame's.
    offset_ps: npt.NDArray[np.uint64]
    #: Each frame's length on the wire, FCS included, at least 64 bytes.
    frame_len: npt.NDArray[np.uint32]

    def __len__(self) -> int:
        return len(self.frame_len)

    @property
    def span_s(self) -> float:
        """Time from the first frame to the last, seconds."""
        return float(self.offset_ps[-1]) * 1e-12 if len(self) else 0.0

    def replay_end_s(self, time_scale: float = 1.0, passes: int = 1) -> float:
        """When a replay of the trace sends its last frame, seconds after its first:
        ``passes`` passes, each one pass length (the span plus the mean gap between
        frames) after the previous, every time multiplied by ``time_scale``, as the
        simulator lays the replay out."""
        n = len(self)
        if n < 2:
            return 0.0
        span = float(self.offset_ps[-1]) * 1e-12
        return ((passes - 1) * (span + span / (n - 1)) + span) * time_scale

    @property
    def mean_rate_bps(self) -> float:
        """Line bits per second over the trace: frames with their preamble and gap
        (20 B each), over the span plus one mean gap (the pass length of a replay)."""
        n = len(self)
        if n < 2 or self.offset_ps[-1] == 0:
            return 0.0
        span = float(self.offset_ps[-1]) * 1e-12
        pass_s = span + span / (n - 1)
        return float((self.frame_len.astype(np.float64) + 20).sum() * 8 / pass_s)


def read_trace(file: str | Path, path: str = "") -> Trace:
    """Reads the trace in ``file``. Raises :class:`~ethersim.errors.ScenarioError` at
    ``path`` (the option or key to name) if it cannot be read or is malformed; the message
    names the file and the record."""
    first, offsets, lengths = _core.read_trace(Path(file), path)
    # Views of the bytes the core filled (read-only, no copy).
    return Trace(
        first_ps=first,
        offset_ps=np.frombuffer(offsets, dtype="<u8").astype(np.uint64, copy=False),
        frame_len=np.frombuffer(lengths, dtype="<u4").astype(np.uint32, copy=False),
    )

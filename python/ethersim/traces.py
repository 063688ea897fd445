"""Packet traces (pcap or pcapng files) as frame times and lengths: what a ``replay``
application sends, and what ``ethersim what-if`` reads. The file is parsed by the
simulator's core (the ``pcap-file`` crate), so Python and a replay see the same frames."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ethersim import _core

__all__ = ["Trace", "read_trace"]


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

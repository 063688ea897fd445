"""The published studies ethersim reproduces (``ethersim reproduce NAME``).

Each study is a module with a ``reproduce(...)`` function that builds its scenarios,
runs its grid on all local cores, and writes its tables, figures and a short summary
into an output folder that appears complete or not at all.

- :mod:`ethersim.studies.rps`: 802.3x PAUSE against link-rate switching (Rapid PHY
  Selection): TCP and UDP file transfers through a switch whose output is paused.
- :mod:`ethersim.studies.eee_pingpong`: the delay Low Power Idle adds to a ping's round
  trip, against the send interval.
- :mod:`ethersim.studies.csma`: the measured capacity of a shared-medium CSMA/CD
  Ethernet as hosts are added, for nine frame lengths and four bimodal mixes.
"""

from __future__ import annotations

__all__ = ["csma", "eee_pingpong", "rps"]

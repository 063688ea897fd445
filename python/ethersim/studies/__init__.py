"""The published studies ethersim reproduces (``ethersim reproduce NAME``).

Each study is a module whose ``STUDY`` is a :class:`~ethersim.studies.study.Study`: its
command and options, how it builds and runs its scenarios, what it writes (tables,
figures, summary, scenario files) and its published findings. The module is listed in
:mod:`~ethersim.studies.registry`, from which the command line is made. Beside it: its
evaluators (``<study>_findings.py``) and the paper's findings and setup ledger
(``published/<study>.toml``); where the module would grow too long, its figures and
summary (``<study>_report.py``) and other parts of its own.

- :mod:`ethersim.studies.rps`: 802.3x PAUSE against link-rate switching (Rapid PHY
  Selection): TCP and UDP file transfers through a switch whose output is paused.
- :mod:`ethersim.studies.eee_pingpong`: the delay Low Power Idle adds to a ping's round
  trip, against the send interval.
- :mod:`ethersim.studies.eee_hpc`: the time Low Power Idle adds to an MPI alltoall loop,
  and the EEE performance model fitted to it.
- :mod:`ethersim.studies.csma`: the measured capacity of a shared-medium CSMA/CD
  Ethernet as hosts are added, for nine frame lengths and four bimodal mixes.
- :mod:`ethersim.studies.capacity_scaling`: what scaling a router's capacity to its load
  (practRA) saves, and what it costs a TCP flow.

What every study shares: :mod:`~ethersim.studies.study` (the contract),
:mod:`~ethersim.studies.contract` (published findings, the comparison, the setup
ledger) and :mod:`~ethersim.studies.sensitivity` (each assumption over its range).
Running scenarios is :mod:`ethersim.batch`'s or :mod:`ethersim.sweeps`'; writing figures
is :mod:`ethersim.figures`'.
"""

from __future__ import annotations

__all__ = ["capacity_scaling", "csma", "eee_hpc", "eee_pingpong", "rps"]

"""The study contract's types: what a study's ``published/<study>.toml`` is read into
(:class:`Published`, its :class:`Finding` entries with their :class:`Marker`, the setup
ledger's :class:`SetupEntry` lines and the :class:`Joint` sensitivity points) and what an
evaluator returns for a finding (:class:`Outcome`). :mod:`ethersim.studies.contract`
re-exports them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Evaluator",
    "Finding",
    "Joint",
    "Marker",
    "Outcome",
    "Published",
    "SetupEntry",
]


@dataclass(frozen=True)
class Finding:
    """One result a paper states."""

    id: str
    claim: str
    source: str
    quote: str
    kind: str
    quantity: str
    where: Mapping[str, Any]
    published: float | None
    unit: str
    tolerance: float | None
    tolerance_percent: float | None
    tolerance_reason: str
    computed_from: str
    #: Why ethersim differs, where it does and the cause was found (with the run that
    #: shows it); printed beside a "differs" verdict.
    explanation: str = ""
    #: Where the published value belongs on one of the reproduction's own figures (the
    #: paper has the same figure and states this value in its text), or ``None``.
    marker: Marker | None = None

    def accepts(self, simulated: float) -> bool:
        """Whether ``simulated`` is within the finding's tolerance of the published value."""
        assert self.published is not None
        allowed = 0.0
        if self.tolerance is not None:
            allowed = max(allowed, self.tolerance)
        if self.tolerance_percent is not None:
            allowed = max(allowed, abs(self.published) * self.tolerance_percent / 100)
        return abs(simulated - self.published) <= allowed * (1 + 1e-12)

    def published_text(self) -> str:
        """The published value as ``comparison.csv`` shows it."""
        if self.published is None:
            return self.claim
        return f"{_number(self.published)} {self.unit}".strip()


@dataclass(frozen=True)
class Marker:
    """A published value's place on a reproduction's figure: the figure's file stem, the
    x value(s) the value belongs at, and which panel (its title's key; "" for a figure
    of one panel). The y value is the finding's ``published``."""

    figure: str
    x: tuple[float, ...]
    panel: str = ""


@dataclass(frozen=True)
class SetupEntry:
    """One line of the setup ledger."""

    parameter: str
    kind: str
    value: str
    source: str
    range: tuple[str, ...] = ()
    range_reason: str = ""
    findings: tuple[str, ...] = ()
    #: The study option (a field of the study's ``Options``) a sensitivity run sets to
    #: each value of ``range``, where the parameter is a choice of the study's (where
    #: the host's bottleneck lies, say) rather than one scenario key; empty otherwise.
    option: str = ""
    #: ``range`` as the data file gives it (numbers stay numbers), for ``option``.
    raw_range: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Published:
    """A study's published findings and setup ledger, as read from its data file."""

    study: str
    paper: str
    seed: str
    findings: tuple[Finding, ...]
    setup: tuple[SetupEntry, ...]
    path: str = ""
    #: ``[[joint]]``: assumptions the sensitivity run sets together, where one alone
    #: moves nothing but several together might (each a point of its own).
    joints: tuple[Joint, ...] = ()


@dataclass(frozen=True)
class Joint:
    """One joint sensitivity point: several ranged ledger entries, each set to one value
    of its range, at once."""

    #: (ledger parameter, value as the ledger's range gives it), in the file's order.
    settings: tuple[tuple[str, Any], ...]
    #: Why these belong together (the mechanism that needs them all).
    reason: str


@dataclass(frozen=True)
class Outcome:
    """What an evaluator found for one finding.

    ``value`` is the simulated number (quantitative findings) or ``None``; ``holds`` is
    whether a qualitative claim holds in the simulation; ``text`` says what was found in
    words (it becomes ``simulated`` for a qualitative finding). ``comparable=False``
    means the reproduction did not run what the finding is about (``text`` says why).
    """

    value: float | None = None
    holds: bool | None = None
    text: str = ""
    comparable: bool = True


#: An evaluator: the reproduction and the finding's ``where`` selector → an outcome.
Evaluator = Callable[[Any, Mapping[str, Any]], Outcome]


def _number(x: float) -> str:
    return f"{x:.6g}"

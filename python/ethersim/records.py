"""The mechanisms' records in a run's results, as the core declares them.

A mechanism that adds columns to a results table (PAUSE, Low Power Idle and rate scaling
to ``ports``) declares, beside its record in the core, how it is shown: the table, a
title, when a row has something to show, and the columns shown with short headers
(``RecordView`` in ``stats/record.rs``). The terminal tables (:mod:`ethersim.cli_summary`)
and the run report render every record from this alone, formatting each value by the
unit its column's name says (:func:`ethersim.units.human`): a new mechanism's record
appears in both without a printer of its own.
"""

from __future__ import annotations

from ethersim._lean import once

__all__ = ["RecordView", "record_views", "shown_rows"]


# typing is imported only by type checkers: a run does not load it (start-up, issue 29).
# At run time a record view is the plain dict a TypedDict's call makes anyway.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any, TypedDict

    class RecordView(TypedDict):
        """How one mechanism's record is shown."""

        #: The results table whose rows carry it (``ports``).
        table: str
        #: The title of its table.
        title: str
        #: A row is shown when any of these columns is true or non-zero.
        shown_when: list[str]
        #: The columns shown, in order, each with its short header.
        columns: list[tuple[str, str]]

else:
    RecordView = dict


@once
def record_views() -> tuple[RecordView, ...]:
    """Every mechanism's record view, in the order the core lists them."""
    from ethersim import _core

    views = _core.record_views()
    return tuple(
        RecordView(
            table=v["table"],
            title=v["title"],
            shown_when=list(v["shown_when"]),
            columns=[(c, h) for c, h in v["columns"]],
        )
        for v in views
    )


def shown_rows(view: RecordView, summary: Mapping[str, Any]) -> Sequence[Mapping[str, Any]]:
    """The rows of ``summary``'s table that have something of ``view``'s to show."""
    rows: Sequence[Mapping[str, Any]] = summary.get(view["table"], [])
    return [r for r in rows if any(r.get(c) for c in view["shown_when"])]

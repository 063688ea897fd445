"""Mechanism-owned records (issue 28, part 3): each mechanism reports its columns as a
record of its own and declares how it is shown; the terminal and the report render every
record from that view alone.

Checked against runs of the shipped examples that use each mechanism: every column a
view names is in every row of its table, a row is shown exactly when the view says, and
the terminal table and the report's table of each record show what the view lists.
"""

from __future__ import annotations

import io
from pathlib import Path

import ethersim
import pytest
from ethersim import cli_summary
from ethersim.records import record_views, shown_rows

ROOT = Path(__file__).resolve().parents[1]

#: An example that uses each record's mechanism.
EXAMPLES = {
    "pause (802.3x)": "pause-tcp.toml",
    "eee (802.3az)": "eee-ping.toml",
    "capacity scaling": "capacity-scaling.toml",
    "shaper (token bucket)": "shaped-udp.toml",
}


@pytest.fixture(scope="module")
def summaries() -> dict[str, dict]:
    # The capacity-scaling example's minute is cut to two seconds: its router scales the
    # rate within the first.
    shorter = {"capacity-scaling.toml": [("duration", "2 s")]}
    return {
        title: ethersim.run(ROOT / "examples" / example, overrides=shorter.get(example)).summary
        for title, example in EXAMPLES.items()
    }


def test_the_core_declares_a_view_for_each_mechanism_record() -> None:
    views = record_views()
    assert [v["title"] for v in views] == list(EXAMPLES)
    for v in views:
        assert v["table"] == "ports"
        assert v["columns"] and v["shown_when"]
        assert len({c for c, _ in v["columns"]}) == len(v["columns"]), "a column listed twice"


def test_every_column_a_view_names_is_in_every_row_that_has_the_record(summaries) -> None:
    # A record is in every row of its table (PAUSE, LPI, rate scaling: zeros where the
    # mechanism is off), or only in the rows of ports that carry its mechanism (the
    # shaper, added later, so that no other run's files changed): all of its columns or
    # none.
    for title, summary in summaries.items():
        for view in record_views():
            rows = summary[view["table"]]
            assert rows
            names = [*view["shown_when"], *(c for c, _ in view["columns"])]
            for r in rows:
                present = [c for c in names if c in r]
                assert present in ([], names), (view["title"], r["node"], present)
            if view["title"] == title:
                assert any(all(c in r for c in names) for r in rows), title


def test_a_row_is_shown_exactly_when_its_mechanism_acted(summaries) -> None:
    for title, summary in summaries.items():
        for view in record_views():
            shown = shown_rows(view, summary)
            expected = [r for r in summary["ports"] if any(r.get(c) for c in view["shown_when"])]
            assert shown == expected
            if view["title"] == title:
                assert shown, f"{title}: the example that uses it shows no row"
    # Mechanisms an example does not use show nothing (ports of a plain link).
    eee_view = next(v for v in record_views() if v["title"] == "eee (802.3az)")
    assert not shown_rows(eee_view, summaries["pause (802.3x)"])


def test_the_terminal_prints_each_record_from_its_view(summaries, monkeypatch) -> None:
    from rich.console import Console

    for title, summary in summaries.items():
        buffer = io.StringIO()
        console = Console(file=buffer, width=80, color_system=None)
        monkeypatch.setattr(cli_summary, "lines_output", lambda console=console: console)
        cli_summary._records(summary)
        text = buffer.getvalue()
        view = next(v for v in record_views() if v["title"] == title)
        assert title in text
        for _, header in view["columns"]:
            assert header in text, (title, header, text)
        assert max(len(line) for line in text.splitlines()) <= 80, text


def test_the_report_has_a_table_per_record_with_rows(summaries) -> None:
    from ethersim.report import tables

    for title, summary in summaries.items():
        made = [t for t in tables.record_tables(summary) if t is not None]
        titles = [t.title.lower() for t in made]
        assert title.lower() in titles, titles

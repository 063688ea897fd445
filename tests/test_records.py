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


def test_every_column_a_view_names_is_in_every_row_of_its_table(summaries) -> None:
    for summary in summaries.values():
        for view in record_views():
            rows = summary[view["table"]]
            assert rows
            for column in [*view["shown_when"], *(c for c, _ in view["columns"])]:
                missing = [r["node"] for r in rows if column not in r]
                assert not missing, (view["title"], column, missing)


def test_a_row_is_shown_exactly_when_its_mechanism_acted(summaries) -> None:
    for title, summary in summaries.items():
        for view in record_views():
            shown = shown_rows(view, summary)
            expected = [r for r in summary["ports"] if any(r[c] for c in view["shown_when"])]
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
        monkeypatch.setattr(cli_summary, "out_console", lambda console=console: console)
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

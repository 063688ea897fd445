"""The run's terminal tables (:mod:`ethersim.cli_table`): they fit the terminal, never
split a number, lose no character of a text cell, and measure wide characters by the
cells they take on a terminal."""

from __future__ import annotations

from ethersim.cli_table import ONE_CELL, Column, Line, render
from ethersim.cli_table import cell_len as table_cell_len
from ethersim.cli_table import chop_cells as table_chop_cells
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len

COLUMNS: list[Column] = [("flow", True), ("from → to", True), ("sent", False), ("loss", False)]


def lines(title: str, rows: list[list[str]], width: int, **kw: list[str]) -> list[str]:
    return plain(render(title, COLUMNS, rows, width, **kw))


def plain(table: list[Line]) -> list[str]:
    return ["".join(text for text, _ in line) for line in table]


def test_columns_are_as_wide_as_their_widest_cell() -> None:
    rows = [["f0", "s0 → r0", "6,971", "1.89%"], ["f10", "s10 → r10", "10", "100%"]]
    out = lines("flows", rows, 80)
    assert out == [
        "flows",
        "",
        " flow   from → to    sent    loss",
        " ────────────────────────────────",
        " f0     s0 → r0     6,971   1.89%",
        " f10    s10 → r10      10    100%",
        "",
    ]


def test_a_totals_row_is_ruled_off() -> None:
    out = lines("flows", [["f0", "a → b", "1", "0%"]], 80, totals=["all 3", "", "9", "1%"])
    assert out[-3] == out[3], "the same rule as under the header"
    assert out[-2].split() == ["all", "3", "9", "1%"]


def test_the_title_and_header_are_bold() -> None:
    table = render("flows", COLUMNS, [["f0", "a → b", "1", "0%"]], 80)
    bold = [text for line in table for text, style in line if style == "bold"]
    assert bold[0] == "flows"
    assert bold[1].split() == ["flow", "from", "→", "to", "sent", "loss"]
    assert len(bold) == 2, "nothing else is bold"


def test_wide_characters_take_two_cells() -> None:
    out = lines("t", [["流量", "a → b", "1", "0%"], ["ab", "a → b", "1", "0%"]], 80)
    assert len({cell_len(line) for line in out[2:-1]} - {cell_len(out[3])}) == 0, out


TEXT = st.text(alphabet=st.sampled_from("ab →流é-"), min_size=1, max_size=30)
NUMBER = st.from_regex(r"[0-9][0-9,.]{0,9}( [kMG]?b/s)?", fullmatch=True)
ROW = st.tuples(TEXT, TEXT, NUMBER, NUMBER).map(list)


@settings(max_examples=300, deadline=None)
@given(st.lists(ROW, min_size=1, max_size=6), st.integers(min_value=20, max_value=160))
def test_any_table_fits_splits_no_number_and_loses_no_character(
    rows: list[list[str]], width: int
) -> None:
    out = lines("t", rows, width)
    numbers = max(cell_len(r[2]) for r in rows) + max(cell_len(r[3]) for r in rows)
    if numbers + 4 + 3 * 3 + 2 <= width:  # the numbers and headers fit beside 1-cell text
        assert max(cell_len(line) for line in out) <= width, out
    body = "\n".join(out[4:])
    for row in rows:
        for number in row[2:]:
            assert number in body, (number, out)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(NUMBER, TEXT), min_size=1, max_size=6), st.integers(1, 40))
def test_a_wrapped_text_cell_loses_no_character(rows: list[tuple[str, str]], narrow: int) -> None:
    # A number, then one text column: undoing the wrapping (dropping the numbers, the
    # spaces and the line breaks) gives back every text cell in order.
    columns: list[Column] = [("x", False), ("n", True)]
    numbers = max(cell_len(n) for n, _ in rows)
    width = 2 + numbers + 3 + narrow
    out = plain(render("t", columns, [list(r) for r in rows], width))
    assert max(cell_len(line) for line in out) <= width, out
    body = "".join(line[1 + numbers + 3 :] for line in out[4:])
    assert "".join(body.split()) == "".join("".join(t.split()) for _, t in rows), out


def test_the_summarys_own_characters_take_one_cell_as_rich_measures_them() -> None:
    # The table measures these itself, without importing rich: rich must agree.
    assert all(cell_len(c) == 1 for c in ONE_CELL), sorted(ONE_CELL)


#: Text of every kind a cell may hold: ASCII, the summary's own characters, wide (CJK,
#: emoji), combining and control characters.
ANY_TEXT = st.text(
    alphabet=st.sampled_from(
        [*"ab ,.%-_", *ONE_CELL, "ö", "名", "字", "\u0301", "😀", "\x1b", "\t"]
    ),
    max_size=30,
)


@given(ANY_TEXT, st.integers(1, 12))
def test_the_tables_measure_and_cut_text_as_rich_does(text: str, width: int) -> None:
    from rich.cells import chop_cells

    assert table_cell_len(text) == cell_len(text)
    assert table_chop_cells(text, width) == chop_cells(text, width)

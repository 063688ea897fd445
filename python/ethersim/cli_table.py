"""A terminal table of text cells, laid out in one pass: the tables ``ethersim run`` prints.

The look is that of rich's ``SIMPLE_HEAD`` tables (a bold title and header, a rule under
the header, a rule before a totals row): columns are as wide as their widest cell, text
columns left-aligned and numbers right-aligned. When the table is wider than the
terminal, the text columns give up width, widest first, and their cells wrap between
words and fold inside a word too long for the column; a number never wraps.

Why not ``rich.table.Table``: it lays out every cell as a renderable of its own, some
0.1-0.2 ms a cell, which made a run's tables (a few hundred cells) cost 50-150 ms, as
much as simulating a 500 MB transfer. The cells here are plain text of known width, so
their layout is arithmetic; rich still measures each cell's width on the terminal
(:func:`rich.cells.cell_len`: wide and combining characters) and folds text to a width
(:func:`rich.cells.chop_cells`). The table comes out as lines of styled pieces, which
:func:`ethersim.cli_common.print_lines` prints through rich on a terminal and as plain
text elsewhere.
"""

from __future__ import annotations

# collections.abc for type checkers only: importing it loads all of collections
# (start-up, issue 29).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["MIN_TEXT_WIDTH", "Column", "Line", "render"]

#: A column: its header, and whether it holds text (left, may wrap) or a number (right,
#: never wrapped).
Column = tuple[str, bool]


#: The characters other than printable ASCII that the summary's own words use (the
#: arrows of "server → client" and "a ↔ b", the dash of an empty cell, the rule under a
#: header): one cell each, as rich measures them (tested).
ONE_CELL = frozenset("\u2192\u2190\u2194\u2013\u2500")  # → ← ↔, en dash, box rule


def _plain(text: str) -> bool:
    """Whether every character of ``text`` takes one cell: printable ASCII or
    :data:`ONE_CELL`."""
    if text.isascii():
        return text.isprintable()
    return text.isprintable() and all(c.isascii() or c in ONE_CELL for c in text)


def cell_len(text: str) -> int:
    """The terminal cells ``text`` takes: rich's measure (:func:`rich.cells.cell_len`:
    wide characters take two, combining ones none), which is imported only for text
    holding other characters than :func:`_plain` ones; a table of the summary's usual
    text does not import rich (start-up, issue 29)."""
    if _plain(text):
        return len(text)
    from rich.cells import cell_len as cells

    return cells(text)


def chop_cells(text: str, width: int) -> list[str]:
    """``text`` cut into pieces of at most ``width`` cells (:func:`rich.cells.chop_cells`),
    :func:`_plain` text cut directly."""
    if _plain(text):
        return [text[i : i + width] for i in range(0, len(text), width)]
    from rich.cells import chop_cells as chop

    return chop(text, width)


#: A line of output: its pieces of text, each with a rich style ("" for none). Printed by
#: :func:`ethersim.cli_common.print_lines`.
Line = list[tuple[str, str]]

#: The narrowest a text column is made to fit the terminal (one character a line, as
#: rich's tables go too: a table wider than the terminal would have every line wrapped).
MIN_TEXT_WIDTH = 1

#: Between two columns: a space of padding on each side of a space of border.
_GAP = "   "


def render(
    title: str,
    columns: Sequence[Column],
    rows: Sequence[Sequence[str]],
    width: int,
    *,
    totals: Sequence[str] | None = None,
) -> list[Line]:
    """The table as lines of text for a terminal ``width`` cells wide: ``title``, a blank
    line, the header, a rule, ``rows``, then (when given) a rule and ``totals``, then a
    blank line. Cells are printed as given: escape user text before (see
    :func:`ethersim.cli_common.visible`)."""
    body = [*rows, *([totals] if totals is not None else [])]
    headers = [header for header, _ in columns]
    widths = [max(cell_len(cell) for cell in column) for column in zip(headers, *body, strict=True)]
    _fit(widths, [text for _, text in columns], width)
    rule = " " + "─" * (sum(widths) + len(_GAP) * (len(widths) - 1))
    out: list[Line] = [[(title, "bold")], []]
    _append_row(out, headers, columns, widths, "bold")
    out.append([(rule, "")])
    for row in rows:
        _append_row(out, row, columns, widths, "")
    if totals is not None:
        out.append([(rule, "")])
        _append_row(out, totals, columns, widths, "")
    out.append([])
    return out


def _fit(widths: list[int], is_text: list[bool], width: int) -> None:
    """Narrows the text columns, widest first, until the table fits ``width`` (edges and
    gaps included) or every text column is :data:`MIN_TEXT_WIDTH` wide."""
    excess = sum(widths) + len(_GAP) * (len(widths) - 1) + 2 - width
    while excess > 0:
        candidates = [i for i, text in enumerate(is_text) if text and widths[i] > MIN_TEXT_WIDTH]
        if not candidates:
            return  # numbers alone are wider than the terminal: it wraps the lines
        widest = max(candidates, key=lambda i: widths[i])
        widths[widest] -= 1
        excess -= 1


def _append_row(
    out: list[Line], cells: Sequence[str], columns: Sequence[Column], widths: list[int], style: str
) -> None:
    """Appends one row (as many lines as its tallest wrapped cell)."""
    lines = [
        _wrap(cell, w) if text else [cell]
        for cell, (_, text), w in zip(cells, columns, widths, strict=True)
    ]
    for i in range(max(len(cell_lines) for cell_lines in lines)):
        parts = []
        for cell_lines, (_, text), w in zip(lines, columns, widths, strict=True):
            part = cell_lines[i] if i < len(cell_lines) else ""
            pad = " " * (w - cell_len(part))
            parts.append(part + pad if text else pad + part)
        out.append([(" " + _GAP.join(parts).rstrip(), style)])


def _wrap(cell: str, width: int) -> list[str]:
    """``cell`` in lines at most ``width`` cells wide: broken between words, and inside a
    word longer than a line."""
    if cell_len(cell) <= width:
        return [cell]
    lines: list[str] = []
    line = ""
    for word in cell.split(" "):
        joined = f"{line} {word}" if line else word
        if cell_len(joined) <= width:
            line = joined
            continue
        if line:
            lines.append(line)
        pieces = chop_cells(word, width) if cell_len(word) > width else [word]
        lines.extend(pieces[:-1])
        line = pieces[-1]
    lines.append(line)
    return lines

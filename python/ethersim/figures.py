"""Figures as ethersim writes them: PNG beside SVG, and the same bytes from the same data.

Every figure file a reproduction, a sensitivity run or ``ethersim plot`` writes goes
through here, so that what makes a figure reproducible is written once:

- the SVG carries no date (matplotlib writes the time of saving otherwise), and its
  element ids (clip paths, markers) are hashed with a fixed salt instead of a random
  one, so a rerun writes the same bytes and a diff shows only what changed;
- the PNG is drawn at the resolution its caller names and keeps matplotlib's own
  metadata (its version), as the reproductions always have.

It also draws the published values a reproduction marks on its own figures.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "SVG_HASH_SALT",
    "mark_published",
    "prepare",
    "save_png",
    "save_svg",
    "write_figure",
]

#: The salt of the SVG element ids: any fixed text gives reproducible files; this one is
#: what every figure ethersim has written so far used, so files stay byte-identical.
SVG_HASH_SALT = "ethersim"


def prepare(folder: Path) -> None:
    """Selects matplotlib's file-only backend (no display, no GUI toolkit imported) and
    makes ``folder`` (and the folders above it) if missing. Call before importing
    ``matplotlib.pyplot``."""
    import matplotlib

    from ethersim.safe_write import make_folders

    matplotlib.use("Agg")
    make_folders(folder)


def save_svg(figure: Figure, path: Path) -> None:
    """Saves ``figure`` as SVG at ``path``: no date, element ids from a fixed salt."""
    import matplotlib

    with matplotlib.rc_context({"svg.hashsalt": SVG_HASH_SALT}):
        figure.savefig(path, format="svg", metadata={"Date": None})


def save_png(figure: Figure, path: Path, dpi: int, *, software: bool = True) -> None:
    """Saves ``figure`` as PNG at ``path``, ``dpi`` dots per inch. ``software=False``
    leaves out the matplotlib version the PNG names otherwise (``ethersim plot``'s
    files, compared across installs)."""
    metadata = None if software else {"Software": None}
    figure.savefig(path, format="png", dpi=dpi, metadata=metadata)


def write_figure(figure: Figure, folder: Path, stem: str, dpi: int = 120) -> None:
    """Writes ``figure`` as ``folder/stem.png`` (``dpi``) and ``folder/stem.svg``, then
    closes it (a reproduction draws dozens; open figures would hold their memory)."""
    import matplotlib.pyplot as plt

    save_png(figure, folder / f"{stem}.png", dpi)
    save_svg(figure, folder / f"{stem}.svg")
    plt.close(figure)


def mark_published(ax: Any, points: Iterable[tuple[float, float, str]]) -> None:
    """Draws published values on ``ax``, each ``(x, y, label)`` a black star labelled with
    its finding's id, under one legend entry ("paper (its text)"). Draws nothing for no
    points."""
    for k, (x, y, label) in enumerate(points):
        ax.plot(
            [x], [y], "*", color="black", markersize=10, linestyle="none",
            label="paper (its text)" if k == 0 else None, zorder=5,
        )  # fmt: skip
        ax.annotate(label, (x, y), textcoords="offset points", xytext=(6, 4), fontsize=6)

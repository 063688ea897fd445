"""The files a report links to: every file in its folder (the tables, the captures, the
scenario, the figures), with its size, as a link relative to the page."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from ethersim.units import fmt_bytes

__all__ = ["FileLink", "folder_files"]

#: What each kind of file is, by its ending.
KINDS = {
    ".parquet": "Parquet table",
    ".csv": "CSV table",
    ".pcap": "packet capture (Wireshark)",
    ".pcapng": "packet capture (Wireshark)",
    ".toml": "scenario",
    ".json": "JSON",
    ".md": "Markdown",
    ".png": "figure (PNG)",
    ".svg": "figure (SVG)",
    ".html": "page",
}


@dataclass(frozen=True)
class FileLink:
    """A file beside the page: its link (relative to the page), its name as shown, what
    it is and its size in words."""

    href: str
    name: str
    kind: str
    size: str


def folder_files(
    folder: Path, page_dir: Path, *, to_write: Mapping[str, int] | None = None, skip: str = ""
) -> list[FileLink]:
    """Every file under ``folder`` (hidden ones and ``skip`` left out), and the files
    ``to_write`` (relative name → size) that the report is about to add, linked from a
    page in ``page_dir``; sorted by name."""
    sizes: dict[str, int] = {}
    for path in folder.rglob("*"):
        name = path.relative_to(folder).as_posix()
        if path.is_file() and not any(p.startswith(".") for p in name.split("/")):
            sizes[name] = path.stat().st_size
    sizes.update(to_write or {})
    sizes.pop(skip, None)
    base = os.path.relpath(folder, page_dir)
    return [
        FileLink(
            # A capture's name comes from the scenario: quoted, so that "#" or "?" in it
            # stays part of the path.
            href=quote(Path(base, name).as_posix() if base != "." else name),
            name=name,
            kind=KINDS.get(Path(name).suffix.lower(), "file"),
            size=fmt_bytes(size),
        )
        for name, size in sorted(sizes.items())
    ]

"""The README and the tutorial as a newcomer meets them (issue 27, class 11): what their
commands write stays out of the repository's changes, and results folders are siblings,
never one inside another."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", ROOT / "docs" / "tutorial.md"]


def _commands(doc: Path) -> list[str]:
    blocks = re.findall(r"^```sh[^\n]*\n(.*?)^```$", doc.read_text(encoding="utf-8"), re.M | re.S)
    return [line for block in blocks for line in block.replace("\\\n", " ").splitlines()]


def _written(doc: Path) -> set[str]:
    """The paths the document's commands write into the working folder."""
    paths = set()
    for line in _commands(doc):
        command = line.split("#", 1)[0]
        paths |= set(re.findall(r"--(?:out|db|csv|export)\s+(\S+)", command))
        paths |= set(re.findall(r"\s-o\s+(\S+)", command))
        paths |= set(re.findall(r"mkdir -p (\S+)", command))
        if re.search(r"\bethersim sweep\b", command) and "--db" not in command:
            paths.add("ethersim-results.duckdb")
        if re.search(r"\bethersim reproduce \S+", command) and "--out" not in command:
            paths.add("results/")
    return {p.strip("'\"") for p in paths}


def test_what_the_commands_write_is_ignored_by_git() -> None:
    for doc in DOCS:
        written = _written(doc)
        assert written, f"no output paths found in {doc.name}"
        for path in sorted(written):
            p = subprocess.run(
                ["git", "check-ignore", "-q", "--no-index", path], cwd=ROOT, check=False
            )
            assert p.returncode == 0, f"{doc.name}: {path} would show as untracked"


def test_no_results_folder_is_written_inside_another() -> None:
    for doc in DOCS:
        folders = sorted(
            p.rstrip("/") for p in _written(doc) if not Path(p).suffix or p.endswith("/")
        )
        for a in folders:
            for b in folders:
                assert a == b or not b.startswith(a + "/") or a in ("results", "tutorial"), (
                    f"{doc.name}: {b} is inside the results folder {a}"
                )

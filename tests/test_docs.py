"""The README and the docs as a newcomer meets them (issue 27, class 11): what their
commands write stays out of the repository's changes, and results folders are siblings,
never one inside another. "Write" covers the output options, a shell redirection
(``> cells.csv``) and the file a command writes when no option names one (``ethersim
plot`` without ``--out``)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _commands(text: str) -> list[str]:
    """The command lines of a document: every line of its ``sh`` blocks (a block may be
    indented, in a list), and the ``ethersim`` lines of its plain blocks (examples such
    as docs/cli.md's, or a session's ``$ ethersim ...``); a line continued with a
    backslash as one."""
    lines = []
    for kind, block in re.findall(r"^\s*```(\w*)[^\n]*\n(.*?)^\s*```$", text, re.M | re.S):
        joined = block.replace("\\\n", " ").splitlines()
        if kind == "sh":
            lines += joined
        elif not kind:
            lines += [m[1] for line in joined if (m := re.match(r"\s*\$?\s*(ethersim .*)", line))]
    return lines


def _unquoted(command: str) -> str:
    """``command`` without its comment and with its quoted words emptied: a ``->`` in
    ``'port:switch->h0:*'`` is no redirection, and a ``#`` inside quotes no comment."""
    emptied = re.sub(r"'[^']*'|\"[^\"]*\"", "''", command)
    return emptied.split("#", 1)[0]


def _default_outputs(command: str) -> set[str]:
    """The files a command writes when no option names one."""
    paths = set()
    if re.search(r"\bethersim sweep\b", command) and "--db" not in command:
        paths.add("ethersim-results.duckdb")
    if re.search(r"\bethersim reproduce \S+", command) and "--out" not in command:
        paths.add("results/")
    plot = re.search(r"\bethersim plot (\S+)", command)
    if plot and "--out" not in command:
        paths.add(f"{plot[1]}-METRIC-vs-KEY.png")  # in the working folder
    report = re.search(r"\bethersim report((?:\s+[^-\s]\S*)+)", command)
    if report and "--out" not in command:
        given = report[1].split()
        if len(given) == 2:
            a, b = (Path(g.rstrip("/")) for g in given)
            paths.add(str(a.parent / f"compare-{a.name}-{b.name}.html"))
        elif given[0].endswith(".duckdb"):
            paths.add(given[0].removesuffix(".duckdb") + "-report.html")
        else:
            paths.add(given[0].rstrip("/") + "/report.html")
    return paths


def _written(doc: Path) -> set[str]:
    """The paths the document's commands write into the working folder."""
    return _written_by(doc.read_text(encoding="utf-8"))


def _written_by(text: str) -> set[str]:
    """The paths the commands of a document's text write into the working folder."""
    paths = set()
    for line in _commands(text):
        command = _unquoted(line)
        if not command.strip() or re.search(r"\[--", command):
            continue  # a synopsis (`[--out FILE]`), not a command to run
        paths |= set(re.findall(r"--(?:out|db|csv|export)\s+(\S+)", command))
        paths |= set(re.findall(r"\s-o\s+(\S+)", command))
        paths |= {f"{p.rstrip('/')}/" for p in re.findall(r"mkdir -p (\S+)", command)}
        redirected = re.findall(r"(?<![\d&])>>?\s*([^\s&|;]+)", command)
        paths |= {p for p in redirected if not p.startswith("/dev/")}
        paths |= _default_outputs(command)
    return {p.strip("'\"") for p in paths}


def test_the_parser_sees_every_way_a_command_writes() -> None:
    """A check of the check: each form of writing a file is found."""
    doc = "\n".join(
        [
            "```sh",
            "ethersim results s --metrics 'port:switch->h0:*' --format csv > a.csv  # > b.csv",
            "ethersim schema >> b.json 2>&1",
            "ethersim plot fan-in --x k \\",
            "    --y 'port:switch->h0:drops'",
            "ethersim report r/a r/b",
            "ethersim report r.duckdb",
            "ethersim report r/a",
            "ethersim plot SWEEP --x KEY [--out FILE]",
            "ethersim run s.toml > /dev/null",
            "```",
        ]
    )
    assert _written_by(doc) == {
        "a.csv",
        "b.json",
        "fan-in-METRIC-vs-KEY.png",
        "r/compare-a-b.html",
        "r-report.html",
        "r/a/report.html",
    }


def test_what_the_commands_write_is_ignored_by_git() -> None:
    for doc in DOCS:
        written = _written(doc)
        if doc.name in ("README.md", "tutorial.md", "sweeps.md"):
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

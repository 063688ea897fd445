"""The tests change scenarios by key path, not by editing their text.

A test that edits a scenario with ``str.replace`` tests the unedited scenario, silently,
once the text it looks for changes (a renamed key, a reworded example). Tests set values
through the override API instead (``overrides=``, ``--set``, ``scenario::load(text,
overrides)``), whose unknown key paths are errors, and edit text that no override can
express with ``scenario_edits.edit``, which fails when the text is absent.

The heuristic: every ``.replace(``, ``.replacen(`` and ``re.sub(`` call in the Python
tests and the Rust integration tests is looked at, and its first argument judged:

- not a string literal (``text.replace(old, new)``): flagged, since what it replaces
  cannot be seen here;
- a string literal that looks like scenario text: flagged. It does if it holds an
  ``=`` (a ``key = value``), a ``[[`` (a table), a quoted string (``"client"``) or a
  number with a unit (``500 MB``, ``1 Gb/s``, ``10 us``), or is an upper-case
  placeholder of a template (``BYTES``);
- any other literal (``"'"``, ``"--metrics"``, a line continuation): not flagged. Such
  calls normalize output or names, and edit no scenario.

A flagged call that is justified goes in :data:`ALLOWED`, with the reason.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Files the rule does not apply to, and why.
EXEMPT = {
    "tests/scenario_edits.py": "the loud edit helper: it replaces only after counting",
    "tests/test_test_style.py": "this file, which names the calls it looks for",
}

#: Flagged calls that are justified: (file, the line holding the call, stripped) -> why.
ALLOWED = {
    (
        "tests/test_reproduce_all.py",
        r'broken = re.sub(r"\nrange = \[[^\]]*\]", "\nrange = []", text, count=1)',
    ): (
        "empties a study's findings file's first range, whatever its values: no scenario, "
        "and the next line asserts that the text changed"
    ),
    (
        "tests/test_docs.py",
        """emptied = re.sub(r"'[^']*'|\\"[^\\"]*\\"", "''", command)""",
    ): (
        "empties the quoted words of a documented command line (a '->' in a port name is "
        "no redirection): no scenario"
    ),
}

CALL = re.compile(r"\.replacen?\(|\bre\.sub\(")
PY_LITERAL = re.compile(r"""[rRbBfFuU]{0,2}('''|\"\"\"|'|")(.*?)(?<!\\)\1""", re.S)
RS_LITERAL = re.compile(r'r(#*)"(.*?)"\1|"((?:[^"\\]|\\.)*)"', re.S)
UNIT = r"B|kB|KB|MB|GB|TB|KiB|MiB|GiB|b/s|kb/s|Mb/s|Gb/s|Tb/s|ps|ns|us|ms|s"
WITH_UNIT = re.compile(rf"\d(?:\.\d+)?\s?(?:{UNIT})\b")


def first_literal(rest: str, rust: bool) -> str | None:
    """The content of the string literal ``rest`` starts with (after blanks), if any."""
    stripped = rest.lstrip()
    m = (RS_LITERAL if rust else PY_LITERAL).match(stripped)
    if m is None:
        return None
    if rust:
        return m.group(2) if m.group(2) is not None else m.group(3)
    return m.group(2)


def looks_like_scenario(literal: str) -> bool:
    text = literal.replace('\\"', '"')
    return (
        "=" in text
        or "[[" in text
        or re.search(r'"[^"\n]*"', text) is not None
        or WITH_UNIT.search(text) is not None
        or re.fullmatch(r"[A-Z][A-Z0-9_]+", text) is not None
    )


def flagged(source: str, rust: bool) -> list[tuple[int, str]]:
    """(line number, stripped line) of each call in ``source`` the heuristic flags."""
    out = []
    for m in CALL.finditer(source):
        literal = first_literal(source[m.end() :], rust)
        if literal is None or looks_like_scenario(literal):
            line = source.count("\n", 0, m.start()) + 1
            out.append((line, source.splitlines()[line - 1].strip()))
    return out


def scanned_files() -> list[Path]:
    files = sorted((ROOT / "tests").glob("**/*.py"))
    files += sorted((ROOT / "crates" / "ethersim-core" / "tests").glob("**/*.rs"))
    return [f for f in files if f.relative_to(ROOT).as_posix() not in EXEMPT]


def test_no_test_edits_a_scenario_by_replacing_its_text() -> None:
    found = []
    for path in scanned_files():
        name = path.relative_to(ROOT).as_posix()
        for line, text in flagged(path.read_text(encoding="utf-8"), path.suffix == ".rs"):
            if (name, text) not in ALLOWED:
                found.append(f"{name}:{line}: {text}")
    assert not found, (
        "edit scenarios by key path (overrides=, --set, scenario::load(text, overrides)), "
        "or with scenario_edits.edit where no override can say it:\n" + "\n".join(found)
    )


def test_every_allowed_call_is_still_there() -> None:
    """An allowance whose call has gone (or changed) is removed, not kept for later."""
    for name, text in ALLOWED:
        path = ROOT / name
        assert path.is_file(), name
        rust = path.suffix == ".rs"
        assert text in [t for _, t in flagged(path.read_text(encoding="utf-8"), rust)], name
    for name in EXEMPT:
        assert (ROOT / name).is_file(), name


def test_the_heuristic_tells_scenario_edits_from_other_replacements() -> None:
    edits = [
        "GOOD.replace('rate = \"1 Gb/s\"', 'rate = \"1 GB\"', 1)",
        'TCP.replace("500 MB", "5 MB")',
        "text.replace('\"client\"', '\"rack[b]\"')",
        "FILE.replace(*change, 1)",
        "x = (\n    BASE\n    .replace(\n        '[[apps]]', ''\n    )\n)",
    ]
    for source in edits:
        assert flagged(source, rust=False), source
    rust_edits = [
        'BUSY.replace("size = \\"5 GB\\"", "size = \\"20 MB\\"")',
        'text.replacen("seed = 1", &extra, 1)',
        'star(&job.replace("BYTES", "1000 B"))',
        'scheduled(&[500]).replace(\n    r#"policy = { kind = "schedule" }"#,\n    "",\n)',
    ]
    for source in rust_edits:
        assert flagged(source, rust=True), source
    others = [
        "message.replace(\"'\", '\"')",
        'out.replace("--metrics", "")',
        "value.replace('\"', '\\\\\"')",
        'block.replace("\\\\\\n", " ")',
    ]
    for source in others:
        assert not flagged(source, rust=False), source

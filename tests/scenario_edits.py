"""How a test changes a scenario: by key path, or by a text edit that fails loudly.

A test changes a scenario value through the override API (``overrides=`` in Python,
``--set KEY=VALUE`` on the command line, :func:`sets` here), whose key paths are
checked: a path that no longer fits the scenario is an error, not a run of the
unedited file. What no override can express (a key removed, a study's findings file or
a sweep file changed) goes through :func:`edit`, which refuses to return the text
unchanged, as a ``str.replace`` whose text has gone would.
"""

from __future__ import annotations


def sets(*overrides: str) -> list[str]:
    """Command-line options giving each ``path=value`` of ``overrides`` (``--set``)."""
    return [word for o in overrides for word in ("--set", o)]


def edit(text: str, old: str, new: str, count: int = 1) -> str:
    """``text`` with each of the ``count`` occurrences of ``old`` replaced by ``new``.

    Fails, naming ``old``, unless ``old`` occurs exactly ``count`` times."""
    found = text.count(old)
    assert found == count, f"expected {count} occurrence(s) of {old!r} to edit, found {found}"
    return text.replace(old, new)

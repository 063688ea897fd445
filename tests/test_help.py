"""Every command's ``--help``: an example to copy, one placeholder style, defaults as a
user writes them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import typer
from cli_helpers import invoke
from ethersim.cli import app

#: A placeholder: upper-case words (``DIR``, ``KEY=VALUE``, ``PER_US``; ``DIR...`` for
#: one or more) or a choice
#: written as the values a user types (``table|json``, ``cpu|nic``).
PLACEHOLDER = re.compile(r"^([A-Z][A-Z0-9_]*(=[A-Z]+)?(\.\.\.)?|[a-z0-9-]+(\|[a-z0-9-]+)+)$")


def _commands(command: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    subcommands = getattr(command, "commands", None)
    if subcommands is None:
        yield path, command
        return
    for name, sub in subcommands.items():
        yield from _commands(sub, (*path, name))


COMMANDS = list(_commands(typer.main.get_command(app), ()))


def test_the_walk_finds_every_command() -> None:
    names = {" ".join(path) for path, _ in COMMANDS}
    for expected in ("run", "sweep", "results", "report", "reproduce rps", "model eee-fit"):
        assert expected in names, names


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=" ".join)
def test_every_command_has_an_example_that_names_itself(path: tuple[str, ...]) -> None:
    r = invoke(*path, "--help")
    assert r.exit_code == 0, r.output
    assert "Examples:" in r.output, r.output
    # The example runs this command, not another.
    assert f"ethersim {' '.join(path)} " in r.output or f"ethersim {' '.join(path)}\n" in r.output


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=" ".join)
def test_every_placeholder_is_one_style(path: tuple[str, ...]) -> None:
    command = dict(COMMANDS)[path]
    for param in command.params:
        if getattr(param, "is_flag", False) or param.name == "help":
            continue
        assert param.metavar is not None, (path, param.name)
        assert PLACEHOLDER.match(param.metavar), (path, param.name, param.metavar)
    r = invoke(*path, "--help")
    for bad in ("<str>", "<path>", "<int", "<float", "[default: ("):
        assert bad not in r.output, (bad, r.output)

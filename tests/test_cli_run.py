"""The quick reading of ``ethersim run``'s words (:func:`ethersim.cli_run.parse`) against
typer's: wherever the quick reader answers, it must answer what typer passes the command;
where it is unsure it answers ``None`` and typer reads the words."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from ethersim import cli_run
from ethersim.cli import core_app
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "udp-file.toml"


def typer_reading(args: list[str], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any] | None:
    """The keyword arguments typer's ``run`` command hands :func:`ethersim.cli_run.run`
    for ``ethersim run ARGS``; ``None`` when typer refuses the words (or prints help)."""
    seen: dict[str, Any] = {}

    def record(scenario: str, **options: Any) -> None:
        seen.update(scenario=scenario, **options)

    with monkeypatch.context() as m:
        m.setattr(cli_run, "run", record)
        result = CliRunner().invoke(core_app, ["run", *args])
    return _comparable(seen) if result.exit_code == 0 and seen else None


def _comparable(options: dict[str, Any] | None) -> dict[str, str] | None:
    # By repr: NaN (--max-wall nan, refused later by the command) equals no NaN.
    return None if options is None else {key: repr(value) for key, value in options.items()}


def test_the_quick_reader_knows_every_option_of_run_as_typer_declares_it() -> None:
    command = typer.main.get_command(core_app).commands["run"]  # type: ignore[attr-defined]
    declared = {}
    for param in command.params:
        if param.param_type_name != "option":
            continue
        for name in param.opts:
            declared[name] = (param.name, "flag" if param.is_flag else param.multiple)
    known = {name: (key, repeated) for name, (key, _, repeated) in cli_run.VALUE_OPTIONS.items()}
    known |= {name: (key, "flag") for name, key in cli_run.FLAGS.items()}
    assert declared == known


PLAIN = [
    ["a.toml"],
    ["-"],
    ["a.toml", "-q"],
    ["--quiet", "a.toml", "--quiet"],
    ["a.toml", "--out", "results/x", "--set", "apps[0].size=1 MB", "--set", "seed=2"],
    ["a.toml", "--out=results/x", "--set=a=b", "--seed=7", "--format=json"],
    ["a.toml", "--seed", "18446744073709551615", "--max-wall", "1.5", "--format", "table"],
    ["a.toml", "--out", "o", "--pcap", "h1->s1", "--pcap", "s1->h2", "--pcap-limit", "1 MB"],
    ["a.toml", "--out", "o", "--pcap", "h1->s1", "--snaplen", "64"],
    ["a.toml", "--max-wall", "nan"],
    ["a.toml", "--out="],
    ["a.toml", "--seed", " 7"],
]


@pytest.mark.parametrize("args", PLAIN, ids=[" ".join(a) for a in PLAIN])
def test_plain_runs_are_read_quickly_and_as_typer_reads_them(
    args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    quick = cli_run.parse(args)
    assert quick is not None, "a plain run goes the quick way"
    assert _comparable(quick) == typer_reading(args, monkeypatch)


OTHERS = [
    [],
    ["--help"],
    ["a.toml", "--help"],
    ["a.toml", "b.toml"],
    ["a.toml", "--"],
    ["a.toml", "--seed"],
    ["a.toml", "--seed", "-1"],
    ["a.toml", "--seed", "x"],
    ["a.toml", "--snaplen", "63"],
    ["a.toml", "--max-wall", "-1"],
    ["a.toml", "--seed", "1", "--seed", "2"],
    ["a.toml", "-qq"],
    ["a.toml", "--quiet=yes"],
    ["a.toml", "--ou", "x"],
    ["-x"],
]


@pytest.mark.parametrize("args", OTHERS, ids=[" ".join(a) or "nothing" for a in OTHERS])
def test_other_words_are_left_to_typer(args: list[str]) -> None:
    assert cli_run.parse(args) is None


WORDS = [
    *cli_run.VALUE_OPTIONS,
    *cli_run.FLAGS,
    "--help",
    "--",
    "-",
    "-qq",
    "--seed=5",
    "--out=",
    "--snaplen=63",
    "--max-wall=inf",
    "a.toml",
    "5",
    "-5",
    "64",
    "1e3",
    "nan",
    " 7",
    "5_0",
    "0x10",
    "",
    "a=b",
    "json",
    "é",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(WORDS) | st.text(max_size=4), max_size=7))
def test_any_words_the_quick_reader_answers_typer_reads_alike(args: list[str]) -> None:
    quick = cli_run.parse(args)
    if quick is None:
        return
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert _comparable(quick) == typer_reading(args, monkeypatch), args


def test_the_quick_way_prints_what_typer_prints() -> None:
    from cli_helpers import invoke

    args = ["run", str(EXAMPLE), "--set", "apps[0].size=200 kB", "--format", "json"]
    quick = subprocess.run(
        [sys.executable, "-m", "ethersim", *args], capture_output=True, text=True, check=False
    )
    through_typer = invoke(*args)
    assert quick.returncode == through_typer.exit_code == 0, quick.stderr
    a, b = json.loads(quick.stdout), json.loads(through_typer.stdout)
    for summary in (a, b):
        summary.pop("wall_time_s", None)
        summary.pop("events_per_s", None)
    assert a == b

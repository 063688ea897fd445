"""What the ``ethersim`` command imports before it does its work (issue 29: start-up).

Asserted by module names, not by time: ``--version`` imports no command-line library,
and a run imports none of the other commands' modules (studies, sweeps, models, reports)
nor the table libraries a run without ``--out`` does not write with.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs the command in-process with the given words, then prints, as a Python literal,
# which of the named modules it imported (those the interpreter's start-up had not
# already). The probe itself imports nothing (json would hide json, re and enum).
PROBE = """
import atexit, sys
watched = {watched!r}
started = set(sys.modules)
atexit.register(
    lambda: print(sorted(m for m in watched if m in sys.modules and m not in started))
)
sys.argv = ["ethersim", *{words!r}]
from ethersim._entry import main
main()
"""

OTHER_COMMANDS = [
    "ethersim.cli_model",
    "ethersim.cli_reproduce",
    "ethersim.cli_sweep",
    "ethersim.cli_report",
    "ethersim.cli_mpi",
    "ethersim.cli_whatif",
    "ethersim.studies",
    "ethersim.sweeps",
    "ethersim.benchmark",
    "ethersim.schema_doc",
]


def _imported(words: list[str], watched: list[str]) -> tuple[list[str], str]:
    # Without the site module (-S), on this process's own import path: a site hook of
    # the machine's (a .pth file that imports certifi, say) would import modules the
    # command may not, and hide them from the probe.
    code = PROBE.format(watched=watched, words=words)
    path = os.pathsep.join(p for p in sys.path if p)
    p = subprocess.run(
        [sys.executable, "-S", "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        env={**os.environ, "PYTHONPATH": path},
    )
    assert p.returncode == 0, p.stderr
    last = p.stdout.strip().splitlines()[-1]
    return ast.literal_eval(last), p.stdout


def test_version_imports_no_command_line_library() -> None:
    loaded, out = _imported(["--version"], ["typer", "rich", "click", "ethersim.cli"])
    assert loaded == []
    from ethersim import __version__

    assert out.splitlines()[0] == f"ethersim {__version__}"


def test_version_says_the_same_through_the_command_tree() -> None:
    # `python -m ethersim.cli --version` goes through typer: the same line.
    p = subprocess.run(
        [sys.executable, "-m", "ethersim.cli", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    fast = subprocess.run(
        [sys.executable, "-m", "ethersim", "--version"], capture_output=True, text=True, check=False
    )
    assert p.returncode == fast.returncode == 0
    assert p.stdout == fast.stdout


def test_a_run_imports_no_other_command_and_no_table_library() -> None:
    watched = [*OTHER_COMMANDS, "pandas", "pyarrow", "duckdb", "scipy", "matplotlib"]
    loaded, _ = _imported(["run", "examples/udp-file.toml", "-q"], watched)
    assert loaded == []


def test_a_plain_run_imports_no_command_line_library() -> None:
    # The console script reads a plain run's words itself (ethersim.cli_run.parse), and
    # tables printed to a pipe are written as text, without rich: the summary's own
    # characters are measured without it. typing is for type checkers only.
    words = ["run", "examples/udp-file.toml", "--set", "apps[0].size=1 MB", "--seed=3"]
    watched = ["typer", "click", "ethersim.cli", "rich", "typing"]
    loaded, out = _imported(words, watched)
    assert loaded == []
    assert out.startswith("udp-file  seed 3"), out


def test_a_plain_run_imports_neither_json_nor_pathlib_nor_their_regular_expressions() -> None:
    # The core hands the report over as Python data, a path is made only for --out, and
    # the signal handlers are set without the signal module's enumerations: together
    # some 10 ms of a run's start-up on a 2-core machine.
    watched = ["json", "pathlib", "re", "enum", "signal", "fnmatch", "urllib.parse"]
    loaded, out = _imported(["run", "examples/udp-file.toml"], watched)
    assert loaded == []
    assert out.startswith("udp-file  seed 1"), out


def test_only_a_run_that_writes_imports_the_writers_modules(tmp_path: Path) -> None:
    # shutil and tempfile (with bz2, lzma and random under them) are for writing the
    # results folder whole: a run that writes nothing does not import them.
    watched = ["shutil", "tempfile"]
    loaded, _ = _imported(["run", "examples/udp-file.toml", "-q"], watched)
    assert loaded == []
    out = tmp_path / "out"
    loaded, _ = _imported(["run", "examples/udp-file.toml", "-q", "--out", str(out)], watched)
    assert loaded == watched
    assert (out / "summary.json").is_file()


def test_a_run_typer_must_read_goes_through_typer() -> None:
    # An option the quick reader does not know is typer's to refuse, with its usage.
    p = subprocess.run(
        [sys.executable, "-m", "ethersim", "run", "examples/udp-file.toml", "--seeds", "3"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert p.returncode == 2
    assert "No such option: --seeds" in p.stderr, p.stderr


def test_help_still_lists_every_command() -> None:
    p = subprocess.run(
        [sys.executable, "-m", "ethersim", "--help"], capture_output=True, text=True, check=False
    )
    assert p.returncode == 0
    every = ("run", "validate", "sweep", "reproduce", "model", "report", "what-if", "mpi-trace")
    for command in every:
        assert f" {command} " in p.stdout, command

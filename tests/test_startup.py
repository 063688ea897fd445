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

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Runs the command in-process with the given words, then prints, as a Python literal,
# which of the named modules it imported (those the interpreter's start-up had not
# already): at exit, or as a plain run leaves without the interpreter's teardown
# (os._exit). The probe itself imports nothing (json would hide json, re and enum).
PROBE = """
import atexit, os, sys
watched = {watched!r}
started = set(sys.modules)
def report():
    print(sorted(m for m in watched if m in sys.modules and m not in started), flush=True)
atexit.register(report)
leave = os._exit
os._exit = lambda status: (report(), leave(status))
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


LAUNCHER = ROOT / "python" / "ethersim.data" / "scripts" / "ethersim"


def _imported_by_launcher(words: list[str]) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    # Every module the process imports, as `-X importtime` lists them on standard error.
    path = os.pathsep.join(p for p in sys.path if p)
    p = subprocess.run(
        [sys.executable, "-S", "-X", "importtime", str(LAUNCHER), *words],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        env={**os.environ, "PYTHONPATH": path},
    )
    names = {
        line.rsplit("|", 1)[1].strip()
        for line in p.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }
    return names, p


def test_the_command_script_imports_no_regular_expressions() -> None:
    # The wrapper pip writes for an entry point imports re (and enum) before the command
    # starts; the wheel's own script does not, nor does a plain run after it.
    names, p = _imported_by_launcher(["run", "examples/udp-file.toml"])
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.startswith("udp-file  seed 1"), p.stdout
    assert "ethersim.cli_run" in names  # the listing is the run's own
    # Nor collections, functools or contextlib (ethersim._lean): 2.5 ms of start-up; nor
    # numbers' abstract classes (ethersim.units.is_real): about half a millisecond.
    unwanted = {
        "re",
        "enum",
        "typing",
        "typer",
        "collections",
        "functools",
        "contextlib",
        "numbers",
    }
    assert not names & unwanted, sorted(names & unwanted)


def test_the_command_script_passes_the_status_on() -> None:
    # A plain run that ends well leaves without the interpreter's teardown, with status 0
    # (the test above); one that fails exits as before, with its own status.
    _, p = _imported_by_launcher(["run", "examples/udp-file.toml", "--set", "apps[0].size=-1"])
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    assert "apps[0].size" in p.stderr
    _, p = _imported_by_launcher(["--version"])
    assert p.returncode == 0
    assert p.stdout.startswith("ethersim ")


def test_the_installed_command_is_the_script() -> None:
    """Installed from this checkout (``pip install .``, as the README's test command
    does), the ``ethersim`` command is the wheel's script, its first line the installer's."""
    import sysconfig

    import ethersim

    if Path(ethersim.__file__).resolve().is_relative_to(ROOT):
        pytest.skip("ethersim is the checkout's own package here: no command was installed")
    installed = Path(sysconfig.get_path("scripts")) / "ethersim"
    lines = installed.read_text().splitlines()
    assert lines[0].startswith("#!") and "python" in lines[0], lines[0]
    assert lines[1:] == LAUNCHER.read_text().splitlines()[1:]
    assert os.access(installed, os.X_OK)


def test_the_command_script_does_nothing_when_imported() -> None:
    # A sweep's worker processes import the main script again (as __mp_main__): there it
    # must define, not run, or every worker would run the command anew.
    import runpy

    ran = runpy.run_path(str(LAUNCHER), run_name="__mp_main__")
    assert callable(ran["main"])


def test_a_profiler_still_gets_the_interpreters_exit(tmp_path: Path) -> None:
    # cProfile writes its file as the interpreter exits: a plain run under it does not
    # leave early (nor under a tracer such as coverage or pdb, nor with `python -i`).
    out = tmp_path / "run.prof"
    path = os.pathsep.join(p for p in sys.path if p)
    words = ["run", "examples/udp-file.toml", "-q"]
    p = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(out), str(LAUNCHER), *words],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        env={**os.environ, "PYTHONPATH": path},
    )
    assert p.returncode == 0, p.stderr[-2000:]
    assert out.stat().st_size > 0


def test_what_waits_for_the_interpreters_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    from ethersim import _core, _entry

    monkeypatch.delenv("PYTHONINSPECT", raising=False)
    tracing = sys.gettrace() is not None or sys.getprofile() is not None  # coverage, pdb
    assert _entry._teardown_wanted() is tracing
    monkeypatch.setenv("PYTHONINSPECT", "1")
    assert _entry._teardown_wanted()
    monkeypatch.delenv("PYTHONINSPECT")
    # An extension built to count its branches writes the counts from C exit handlers.
    said = "instrumented: writes its branch counts at exit (scripts/pgo-profile)"
    monkeypatch.setattr(_core, "build_profile", lambda: said)
    assert _entry._teardown_wanted()

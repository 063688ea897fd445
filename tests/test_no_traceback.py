"""No traceback, anywhere, and options checked where they are given (issue 27, classes 6
and 7): every case the issue names, then a property-based harness that drives every
command with generated hostile arguments and paths and holds the invariant — exit
status 0, 1, 2, 130 or 143, no traceback, nothing left behind when the command fails,
and an end within a time limit (a command waiting on a FIFO fails the case, never
hangs the suite)."""

from __future__ import annotations

import contextlib
import faulthandler
import functools
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow
import pytest
from cli_helpers import invoke
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import Result

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "udp-file.toml"


def ethersim(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``ethersim ARGS`` as its own process (a MemoryError or a RecursionError must be
    seen as a user would see it)."""
    return subprocess.run(
        [sys.executable, "-m", "ethersim", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def _deep(components: int, name: str = "a") -> str:
    return "/".join([name] * components)


@pytest.mark.parametrize(
    "args",
    [
        ["run", str(EXAMPLE), "--set", "apps[0].size=1 MB", "--out", _deep(2100, "ab")],
        ["reproduce", "eee-pingpong", "--quick", "--out", _deep(2100, "ab")],
        ["sweep", str(ROOT / "examples" / "fan-in-sweep.toml"), "--scheduler", "not a url"],
        ["sweep", str(ROOT / "examples" / "fan-in-sweep.toml"), "--scheduler", "tcp://h:99999"],
        ["reproduce", "rps", "--quick", "--scheduler", "nowhere"],
        ["model", "eee-fit", "."],
        ["reproduce", "capacity-scaling", "--duration", "nan"],
        ["run", "missing-scenario.toml", "--out", "missing/x"],
        ["mpi-trace", "synthetic", "-o", "t.csv", "--iterations", "1000000000"],
        ["mpi-trace", "synthetic", "-o", "t.csv", "--ranks", "0"],
        ["mpi-trace", "synthetic", "-o", "t.csv", "--size", "-1"],
        ["mpi-trace", "synthetic", "-o", "t.csv", "--sleep-us", "nan"],
        ["mpi-trace", "synthetic", "-o", "t.csv", "--sleep-us", "-3"],
        ["mpi-trace", "synthetic", "-o", "t.csv", "--collective", "gather"],
        ["what-if", str(ROOT / "examples" / "traces" / "office.pcapng"), "--time-scale", "0"],
        ["what-if", str(ROOT / "examples" / "traces" / "office.pcapng"), "--time-scale", "nan"],
    ],
    ids=lambda a: " ".join(a)[:60],
)
def test_each_case_of_the_issue_is_exit_2_naming_what_the_user_typed(
    tmp_path: Path, args: list[str]
) -> None:
    start = time.monotonic()
    p = ethersim(*args, cwd=tmp_path)
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    assert "Traceback" not in p.stderr, p.stderr[-2000:]
    # The option is named as the user typed it, never a key of a file it did not write.
    options = [a for a in args if a.startswith("--")]
    named = options[-1] if options else ""
    if named and named not in ("--quick", "--out"):
        assert f"error: {named}:" in p.stderr or f"'{named}'" in p.stderr, p.stderr
    assert "apps[0]." not in p.stderr, p.stderr
    assert list(tmp_path.iterdir()) == [], "a refused command left something behind"
    assert time.monotonic() - start < 60, "refused, but only after a long time"


#: Paths a user might give by mistake, made in the test's folder (see _make_paths): a
#: FIFO, devices and links to them, a folder, a DuckDB file of another program and an
#: empty one, and results folders whose summary.json is a FIFO, a link to /dev/zero,
#: ``{}`` or not JSON, or whose series.parquet is not Parquet.
HOSTILE_PATHS = [
    "fifo",
    "/dev/zero",
    "/dev/null",
    "folder",
    "missing/x",
    "link",
    "zero-link",
    "-",
    "",
    "foreign.duckdb",
    "empty.duckdb",
    "run-fifo",
    "run-zero",
    "run-empty",
    "run-invalid",
    "run-garbage",
]
HOSTILE_VALUES = [
    "nan",
    "-1",
    "0",
    "1e309",
    "99999999999999999999999",
    "10 parsecs",
    "<script>alert(1)</script>",
    "\u202e",
    "a\nb",
    "'",
    "tcp://",
    *HOSTILE_PATHS,
]
#: Never given where a command writes (a regression could replace the device): devices
#: and the links to them.
DEVICES = {"/dev/zero", "/dev/null", "link", "zero-link"}
#: A valid sweep of one short run, so that a sweep's options are reached: its --db is
#: given the FIFO, the DuckDB files and the rest.
SWEEP_FILE = "sweep.toml"
#: A case's limit: every command here ends in seconds (the slowest, the sweep of one
#: run, in about 6 s on a loaded machine); one still running waits on something.
CASE_TIMEOUT_S = 30
#: The memory a case may take beyond what the test process holds: a command takes tens
#: of megabytes (and a library's first use may reserve some hundreds); one reading a
#: device without end, all there is.
CASE_MEMORY_BYTES = 2 << 30


def _writes(path: tuple[str, ...], option: str) -> bool:
    """Whether ``option`` of the command ``path`` names a file or folder it writes."""
    return option in ("--out", "--export", "--csv") or (
        option == "--db" and path[0] in ("sweep", "reproduce")
    )


def _commands() -> list[tuple[tuple[str, ...], list[str]]]:
    """Every command, with the options it takes."""
    import typer
    from ethersim.cli import app

    found: list[tuple[tuple[str, ...], list[str]]] = []

    def walk(command: object, path: tuple[str, ...]) -> None:
        subcommands = getattr(command, "commands", None)
        if subcommands is None:
            options = [
                p.opts[0]
                for p in command.params  # type: ignore[attr-defined]
                if p.opts and p.opts[0].startswith("--") and p.name != "help"
            ]
            found.append((path, options))
            return
        for name, sub in subcommands.items():
            walk(sub, (*path, name))

    walk(typer.main.get_command(app), ())
    return found


COMMANDS = _commands()


#: Text a command line can carry: anything but NUL, which no argv string can hold (each
#: is a C string), so a shell never passes one and only an in-process call could.
ARGUMENT_TEXT = st.text(st.characters(exclude_characters="\x00"), max_size=12)


@st.composite
def hostile_command_lines(draw: st.DrawFn) -> list[str]:
    path, options = draw(st.sampled_from(COMMANDS))
    args = list(path)
    # A positional argument (a file, a name) as often as not, from the hostile pool; a
    # sweep's as often a valid sweep file, so that its options are reached.
    if path == ("sweep",) and draw(st.booleans()):
        args.append(SWEEP_FILE)
    elif draw(st.booleans()):
        args.append(draw(st.sampled_from(HOSTILE_VALUES) | ARGUMENT_TEXT))
    chosen = draw(st.lists(st.sampled_from(options), max_size=3, unique=True)) if options else []
    for option in chosen:
        pool = HOSTILE_VALUES
        if _writes(path, option):
            pool = [v for v in HOSTILE_VALUES if v not in DEVICES]
        args += [option, draw(st.sampled_from(pool) | ARGUMENT_TEXT)]
    # Never a command that would run long for real: a reproduction or a benchmark with
    # options that all happen to be valid ("--out nan") would run its whole grid.
    if args[0] in ("reproduce", "bench") or (args[0] == "sweep" and not chosen):
        args += ["--seed", "not a number"]
    return args


@functools.cache
def _databases() -> dict[str, bytes]:
    """The bytes of the pool's DuckDB files, made once: DuckDB syncs a file it creates,
    which would cost a tenth of a second an example."""
    import duckdb

    with tempfile.TemporaryDirectory() as tmp:
        duckdb.connect(os.path.join(tmp, "empty.duckdb")).close()
        other = duckdb.connect(os.path.join(tmp, "foreign.duckdb"))
        other.execute("CREATE TABLE notes (x INTEGER)")
        other.close()
        return {name: Path(tmp, name).read_bytes() for name in sorted(os.listdir(tmp))}


def _make_paths(folder: Path) -> None:
    """Makes the hostile paths of the pool, and the valid sweep, in ``folder``."""
    os.mkfifo(folder / "fifo")
    (folder / "folder").mkdir()
    (folder / "link").symlink_to("/dev/null")
    (folder / "zero-link").symlink_to("/dev/zero")
    for name, data in _databases().items():
        (folder / name).write_bytes(data)
    summary = {"scenario": "s", "seed": 1, "sim_time_s": 1.0, "stop_reason": "x", "events": 1}
    for name in ("fifo", "zero", "empty", "invalid", "garbage"):
        (folder / f"run-{name}").mkdir()
    os.mkfifo(folder / "run-fifo" / "summary.json")
    (folder / "run-zero" / "summary.json").symlink_to("/dev/zero")
    (folder / "run-empty" / "summary.json").write_text("{}")
    (folder / "run-invalid" / "summary.json").write_text("{not json")
    (folder / "run-garbage" / "summary.json").write_text(json.dumps(summary))
    (folder / "run-garbage" / "series.parquet").write_bytes(b"PAR1 not a table PAR1")
    (folder / "base.toml").write_text(EXAMPLE.read_text())
    (folder / SWEEP_FILE).write_text(
        'scenario = "base.toml"\nmetrics = ["run.events"]\n'
        '[set]\n"apps[0].size" = "10 kB"\n[grid]\nseed = [1]\n'
    )


class Hung(BaseException):
    """A case still ran at its time limit. Not an Exception: the command's
    own handlers (and the test runner's) let it through."""


def _data_bytes() -> int | None:
    """This process's private writable memory (``VmData``, what ``RLIMIT_DATA``
    bounds), or None where /proc does not say."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmData:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


@contextlib.contextmanager
def bounded(args: list[str]) -> Iterator[None]:
    """Runs a case within :data:`CASE_TIMEOUT_S` and :data:`CASE_MEMORY_BYTES` more
    memory. Past the time, SIGALRM raises :class:`Hung` in the test's (main) thread: it
    interrupts a blocking system call (an ``open()`` of a FIFO, DuckDB's too, fails with
    EINTR) and its handler's exception ends the command. Should a command be stuck where
    Python never sees the signal, faulthandler ends the test process a little later,
    printing every thread's stack: the suite fails, it never hangs. The memory bound
    turns a read without end (``/dev/zero``) into a MemoryError, not a machine out of
    memory."""

    def expire(signum: int, frame: object) -> None:
        raise Hung(f"ethersim {' '.join(args)} still ran after {CASE_TIMEOUT_S} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, CASE_TIMEOUT_S)
    faulthandler.dump_traceback_later(CASE_TIMEOUT_S + 30, exit=True, file=sys.__stderr__)
    # pyarrow's allocator (mimalloc) reserves a gigabyte on its first allocation, once
    # for the process: reserved here, before the bound is measured.
    pyarrow.allocate_buffer(1)
    data = _data_bytes()
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if data is not None:
        limit = data + CASE_MEMORY_BYTES
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))
        signal.setitimer(signal.ITIMER_REAL, 0)
        faulthandler.cancel_dump_traceback_later()
        signal.signal(signal.SIGALRM, previous)


def run_hostile(folder: Path, args: list[str]) -> Result:
    """Runs ``ethersim ARGS`` in ``folder``, made with every hostile path, within the
    time and memory limits (:func:`bounded`), and checks the invariant: an exit status
    of 0, 1, 2, 130 or 143, no traceback, the links left alone, and nothing left behind
    by a failure."""
    _make_paths(folder)
    before = sorted(p.name for p in folder.iterdir())
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        with bounded(args):
            r = invoke(*args)
    finally:
        os.chdir(cwd)
    assert r.exit_code in (0, 1, 2, 130, 143), (args, r.exit_code, r.output[-1500:])
    assert "Traceback" not in r.output, (args, r.output[-1500:])
    if r.exception is not None:
        assert isinstance(r.exception, SystemExit), (args, repr(r.exception))
    assert (folder / "link").is_symlink() and os.readlink(folder / "link") == "/dev/null"
    assert os.readlink(folder / "zero-link") == "/dev/zero"
    if r.exit_code != 0:
        assert sorted(p.name for p in folder.iterdir()) == before, (args, r.output[-800:])
    return r


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(args=hostile_command_lines())
def test_every_command_on_hostile_input_exits_cleanly_and_leaves_nothing(
    tmp_path_factory: pytest.TempPathFactory, args: list[str]
) -> None:
    run_hostile(tmp_path_factory.mktemp("hostile"), args)


_DATABASES = ("fifo", "zero-link", "foreign.duckdb", "empty.duckdb")
_SUMMARIES = ("run-fifo", "run-zero", "run-empty", "run-invalid")


@pytest.mark.parametrize(
    "args",
    [
        *(["results", "--db", db] for db in _DATABASES),
        *(["plot", "s", "--x", "k", "--y", "m", "--db", db] for db in _DATABASES),
        *(["sweep", SWEEP_FILE, "--db", db] for db in ("fifo", "foreign.duckdb")),
        *(["sweep", SWEEP_FILE, "--db", db, "--dry-run"] for db in ("fifo", "foreign.duckdb")),
        *(["report", db] for db in ("foreign.duckdb", "empty.duckdb")),
        *(["report", run] for run in (*_SUMMARIES, "run-garbage")),
        *(["report", "run-garbage", run, "--out", "ab.html"] for run in _SUMMARIES),
    ],
    ids=" ".join,
)
def test_each_hostile_input_of_a_database_or_results_folder_is_exit_2(
    tmp_path: Path, args: list[str]
) -> None:
    """The pool's databases and results folders, each where it is read: the generated
    lines reach each only now and then."""
    r = run_hostile(tmp_path, args)
    assert r.exit_code == 2, (args, r.output[-1500:])


@pytest.mark.parametrize("value", ["1000001 s", "18446744 s", "20000000 s", "1e30 s"])
def test_every_time_past_the_limit_gets_the_same_message(tmp_path: Path, value: str) -> None:
    p = ethersim("validate", str(EXAMPLE), "--set", f"duration={value}", cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    assert f'error: duration: "{value}" is larger than the largest accepted, 1000000 s' in p.stderr

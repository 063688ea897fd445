"""Ctrl-C and SIGTERM in every command, at any moment after the interpreter has started:
exit 130 or 143 with one line, no traceback, never death by the signal, and nothing
written (issue 27, class 3).

The signal is sent once the process has installed its handlers (read from
``/proc/PID/status``: the signals it catches), so the test is exact about the promise:
from then on, during the imports of the command line or in the middle of the work, a stop
is handled. Before that the interpreter itself is starting, which no program controls.

Near its end a command has written, or is writing: a stop then is ignored and the
command finishes whole (exit 0). The end of ``report`` and of ``sweep`` is probed as a
prober would, the signal at moments over the last part of the command: every outcome is
the whole output with 0, or nothing written with 143. A sweep is the exception to
"nothing written": it keeps the runs it committed, and says how many its database holds.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="reads /proc (Linux)"
)


def _catches_sigterm(pid: int) -> bool | None:
    """Whether process ``pid`` has a handler for SIGTERM; None once it has exited."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    for line in status.splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (signal.SIGTERM - 1) & 1)
    return False


def _has_child(pid: int) -> bool:
    """Whether process ``pid`` has started a child process (``ethersim bench`` its
    scenario's)."""
    try:
        return bool(Path(f"/proc/{pid}/task/{pid}/children").read_text().split())
    except (FileNotFoundError, ProcessLookupError):
        return False


def _start(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    """Starts ``ethersim ARGS`` in a process group of its own (as a shell starts a job),
    and returns once it has installed its signal handling."""
    p = subprocess.Popen(
        [sys.executable, "-m", "ethersim", *args],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    while _catches_sigterm(p.pid) is False and time.monotonic() < deadline:
        time.sleep(0.0002)
    return p


def _finish(p: subprocess.Popen[str], err: str = "") -> tuple[int, str]:
    """The exit status of ``p`` and its standard error (after ``err``, what was read of it
    already). The error is read to its end, which comes when every process holding it
    has exited: what a child process left behind printed later (a traceback) is in it."""
    assert p.stderr is not None
    with p.stderr:
        err += p.stderr.read()
    return p.wait(timeout=120), err


def _stop(
    args: list[str], cwd: Path, signum: int, delay: float, *, group: bool = False
) -> tuple[int, str]:
    """Runs ``ethersim ARGS`` and sends ``signum`` ``delay`` seconds after it has
    installed its signal handling (to its whole process group with ``group``, as Ctrl-C
    at a terminal does). ``ethersim bench`` is stopped ``delay`` seconds after it has
    started its scenario's process. Returns the exit status and standard error."""
    p = _start(args, cwd)
    if args[0] == "bench" and delay > 0:
        deadline = time.monotonic() + 30
        while not _has_child(p.pid) and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.0005)
    time.sleep(delay)
    if group:
        os.killpg(p.pid, signum)
    else:
        p.send_signal(signum)
    return _finish(p)


def _big_pcap(path: Path, records: int) -> None:
    header = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
    frame = b"\0" * 60
    with path.open("wb") as f:
        f.write(header)
        for i in range(records):
            f.write(struct.pack("<IIII", i // 1_000_000, i % 1_000_000, 60, 60) + frame)


#: The run folder and the sweep database the commands that read results read (made once
#: for the module, copied into each test's folder).
RUN = "run"
DB = "sweep.duckdb"

#: A sweep of 10 short runs (about a second of work in one worker process).
SMALL_SWEEP = """
name = "small"
scenario = "poisson-fan-in.toml"
seed = 1
replications = 2
metrics = ["port.drops", "run.events"]

[set]
duration = "50 ms"

[grid]
"switches[0].port_buffer.frames" = [2, 4, 8, 16, 32]
"""

PLOT = ["plot", "small", "--x", "switches[0].port_buffer.frames", "--y", "port:switch->h0:drops"]


def _small_sweep(folder: Path) -> Path:
    """Writes the small sweep's file (and its scenario) into ``folder``."""
    shutil.copy(ROOT / "examples" / "poisson-fan-in.toml", folder)
    (folder / "small.toml").write_text(SMALL_SWEEP)
    return folder / "small.toml"


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding a run's results folder (:data:`RUN`) and a sweep's database
    (:data:`DB`), written by the commands."""
    folder = tmp_path_factory.mktemp("results")
    run = [sys.executable, "-m", "ethersim", "run", str(ROOT / "examples" / "udp-file.toml")]
    done = subprocess.run([*run, "--out", RUN, "-q"], cwd=folder, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    sweep = [sys.executable, "-m", "ethersim", "sweep", str(_small_sweep(folder)), "-q"]
    done = subprocess.run(
        [*sweep, "--db", DB, "--jobs", "1"], cwd=folder, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return folder


def _copy_results(results: Path, into: Path) -> None:
    shutil.copytree(results / RUN, into / RUN)
    shutil.copy(results / DB, into / DB)


#: Each command doing long enough work to be stopped in the middle, what it writes, and
#: whether it reads the results of a run and of a sweep (:func:`results`).
COMMANDS: dict[str, tuple[list[str], str, bool]] = {
    # 2 GB: about a second of simulation, so "while working" lands in the work, not in
    # the writing (where a stop is ignored and the command finishes whole).
    "run": (
        [
            "run",
            str(ROOT / "examples" / "tcp-file.toml"),
            "--set",
            "apps[0].size=2 GB",
            "--out",
            "out",
        ],
        "out",
        False,
    ),
    "reproduce": (["reproduce", "csma", "--quick", "--out", "out"], "out", False),
    "what-if": (["what-if", "big.pcap", "--csv", "out.csv"], "out.csv", False),
    "mpi-trace": (
        ["mpi-trace", "synthetic", "-o", "out.csv", "--iterations", "400000"],
        "out.csv",
        False,
    ),
    "sweep": (
        ["sweep", str(ROOT / "examples" / "fan-in-sweep.toml"), "--db", "out.duckdb"],
        "",
        False,
    ),
    # Its scenario's process is running when "while working" stops it.
    "bench": (["bench", "--scenario", "udp-file-5GB"], "", False),
    "report": (["report", RUN], f"{RUN}/report.html", True),
    "results": (["results", "small", "--db", DB, "--export", "out.parquet"], "out.parquet", True),
    "plot": ([*PLOT, "--db", DB, "--out", "out.png"], "out.png", True),
    # Prints a table: nothing to write.
    "model": (["model", "burst-loss", "--rate", "1 Gb/s", "--rate", "2 Gb/s"], "", False),
}


def _hidden(folder: Path) -> list[str]:
    """The temporary files (hidden, ``.NAME...``) under ``folder``, locks aside."""
    return [str(p.relative_to(folder)) for p in folder.rglob(".*") if not p.name.endswith(".lock")]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("delay", [0.0, 0.25], ids=["while starting", "while working"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_stopped_command_exits_130_or_143_with_one_line(
    request: pytest.FixtureRequest, tmp_path: Path, command: str, signum: int, delay: float
) -> None:
    args, output, reads_results = COMMANDS[command]
    if command == "what-if":
        _big_pcap(tmp_path / "big.pcap", 300_000)
    if reads_results:
        _copy_results(request.getfixturevalue("results"), tmp_path)
    status, err = _stop(args, tmp_path, signum, delay)
    expected = 130 if signum == signal.SIGINT else 143
    assert status == expected, (status, err)
    assert "Traceback" not in err, err
    word = "interrupted" if signum == signal.SIGINT else "terminated"
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines and lines[-1].startswith(f"{word}: "), err
    if output:
        assert not (tmp_path / output).exists(), "a stopped command wrote its output"
    # Nothing half-written beside it either (temporary files are hidden, '.NAME...').
    assert not _hidden(tmp_path), _hidden(tmp_path)


def test_ctrl_c_at_a_terminal_stops_bench_and_its_scenario_quietly(tmp_path: Path) -> None:
    # Ctrl-C reaches the whole process group: the command stops its scenario's process,
    # and neither prints a traceback, then or later (standard error is read until every
    # process holding it has exited).
    status, err = _stop(COMMANDS["bench"][0], tmp_path, signal.SIGINT, 0.25, group=True)
    assert status == 130, (status, err)
    assert err == "interrupted: nothing was written\n", err


def _probe(
    args: list[str],
    cwd: Path,
    signum: int,
    delay: float,
    anchor: Callable[[subprocess.Popen[str]], str] | None = None,
) -> tuple[int, str]:
    """Runs ``ethersim ARGS`` and sends ``signum`` ``delay`` seconds after it has
    installed its signal handling, or after ``anchor`` (given the process, it waits for
    a moment of the command and returns the standard error it read meanwhile) has
    returned. Returns the exit status and standard error."""
    p = _start(args, cwd)
    err = anchor(p) if anchor is not None else ""
    time.sleep(delay)
    p.send_signal(signum)
    return _finish(p, err)


def _written(folder: Path, name: str) -> Callable[[subprocess.Popen[str]], str]:
    """An anchor: the moment the command starts writing ``name`` in ``folder`` (its
    temporary file, hidden, or the file itself appears)."""
    stem = Path(name).stem

    def wait(p: subprocess.Popen[str]) -> str:
        deadline = time.monotonic() + 60
        while p.poll() is None and time.monotonic() < deadline:
            if any(n.startswith((f".{stem}.", name)) for n in os.listdir(folder)):
                break
            time.sleep(0.0005)
        return ""

    return wait


#: The three pages of ``ethersim report``: the arguments, and the page written (in the
#: folder the command runs in).
REPORTS = {
    "run folder": ([RUN], f"{RUN}/report.html"),
    "two runs": ([RUN, "b"], "compare-run-b.html"),
    "database": ([DB], "sweep-report.html"),
}


@pytest.mark.parametrize("kind", sorted(REPORTS))
def test_report_stopped_near_its_end_finishes_whole_or_writes_nothing(
    results: Path, tmp_path: Path, kind: str
) -> None:
    # As a probe would: the signal at moments over the command's last part (measured on
    # a run without one), and just as it starts writing. Each outcome is the whole page
    # (exit 0) or nothing written (130/143): never death by the signal, never a page
    # with a stop reported.
    args, page = REPORTS[kind]

    def folder(name: str) -> Path:
        here = tmp_path / name
        here.mkdir()
        _copy_results(results, here)
        shutil.copytree(results / RUN, here / "b")
        return here

    p = _start(["report", *args], folder("whole"))
    start = time.monotonic()
    status, err = _finish(p)
    took = time.monotonic() - start
    assert status == 0, err
    whole = (tmp_path / "whole" / page).read_bytes()
    probes = [(f"{back * 1000:.0f} ms before the end", took - back) for back in (0.3, 0.1)]
    probes.append(("as it writes", 0.0))

    def outcome(probe: tuple[str, float]) -> tuple[str, Path, tuple[int, str]]:
        name, delay = probe
        here = folder(name.replace(" ", "-"))
        anchor = _written((here / page).parent, Path(page).name) if delay == 0 else None
        return name, here, _probe(["report", *args], here, signal.SIGTERM, max(delay, 0), anchor)

    with ThreadPoolExecutor(len(probes)) as pool:
        outcomes = list(pool.map(outcome, probes))
    for name, here, (status, err) in outcomes:
        assert "Traceback" not in err, (name, err)
        if status == 0:
            assert (here / page).read_bytes() == whole, name
        else:
            assert status == 143, (name, status, err)
            assert err.splitlines()[-1] == "terminated: nothing was written", (name, err)
            assert not (here / page).exists(), name
            assert not (here / RUN / "figures").exists(), name
        assert not _hidden(here), (name, _hidden(here))
    assert outcomes[-1][2][0] == 0, ("a stop as the page is written is ignored", outcomes)


def _line(text: str) -> Callable[[subprocess.Popen[str]], str]:
    """An anchor: the moment the command prints a line holding ``text`` on standard
    error."""

    def wait(p: subprocess.Popen[str]) -> str:
        assert p.stderr is not None
        read = ""
        for line in p.stderr:
            read += line
            if text in line:
                break
        return read

    return wait


def _stored(db: Path) -> int:
    """The runs stored in the sweep database ``db`` (0 for none, or no database)."""
    import duckdb

    if not db.exists():
        return 0
    with duckdb.connect(str(db), read_only=True) as c:
        tables = {
            t for (t,) in c.execute("SELECT table_name FROM information_schema.tables").fetchall()
        }
        if "runs" not in tables:
            return 0
        row = c.execute("SELECT count(*) FROM runs").fetchone()
    return int(row[0]) if row else 0


def test_a_stop_raised_where_it_cannot_propagate_prints_no_traceback() -> None:
    # A signal can land in a callback Python runs where an exception cannot propagate
    # (importlib's module-lock callback, a finalizer): Python then prints "Exception
    # ignored in ..." and a traceback. Our stop is remembered and reported as the command
    # ends, so it prints nothing there; any other such exception still does.
    code = """
import os, signal
from ethersim import stopping
stopping.install()
try:
    os.kill(os.getpid(), signal.SIGTERM)
    signal.pthread_sigmask(signal.SIG_BLOCK, [])  # a bytecode boundary for the handler
except stopping.Terminated:
    pass
class Stops:
    def __del__(self):
        raise stopping.Terminated
class Fails:
    def __del__(self):
        raise ValueError("a real bug")
Stops()
print("received", stopping.received().name, flush=True)
Fails()
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "received SIGTERM"
    assert "Terminated" not in done.stderr, done.stderr
    assert done.stderr.count("Exception ignored") == 1 and "a real bug" in done.stderr, done.stderr


def test_a_deferred_stop_is_raised_once_the_block_is_done() -> None:
    # stopping.deferred holds a stop back for its block and raises it right after, even
    # when the block raised; in another thread (where no handler runs) the block just
    # runs. A handler that lost the
    # stop, or raised it inside the block, fails.
    code = """
import os, signal, threading
from ethersim import stopping
stopping.install()
steps = []
try:
    with stopping.deferred():
        os.kill(os.getpid(), signal.SIGTERM)
        signal.pthread_sigmask(signal.SIG_BLOCK, [])  # a bytecode boundary for the handler
        steps.append("block done")
    steps.append("after the block")
except stopping.Terminated:
    steps.append("stopped")
try:
    with stopping.deferred():
        os.kill(os.getpid(), signal.SIGTERM)
        signal.pthread_sigmask(signal.SIG_BLOCK, [])
        raise ValueError("the block failed")
except stopping.Terminated as e:
    steps.append(f"stopped over {type(e.__context__).__name__}")
def elsewhere():
    with stopping.deferred():
        steps.append("thread")
thread = threading.Thread(target=elsewhere)
thread.start()
thread.join()
print(*steps, stopping.received().name, signal.getsignal(signal.SIGTERM).__name__, sep="|")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    said = done.stdout.strip().split("|")
    expected = ["block done", "stopped", "stopped over ValueError", "thread"]
    assert said == [*expected, "SIGTERM", "_on_sigterm"], done.stdout


def test_a_stop_as_the_sweeps_pool_is_released_leaves_it_released(tmp_path: Path) -> None:
    # A pool's queue semaphore is unlinked, then the resource tracker told: a SIGTERM
    # between the two (a sweep stopped just as its last run is in) left the tracker to
    # unlink it again at exit, warning after the command's last line (seen in CI). Here
    # the stop lands exactly there, every time: it must come out after the pool is
    # released, and the tracker must have nothing to say.
    code = """
import os, signal, sys
import multiprocessing.synchronize as synchronize
from ethersim import stopping
from ethersim.sweeps.executors import LocalPool, _alive

if __name__ == "__main__":
    stopping.install()
    pool = LocalPool(1)
    pool._pool = pool._new_pool(1)
    pool._pool.submit(_alive).result()
    unlink = synchronize.sem_unlink

    def unlink_then_stop(name):
        unlink(name)
        synchronize.sem_unlink = unlink
        os.kill(os.getpid(), signal.SIGTERM)

    synchronize.sem_unlink = unlink_then_stop
    try:
        pool.close()
    except stopping.Terminated:
        print("stopped once the pool was released", flush=True)
        sys.exit(143)
    print("the stop was lost", flush=True)
"""
    script = tmp_path / "release.py"
    script.write_text(code)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120
    )
    assert done.stdout.strip() == "stopped once the pool was released", (done.stdout, done.stderr)
    assert done.returncode == 143
    assert done.stderr == "", done.stderr


def test_a_stopped_sweep_says_how_many_runs_it_stored(tmp_path: Path) -> None:
    # A sweep keeps the runs it committed (the same command resumes it): a stop while it
    # runs, as its last run is committed or as it ends says how many are in the
    # database, and that count is what the database holds; or, once it has ended, the
    # sweep finishes whole (exit 0, every run stored).
    sweep = _small_sweep(tmp_path)
    probes = [
        ("while running", 2.0, _line("= 10 runs")),
        *(
            (f"{ms} ms after the last run", ms / 1000, _line("10 of 10 runs done"))
            for ms in (0, 50)
        ),
    ]

    def outcome(
        probe: tuple[str, float, Callable[[subprocess.Popen[str]], str]],
    ) -> tuple[str, Path, tuple[int, str]]:
        name, delay, anchor = probe
        db = tmp_path / f"{name.replace(' ', '-').replace(',', '')}.duckdb"
        args = ["sweep", str(sweep), "--db", db.name, "--jobs", "1"]
        return name, db, _probe(args, tmp_path, signal.SIGTERM, delay, anchor)

    with ThreadPoolExecutor(len(probes)) as pool:
        outcomes = list(pool.map(outcome, probes))
    for name, db, (status, err) in outcomes:
        assert "Traceback" not in err, (name, err)
        last = err.splitlines()[-1]
        if status == 0:
            assert _stored(db) == 10, name
            continue
        assert status == 143, (name, status, err)
        if last == "terminated: nothing was written":
            assert _stored(db) == 0, name
            continue
        said = re.fullmatch(
            rf"terminated: (\d+) of the sweep's 10 runs are stored in {re.escape(db.name)}; "
            "the same command resumes it",
            last,
        )
        assert said is not None, (name, err)
        assert int(said.group(1)) == _stored(db), (name, err)

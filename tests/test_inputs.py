"""Every input file is bounded and cannot hang (issue 27): a FIFO, a device or a file over
its kind's limit, given as any input (a scenario, a trace, a results folder's file that
``ethersim report`` reads, a results database), is refused at once (exit status 2,
naming the option and what the file is) with little memory; and captures made with a
snap length are read by each record's original length.

Each command runs in a subprocess with a timeout: a FIFO opened for reading without
O_NONBLOCK would block in ``open()`` until a writer came, and ignore Ctrl-C."""

from __future__ import annotations

import json
import os
import re
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_S = 20
#: The most memory a refused input may cost the whole CLI process (its interpreter,
#: pandas and the extension take about 100 MB).
MAX_RSS_BYTES = 300 << 20

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and /dev/zero")


#: ``ethersim ARGS`` that writes its own peak memory (``VmHWM``) to standard error as it
#: exits: at the interpreter's exit, or as a plain run leaves without it (``os._exit``).
#: ``VmHWM`` starts again at exec, unlike ``ru_maxrss``, which a child keeps from the
#: (large) test process it was forked from.
PEAK_MEMORY = """
import atexit, os, sys
def peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            sys.stderr.write("PEAK_KIB " + line.split()[1] + "\\n")
            sys.stderr.flush()
atexit.register(peak)
leave = os._exit
os._exit = lambda status: (peak(), leave(status))
sys.argv = ["ethersim", *sys.argv[1:]]
from ethersim._entry import main
main()
"""


def cli(*args: str, cwd: Path) -> tuple[int, str, int]:
    """Runs ``ethersim ARGS``; returns its exit status, its standard error and its peak
    resident memory in bytes. Fails the test if it runs past the timeout."""
    err = cwd / f"stderr-{time.monotonic_ns()}.txt"
    with err.open("wb") as stderr:
        p = subprocess.Popen(
            [sys.executable, "-c", PEAK_MEMORY, *args],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        pid, status = os.waitpid(p.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            p.kill()
            p.wait()
            pytest.fail(f"ethersim {' '.join(args)} still ran after {TIMEOUT_S} s")
        time.sleep(0.05)
    p.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    text = err.read_text()
    peaks = re.findall(r"^PEAK_KIB (\d+)$", text, re.M)
    assert peaks, f"the child did not report its peak memory: {text[-500:]}"
    shown = "\n".join(line for line in text.splitlines() if not line.startswith("PEAK_KIB "))
    return p.returncode, " ".join(shown.split()), int(peaks[-1]) * 1024


HOSTS = (
    '[[hosts]]\nname = "a"\n[[hosts]]\nname = "b"\n'
    '[[links]]\nbetween = ["a", "b"]\nrate = "1 Gb/s"\n'
)


def replay_scenario(tmp: Path, trace: str) -> Path:
    scenario = tmp / "replay.toml"
    scenario.write_text(
        HOSTS + f'[[apps]]\nkind = "replay"\nfrom = "a"\nto = "b"\nfile = {trace!r}\n'
    )
    return scenario


def mpi_scenario(tmp: Path, trace: str) -> Path:
    scenario = tmp / "mpi.toml"
    scenario.write_text(
        HOSTS + f'[[mpi_jobs]]\nname = "j"\nnodes = ["a", "b"]\ntrace = {trace!r}\n'
    )
    return scenario


#: What ``ethersim report`` reads of a run's folder: the keys of summary.json it needs.
SUMMARY = {"scenario": "s", "seed": 1, "sim_time_s": 0.0, "stop_reason": "work_done", "events": 0}


def results_folder(tmp: Path, name: str, file: str, target: str, *, kind: str = "run") -> str:
    """A results folder ``tmp/name`` of a run (a valid summary.json) or a reproduction
    (reproduction.json), whose ``file`` is a link to ``target``."""
    folder = tmp / name
    folder.mkdir()
    if kind == "run":
        (folder / "summary.json").write_text(json.dumps(SUMMARY))
    else:
        (folder / "reproduction.json").write_text('{"study": "s"}')
    (folder / file).unlink(missing_ok=True)
    (folder / file).symlink_to(os.path.abspath(target))
    return str(folder)


def comparison(tmp: Path, target: str) -> list[str]:
    """``report A B`` where B's summary.json is a link to ``target``."""
    (tmp / "A").mkdir()
    (tmp / "A" / "summary.json").write_text(json.dumps(SUMMARY))
    b = results_folder(tmp, "B", "summary.json", target)
    return ["report", str(tmp / "A"), b, "--out", str(tmp / "ab.html")]


#: Each input: how to give it the file (returns the command's arguments), the words that
#: name the option or key in the message, and its size limit (None: streamed).
INPUTS: dict[str, tuple[Callable[[Path, str], list[str]], str, int | None]] = {
    "scenario": (lambda tmp, f: ["validate", f], "scenario file", 16 << 20),
    "sweep file": (lambda tmp, f: ["sweep", f], "sweep file", 16 << 20),
    "model CSV": (lambda tmp, f: ["model", "eee-fit", f], "POINTS:", 256 << 20),
    "what-if trace": (lambda tmp, f: ["what-if", f], "TRACE:", None),
    "replay trace": (
        lambda tmp, f: ["validate", str(replay_scenario(tmp, f))],
        "apps[0].file:",
        None,
    ),
    "MPI trace": (
        lambda tmp, f: ["validate", str(mpi_scenario(tmp, f))],
        "mpi_jobs[0].trace:",
        256 << 20,
    ),
    "report's summary.json": (
        lambda tmp, f: ["report", results_folder(tmp, "run", "summary.json", f)],
        "DIR:",
        1 << 30,
    ),
    "compared run's summary.json": (comparison, "B:", 1 << 30),
    "report's series table": (
        lambda tmp, f: ["report", results_folder(tmp, "run", "series.parquet", f)],
        "DIR:",
        1 << 30,
    ),
    "reproduction's summary.md": (
        lambda tmp, f: ["report", results_folder(tmp, "r", "summary.md", f, kind="repro")],
        "DIR:",
        1 << 30,
    ),
    "reproduction's CSV table": (
        lambda tmp, f: ["report", results_folder(tmp, "r", "table.csv", f, kind="repro")],
        "DIR:",
        1 << 30,
    ),
    "results --db": (lambda tmp, f: ["results", "--db", f], "--db:", None),
    "plot --db": (lambda tmp, f: ["plot", "s", "--x", "k", "--y", "m", "--db", f], "--db:", None),
}


@pytest.mark.parametrize("kind", INPUTS)
def test_a_fifo_is_refused_at_once_naming_the_option(tmp_path: Path, kind: str) -> None:
    args, option, _ = INPUTS[kind]
    fifo = tmp_path / "input"
    os.mkfifo(fifo)
    status, stderr, _ = cli(*args(tmp_path, str(fifo)), cwd=tmp_path)
    assert status == 2, stderr
    assert option in stderr and "is a FIFO" in stderr, stderr
    assert "Traceback" not in stderr


@pytest.mark.parametrize("kind", INPUTS)
def test_dev_zero_is_refused_at_once_with_little_memory(tmp_path: Path, kind: str) -> None:
    args, option, _ = INPUTS[kind]
    status, stderr, rss = cli(*args(tmp_path, "/dev/zero"), cwd=tmp_path)
    assert status == 2, stderr
    assert option in stderr and "is a character device" in stderr, stderr
    assert rss < MAX_RSS_BYTES, f"{rss >> 20} MiB"


@pytest.mark.parametrize("kind", [k for k, v in INPUTS.items() if v[2] is not None])
def test_a_file_over_its_limit_is_refused_before_it_is_read(tmp_path: Path, kind: str) -> None:
    args, option, limit = INPUTS[kind]
    assert limit is not None
    big = tmp_path / "big"
    with big.open("wb") as f:
        f.truncate(limit + 1)  # sparse: costs no disk
    status, stderr, rss = cli(*args(tmp_path, str(big)), cwd=tmp_path)
    assert status == 2, stderr
    shown = f"{limit >> 30} GiB" if limit % (1 << 30) == 0 else f"{limit >> 20} MiB"
    assert option in stderr and shown in stderr, stderr
    assert rss < MAX_RSS_BYTES, f"{rss >> 20} MiB"


@pytest.mark.parametrize("kind", ["what-if trace", "replay trace"])
def test_a_gigabyte_of_zeros_as_a_trace_fails_at_its_first_bytes(tmp_path: Path, kind: str) -> None:
    args, option, _ = INPUTS[kind]
    zeros = tmp_path / "zeros.pcap"
    with zeros.open("wb") as f:
        f.truncate(1 << 30)
    status, stderr, rss = cli(*args(tmp_path, str(zeros)), cwd=tmp_path)
    assert status == 2, stderr
    assert option in stderr and "not a pcap or pcapng file" in stderr, stderr
    assert rss < MAX_RSS_BYTES, f"{rss >> 20} MiB"


def classic_pcap(snaplen: int, frames: int) -> bytes:
    """A classic pcap (nanoseconds, Ethernet) of 1514-byte frames, alternately 12 us and
    40 us apart, each record cut to ``snaplen`` bytes."""
    out = [struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, snaplen, 1)]
    t_ns = 1_700_000_000 * 10**9
    kept = min(snaplen, 1514)
    for i in range(frames):
        t_ns += 12_000 if i % 2 else 40_000
        out.append(struct.pack("<IIII", t_ns // 10**9, t_ns % 10**9, kept, 1514))
        out.append(bytes(kept))
    return b"".join(out)


def test_a_capture_made_with_a_snap_length_gives_what_the_whole_capture_gives(
    tmp_path: Path,
) -> None:
    """tcpdump -s 96: header snap length 96, records of 96 of 1514 bytes. what-if and a
    replay use each record's original length: the same results as the uncut capture."""
    outputs: dict[str, tuple[str, dict[str, object]]] = {}
    for name, snaplen in (("cut", 96), ("whole", 65535)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "trace.pcap").write_bytes(classic_pcap(snaplen, 200))
        status, stderr, _ = cli(
            "what-if", "trace.pcap", "--phy", "1000BASE-T", "--csv", "w.csv", "-j", "1", cwd=folder
        )
        assert status == 0, stderr
        scenario = replay_scenario(folder, "trace.pcap")
        status, stderr, _ = cli("run", str(scenario), "--out", "run", "-q", cwd=folder)
        assert status == 0, stderr
        summary = json.loads((folder / "run" / "summary.json").read_text())
        outputs[name] = ((folder / "w.csv").read_text(), summary)
    cut, whole = outputs["cut"], outputs["whole"]
    assert cut[0] == whole[0]
    for key in ("flows", "ports", "events", "sim_time_ps"):
        assert cut[1][key] == whole[1][key], key
    from ethersim.traces import read_trace

    trace = read_trace(tmp_path / "cut" / "trace.pcap")
    assert len(trace) == 200 and (trace.frame_len == 1518).all()

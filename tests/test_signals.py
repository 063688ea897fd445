"""Ctrl-C and SIGTERM in every command, at any moment after the interpreter has started:
exit 130 or 143 with one line, no traceback, never death by the signal, and nothing
written (issue 27, class 3).

The signal is sent once the process has installed its handlers (read from
``/proc/PID/status``: the signals it catches), so the test is exact about the promise:
from then on, during the imports of the command line or in the middle of the work, a stop
is handled. Before that the interpreter itself is starting, which no program controls.
"""

from __future__ import annotations

import signal
import struct
import subprocess
import sys
import time
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


def _stop(args: list[str], cwd: Path, signum: int, delay: float) -> tuple[int, str]:
    """Runs ``ethersim ARGS`` and sends ``signum`` ``delay`` seconds after it has
    installed its signal handling. Returns the exit status and standard error."""
    p = subprocess.Popen(
        [sys.executable, "-m", "ethersim", *args],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while _catches_sigterm(p.pid) is False and time.monotonic() < deadline:
        time.sleep(0.0002)
    time.sleep(delay)
    p.send_signal(signum)
    _, err = p.communicate(timeout=120)
    return p.returncode, err


def _big_pcap(path: Path, records: int) -> None:
    header = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
    frame = b"\0" * 60
    with path.open("wb") as f:
        f.write(header)
        for i in range(records):
            f.write(struct.pack("<IIII", i // 1_000_000, i % 1_000_000, 60, 60) + frame)


#: Each command doing long enough work to be stopped in the middle, and what it writes.
COMMANDS = {
    # 2 GB: about a second of simulation, so "while working" lands in the work, not in
    # the writing (where a stop waits and the command finishes whole).
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
    ),
    "reproduce": (["reproduce", "csma", "--quick", "--out", "out"], "out"),
    "what-if": (["what-if", "big.pcap", "--csv", "out.csv"], "out.csv"),
    "mpi-trace": (["mpi-trace", "synthetic", "-o", "out.csv", "--iterations", "400000"], "out.csv"),
    "sweep": (["sweep", str(ROOT / "examples" / "fan-in-sweep.toml"), "--db", "out.duckdb"], ""),
}


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("delay", [0.0, 0.25], ids=["while starting", "while working"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_stopped_command_exits_130_or_143_with_one_line(
    tmp_path: Path, command: str, signum: int, delay: float
) -> None:
    args, output = COMMANDS[command]
    if command == "what-if":
        _big_pcap(tmp_path / "big.pcap", 300_000)
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
    left = [p.name for p in tmp_path.iterdir() if p.name not in ("big.pcap", "out.duckdb")]
    assert not [n for n in left if n.startswith(".") and not n.endswith(".lock")], left

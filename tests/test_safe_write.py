"""A write never damages what it replaces: every file a command writes at a path the user
names goes through one safe-write path (ethersim.safe_write), which refuses a symbolic
link, a device node, a FIFO, a socket or a folder at that name before any work starts,
and otherwise writes beside the target and renames over it."""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_helpers import invoke
from ethersim import mpi_traces
from ethersim.errors import OutputError
from ethersim.safe_write import write_text

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _char_device(folder: Path, name: str) -> Path:
    """A character device node like /dev/null (1, 3) inside ``folder``; as root (CI) a
    new node, otherwise /dev/null itself, which an unprivileged process cannot replace
    either way, so a regression could not harm it."""
    node = folder / name
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        return Path("/dev/null")
    return node


def _fifo(folder: Path, name: str) -> Path:
    path = folder / name
    os.mkfifo(path)
    return path


def _symlink(folder: Path, name: str) -> Path:
    target = folder / "precious.txt"
    target.write_text("keep me\n")
    link = folder / name
    link.symlink_to(target)
    return link


def _socket(folder: Path, name: str) -> Path:
    path = folder / name
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    s.close()
    return path


def _folder(folder: Path, name: str) -> Path:
    path = folder / name
    path.mkdir()
    return path


NON_FILES: dict[str, Callable[[Path, str], Path]] = {
    "a character device": _char_device,
    "a FIFO": _fifo,
    "a symbolic link": _symlink,
    "a socket": _socket,
    "a folder": _folder,
}


def _fingerprint(path: Path) -> tuple[int, int, int, int]:
    st = os.lstat(path)
    return (st.st_mode, st.st_ino, st.st_rdev, st.st_size)


def _left_over(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@pytest.mark.parametrize("kind", NON_FILES)
def test_mpi_trace_never_replaces_a_non_regular_file(tmp_path: Path, kind: str) -> None:
    target = NON_FILES[kind](tmp_path, "out.csv")
    before = _fingerprint(target)
    r = invoke("mpi-trace", "synthetic", "--ranks", "4", "--iterations", "2", "--out", str(target))
    assert r.exit_code == 2, r.output
    assert "--out" in r.output and kind in r.output
    assert _fingerprint(target) == before
    assert _left_over(tmp_path) == []
    if kind == "a symbolic link":
        assert (tmp_path / "precious.txt").read_text() == "keep me\n"


def test_mpi_trace_replaces_a_regular_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "trace.csv"
    target.write_text("old\n")
    r = invoke("mpi-trace", "cg", "--ranks", "4", "--iterations", "2", "--out", str(target))
    assert r.exit_code == 0, r.output
    assert target.read_text().startswith("# cg-shaped")
    assert _left_over(tmp_path) == []


@pytest.mark.parametrize("kind", ["a FIFO", "a symbolic link", "a character device"])
def test_the_trace_writer_of_the_api_refuses_a_non_regular_file(tmp_path: Path, kind: str) -> None:
    target = NON_FILES[kind](tmp_path, "out.csv")
    before = _fingerprint(target)
    with pytest.raises(OutputError, match=kind):
        mpi_traces.write_trace(mpi_traces.synthetic(2, "barrier", 0, 1.0, 1), target)
    assert _fingerprint(target) == before


@pytest.mark.parametrize("kind", ["a FIFO", "a symbolic link", "a character device"])
def test_what_if_csv_refuses_a_non_regular_file_before_running(tmp_path: Path, kind: str) -> None:
    target = NON_FILES[kind](tmp_path, "out.csv")
    before = _fingerprint(target)
    trace = EXAMPLES / "traces" / "office.pcapng"
    r = invoke("what-if", str(trace), "--csv", str(target), "--timeout", "10 us")
    assert r.exit_code == 2, r.output
    assert "--csv" in r.output and kind in r.output
    assert "saving" not in r.output  # refused before anything ran
    assert _fingerprint(target) == before


@pytest.mark.parametrize("kind", ["a FIFO", "a symbolic link"])
def test_results_export_and_sweep_database_refuse_a_non_regular_file(
    tmp_path: Path, kind: str
) -> None:
    target = NON_FILES[kind](tmp_path, "out.csv")
    before = _fingerprint(target)
    db = tmp_path / "none.duckdb"
    r = invoke("results", "--db", str(db), "--export", str(target))
    assert r.exit_code == 2, r.output
    assert "--export" in r.output and kind in r.output
    assert _fingerprint(target) == before
    sweep = EXAMPLES / "fan-in-sweep.toml"
    r = invoke("sweep", str(sweep), "--db", str(target))
    assert r.exit_code == 2, r.output
    assert "--db" in r.output and kind in r.output
    assert _fingerprint(target) == before


def test_a_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "table.csv"
    target.write_text("old\n")

    def broken(tmp: Path) -> None:
        tmp.write_text("half")
        raise OSError(28, "No space left on device")

    from ethersim.safe_write import write_file

    with pytest.raises(OutputError, match="No space left"):
        write_file(target, broken, "--csv")
    assert target.read_text() == "old\n"
    assert _left_over(tmp_path) == []
    write_text(target, "new\n", "--csv")
    assert target.read_text() == "new\n"
    assert _left_over(tmp_path) == []

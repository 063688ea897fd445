"""The one way ethersim reads a file a user names as input (a scenario, a sweep file, a
model's CSV table, the files of a results folder a report reads): a regular file (or
standard input, where a command says so) of at most a stated size, opened without ever
blocking. A file another library opens itself (a results database, opened by DuckDB) is
checked the same way first (:func:`check_regular_file`).

The file is opened non-blocking (``O_NONBLOCK``), so a FIFO at the name does not wait in
``open()`` for a writer that never comes (uninterruptibly: Ctrl-C would not stop it),
and is then checked through the open file (``fstat``), so what is read is what was
checked even if the name is swapped meanwhile. A FIFO, device, socket or folder is
refused, saying what it is (``/dev/zero`` would otherwise be read until memory runs
out); so is a file over its kind's limit, before anything is read. O_NONBLOCK is left
set: it has no effect on a regular file, which never blocks.

Packet traces and MPI traces are opened the same way by the core (``src/input.rs``).
The limits are documented in ``docs/cli.md`` ("Limits"). Every refusal is a
:class:`~ethersim.errors.ScenarioError` naming the option or key the file was given
with, so the CLI exits with status 2.
"""

from __future__ import annotations

import os
import stat
import sys

from ethersim.errors import ScenarioError

__all__ = [
    "MAX_CSV_BYTES",
    "MAX_RESULTS_FILE_BYTES",
    "MAX_SCENARIO_BYTES",
    "MAX_SWEEP_BYTES",
    "check_regular_file",
    "read_bytes",
    "read_text",
]

#: The largest scenario file read: a scenario is a page of TOML, so this is room to spare,
#: and a mistaken path costs nothing.
MAX_SCENARIO_BYTES = 16 << 20
#: The largest sweep file read: a few tables of TOML, as for a scenario.
MAX_SWEEP_BYTES = 16 << 20
#: The largest CSV table a model command reads: millions of rows, and pandas holds a table
#: in a few times its text.
MAX_CSV_BYTES = 256 << 20
#: The largest MPI trace ``ethersim run`` reads (the core's ``MAX_MPI_TRACE_BYTES``);
#: ``ethersim mpi-trace`` writes none larger.
MAX_MPI_TRACE_BYTES = 256 << 20
#: The largest file of a results folder ``ethersim report`` reads (``summary.json``, a
#: Parquet or CSV table, a figure): the largest ``summary.json`` a scenario within the
#: limits writes is about half of it (400,000 ports of about 1.1 kB each).
MAX_RESULTS_FILE_BYTES = 1 << 30


def _size(n: int) -> str:
    """``n`` bytes in the largest binary unit that divides it (``16 MiB``)."""
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} bytes"


def _what_it_is(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
    )
    for test, words in kinds:
        if test(mode):
            return words
    return "not a regular file"


def _open_checked(shown: str, option: str, what: str, alternative: str) -> tuple[int, int]:
    """Opens ``shown`` for reading without blocking and checks it through the open file:
    returns the descriptor (the caller closes it) and the file's size. Raises
    :class:`ScenarioError` at ``option`` if nothing is there, it is not a regular file
    (saying what it is; ``alternative`` adds to "a regular file"), or it cannot be
    opened."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(shown, flags)
    except FileNotFoundError:
        raise ScenarioError(f"no {what} at {shown!r}", option) from None
    except IsADirectoryError:  # Windows cannot open a folder; elsewhere fstat says so
        raise ScenarioError(f"{shown!r} is a folder; expected a {what}", option) from None
    except ValueError as e:  # a path the system cannot take (an embedded NUL)
        raise ScenarioError(f"cannot read {what} {shown!r}: {e}", option) from None
    except OSError as e:
        raise ScenarioError(f"cannot read {what} {shown!r}: {e.strerror or e}", option) from None
    try:
        st = os.fstat(fd)
    except OSError as e:
        os.close(fd)
        raise ScenarioError(f"cannot read {what} {shown!r}: {e.strerror or e}", option) from None
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise ScenarioError(
            f"{shown!r} is {_what_it_is(st.st_mode)}; expected a {what} (a regular "
            f"file{alternative})",
            option,
        )
    return fd, st.st_size


def check_regular_file(file: str | os.PathLike[str], option: str, what: str) -> None:
    """Raises :class:`ScenarioError` at ``option`` unless ``file`` is a regular file that
    can be opened for reading (see :func:`read_bytes`; no size limit). For a file a
    library opens itself: DuckDB would wait in ``open()`` on a FIFO, uninterruptibly.
    The name could be swapped between this check and the library's open; a user's
    mistake is what is caught, not a race."""
    fd, _ = _open_checked(os.fspath(file), option, what, "")
    os.close(fd)


def read_bytes(
    file: str | os.PathLike[str], option: str, what: str, limit: int, *, stdin: bool = False
) -> bytes:
    """The bytes of the regular file ``file`` (``what`` names its kind in messages, after
    "a" or "no": ``"sweep file"``), of at most ``limit`` bytes; with ``stdin``, ``"-"``
    reads standard input (to the same limit). Raises :class:`ScenarioError` at
    ``option`` otherwise: nothing there, not a regular file (saying what it is), over the
    limit, or unreadable."""
    shown = os.fspath(file)
    too_large = f"{what} {shown!r} is larger than {_size(limit)}; expected a smaller file"
    if stdin and shown == "-":
        try:
            data = sys.stdin.buffer.read(limit + 1)
        except OSError as e:
            raise ScenarioError(f"cannot read standard input: {e.strerror or e}", option) from None
        if len(data) > limit:
            raise ScenarioError(
                f"{what} on standard input is larger than {_size(limit)}; expected a smaller file",
                option,
            )
        return data
    fd, size = _open_checked(shown, option, what, ", or - for standard input" if stdin else "")
    try:
        if size > limit:
            raise ScenarioError(too_large, option)
        with os.fdopen(fd, "rb", closefd=False) as f:
            # The file may have grown since fstat: never read past the limit.
            data = f.read(limit + 1)
    except OSError as e:
        raise ScenarioError(f"cannot read {what} {shown!r}: {e.strerror or e}", option) from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise ScenarioError(too_large, option)
    return data


def read_text(
    file: str | os.PathLike[str], option: str, what: str, limit: int, *, stdin: bool = False
) -> str:
    """The UTF-8 text of ``file`` (see :func:`read_bytes`)."""
    data = read_bytes(file, option, what, limit, stdin=stdin)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        where = "standard input" if stdin and os.fspath(file) == "-" else repr(os.fspath(file))
        raise ScenarioError(f"cannot read {what} {where}: {e}", option) from None

"""The one way ethersim writes a file a user names: whole or not at all, and never over
anything but a regular file.

A file is written under a temporary name beside its target and renamed over the target
at the end, so a reader sees the old file or the new one, never half of one, and a
failure or an interrupt leaves the old file as it was. The target must be absent or a
regular file: a symbolic link, a device node, a FIFO, a socket or a folder at that name
is refused before any work starts (renaming over ``/dev/null`` would break the machine;
writing into a FIFO would block until someone reads it). Results folders are written the
same way by :func:`ethersim.results.write_folder`.

Every refusal is an :class:`~ethersim.errors.OutputError` naming the option the user
gave the path with (``--out``, ``--csv``), so the CLI exits with status 2.
"""

from __future__ import annotations

import os
import stat

from ethersim.errors import OutputError

# pathlib only where a path is made: a run that writes nothing does without it and the
# regular expressions it loads (start-up, issue 29).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

__all__ = [
    "check_writable_file",
    "file_mode",
    "make_folders",
    "missing_folders",
    "remove_folders",
    "write_file",
    "write_text",
]


def file_mode() -> int:
    """The permissions a new file gets under this process's file-creation mask."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def _what_it_is(mode: int) -> str | None:
    """What a non-regular file is, in words; ``None`` for a regular file."""
    kinds = (
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISREG, None),
    )
    for test, words in kinds:
        if test(mode):
            return words
    return "not a regular file"


def check_writable_file(
    path: str | os.PathLike[str], option: str, *, missing_folders: bool = False
) -> Path:
    """Raises :class:`OutputError` unless a file could be written at ``path``: nothing is
    there yet or a regular file is (never a link, device, FIFO, socket or folder), and its
    folder exists and may be written in; with ``missing_folders``, folders still to be
    created (by the caller, as it writes) may stand between it and the nearest existing
    folder, which must be writable. Returns the path, absolute. Cheap: commands call it
    before their work starts, and :func:`write_file` again just before the rename."""
    from pathlib import Path

    target = Path(os.path.abspath(path))
    shown = str(path)
    try:
        str(target).encode("utf-8")
    except UnicodeEncodeError:
        raise OutputError(
            f"{shown!r} is not a valid UTF-8 path; expected a file name in UTF-8", option
        ) from None
    try:
        mode: int | None = os.lstat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as e:
        raise OutputError(f"cannot write {shown!r}: {e.strerror}", option) from None
    if mode is not None:
        kind = _what_it_is(mode)
        if kind is not None:
            raise OutputError(
                f"{shown!r} is {kind}; expected a new file name or a regular file to replace",
                option,
            )
    folder = target.parent
    if missing_folders:
        while not os.path.lexists(folder) and folder.parent != folder:
            folder = folder.parent
    if not folder.is_dir():
        raise OutputError(f"no folder {str(folder)!r} to write {shown!r} into", option)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write {shown!r}: folder {str(folder)!r} is not writable", option)
    return target


def write_file(path: str | os.PathLike[str], write: Callable[[Path], object], option: str) -> Path:
    """Writes the file at ``path`` whole or not at all: ``write`` is given a temporary
    path beside the target (with the target's suffix, so writers that choose a format by
    suffix still do) and fills it; the result is renamed over the target. Raises
    :class:`OutputError` if the target may not be replaced (see
    :func:`check_writable_file`) or the write fails; on any failure or interrupt the
    temporary file is removed and the target is untouched. Returns the absolute path."""
    import tempfile  # here: a run that writes nothing does not import it
    from pathlib import Path

    target = check_writable_file(path, option)
    try:
        fd, name = tempfile.mkstemp(
            prefix=f".{target.stem}.", suffix=target.suffix or ".tmp", dir=target.parent
        )
        os.close(fd)
    except OSError as e:
        raise OutputError(f"cannot write {str(path)!r}: {e.strerror}", option) from None
    tmp = Path(name)
    try:
        os.chmod(tmp, file_mode())
        write(tmp)
        # Checked again: something else may have been put at the name meanwhile.
        check_writable_file(path, option)
        os.replace(tmp, target)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise OutputError(f"cannot write {str(path)!r}: {e.strerror or e}", option) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target


def write_text(path: str | os.PathLike[str], text: str, option: str) -> Path:
    """:func:`write_file` for text, in UTF-8."""
    return write_file(path, lambda tmp: tmp.write_text(text, encoding="utf-8"), option)


def make_folders(folder: str | os.PathLike[str]) -> Path:
    """Creates ``folder`` and the folders missing above it, as ``mkdir -p`` does, and
    returns it. One level at a time from the nearest folder that exists, not by
    recursion (pathlib's ``mkdir(parents=True)`` recurses once per missing level, so a
    path of thousands of components raised RecursionError); an OS limit (a name or path
    too long) is the :class:`OSError` it is, for the caller to name its option."""
    from pathlib import Path

    target = Path(os.path.abspath(folder))
    missing: list[Path] = []
    at = target
    while not os.path.lexists(at) and at.parent != at:
        missing.append(at)
        at = at.parent
    for path in reversed(missing):
        try:
            path.mkdir()
        except FileExistsError:
            if not path.is_dir():
                raise
    return target


def missing_folders(folder: str | os.PathLike[str]) -> list[Path]:
    """The folders :func:`make_folders` would create for ``folder``, outermost first: what
    a command that fails afterwards removes again (:func:`remove_folders`), so that a
    refused command leaves nothing behind."""
    from pathlib import Path

    at = Path(os.path.abspath(folder))
    missing: list[Path] = []
    while not os.path.lexists(at) and at.parent != at:
        missing.append(at)
        at = at.parent
    return missing[::-1]


def remove_folders(folders: list[Path]) -> None:
    """Removes ``folders`` (as :func:`missing_folders` listed them), innermost first, each
    only if it is still empty."""
    for folder in reversed(folders):
        try:
            folder.rmdir()
        except OSError:
            return  # not empty, or gone: what remains is someone's

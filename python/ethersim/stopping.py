"""Ctrl-C and SIGTERM in the ``ethersim`` command: one place that turns them into exit
statuses, installed before anything else the command does.

A stopped command exits 130 (Ctrl-C, SIGINT) or 143 (SIGTERM) with one line saying what
was kept, never a traceback and never death by the signal. :func:`install` is the first
thing the command's entry point does (:mod:`ethersim._entry`), so a signal that arrives
while the command line is parsed or its modules are imported is handled like one that
arrives mid-run. The handlers remember which signal came (:func:`received`): a library
that turns the interrupt into an error of its own (DuckDB's "Query interrupted", an
import cut short) is then still reported as the stop it was.

This module imports nothing heavy: it must be usable in the first milliseconds of a
process.
"""

from __future__ import annotations

import os
import sys

# typing is imported only by type checkers: a run does not load it (start-up, issue 29).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal as signals
    from collections.abc import Callable
    from signal import Signals
    from types import FrameType
    from typing import Any
else:
    # The signal functions without the signal module's enumerations: `signal` wraps
    # these same functions to turn numbers and handlers into IntEnums, and importing
    # `enum` for that costs a run some 3 ms of start-up (issue 29). `_signal` is the
    # module CPython builds `signal` from (type checkers know only `signal`); where it
    # is missing, `signal` does the same work.
    try:
        import _signal as signals
    except ImportError:  # an interpreter without CPython's module
        import signal as signals

__all__ = [
    "Terminated",
    "check",
    "deferred",
    "exit_status",
    "ignore",
    "install",
    "leave",
    "mark_reported",
    "received",
    "report",
    "reported",
]

#: The exit status of a command stopped by each signal (128 + the signal's number, as a
#: shell reports a process killed by it).
EXIT_STATUS: dict[int, int] = {signals.SIGINT: 130, signals.SIGTERM: 143}

#: The two stopping signals' numbers.
SIGINT: int = signals.SIGINT
SIGTERM: int = signals.SIGTERM

_received: int | None = None
_reported = False


class Terminated(BaseException):
    """SIGTERM arrived: the command stops as on Ctrl-C, leaving nothing half-written."""


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    global _received
    _received = signals.SIGINT
    raise KeyboardInterrupt


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    global _received
    _received = signals.SIGTERM
    raise Terminated


def _unraisable(args: sys.UnraisableHookArgs) -> None:
    """Python's hook for an exception raised where it cannot propagate (a weakref or
    finalizer callback, such as importlib's module-lock callback an import runs): our
    stop, raised there by the handler, is dropped without the "Exception ignored"
    traceback, for it is remembered (:func:`received`) and the command still stops with
    its one line and status; anything else goes to the hook that was there before."""
    if isinstance(args.exc_value, (Terminated, KeyboardInterrupt)) and _received is not None:
        return
    _previous_unraisablehook(args)


_previous_unraisablehook = sys.unraisablehook


def install() -> None:
    """Makes Ctrl-C raise :class:`KeyboardInterrupt` and SIGTERM :class:`Terminated`,
    remembering which came, and keeps a stop raised where it cannot propagate from
    printing a traceback (:func:`_unraisable`). A signal the process was started
    ignoring (a background job of a non-interactive shell ignores SIGINT) stays
    ignored."""
    for signum, handler in ((SIGINT, _on_sigint), (SIGTERM, _on_sigterm)):
        if signals.getsignal(signum) != signals.SIG_IGN:
            signals.signal(signum, handler)
    sys.unraisablehook = _unraisable


def ignore() -> None:
    """Ignores Ctrl-C and SIGTERM for the rest of the process: for a command whose
    outcome is decided (its results are being written whole, or its stop is being
    reported), which then exits with its own status. Python's finalization puts a signal
    it handled back to the default action, so without this a stop in a command's last
    few hundred milliseconds (the interpreter's teardown) killed the process by the
    signal; an ignored signal stays ignored."""
    for signum in EXIT_STATUS:
        signals.signal(signum, signals.SIG_IGN)


# Named as the function it stands for: ``with stopping.deferred():``.
class deferred:
    """Holds Ctrl-C and SIGTERM back while the block runs, then delivers the first that
    came (its handler runs, raising as it would have) once the block is done, whether
    or not the block raised.

    For clean-up that must not be cut in two. A multiprocessing semaphore is released by
    unlinking it and then telling the resource tracker, two steps in Python: a stop
    raised between them (a sweep stopped as its worker pool shuts down) left the tracker
    to unlink it again at exit and print a warning after the command's last line. Any
    Python handler is held, so this works for a library's caller too (Python's own
    Ctrl-C handler). Only the main thread runs signal handlers: elsewhere, and where
    handlers cannot be set, the block runs as it is. A class rather than a generator
    (contextlib): this module imports nothing it can do without."""

    def __init__(self) -> None:
        self._came: list[int] = []
        self._held: dict[int, Callable[[int, FrameType | None], Any]] = {}

    def _note(self, signum: int, frame: FrameType | None) -> None:
        self._came.append(signum)

    def __enter__(self) -> None:
        try:
            for signum in EXIT_STATUS:
                handler = signals.getsignal(signum)
                if callable(handler):
                    signals.signal(signum, self._note)
                    self._held[signum] = handler
        except ValueError:  # not the main thread: no handler runs here anyway
            pass

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self._held.items():
            signals.signal(signum, handler)
        if self._came:
            first = self._came[0]
            self._held[first](first, None)


def received() -> Signals | None:
    """The stopping signal that arrived, if one did."""
    if _received is None:
        return None
    import signal  # only once a stop has come: see `signals` above

    return signal.Signals(_received)


def mark_reported() -> None:
    """Notes that the stop has been reported (by a command that said what it kept)."""
    global _reported
    _reported = True


def reported() -> bool:
    """Whether the stop has been reported already."""
    return _reported


def check() -> None:
    """Raises the stop again if one arrived: called where long work reports progress, so
    that a stop whose exception something swallowed (seen, rarely, when the signal lands
    while Python compiles a module it imports) still ends the work."""
    if _received == SIGTERM:
        raise Terminated
    if _received == SIGINT:
        raise KeyboardInterrupt


def exit_status(e: BaseException | None = None) -> int:
    """130 for Ctrl-C, 143 for SIGTERM: from ``e`` when it is one of the two stops, else
    from the signal that arrived."""
    if isinstance(e, Terminated):
        return EXIT_STATUS[SIGTERM]
    if isinstance(e, KeyboardInterrupt):
        return EXIT_STATUS[SIGINT]
    return EXIT_STATUS[_received or SIGINT]


def report(e: BaseException | None, what: str) -> int:
    """Writes the one line a stopped command prints (``interrupted: nothing was
    written``) to standard error and returns its exit status. Plain text: it may run
    before any console library is imported."""
    global _reported
    _reported = True
    status = exit_status(e)
    word = "terminated" if status == EXIT_STATUS[SIGTERM] else "interrupted"
    try:
        sys.stderr.write(f"{word}: {what}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass  # standard error is closed: the status still says it
    return status


def leave(status: int) -> None:
    """Ends the process now with ``status``, standard output and error flushed: the exit
    of a stopped command, which has nothing left to write or clean."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass  # closed, or gone: the status still says it
    os._exit(status)

"""The ``ethersim`` command's entry point: signal handling first, then everything else.

The ``ethersim`` script (``python/ethersim.data/scripts/ethersim``) and ``python -m
ethersim`` call :func:`main`. Before the command-line modules are imported (a
tenth of a second of typer, rich and the commands), Ctrl-C and SIGTERM are already
handled (:mod:`ethersim.stopping`), so a signal at any moment after the interpreter has
started ends the command with 130 or 143 and one line, never a traceback or death by
the signal. Once the command has ended, a stop is ignored: it exits with its own status.

A run in its plain forms then leaves without the interpreter's teardown (its collection
of every module's objects, a few milliseconds of a short run, issue 29): it has written
all it writes and holds no worker, pool or file that a teardown would close. It stays for
the teardown when something else in the process waits for it (:func:`_teardown_wanted`).
"""

from __future__ import annotations

import os
import sys

from ethersim import stopping

__all__ = ["main"]


def _command(args: list[str]) -> None:
    """Runs the command ``args`` name, and returns only when it was a run in the plain
    forms :func:`ethersim.cli_run.parse` reads, which ended well: that goes straight to
    its work, without typer and click (tens of milliseconds of import). Everything else,
    and every run the reader is not sure of, goes through the command tree, which alone
    prints help and usage errors, and ends by raising :class:`SystemExit`."""
    if args[:1] == ["run"]:
        from ethersim import cli_run

        options = cli_run.parse(args[1:])
        if options is not None:
            cli_run.run(**options)
            return
    from ethersim import cli

    cli.main()
    raise SystemExit(0)  # as typer ends a command that returned


def _teardown_wanted() -> bool:
    """Whether something in this process still has work at the interpreter's exit, so
    that a plain run must not leave before it: a tracer or a profiler (coverage, pdb,
    cProfile write their findings then), an interactive prompt after the command
    (``python -i``, ``PYTHONINSPECT``), or an extension built instrumented, which writes
    its profile counts from the C library's exit handlers (``scripts/pgo-profile``)."""
    from ethersim import _core

    return (
        sys.gettrace() is not None
        or sys.getprofile() is not None
        or bool(sys.flags.inspect)
        or bool(os.environ.get("PYTHONINSPECT"))
        or _core.build_profile().startswith("instrumented")
    )


def main() -> None:
    """Runs the ``ethersim`` command."""
    if sys.argv[1:] == ["--version"]:
        # Answered before the command tree is imported (typer alone is a few tens of
        # milliseconds): the same line `ethersim --version` prints through it.
        from ethersim._version import __version__

        sys.stdout.write(f"ethersim {__version__}\n")
        return
    stopping.install()
    try:
        _command(sys.argv[1:])
    except SystemExit as e:
        code = e.code
        if isinstance(code, int) and code in stopping.EXIT_STATUS.values() and stopping.received():
            # Stopped, and said so: leave now. Finalizing the interpreter after a
            # KeyboardInterrupt can make CPython re-raise SIGINT on itself at exit (exit
            # -2 instead of 130); nothing is left to write.
            stopping.leave(code)
        if code in (0, None) and stopping.received() is not None and not stopping.reported():
            # A stop arrived but its exception was swallowed (as when the signal lands
            # while Python compiles a module it imports), and the command ran on to its
            # end. Every command that writes checks for a stop before it writes, so none
            # wrote after it: the stop stands.
            stopping.leave(stopping.report(None, "nothing was written"))
        # The command has ended with its own status: a stop now, while the interpreter
        # tears down (a few hundred milliseconds after pandas, DuckDB or a worker pool),
        # would kill it by the signal instead.
        stopping.ignore()
        raise
    except (KeyboardInterrupt, stopping.Terminated) as e:
        stopping.leave(stopping.report(e, "nothing was written"))
    except Exception:
        # An import cut short by the signal can surface as another error.
        if stopping.received() is not None:
            stopping.leave(stopping.report(None, "nothing was written"))
        raise
    # A plain run ended well. A stop whose exception was swallowed stands, as above.
    if stopping.received() is not None and not stopping.reported():
        stopping.leave(stopping.report(None, "nothing was written"))
    stopping.ignore()
    if not _teardown_wanted():
        stopping.leave(0)

"""What every ``ethersim`` command shares: the consoles, printing user text literally,
error messages and exit statuses, interrupts, and formatting of quantities.

Exit status: 0 success (also when the reader of standard output stops reading, as
``| head`` does); 2 bad input; 3 a bug in ethersim; 1 any other ethersim error; 130
interrupted and 143 terminated, with nothing written. Mapped in one place:
:func:`exit_status`.
"""

from __future__ import annotations

import os
import sys

from ethersim import stopping
from ethersim._lean import once, wraps
from ethersim.errors import EthersimError, InternalError, OutputError, ScenarioError
from ethersim.stopping import Terminated
from ethersim.units import fmt_rate, fmt_time

# typing is imported only by type checkers: a run does not load it (start-up, issue 29).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, ParamSpec

    from rich.console import Console
    from rich.text import Text

    P = ParamSpec("P")

__all__ = [
    "PIPED_WIDTH",
    "PlainOutput",
    "Terminated",
    "closed_pipe_is_success",
    "count",
    "err_console",
    "examples",
    "exit_status",
    "fail",
    "finish_writing",
    "finite_number",
    "fmt_rate",
    "fmt_time",
    "hold_signals",
    "lines_output",
    "literal",
    "on_sigterm",
    "out_console",
    "plain_text",
    "print_lines",
    "silence_stdout",
    "stopped",
    "visible",
]


@once
def out_console() -> Console:
    """The console for results (made on first use: a quiet run never imports rich's)."""
    from rich.console import Console

    class ResultsConsole(Console):
        def on_broken_pipe(self) -> None:
            # rich would exit with status 1; a reader that stopped reading is not a
            # failure of the command (see closed_pipe_is_success).
            raise BrokenPipeError

    return ResultsConsole(width=None if sys.stdout.isatty() else PIPED_WIDTH)


#: The width of standard output when it is not a terminal: piped output is not wrapped at
#: rich's 80-column default, so tables stay one row per item.
PIPED_WIDTH = 160


class PlainOutput:
    """Standard output when it is not a terminal, for lines of text: they are written as
    they are, without importing rich (some 40 ms of a run that prints its tables to a
    file or a pipe); rich's console would write the same characters, with no styles."""

    width = PIPED_WIDTH

    def write_lines(self, lines: Sequence[Sequence[tuple[str, str]]]) -> None:
        sys.stdout.write("".join("".join(text for text, _ in line) + "\n" for line in lines))


@once
def lines_output() -> Console | PlainOutput:
    """Where lines of results go (:func:`print_lines`): rich's console when standard output
    is a terminal or the environment asks for rich's styles anyway (``FORCE_COLOR``,
    ``TTY_COMPATIBLE``, as rich reads them); plain text otherwise."""
    forced = os.environ.get("FORCE_COLOR") or os.environ.get("TTY_COMPATIBLE") == "1"
    if sys.stdout.isatty() or forced:
        return out_console()
    return PlainOutput()


def print_lines(output: Console | PlainOutput, lines: Sequence[Sequence[tuple[str, str]]]) -> None:
    """Prints ``lines`` (each a sequence of pieces of text with a rich style, ``""`` for
    none) on ``output`` (see :func:`lines_output`). The text is printed as it is: escape
    user text first (:func:`visible`)."""
    if isinstance(output, PlainOutput):
        output.write_lines(lines)
        return
    from rich.text import Text

    text = Text()
    for i, line in enumerate(lines):
        if i:
            text.append("\n")
        for piece, style in line:
            text.append(piece, style=style or None)
    output.print(text, highlight=False, soft_wrap=True)


@once
def err_console() -> Console:
    """The console for errors and notices, on standard error."""
    from rich.console import Console

    return Console(stderr=True, width=None if sys.stderr.isatty() else 160)


def visible(text: object) -> str:
    """``text`` with every control and format character written as an escape (``\\x1b``,
    ``\\n``, ``\\u202e``), so that user text can neither move the cursor nor hide itself;
    bytes that were not UTF-8 (held as lone surrogates) are escaped too (``\\udcff``)."""
    text = str(text)
    if text.isprintable():
        # Python counts no character of those three categories printable: the text is
        # returned as it is, without importing unicodedata (most names a run prints).
        return text
    import unicodedata

    return "".join(
        c.encode("unicode_escape").decode("ascii")
        if unicodedata.category(c) in ("Cc", "Cf", "Cs")
        else c
        for c in text
    )


def literal(text: object, style: str = "") -> Text:
    """User text (a name, a path, a value, a message quoting them) for a rich console or
    table: printed as it is, never read as markup."""
    from rich.text import Text

    return Text(visible(text), style=style)


def closed_pipe_is_success(command: Callable[P, None]) -> Callable[P, None]:
    """A reader that stops reading (``ethersim run ... | head -1``) is not a failure of the
    command: when standard output is closed under it, the command ends with status 0 and
    says nothing (the rest of its output had nowhere to go)."""

    @wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> None:
        if sys.stdout is None:  # started with standard output closed: nothing to print to
            sys.stdout = open(os.devnull, "w")
        try:
            command(*args, **kwargs)
            sys.stdout.flush()
        except BrokenPipeError:
            silence_stdout()
            raise SystemExit(0) from None
        except OSError as e:
            # Standard output failed under us (a full disk, say): say so, not a traceback.
            from rich.text import Text

            silence_stdout()
            why = literal(f"cannot write to standard output: {e.strerror}")
            err_console().print(Text.assemble(("error: ", "bold red"), why))
            raise SystemExit(1) from None

    return wrapper


def silence_stdout() -> None:
    """Later writes (the interpreter's final flush) must not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        sys.stdout = open(os.devnull, "w")


def on_sigterm(signum: int, frame: object) -> None:
    """SIGTERM's handler: raises :class:`Terminated` (see :mod:`ethersim.stopping`)."""
    raise Terminated


def stopped(e: BaseException | None, what: str) -> SystemExit:
    """The message and exit status for an interrupt (130) or a SIGTERM (143): from ``e``
    when it is one of the two stops, else from the signal that arrived."""
    from rich.text import Text

    status = stopping.exit_status(e)
    word = "terminated" if status == stopping.EXIT_STATUS[stopping.SIGTERM] else "interrupted"
    err_console().print(Text.assemble(f"{word}: ", literal(what)), highlight=False)
    stopping.mark_reported()
    return SystemExit(status)


def exit_status(error: EthersimError) -> int:
    if isinstance(error, (ScenarioError, OutputError)):
        return 2
    if isinstance(error, InternalError):
        return 3
    return 1


def fail(error: EthersimError) -> SystemExit:
    """Prints ``error: <what was wrong>`` on standard error; the exit (its status, see
    :func:`exit_status`) to raise. An error that a stop caused (a library turned the
    interrupt into an error of its own: DuckDB's "Query interrupted" read as a database
    without ethersim's tables) is reported as the stop it was: 130 or 143, nothing
    written."""
    if stopping.received() is not None:
        return stopped(None, "nothing was written")
    from rich.text import Text

    kind = "error" if not isinstance(error, InternalError) else "internal error"
    message = Text.assemble((f"{kind}: ", "bold red"), literal(error))
    err_console().print(message, highlight=False, soft_wrap=True)
    return SystemExit(exit_status(error))


@once
def plain_text() -> Any:
    """The parameter type of a text argument whose ``--help`` row shows only its
    placeholder (``SCENARIO``), not a type (``<str>``): every placeholder in ethersim's
    help is one upper-case word. Give it as ``typer.Argument(click_type=plain_text())``.
    """
    try:  # typer 0.28 carries its own copy of click
        from typer._click import types
    except ImportError:  # earlier typer uses click itself
        from click import types  # type: ignore[no-redef]

    class PlainText(types.StringParamType):
        def get_metavar(self, param: object, ctx: object = None) -> str:
            return ""

    return PlainText()


def finite_number(value: float | None) -> float | None:
    """An option callback: NaN and infinity are no value for a number option (a range
    such as ``min=1.0`` lets NaN through, since NaN compares false with everything)."""
    import math

    import typer

    if value is not None and not math.isfinite(value):
        raise typer.BadParameter(f"{value} is not a number; expected a finite one")
    return value


def examples(*commands: str) -> str:
    """A command's ``--help`` epilog: the example command lines given, one a line, under
    "Examples:" (typer prints an epilog's paragraphs one a line)."""
    return "Examples:\n\n" + "\n\n".join(commands)


def count(n: int, noun: str) -> str:
    """``1 switch``, ``2 switches``."""
    if n == 1:
        return f"1 {noun}"
    return f"{n} {noun}es" if noun.endswith(("s", "sh", "ch", "x")) else f"{n} {noun}s"


def hold_signals() -> None:
    """The work is done: from here the command finishes whole. Ctrl-C and SIGTERM no
    longer stop it, while the results are written (well under a second) and until it
    exits with its own status (:func:`ethersim.stopping.ignore`); see
    :func:`finish_writing`. They are ignored rather than blocked: blocked in the main
    thread, a signal goes to another thread of the process (DuckDB's, pyarrow's) and
    Python still runs its handler in the main thread, which raised in the middle of the
    write. A stop that arrived during the work but whose exception something swallowed
    (Python ignores an exception raised in an import lock's weakref callback) is raised
    here, so the command still stops with nothing written."""
    stopping.check()
    stopping.ignore()


def finish_writing(write: Callable[[], object]) -> EthersimError | None:
    """Runs ``write`` with the stopping signals held by :func:`hold_signals` (called
    before, or by ``write`` itself once its work is done, when the work and the writing
    are one call: a report builds its page, then writes it), and ignores them for the
    rest of the command in any case, so that an exit of 130 or 143 always means nothing
    was written. Returns the error ``write`` raised, if any."""
    failure = None
    try:
        write()
    except EthersimError as e:
        failure = e
    stopping.ignore()
    return failure

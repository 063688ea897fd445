"""Running ``ethersim`` commands inside the test process."""

from __future__ import annotations

import signal

from ethersim.cli import app
from typer.testing import CliRunner, Result

runner = CliRunner()


def invoke(*args: str) -> Result:
    """Runs ``ethersim ARGS`` in this process. A command ignores Ctrl-C and SIGTERM once
    it has written its results (it is about to exit); the test process must not keep
    that, or every child it starts later would inherit it."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        return runner.invoke(app, list(args))
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)

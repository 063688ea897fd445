"""Worker functions for the sweep tests, importable by spawned worker processes (which
get the test process's module path)."""

from __future__ import annotations

import os

from ethersim.sweeps import Outcome, Task, execute


def dies_on_cell_1(task: Task) -> Outcome:
    """Runs the task, except that the worker process dies abruptly on cell 1 (as one
    killed or crashed in native code would)."""
    if task.cell == 1:
        os._exit(9)
    return execute(task)

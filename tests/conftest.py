"""Fixtures shared across test modules."""

from __future__ import annotations

import os
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import invoke


@pytest.fixture(scope="session")
def every_quick_study(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """``ethersim reproduce all --quick`` run once for the session: the results folder
    (one folder per study, and index.html) and what the command printed. The findings
    tests of each study read its folder, so each quick grid runs once here, and once
    for all test workers (``pytest -n``): see :func:`once_for_all_workers`."""

    def reproduce_all(folder: Path) -> tuple[int, str]:
        r = invoke("reproduce", "all", "--quick", "--out", str(folder / "results"))
        return r.exit_code, r.output

    folder, (exit_code, output) = once_for_all_workers(
        tmp_path_factory, "every-quick-study", reproduce_all
    )
    assert exit_code == 0, output
    return folder / "results", output


def once_for_all_workers(
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    make: Callable[[Path], tuple[int, str]],
) -> tuple[Path, tuple[int, str]]:
    """Runs ``make`` once in a folder of its own, however many test workers ask
    (``pytest -n``: each worker makes its session fixtures itself, and a study's quick
    grid would run once per worker). The first worker to ask runs it, under a lock, in
    the folder the workers' temporary folders share, and keeps what it returned; the
    others wait for the lock and read that. Returns the folder and what ``make``
    returned (an exit status and the text printed)."""
    import json

    from filelock import FileLock

    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the session's folder, above each worker's own
    folder = shared / name
    record = shared / f"{name}.json"
    with FileLock(str(shared / f"{name}.lock")):
        if not record.exists():
            folder.mkdir()
            record.write_text(json.dumps(make(folder)), encoding="utf-8")
    exit_code, output = json.loads(record.read_text(encoding="utf-8"))
    return folder, (exit_code, output)


def _in_ci() -> bool:
    """Whether the tests run in CI (``CI`` set and not false, as CI services set it)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    """In CI a skipped test is a failed one: every test's tools (tshark for the capture
    tests, Chromium for the report tests, the test extras) are installed there by the
    README's test command, so a skip can only mean that an install step broke and would
    otherwise hide it. Outside CI a skip stays a skip, with its reason."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and _in_ci() and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        reason = str(reason).removeprefix("Skipped: ")
        report.outcome = "failed"
        report.longrepr = f"skipped in CI, which must run every test: {reason}"

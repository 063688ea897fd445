"""Fixtures shared across test modules."""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import invoke


@pytest.fixture(scope="session")
def every_quick_study(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """``ethersim reproduce all --quick`` run once for the session: the results folder
    (one folder per study, and index.html) and what the command printed. The findings
    tests of each study read its folder, so each quick grid runs once here."""
    out = tmp_path_factory.mktemp("all") / "results"
    r = invoke("reproduce", "all", "--quick", "--out", str(out))
    assert r.exit_code == 0, r.output
    return out, r.output


def _in_ci() -> bool:
    """Whether the tests run in CI (``CI`` set and not false, as CI services set it)."""
    import os

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

"""Fixtures shared across test modules."""

from __future__ import annotations

from pathlib import Path

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

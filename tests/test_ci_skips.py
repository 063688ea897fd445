"""In CI a skipped test fails (a skip there hides a broken install step)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

SKIPPING = """
import pytest

def test_needs_a_tool_that_is_missing():
    pytest.skip("tshark is not installed")
"""


def _run(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_skipping.py").write_text(SKIPPING)
    (tmp_path / "conftest.py").write_text((HERE / "conftest.py").read_text())
    (tmp_path / "cli_helpers.py").write_text((HERE / "cli_helpers.py").read_text())
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_skip_fails_in_ci(tmp_path: Path) -> None:
    p = _run(tmp_path, "true")
    assert p.returncode == 1, p.stdout
    assert "1 failed" in p.stdout, p.stdout
    assert "skipped in CI, which must run every test: tshark is not installed" in p.stdout


def test_a_skip_stays_a_skip_outside_ci(tmp_path: Path) -> None:
    p = _run(tmp_path, None)
    assert p.returncode == 0, p.stdout
    assert "1 skipped" in p.stdout, p.stdout


def test_the_ci_script_sets_ci_itself() -> None:
    # The rule must not depend on the CI service exporting CI (not every one does).
    script = (HERE.parent / ".ci" / "run").read_text()
    lines = [line.strip() for line in script.splitlines()]
    assert "export CI=1" in lines, script
    assert lines.index("export CI=1") < next(
        i for i, line in enumerate(lines) if "pytest" in line and not line.startswith("#")
    )

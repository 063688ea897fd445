"""The public API type-checks, and the stubs of the Rust extension match the binary."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], capture_output=True, text=True, cwd=ROOT, check=False
    )


def test_stubs_match_the_extension() -> None:
    p = run("mypy.stubtest", "ethersim._core")
    assert p.returncode == 0, p.stdout + p.stderr


def test_package_is_mypy_strict_clean() -> None:
    p = run("mypy")
    assert p.returncode == 0, p.stdout + p.stderr


def test_python_is_ruff_clean() -> None:
    p = run("ruff", "check", "python", "tests", "build_backend")
    assert p.returncode == 0, p.stdout + p.stderr

"""docs/tutorial.md runs as written: every ``sh`` block, in order, in one shell, in a
fresh folder (blocks marked ``sh skip``, the install step, are left out)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TUTORIAL = ROOT / "docs" / "tutorial.md"


def tutorial_script() -> str:
    """The tutorial's shell blocks, joined into one script that stops at the first failure."""
    blocks = re.findall(r"^```sh\n(.*?)^```$", TUTORIAL.read_text(encoding="utf-8"), re.M | re.S)
    assert len(blocks) >= 8, "the tutorial's commands were not found"
    return "set -euo pipefail\n" + "\n".join(blocks)


def test_every_command_of_the_tutorial_runs(tmp_path: Path) -> None:
    # The interpreter running the tests is the one whose ethersim the tutorial uses.
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    p = subprocess.run(
        ["bash", "-c", tutorial_script()],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert p.returncode == 0, f"stdout:\n{p.stdout}\nstderr:\n{p.stderr}"
    assert "identical" in p.stdout
    for made in (
        "tutorial/large-buffer/report.html",
        "tutorial/compare.html",
        "tutorial/goodput.png",
        "tutorial/sweep-report.html",
        "tutorial/eee-pingpong/report.html",
    ):
        assert (tmp_path / made).stat().st_size > 0, made
    # The capture was read by Wireshark's dissectors: five TCP frames listed.
    assert p.stdout.count("TCP") >= 5, p.stdout

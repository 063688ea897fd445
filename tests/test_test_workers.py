"""The README's test command runs the tests on every core (``pytest -n auto --dist
loadfile``), and a fixture made once for many tests is still made once: a module's
by the distribution by file, the session's by ``once_for_all_workers``
(``tests/conftest.py``)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# A session fixture made through once_for_all_workers, which leaves a file each time it
# is made, read by the tests of two modules; a module fixture likewise, in a third
# module; and tests that share nothing, which the workers split as they like.
SESSION_FIXTURE = """

@pytest.fixture(scope="session")
def shared_grid(tmp_path_factory):
    def make(folder):
        open(os.path.join(os.environ["MADE"], "session-" + os.urandom(4).hex()), "w").close()
        (folder / "grid").write_text("42")
        return 0, "made"

    folder, (status, output) = once_for_all_workers(tmp_path_factory, "grid", make)
    return int((folder / "grid").read_text()), status, output
"""

READERS = "".join(
    f"def test_reads_{n}(shared_grid):\n    assert shared_grid == (42, 0, 'made')\n\n"
    for n in range(6)
)

MODULE = """import os
import pytest

@pytest.fixture(scope="module")
def per_module():
    open(os.path.join(os.environ["MADE"], "module-" + os.urandom(4).hex()), "w").close()
    return 7

""" + "".join(f"def test_uses_{n}(per_module):\n    assert per_module == 7\n\n" for n in range(6))

FREE = "".join(f"def test_free_{n}():\n    pass\n\n" for n in range(6))


def _readme_pytest_arguments() -> list[str]:
    """The arguments the README's test command gives pytest."""
    readme = (HERE.parent / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)\n```", readme.split("\n## ", 1)[0], re.S)
    words = shlex.split(blocks[-1].split("&&")[-1])
    assert words[0] == "pytest", blocks[-1]
    return words[1:]


def test_each_shared_fixture_is_made_once_with_the_readmes_workers(tmp_path: Path) -> None:
    suite, made = tmp_path / "suite", tmp_path / "made"
    suite.mkdir()
    made.mkdir()
    conftest = (HERE / "conftest.py").read_text(encoding="utf-8")
    (suite / "conftest.py").write_text(conftest + SESSION_FIXTURE)
    (suite / "cli_helpers.py").write_text((HERE / "cli_helpers.py").read_text())
    (suite / "test_reader_a.py").write_text(READERS)
    (suite / "test_reader_b.py").write_text(READERS)
    (suite / "test_module.py").write_text(MODULE)
    (suite / "test_free.py").write_text(FREE)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["MADE"] = str(made)
    arguments = _readme_pytest_arguments()
    assert "-n" in arguments, arguments
    # Two workers, as on a 2-core machine, whatever this one has.
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *arguments]
    p = subprocess.run(
        [*command, "-n", "2", str(suite)],
        cwd=suite,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "24 passed" in p.stdout, p.stdout
    kinds = sorted(f.name.split("-")[0] for f in made.iterdir())
    assert kinds == ["module", "session"], kinds

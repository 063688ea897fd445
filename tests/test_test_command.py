"""The README's test command: CI runs it as written, and it runs the Python tests on
every core (``pytest -n auto --dist loadfile``) with each fixture that many tests share
still made once: a module's by the distribution by file, the session's by
``once_for_all_workers`` (``tests/conftest.py``)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def readme_test_command() -> str:
    """The README's test command: the last shell block before its first section."""
    readme = (HERE.parent / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)\n```", readme.split("\n## ", 1)[0], re.S)
    return blocks[-1].strip()


def test_ci_runs_the_readmes_test_command() -> None:
    # CI runs the README's test command and nothing weaker: it is a line of .ci/run.
    command = readme_test_command()
    assert "cargo test" in command and "pytest" in command, command
    script = (HERE.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert command in [line.strip() for line in script.splitlines()], script


# A session fixture made through once_for_all_workers, which leaves a file each time it
# is made, read by the tests of four modules (each also leaves a file naming its
# worker); a module fixture likewise, in a fifth module; and tests that share nothing.
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

READERS = """import os

""" + "".join(
    f"def test_reads_{n}(shared_grid):\n"
    "    worker = os.environ['PYTEST_XDIST_WORKER']\n"
    "    open(os.path.join(os.environ['READ'], worker), 'w').close()\n"
    "    assert shared_grid == (42, 0, 'made')\n\n"
    for n in range(4)
)

MODULE = """import os
import pytest

@pytest.fixture(scope="module")
def per_module():
    open(os.path.join(os.environ["MADE"], "module-" + os.urandom(4).hex()), "w").close()
    return 7

""" + "".join(f"def test_uses_{n}(per_module):\n    assert per_module == 7\n\n" for n in range(6))

FREE = "".join(f"def test_free_{n}():\n    pass\n\n" for n in range(6))


def test_each_shared_fixture_is_made_once_with_the_readmes_workers(tmp_path: Path) -> None:
    suite, made, read = tmp_path / "suite", tmp_path / "made", tmp_path / "read"
    for folder in (suite, made, read):
        folder.mkdir()
    conftest = (HERE / "conftest.py").read_text(encoding="utf-8")
    (suite / "conftest.py").write_text(conftest + SESSION_FIXTURE)
    (suite / "cli_helpers.py").write_text((HERE / "cli_helpers.py").read_text())
    for name in "abcd":
        (suite / f"test_reader_{name}.py").write_text(READERS)
    (suite / "test_module.py").write_text(MODULE)
    (suite / "test_free.py").write_text(FREE)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env |= {"MADE": str(made), "READ": str(read)}
    words = shlex.split(readme_test_command().split("&&")[-1])
    assert words[0] == "pytest" and "-n" in words, words
    # Two workers, as on a 2-core machine, whatever this one has.
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *words[1:]]
    p = subprocess.run(
        [*command, "-n", "2", str(suite)],
        cwd=suite,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "28 passed" in p.stdout, p.stdout
    # Both workers read the session fixture, so the lock had something to do ...
    assert sorted(f.name for f in read.iterdir()) == ["gw0", "gw1"]
    # ... and each fixture was made once.
    kinds = sorted(f.name.split("-")[0] for f in made.iterdir())
    assert kinds == ["module", "session"], kinds

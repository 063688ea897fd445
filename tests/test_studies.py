"""The study contract and its registry: every registered study is a complete
:class:`~ethersim.studies.study.Study`, ``ethersim reproduce`` offers exactly the
registry's studies, and a study's module is loaded only when it is asked for."""

from __future__ import annotations

import dataclasses
import inspect
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import invoke
from ethersim.studies import registry
from ethersim.studies.study import Study

#: The options every study's command takes besides its own (parameter names, flags).
COMMON = {
    "quick": "--quick",
    "out": "--out",
    "seed": "--seed",
    "jobs": "--jobs",
    "quiet": "--quiet",
    "sensitivity": "--sensitivity",
    "scheduler": "--scheduler",
    "dask_local": "--dask-local",
}


def _defaults(study: Study[Any, Any]) -> dict[str, Any]:
    """The values a command gets with no option given."""
    return {
        **{o.name: o.default for o in study.options},
        "quick": False,
        "out": Path("results") / study.name,
        "seed": 1,
        "jobs": None,
        "quiet": False,
        "sensitivity": False,
        "scheduler": None,
        "dask_local": False,
    }


@pytest.mark.parametrize("name", registry.NAMES)
def test_every_registered_study_satisfies_the_contract(name: str) -> None:
    study = registry.study(name)
    assert isinstance(study, Study)
    assert study.name == name
    assert not inspect.isabstract(type(study)), "every step of the contract is filled in"
    # One line for the list, one paragraph for the command: the terminal wraps them.
    for text in (study.title, study.description, study.quick_help, study.out_help):
        assert text and "\n" not in text and text == text.strip(), text
    assert study.examples
    for example in study.examples:
        assert example.startswith(f"ethersim reproduce {name}"), example
    assert study.backend in ("batch", "sweeps")
    # The study's own options are distinct and never shadow the common ones.
    names = [o.name for o in study.options]
    flags = [o.flag for o in study.options]
    assert len(set(names)) == len(names) and len(set(flags)) == len(flags)
    assert not set(names) & set(COMMON) and not set(flags) & set(COMMON.values())
    for option in study.options:
        assert option.flag.startswith("--") and option.help_text().endswith("."), option
    # The defaults make options the study accepts, and its findings load.
    options = study.configure(_defaults(study))
    assert dataclasses.is_dataclass(options)
    study.check(options)
    assert study.published().findings


def test_the_registry_lists_each_study_once_by_its_module() -> None:
    assert registry.NAMES == tuple(registry.STUDIES)
    assert len(set(registry.STUDIES.values())) == len(registry.STUDIES)
    with pytest.raises(KeyError):
        registry.study("no-such-study")


def _listed(help_text: str) -> list[str]:
    """The command names of a group's ``--help`` (rich's "Commands" panel)."""
    panel = help_text.split("Commands", 1)[1]
    return re.findall(r"^│ (\S+)\s", panel, re.M)


def test_reproduce_help_lists_exactly_the_registry_then_all() -> None:
    r = invoke("reproduce", "--help")
    assert r.exit_code == 0, r.output
    assert _listed(r.output) == [*registry.NAMES, "all"]
    # Each study's one-line title, not its description broken where the source broke it.
    for name in registry.NAMES:
        title = registry.study(name).title
        assert " ".join(title.split()[:3]) in r.output, title


@pytest.mark.parametrize("name", registry.NAMES)
def test_a_study_command_shows_its_description_and_options(name: str) -> None:
    study = registry.study(name)
    r = invoke("reproduce", name, "--help")
    assert r.exit_code == 0, r.output
    flat = " ".join(r.output.replace("│", " ").split())
    assert " ".join(study.description.split()[:8]) in flat
    for flag in (*COMMON.values(), *(o.flag for o in study.options)):
        assert flag in r.output, flag


def test_the_command_line_loads_no_study_until_one_is_asked_for() -> None:
    """``ethersim run`` and every other command pay nothing for the studies; ``reproduce
    NAME`` loads that study alone."""
    code = """
import sys
from ethersim.cli import main
sys.argv = ["ethersim", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
print("LOADED", *sorted(m for m in sys.modules if m.startswith("ethersim.studies.")))
"""

    def loaded(*args: str) -> list[str]:
        p = subprocess.run(
            [sys.executable, "-c", code, *args], capture_output=True, text=True, check=False
        )
        return p.stdout.strip().splitlines()[-1].split()[1:]

    assert loaded("--help") == ["ethersim.studies.registry", "ethersim.studies.study"]
    assert "ethersim.studies.csma" in loaded("reproduce", "csma", "--help")
    assert "ethersim.studies.rps" not in loaded("reproduce", "csma", "--help")


def test_a_figure_is_written_as_png_and_svg_with_the_same_bytes_every_time(
    tmp_path: Path,
) -> None:
    """Without any global setting: the SVG's ids come from a fixed salt, it has no date,
    and the figure is closed."""
    import matplotlib
    from ethersim.figures import prepare, write_figure

    prepare(tmp_path / "a")
    import matplotlib.pyplot as plt

    salt = matplotlib.rcParams["svg.hashsalt"]
    for folder in ("a", "b"):
        prepare(tmp_path / folder)
        fig, ax = plt.subplots()
        ax.plot([0, 1, 2], [1, 0, 1], "o-")
        write_figure(fig, tmp_path / folder, "curve")
        assert not plt.fignum_exists(fig.number)
    for ext in ("png", "svg"):
        a, b = (tmp_path / f / f"curve.{ext}" for f in ("a", "b"))
        assert a.read_bytes() == b.read_bytes(), ext
    assert b"<dc:date>" not in (tmp_path / "a" / "curve.svg").read_bytes()
    assert matplotlib.rcParams["svg.hashsalt"] == salt, "no global setting is changed"

"""The study contract: what every reproduction is, so that ``ethersim reproduce`` runs,
writes and checks any of them the same way.

A study is a subclass of :class:`Study`, instantiated once as its module's ``STUDY`` and
listed in :mod:`ethersim.studies.registry`. It declares its command (name, title,
description, examples, the options it takes beyond the ones every study takes) and fills
in the steps the base class strings together:

1. ``configure``: the command's values into the study's own ``Options``; ``check`` them;
2. ``reproduce``: build the scenarios and run them (``backend``: ``"batch"``, a list of
   scenarios on :mod:`ethersim.batch`; ``"sweeps"``, grids on :mod:`ethersim.sweeps`);
3. ``write``: ``tables``, ``figures``, ``summary``, ``scenario_files``, ``marker``;
4. ``findings``: the evaluators of its published findings (:mod:`.contract`).

Why an abstract base class and not a ``typing.Protocol``: the flow (run with a
sensitivity point's changes, write every part of the folder, load the published findings)
is the same for every study and lives here once, and a study that forgets a step fails
when its ``STUDY`` is made (mypy says so before that), not when a user runs it. Every
study is ethersim's own, written for this contract; structural typing would buy nothing.
"""

from __future__ import annotations

import dataclasses
import json
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, Protocol, TypeVar

if TYPE_CHECKING:
    import pandas as pd
    from _typeshed import DataclassInstance
    from rich.console import RenderableType

    from ethersim.studies.contract import Findings, Published

__all__ = [
    "MARKER",
    "Option",
    "Ran",
    "Study",
    "TableFile",
    "is_reproduction_folder",
    "write_marker",
]

#: The file every reproduction folder holds (what ran, with which options, how long).
MARKER = "reproduction.json"


def write_marker(folder: Path, info: dict[str, Any]) -> None:
    """Writes the folder's marker, ``reproduction.json``: ``info`` (what ran, with which
    options, how long it took) and the version of ethersim that ran it."""
    from importlib.metadata import version

    info = {**info, "ethersim": version("ethersim")}
    (folder / MARKER).write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")


def is_reproduction_folder(names: set[str]) -> bool:
    """Whether a folder holding ``names`` is one a reproduction wrote (and may replace)."""
    return MARKER in names


@dataclass(frozen=True)
class Option:
    """One option of a study's command, beyond those every study takes (``--quick``,
    ``--out``, ``--seed``, ``--jobs``, ``--quiet``, ``--sensitivity``, ``--scheduler``,
    ``--dask-local``). The command line checks what it can (range, finiteness); the rest
    is the study's ``configure`` and ``check``, which name ``flag`` in their errors."""

    #: The parameter's name: its key in the values ``Study.configure`` gets, and in the
    #: sensitivity database's key (so renaming one orphans the points stored under it).
    name: str
    #: As the user types it: ``--buffer``.
    flag: str
    #: Its Python type as the command line reads it: ``str``, ``int``, ``float``,
    #: ``bool`` (a flag), ``float | None`` (not given: the study decides),
    #: ``list[str] | None`` (repeatable), ``Path | None``.
    type: Any
    #: What the study gets when the option is not given.
    default: Any
    #: One or two sentences for ``--help``.
    help: str
    #: The placeholder in ``--help`` (``SIZE``, ``cpu|nic``); ``None`` for a flag.
    metavar: str | None = None
    #: The smallest and largest values accepted (numbers).
    min: float | None = None
    max: float | None = None
    #: Refuse NaN and infinity, naming the option (number options).
    finite: bool = False
    #: Where the default is ``None`` and the study picks a value by grid: (the full
    #: grid's, the quick grid's); ``--help`` states both.
    grid_default: tuple[Any, Any] | None = None

    def help_text(self) -> str:
        """The help as ``--help`` shows it."""
        if self.grid_default is None:
            return self.help
        full, quick = self.grid_default
        return f"{self.help} (default {full:g}; {quick:g} with --quick)."


@dataclass(frozen=True)
class TableFile:
    """One table a study writes: ``path`` is its name under the output folder without a
    suffix (``rps``, ``timeseries/single``), written as each of ``formats``."""

    path: str
    frame: pd.DataFrame
    formats: tuple[Literal["csv", "parquet"], ...] = ("csv", "parquet")

    def write(self, folder: Path) -> None:
        """Writes the table's files under ``folder``, making subfolders as needed."""
        from ethersim.batch import write_csv
        from ethersim.safe_write import make_folders

        make_folders((folder / self.path).parent)
        for fmt in self.formats:
            if fmt == "csv":
                write_csv(self.frame, folder / f"{self.path}.csv")
            else:
                self.frame.to_parquet(folder / f"{self.path}.parquet", index=False)


class Ran(Protocol):
    """What every reproduction reports of its runs (the command's closing line)."""

    #: Simulations run (calibration runs included).
    runs: int
    #: Runs at once.
    jobs: int
    #: Wall-clock seconds the reproduction took.
    wall_s: float


if TYPE_CHECKING:
    Opts = TypeVar("Opts", bound=DataclassInstance)
else:
    Opts = TypeVar("Opts")
Rep = TypeVar("Rep", bound=Ran)


class Study(ABC, Generic[Opts, Rep]):
    """One published study ethersim reproduces: its command, how it runs, what it writes,
    and its published findings. ``Opts`` is the study's options (a frozen dataclass),
    ``Rep`` what one reproduction found."""

    #: The command's name (``ethersim reproduce NAME``) and the registry's key.
    name: ClassVar[str]
    #: One line for ``ethersim reproduce --help``'s list of studies.
    title: ClassVar[str]
    #: One paragraph (no line breaks: the terminal wraps it) for ``reproduce NAME --help``.
    description: ClassVar[str]
    #: Command lines to copy, for ``--help``'s examples.
    examples: ClassVar[tuple[str, ...]]
    #: What ``--quick`` runs instead of the full grid.
    quick_help: ClassVar[str]
    #: What ``--out`` receives ("Folder for the tables, figures and summary.").
    out_help: ClassVar[str]
    #: The study's own options, in the order ``--help`` lists them.
    options: ClassVar[tuple[Option, ...]] = ()
    #: Where its runs go: ``"batch"``, lists of scenarios through
    #: :func:`ethersim.batch.run_many` (``--scheduler``/``--dask-local`` send them to Dask
    #: through :func:`ethersim.batch.on_cluster`); ``"sweeps"``, grids on the sweeps
    #: machinery, to which the study itself hands ``--scheduler``/``--dask-local``.
    backend: ClassVar[Literal["batch", "sweeps"]] = "batch"

    # --- options and runs -----------------------------------------------------------

    @abstractmethod
    def configure(self, values: Mapping[str, Any]) -> Opts:
        """The study's options from the command's values, by parameter name: each of
        :attr:`options`, and ``quick``, ``out``, ``seed``, ``jobs``, ``scheduler``,
        ``dask_local``. Raises :class:`~ethersim.errors.ScenarioError` naming the option
        for a value it cannot read (``--buffer`` not a size)."""

    def check(self, options: Opts) -> None:
        """Raises :class:`~ethersim.errors.ScenarioError` naming the option for options
        the study cannot run, before anything runs. Accepts everything by default."""

    @abstractmethod
    def reproduce(self, options: Opts, progress: bool) -> Rep:
        """Builds the study's scenarios, runs them and returns what it found (nothing is
        written); ``progress`` shows a progress line on a terminal."""

    def run(self, options: Opts, changes: Mapping[str, Any], progress: bool) -> Rep:
        """Runs the study with ``options`` changed by ``changes`` (a sensitivity point's
        study options, by field; none for the study's own run), checked first."""
        changed = dataclasses.replace(options, **changes)
        self.check(changed)
        return self.reproduce(changed, progress)

    # --- what it writes -------------------------------------------------------------

    @abstractmethod
    def tables(self, rep: Rep) -> Iterable[TableFile]:
        """The tables of the output folder (their names and columns are the contract)."""

    @abstractmethod
    def figures(self, rep: Rep, folder: Path, published: Published) -> None:
        """Draws the figures into ``folder`` (PNG and SVG each, through
        :func:`ethersim.figures.write_figure`), the published values marked where the
        findings say (:func:`ethersim.studies.contract.draw_published`)."""

    @abstractmethod
    def summary(self, rep: Rep) -> str:
        """``summary.md``, opening with a ``# title`` line (the comparison's K-of-N
        paragraph goes under it)."""

    @abstractmethod
    def scenario_files(self, rep: Rep) -> Mapping[str, str]:
        """Scenario (or sweep) files a user can run again, by path under the output
        folder (``scenarios/NAME.toml``)."""

    @abstractmethod
    def marker(self, rep: Rep) -> dict[str, Any]:
        """What ``reproduction.json`` records beside the study's name: the options that
        decide its results, runs, jobs and wall time."""

    def write(self, rep: Rep, folder: Path, published: Published) -> None:
        """Writes the reproduction's files into ``folder`` (a fresh, empty folder): its
        tables, figures, summary, scenario files and marker. The comparison with the
        paper and the report come after (``ethersim reproduce``)."""
        from ethersim.safe_write import make_folders

        for table in self.tables(rep):
            table.write(folder)
        self.figures(rep, folder / "figures", published)
        (folder / "summary.md").write_text(self.summary(rep), encoding="utf-8")
        for path, text in self.scenario_files(rep).items():
            make_folders((folder / path).parent)
            (folder / path).write_text(text, encoding="utf-8")
        write_marker(folder, {"study": self.name, **self.marker(rep)})

    # --- what it shows --------------------------------------------------------------

    @abstractmethod
    def main_table(self, rep: Rep) -> RenderableType:
        """The table the command prints when it is done (a rich renderable)."""

    def notes(self, rep: Rep) -> Sequence[str]:
        """Lines printed on standard error after the closing line (a calibration's
        outcome); none by default."""
        return ()

    # --- its paper ------------------------------------------------------------------

    @abstractmethod
    def findings(self) -> Findings[Rep]:
        """The evaluators of the study's published findings (its ``*_findings`` module)."""

    def published(self) -> Published:
        """The study's published findings and setup ledger, checked against its
        evaluators (a :class:`~ethersim.errors.ScenarioError` naming the key path in the
        data file for anything malformed)."""
        return self.findings().published()

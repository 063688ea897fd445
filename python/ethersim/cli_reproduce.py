"""``ethersim reproduce``: the published studies, one command each, made from the study
registry (:mod:`ethersim.studies.registry`), and ``reproduce all``.

Each study's command takes the options every study takes and the study's own
(:attr:`ethersim.studies.study.Study.options`), checks them and its output folder before
it runs anything, runs the study, prints its main table and how long it took, and writes
its folder whole or not at all (Ctrl-C or SIGTERM leave nothing half-written).

A study's command is built when it is first asked for (``reproduce NAME``, or the list
in ``reproduce --help``): the other commands of ethersim import no study.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Mapping, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from ethersim.cli_common import (
    Terminated,
    closed_pipe_is_success,
    err_console,
    examples,
    fail,
    finish_writing,
    finite_number,
    hold_signals,
    literal,
    out_console,
    stopped,
)
from ethersim.errors import EthersimError, ScenarioError
from ethersim.studies.registry import NAMES, STUDIES, study

if TYPE_CHECKING:
    from ethersim.studies.study import Option, Study

__all__ = ["reproduce_app"]

#: Options every reproduction takes.
SeedOption = Annotated[int, typer.Option("--seed", help="Seed of every run.", metavar="SEED")]
JobsOption = Annotated[
    int | None,
    typer.Option("--jobs", "-j", help="Runs at once (default: every core).", min=1, metavar="N"),
]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")]
SchedulerOption = Annotated[
    str | None,
    typer.Option(
        "--scheduler", help="Run on the Dask scheduler at tcp://HOST:PORT.", metavar="URL"
    ),
]
DaskLocalOption = Annotated[bool, typer.Option("--dask-local", help="Run on a local Dask cluster.")]
SensitivityOption = Annotated[
    bool,
    typer.Option(
        "--sensitivity",
        help="Also run the study again with each assumed or calibrated parameter over its "
        "plausible range (setup.csv): sensitivity.csv, a figure, and which findings hinge "
        "on which assumption. Resumable: points are kept in OUT.sensitivity.duckdb.",
    ),
]

#: The options every study's command takes after its own: (name, type, default).
COMMON: tuple[tuple[str, Any, Any], ...] = (
    ("seed", SeedOption, 1),
    ("jobs", JobsOption, None),
    ("quiet", QuietOption, False),
    ("sensitivity", SensitivityOption, False),
    ("scheduler", SchedulerOption, None),
    ("dask_local", DaskLocalOption, False),
)

#: ``Annotated`` used as a function at run time: a study's option types are values, not
#: annotations the type checker could read.
_ANNOTATED: Any = Annotated


def _reproduce_into(study: Study[Any, Any], values: Mapping[str, Any]) -> tuple[Any, Path]:
    """Checks the seed, the study's published findings and the output folder, runs the
    study with the command's ``values`` (errors exit 2 with their message; Ctrl-C and
    SIGTERM leave nothing written) and, with ``--sensitivity``, again at every point of
    its ledger's ranges; then writes its folder whole: the study's files, the comparison
    with the paper, the setup ledger and the report. ``--scheduler``/``--dask-local`` run
    every simulation of the study and its sensitivity points on Dask (a study on the
    sweeps backend hands them to its sweeps). Returns what it found and where it was
    written."""
    from ethersim.batch import on_cluster, recording
    from ethersim.results import check_output_folder, import_writers, output_path, write_folder
    from ethersim.safe_write import missing_folders, remove_folders
    from ethersim.studies import contract
    from ethersim.studies import sensitivity as sens
    from ethersim.studies.study import is_reproduction_folder

    out: Path = values["out"]
    seed: int = values["seed"]
    sensitivity: bool = values["sensitivity"]
    cluster = (
        (values["scheduler"], values["dask_local"]) if study.backend == "batch" else (None, False)
    )

    def reproduce(**changes: Any) -> Any:
        # The options are read again for every run: a sensitivity point changes some.
        return study.run(study.configure(values), changes, progress=not values["quiet"])

    table = None
    # The folders above the output this command creates (the runs' database, say): a
    # refused or stopped reproduction removes them again, leaving nothing behind.
    made = missing_folders(output_path(out).parent)
    try:
        if not 0 <= seed < 2**64:
            raise ScenarioError(f"{seed} is out of range; expected 0 to 2^64 - 1", "--seed")
        findings = study.findings()
        published = findings.published()
        check_output_folder(out, is_reproduction_folder)
        db = sens.default_db(output_path(out))
        if sensitivity:
            from ethersim.safe_write import check_writable_file

            sens.check_ranges(published)
            check_writable_file(db, "--sensitivity database", missing_folders=True)
        with on_cluster(*cluster):
            with recording() as ran:
                rep = reproduce()
            if sensitivity:
                sens.check_points(published, [*ran, *findings.scenarios(rep)])
                table = sens.run(findings, published, reproduce, options=_options(values), db=db)
        # What writing imports (tables, figures, the report) is imported while a stop
        # still stops the command: the held window is the writing alone.
        import_writers()
        import matplotlib.figure  # noqa: F401

        import ethersim.figures
        import ethersim.report  # noqa: F401

        hold_signals()
    except EthersimError as e:
        remove_folders(made)
        raise fail(e) from None
    except (KeyboardInterrupt, Terminated) as e:
        remove_folders(made)
        raise stopped(e, "nothing was written") from None

    def fill(folder: Path) -> None:
        from ethersim.report import build_report

        study.write(rep, folder, published)
        comparison = contract.write(published, findings, rep, ran, folder)
        if table is not None:
            sens.write(published, comparison, table, folder)
        build_report(folder)

    failure = finish_writing(lambda: write_folder(out, fill, is_reproduction_folder))
    if failure is not None:
        remove_folders(made)
        raise fail(failure)
    return rep, output_path(out)


def _options(given: Mapping[str, object]) -> dict[str, object]:
    """A command's options that decide its results (for the sensitivity database's key)."""
    skip = {"out", "quiet", "jobs", "sensitivity", "db", "database", "scheduler", "dask_local"}
    simple = (int, float, str, bool, type(None))
    return {k: v for k, v in given.items() if k not in skip and isinstance(v, simple)}


def _done(runs: int, jobs: int, wall_s: float, written: Path) -> None:
    from rich.text import Text

    from ethersim.studies.contract import k_of_n

    comparison = written / "comparison.csv"
    if comparison.exists():
        import pandas as pd

        out_console().print(f"{k_of_n(pd.read_csv(comparison))}.", highlight=False)
    done = (
        f"{runs} simulations on {jobs} {'thread' if jobs == 1 else 'threads'} "
        f"in {wall_s:.1f} s; results written to "
    )
    out_console().print(Text.assemble(done, literal(written), "/"), highlight=False)


def _reproduce_study(study: Study[Any, Any], values: Mapping[str, Any]) -> None:
    """One study's command: run and write it, then (unless quiet) print its main table,
    the closing line and its notes."""
    rep, written = _reproduce_into(study, values)
    if values["quiet"]:
        return
    out_console().print(study.main_table(rep))
    _done(rep.runs, rep.jobs, rep.wall_s, written)
    for line in study.notes(rep):
        err_console().print(line, highlight=False)


def _annotated(option: Option) -> Any:
    """A study's option as the command line declares it."""
    settings: dict[str, Any] = {"help": option.help_text()}
    if option.metavar is not None:
        settings["metavar"] = option.metavar
    if option.min is not None:
        settings["min"] = option.min
    if option.max is not None:
        settings["max"] = option.max
    if option.finite:
        settings["callback"] = finite_number
    return _ANNOTATED[option.type, typer.Option(option.flag, **settings)]


def _parameters(study: Study[Any, Any]) -> list[inspect.Parameter]:
    """The command's parameters: ``--quick`` and ``--out`` as the study describes them,
    the study's own options, then the options every study takes."""
    quick = Annotated[bool, typer.Option("--quick", help=study.quick_help)]
    out = Annotated[Path, typer.Option("--out", help=study.out_help, metavar="DIR")]
    given = [
        ("quick", quick, False),
        ("out", out, Path("results") / study.name),
        *((o.name, _annotated(o), o.default) for o in study.options),
        *COMMON,
    ]
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    return [inspect.Parameter(n, kind, default=d, annotation=a) for n, a, d in given]


def _command(study: Study[Any, Any]) -> Any:
    """``reproduce NAME`` for ``study``, as a click command built by typer."""

    def command(**values: Any) -> None:
        _reproduce_study(study, values)

    parameters = _parameters(study)
    # typer reads a command's options from its signature; this one is made, not written.
    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in parameters}
    command.__name__ = command.__qualname__ = study.name.replace("-", "_")
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    app.command(
        study.name,
        help=study.description,
        short_help=study.title,
        epilog=examples(*study.examples),
    )(closed_pipe_is_success(command))
    return typer.main.get_command(app)


class _Commands(MutableMapping[str, Any]):
    """The group's commands: every registered study's (built on first use), in the
    registry's order, then the group's own (``all``)."""

    def __init__(self, own: Mapping[str, Any]) -> None:
        self._own = dict(own)
        self._built: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name in self._own:
            return self._own[name]
        if name not in STUDIES:
            raise KeyError(name)
        if name not in self._built:
            self._built[name] = _command(study(name))
        return self._built[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._own[name] = command

    def __delitem__(self, name: str) -> None:
        del self._own[name]

    def __iter__(self) -> Iterator[str]:
        yield from NAMES
        yield from (n for n in self._own if n not in STUDIES)

    def __len__(self) -> int:
        return len(NAMES) + sum(1 for n in self._own if n not in STUDIES)


class _StudyGroup(TyperGroup):
    """``reproduce``: a command per registered study, then the group's own. A study's
    command is made when click first asks for it (to run it, or to list it in
    ``--help``), since making it imports the study's module."""

    def __init__(self, **settings: Any) -> None:
        settings["commands"] = _Commands(settings.get("commands") or {})
        super().__init__(**settings)


reproduce_app = typer.Typer(
    name="reproduce",
    help="Reproduce a published study: its grid, tables, figures and a summary.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    cls=_StudyGroup,
)


@reproduce_app.callback()
def _reproduce() -> None:
    """Reproduce a published study: its grid, tables, figures and a summary."""


@reproduce_app.command(
    "all",
    # One paragraph: a docstring's line breaks would be kept in the list of commands.
    help="Every study in turn, each into its own folder under OUT, then OUT/index.html "
    "linking each report; prints how many published findings each one reproduces.",
    short_help="Every study in turn, then OUT/index.html linking each report.",
    epilog=examples("ethersim reproduce all --quick", "ethersim reproduce all --out results"),
)
@closed_pipe_is_success
def all_studies(
    quick: Annotated[
        bool, typer.Option("--quick", help="Every study's quick grid (seconds each).")
    ] = False,
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            help="Folder for one folder per study and index.html linking their reports.",
            metavar="DIR",
        ),
    ] = Path("results"),
    seed: SeedOption = 1,
    jobs: JobsOption = None,
    quiet: QuietOption = False,
    sensitivity: SensitivityOption = False,
    scheduler: SchedulerOption = None,
    dask_local: DaskLocalOption = False,
) -> None:
    """Every registered study in turn, each with its own options' defaults, then the index
    page (``help`` above says it for ``--help``)."""
    import time

    import pandas as pd

    from ethersim.report import build_index
    from ethersim.studies.contract import k_of_n

    started = time.perf_counter()
    for name in NAMES:
        began = time.perf_counter()
        each = study(name)
        _reproduce_study(
            each,
            {
                **{o.name: o.default for o in each.options},
                "quick": quick,
                "out": out / name,
                "seed": seed,
                "jobs": jobs,
                "quiet": True,
                "sensitivity": sensitivity,
                "scheduler": scheduler,
                "dask_local": dask_local,
            },
        )
        if not quiet:
            line = k_of_n(pd.read_csv(out / name / "comparison.csv"))
            out_console().print(
                f"{name}: {line} ({time.perf_counter() - began:.1f} s)", highlight=False
            )
    try:
        index = build_index(out, NAMES)
    except EthersimError as e:
        raise fail(e) from None
    if not quiet:
        from rich.text import Text

        out_console().print(
            Text.assemble(
                f"{len(NAMES)} studies in {time.perf_counter() - started:.1f} s; index: ",
                literal(index),
            ),
            highlight=False,
        )

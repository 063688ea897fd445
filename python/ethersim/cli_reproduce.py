"""``ethersim reproduce``: the published studies, one command each.

Each command checks its options and its output folder before it runs anything, runs the
study's grid on all local cores, prints its main table and how long it took, and writes
its folder whole or not at all (Ctrl-C or SIGTERM leave nothing half-written).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

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

if TYPE_CHECKING:
    from ethersim.studies.rps import Reproduction

__all__ = ["reproduce_app"]

reproduce_app = typer.Typer(
    name="reproduce",
    help="Reproduce a published study: its grid, tables, figures and a summary.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


Rep = TypeVar("Rep")

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


def _reproduce_into(
    out: Path,
    seed: int,
    reproduce: Callable[[], Rep],
    write: Callable[[Rep, Path], None],
    name: str,
    *,
    sensitivity: bool = False,
    options: dict[str, object] | None = None,
    cluster: tuple[str | None, bool] = (None, False),
) -> tuple[Rep, Path]:
    """Checks the seed, the study's published findings and the output folder, runs
    ``reproduce`` (errors exit 2 with their message; Ctrl-C and SIGTERM leave nothing
    written) and, with ``sensitivity``, the study again at every point of its ledger's
    ranges; then writes its folder whole with ``write``, the comparison with the paper,
    the setup ledger and the report. ``cluster`` (a scheduler address, or a local
    cluster) runs every simulation of the study and its sensitivity points on Dask.
    Returns what it found and where it was written."""
    from ethersim.batch import on_cluster, recording
    from ethersim.results import check_output_folder, import_writers, output_path, write_folder
    from ethersim.safe_write import missing_folders, remove_folders
    from ethersim.studies import contract
    from ethersim.studies import sensitivity as sens
    from ethersim.studies.registry import study
    from ethersim.studies.runner import is_reproduction_folder

    table = None
    # The folders above the output this command creates (the runs' database, say): a
    # refused or stopped reproduction removes them again, leaving nothing behind.
    made = missing_folders(output_path(out).parent)
    try:
        if not 0 <= seed < 2**64:
            raise ScenarioError(f"{seed} is out of range; expected 0 to 2^64 - 1", "--seed")
        glue = study(name)
        published = glue.published()
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
                sens.check_points(published, [*ran, *glue.scenarios(rep)])
                table = sens.run(glue, published, reproduce, options=options or {}, db=db)
        # What writing imports (tables, figures, the report) is imported while a stop
        # still stops the command: the held window is the writing alone.
        import_writers()
        import matplotlib.figure  # noqa: F401

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

        write(rep, folder)
        comparison = contract.write(published, glue, rep, ran, folder)
        if table is not None:
            sens.write(published, comparison, table, folder)
        build_report(folder)

    failure = finish_writing(lambda: write_folder(out, fill, is_reproduction_folder))
    if failure is not None:
        remove_folders(made)
        raise fail(failure)
    return rep, output_path(out)


def _options(given: dict[str, object]) -> dict[str, object]:
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


@reproduce_app.callback()
def _reproduce() -> None:
    """Reproduce a published study: its grid, tables, figures and a summary."""


def _print_cells(rep: Reproduction) -> None:
    from rich.table import Table

    table = Table(title="Rapid PHY Selection: 802.3x PAUSE against link-rate switching")
    for column in ("protocol", "pause", "server", "transfer", "extra", "loss", "PAUSE to server"):
        table.add_column(column, justify="left" if column in ("protocol", "server") else "right")
    for _, r in rep.cells.iterrows():
        table.add_row(
            r.protocol.upper(),
            f"{r.pause_ms} ms",
            "honours" if r.server_honours_pause else "ignores",
            f"{r.transfer_time_s:.3f} s",
            f"{r.extra_time_s:+.3f} s",
            f"{r.loss_percent:.3f} %",
            f"{r.pause_frames_to_server:,}",
        )
    out_console().print(table)


@reproduce_app.command(
    "rps",
    epilog=examples(
        "ethersim reproduce rps --quick",
        'ethersim reproduce rps --buffer "256 KiB" --out results/rps-256k',
        "ethersim reproduce rps --sensitivity",
    ),
)
@closed_pipe_is_success
def rps(
    quick: Annotated[
        bool, typer.Option("--quick", help="A smaller grid (a 50 MB file) that runs in seconds.")
    ] = False,
    out: Annotated[
        Path,
        typer.Option("--out", help="Folder for the tables, figures and summary.", metavar="DIR"),
    ] = Path("results/rps"),
    buffer: Annotated[
        str,
        typer.Option(
            "--buffer",
            help="The switch's port buffer in the grid (default 128 KiB).",
            metavar="SIZE",
        ),
    ] = "128 KiB",
    no_xon: Annotated[
        bool,
        typer.Option(
            "--no-xon",
            help="The switch lets its PAUSE to the server run out instead of releasing it.",
        ),
    ] = False,
    host_bottleneck: Annotated[
        str,
        typer.Option(
            "--host-bottleneck",
            help="Where the server's calibrated per-packet time is spent: cpu (before its "
            "transmit buffers; it keeps preparing packets while paused) or nic (in the "
            "controller after each frame; a pause stops it).",
            metavar="cpu|nic",
        ),
    ] = "cpu",
    seed: SeedOption = 1,
    jobs: JobsOption = None,
    quiet: QuietOption = False,
    sensitivity: SensitivityOption = False,
    scheduler: SchedulerOption = None,
    dask_local: DaskLocalOption = False,
) -> None:
    """Rapid PHY Selection: TCP and UDP transfers through a switch paused once a second,
    with the server honouring or ignoring PAUSE; the burst-loss model against bursts into
    a link that switches rate."""
    from ethersim import _core
    from ethersim.studies import rps as study

    def run(**changes: Any) -> study.Reproduction:
        buffer_bytes = _core.parse_quantity("size", buffer, "--buffer")
        options = study.Options(
            quick=quick,
            buffer_bytes=buffer_bytes,
            seed=seed,
            jobs=jobs,
            switch_releases=not no_xon,
            host_bottleneck=host_bottleneck,
        )
        options = replace(options, **changes)
        study.check(options)
        return study.reproduce(options, progress=not quiet)

    rep, written = _reproduce_into(
        out,
        seed,
        run,
        study.write,
        "rps",
        sensitivity=sensitivity,
        options=_options(locals()),
        cluster=(scheduler, dask_local),
    )
    if quiet:
        return
    _print_cells(rep)
    _done(rep.runs, rep.jobs, rep.wall_s, written)
    if rep.calibrations:
        for c in rep.calibrations:
            err_console().print(
                f"calibrated {c.protocol.upper()}: server {c.tx_processing_ps / 1e6:.3f} us "
                f"per packet gives {c.simulated_s:.4f} s (study: {c.target_s:.4f} s)",
                highlight=False,
            )


@reproduce_app.command(
    "eee-pingpong",
    epilog=examples(
        "ethersim reproduce eee-pingpong --quick",
        "ethersim reproduce eee-pingpong --out results/pingpong",
    ),
)
@closed_pipe_is_success
def eee_pingpong(
    quick: Annotated[
        bool, typer.Option("--quick", help="A coarser grid, 100 pings per interval.")
    ] = False,
    out: Annotated[
        Path,
        typer.Option("--out", help="Folder for the table, figure and summary.", metavar="DIR"),
    ] = Path("results/eee-pingpong"),
    seed: SeedOption = 1,
    jobs: JobsOption = None,
    quiet: QuietOption = False,
    sensitivity: SensitivityOption = False,
    scheduler: SchedulerOption = None,
    dask_local: DaskLocalOption = False,
) -> None:
    """EEE ping-pong: the delay Low Power Idle adds to a ping's round trip against the
    send interval, in each direction, on a 1000BASE-T link with a 1 ms idle timeout."""
    from ethersim.studies import eee_pingpong as study

    def run(**changes: Any) -> study.Reproduction:
        options = replace(study.Options(quick=quick, seed=seed, jobs=jobs), **changes)
        return study.reproduce(options, progress=not quiet)

    rep, written = _reproduce_into(
        out,
        seed,
        run,
        study.write,
        "eee-pingpong",
        sensitivity=sensitivity,
        options=_options(locals()),
        cluster=(scheduler, dask_local),
    )
    if quiet:
        return
    from rich.table import Table

    table = Table(title="EEE ping-pong: response delay (mean RTT, EEE on - off)")
    for column in ("interval", "host 0 pings", "host 1 pings"):
        table.add_column(column, justify="right")
    t = rep.table
    shown = [0.5, 0.9, 1.0, 1.05, 1.1, 1.15, 1.2, 1.25, 1.5, 2.0, 3.0, 4.0]
    for interval in shown:
        rows = t[(t.interval_ms - interval).abs() < 1e-9]
        if len(rows) != 2:
            continue
        by = {int(r.pinger): r.response_delay_us for _, r in rows.iterrows()}
        table.add_row(f"{interval:g} ms", f"{by[0]:.1f} us", f"{by[1]:.1f} us")
    out_console().print(table)
    _done(rep.runs, rep.jobs, rep.wall_s, written)


@reproduce_app.command(
    "eee-hpc",
    epilog=examples(
        "ethersim reproduce eee-hpc --quick", "ethersim reproduce eee-hpc --idle-timeout-us 500"
    ),
)
@closed_pipe_is_success
def eee_hpc(
    quick: Annotated[
        bool, typer.Option("--quick", help="Three array sizes, five sleeps, 20 to 80 iterations.")
    ] = False,
    out: Annotated[
        Path,
        typer.Option("--out", help="Folder for the tables, figures and summary.", metavar="DIR"),
    ] = Path("results/eee-hpc"),
    idle_timeout_us: Annotated[
        int,
        typer.Option(
            "--idle-timeout-us",
            min=1,
            help="The LPI idle timeout of every link, us (study: 1000).",
            metavar="US",
        ),
    ] = 1000,
    array_reading: Annotated[
        str,
        typer.Option(
            "--array-reading",
            help="What the paper's MPI_Alltoall array is: pair (the block each pair of "
            "ranks exchanges) or buffer (the whole send buffer, an equal block per rank).",
            metavar="READING",
        ),
    ] = "pair",
    seed: SeedOption = 1,
    jobs: JobsOption = None,
    quiet: QuietOption = False,
    sensitivity: SensitivityOption = False,
    scheduler: SchedulerOption = None,
    dask_local: DaskLocalOption = False,
) -> None:
    """EEE-HPC: the time Low Power Idle adds to an MPI alltoall loop on four nodes (4 and 16
    processes), and the EEE performance model fitted to it, mean-interval and
    distribution-aware, with their prediction errors."""
    from ethersim.studies import eee_hpc as study

    def run(**changes: Any) -> study.Reproduction:
        options = study.Options(
            quick=quick,
            seed=seed,
            jobs=jobs,
            idle_timeout_us=idle_timeout_us,
            array_reading=array_reading,
        )
        options = replace(options, **changes)
        study.check(options)
        return study.reproduce(options, progress=not quiet)

    rep, written = _reproduce_into(
        out,
        seed,
        run,
        study.write,
        "eee-hpc",
        sensitivity=sensitivity,
        options=_options(locals()),
        cluster=(scheduler, dask_local),
    )
    if quiet:
        return
    from rich.table import Table

    table = Table(title="EEE-HPC: the model's prediction errors on held-out cells")
    for column in ("processes", "model", "c", "alpha", "t", "mean error", "worst error"):
        table.add_column(column, justify="right")
    for r in rep.models.itertuples():
        table.add_row(
            str(r.processes),
            str(r.model),
            f"{r.c:.1f} us",
            f"{r.alpha_per_us:.3g}/us",
            f"{r.t_us:.1f} us",
            f"{r.mean_error_percent:.3f}%",
            f"{r.worst_error_percent:.3f}%",
        )
    out_console().print(table)
    _done(rep.runs, rep.jobs, rep.wall_s, written)


@reproduce_app.command(
    "csma",
    epilog=examples(
        "ethersim reproduce csma --quick", "ethersim reproduce csma --jobs 2 --out results/csma"
    ),
)
@closed_pipe_is_success
def csma(
    quick: Annotated[
        bool,
        typer.Option(
            "--quick",
            help="The long and short nets, three lengths, seven host counts, 2 s runs.",
        ),
    ] = False,
    out: Annotated[
        Path,
        typer.Option("--out", help="Folder for the table, figures and summary.", metavar="DIR"),
    ] = Path("results/csma"),
    tx_service_us: Annotated[
        float | None,
        typer.Option(
            "--tx-service",
            callback=finite_number,
            min=0.0,
            max=100_000.0,
            help="The hosts' transmit service time after each frame, us (default: calibrated "
            "so two hosts send 64-byte frames at the study's 13,500 packets/s).",
            metavar="US",
        ),
    ] = None,
    seed: SeedOption = 1,
    jobs: JobsOption = None,
    quiet: QuietOption = False,
    sensitivity: SensitivityOption = False,
    scheduler: SchedulerOption = None,
    dask_local: DaskLocalOption = False,
) -> None:
    """CSMA/CD capacity (Boggs, Mogul and Kent): up to 24 hosts saturating a 10 Mb/s
    Ethernet, bit rate, packet rate, delay and collisions against the number of hosts,
    for fixed frame lengths and bimodal mixes, on three cable layouts."""
    from ethersim.studies import csma as study

    def run(**changes: Any) -> study.Reproduction:
        options = study.Options(quick=quick, seed=seed, jobs=jobs, tx_service_us=tx_service_us)
        return study.reproduce(replace(options, **changes), progress=not quiet)

    rep, written = _reproduce_into(
        out,
        seed,
        run,
        study.write,
        "csma",
        sensitivity=sensitivity,
        options=_options(locals()),
        cluster=(scheduler, dask_local),
    )
    if quiet:
        return
    from rich.table import Table

    t = rep.table[rep.table.layout == "long"]
    hosts = [h for h in (1, 2, 4, 8, 16, 24) if h in set(t.hosts)]
    table = Table(title="CSMA/CD on the long net (3000 ft, 4 repeaters): total bit rate, Mb/s")
    names = [f"{h} host" if h == 1 else f"{h} hosts" for h in hosts]
    for column in ("length", *names, f"M-B, {hosts[-1]}"):
        table.add_column(column, justify="right")
    for label in dict.fromkeys(t.length):
        by = t[t.length == label].set_index("hosts")
        name = f"{label} B" if "/" not in label else f"mix {label}"
        table.add_row(
            name,
            *(f"{by.bit_rate_mbps[h]:.2f}" for h in hosts),
            f"{by.metcalfe_boggs_mbps[hosts[-1]]:.2f}",
        )
    out_console().print(table)
    _done(rep.runs, rep.jobs, rep.wall_s, written)


@reproduce_app.command(
    "capacity-scaling",
    epilog=examples(
        "ethersim reproduce capacity-scaling --quick",
        "ethersim reproduce capacity-scaling --tcp-profile linux --also-profile none",
    ),
)
@closed_pipe_is_success
def capacity_scaling(
    quick: Annotated[
        bool,
        typer.Option(
            "--quick",
            help="RTT 10 and 50 ms, mRCI 50 and 500 ms, one b_on and BN, 20 s runs, "
            "2 replications.",
        ),
    ] = False,
    out: Annotated[
        Path,
        typer.Option(
            "--out", help="Folder for the tables, time series, figures and summary.", metavar="DIR"
        ),
    ] = Path("results/capacity-scaling"),
    replications: Annotated[
        int | None,
        typer.Option(
            "--replications",
            min=1,
            max=1000,
            help="Runs per cell (default 5; 2 with --quick).",
            metavar="N",
        ),
    ] = None,
    duration_s: Annotated[
        float | None,
        typer.Option(
            "--duration",
            callback=finite_number,
            min=1.0,
            max=100_000.0,
            help="Simulated seconds per run (default 300; 20 with --quick).",
            metavar="SECONDS",
        ),
    ] = None,
    burst_rate_mbps: Annotated[
        float,
        typer.Option(
            "--burst-rate",
            callback=finite_number,
            min=0.01,
            max=100.0,
            help="Background payload rate during a burst, Mb/s.",
            metavar="MBPS",
        ),
    ] = 5.0,
    static_fraction: Annotated[
        float,
        typer.Option(
            "--static-power",
            callback=finite_number,
            min=0.0,
            max=1.0,
            help="Power at any rate as a fraction of the power at 10 Mb/s.",
            metavar="FRACTION",
        ),
    ] = 0.5,
    delay_bound_ms: Annotated[
        float,
        typer.Option(
            "--delay-bound",
            callback=finite_number,
            min=2.0,
            max=10_000.0,
            help="practRA's delay bound d, ms.",
            metavar="MS",
        ),
    ] = 10.0,
    tcp_profile: Annotated[
        str,
        typer.Option(
            "--tcp-profile",
            metavar="PROFILE",
            help="TCP profile of the study's own run: rfc, linux, ns3 or ns2 (the paper's "
            "ns-2.30).",
        ),
    ] = "ns2",
    also_profiles: Annotated[
        list[str] | None,
        typer.Option(
            "--also-profile",
            metavar="PROFILE",
            help="Run the grid again under this profile and show it beside the study's own "
            "(repeatable; default linux; 'none' for none).",
        ),
    ] = None,
    queue: Annotated[
        str,
        typer.Option(
            "--queue",
            metavar="CONVENTION",
            help="Routers' one-BDP buffers as an ns-2 queue limit in packets ('packets') or "
            "in bytes ('bytes').",
        ),
    ] = "packets",
    db: Annotated[
        Path | None,
        typer.Option(
            "--db",
            help="Results database (default: OUT.duckdb beside the output folder); runs "
            "already in it are not run again.",
            metavar="FILE",
        ),
    ] = None,
    scheduler: SchedulerOption = None,
    dask_local: DaskLocalOption = False,
    seed: SeedOption = 1,
    jobs: JobsOption = None,
    quiet: QuietOption = False,
    sensitivity: SensitivityOption = False,
) -> None:
    """Capacity scaling against TCP: practRA scales a router's output port between 1 and
    10 Mb/s under a TCP NewReno flow (alone, with bursty background traffic, or behind a
    varying bottleneck); each run paired with the same run without power control. Runs on
    the sweeps machinery: resumable, on all cores or a Dask cluster."""
    from ethersim.studies import capacity_scaling as study

    database = db or study.default_db(out)
    given = ["linux"] if also_profiles is None else also_profiles
    others = tuple(p for p in given if p != "none" and p != tcp_profile)

    def run(**changes: Any) -> study.Reproduction:
        options = study.Options(
            quick=quick,
            seed=seed,
            jobs=jobs,
            replications=replications,
            duration_s=duration_s,
            burst_rate_mbps=burst_rate_mbps,
            static_fraction=static_fraction,
            delay_bound_ms=delay_bound_ms,
            scheduler=scheduler,
            dask_local=dask_local,
            tcp_profile=tcp_profile,
            also_profiles=others,
            queue=queue,
        )
        if changes:
            # A sensitivity point runs the study's own profile only.
            changes = {"also_profiles": (), **changes}
        # A sensitivity point keeps its runs apart from the study's own.
        return study.reproduce(
            replace(options, **changes), study.point_db(database, changes), progress=not quiet
        )

    rep, written = _reproduce_into(
        out,
        seed,
        run,
        study.write,
        "capacity-scaling",
        sensitivity=sensitivity,
        options=_options(locals()),
    )
    if quiet:
        return
    from rich.table import Table

    table = Table(title="Capacity scaling, single flow: throughput reduction and energy saved")
    for column in (
        "RTT",
        "mRCI",
        "service rate",
        "throughput reduction",
        "rate changes",
        "energy saved",
    ):
        table.add_column(column, justify="right")
    for r in rep.table[rep.table.setting == "single"].itertuples():
        table.add_row(
            f"{r.rtt_ms:g} ms",
            f"{r.mrci_ms:g} ms",
            f"{r.mean_service_rate_mbps:.2f} Mb/s",
            f"{r.throughput_reduction_percent:.1f} %",
            f"{r.rate_changes:.0f}",
            f"{r.energy_saved_percent:.1f} %",
        )
    out_console().print(table)
    _done(rep.runs, rep.jobs, rep.wall_s, written)


@reproduce_app.command(
    "all", epilog=examples("ethersim reproduce all --quick", "ethersim reproduce all --out results")
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
    """Every study in turn, each into its own folder under OUT, then OUT/index.html
    linking each report; prints how many published findings each one reproduces."""
    import time

    import pandas as pd

    from ethersim.report import build_index
    from ethersim.studies.contract import k_of_n
    from ethersim.studies.registry import NAMES

    commands: dict[str, Callable[..., None]] = {
        "rps": rps,
        "eee-pingpong": eee_pingpong,
        "eee-hpc": eee_hpc,
        "csma": csma,
        "capacity-scaling": capacity_scaling,
    }
    started = time.perf_counter()
    for name in NAMES:
        began = time.perf_counter()
        commands[name](
            quick=quick,
            out=out / name,
            seed=seed,
            jobs=jobs,
            quiet=True,
            sensitivity=sensitivity,
            scheduler=scheduler,
            dask_local=dask_local,
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

"""``ethersim reproduce capacity-scaling``: what scaling a router's capacity to its load
(practRA) saves, and what it costs a TCP flow.

The study (see the project specification, "capacity-scaling"): nodes N0-N1-N2-N3. A
long-lived TCP NewReno flow (MTU 1500 B) goes from N0 to N3. N1's output port (at most
10 Mb/s) is scaled by practRA in steps of 1 Mb/s between 1 and 10 Mb/s; router buffers
are one bandwidth-delay product (10 Mb/s x  RTT), by default as the paper's ns-2 counts
them (a queue limit in 1500-B packets), and TCP takes the ``ns2`` profile's defaults; the
grid runs again under each of ``Options.also_profiles`` (default ``linux``). Each run is
paired with the same run without power control (the same seed, so the same background
traffic and bottleneck trajectory). Three settings:

* ``single``: the TCP flow alone;
* ``background``: plus on/off UDP traffic on the same path, one burst a second of
  exponential length with mean ``b_on``, at ``Options.burst_rate_mbps`` during a burst;
* ``bottleneck``: plus a bottleneck N2-N3 whose available capacity is uniform in
  [1, 10] Mb/s, redrawn after exponential intervals of mean ``BN``.

The grid: RTT ∈ {1, 10, 50, 100} ms, mRCI ∈ {10, 50, 100, 500, 1000} ms, ``b_on`` ∈
{1, 10, 50, 100} ms, ``BN`` ∈ {5 ms, 50 ms, 0.5 s, 5 s}; 300 s per run. The runs go
through the sweeps machinery (one sweep per setting, power control a paired parameter):
a DuckDB database keeps every finished run, so a stopped reproduction resumes, and runs
go to a local process pool or a Dask cluster.

Every number comes from simulation; the power model (``Options.static_fraction``) is an
assumption the summary states.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ethersim.batch import Progress, active_overrider, default_jobs, run_many
from ethersim.safe_write import make_folders
from ethersim.sizing import bdp_bytes, bdp_frames
from ethersim.studies.study import Option, Study, TableFile

if TYPE_CHECKING:
    import pandas as pd
    from rich.table import Table

    from ethersim.studies.contract import Findings, Published

__all__ = [
    "QUEUES",
    "SETTINGS",
    "STUDY",
    "TCP_PROFILES",
    "Options",
    "Reproduction",
    "buffer_limit",
    "check",
    "default_db",
    "reproduce",
    "scenario",
]

SETTINGS = ("single", "background", "bottleneck")
#: The scaled port's rates, Mb/s, and the largest.
RATES_MBPS = tuple(range(1, 11))
MAX_MBPS = 10
#: Where the scenario's pieces are (the order of `scenario`'s links and apps).
SCALED_PORT = "n1->n2"
BOTTLENECK_PORT = "n2->n3"
POLICY_KEY = "links[1].rate_switching.policy"
#: The TCP profiles a run may take its defaults from (the scenario key `tcp.profile`).
TCP_PROFILES = ("rfc", "linux", "ns3", "ns2")
#: How a buffer of one bandwidth-delay product becomes a port's limit: ``packets``, an
#: ns-2 queue limit of BDP / 1500-B packets counting the one being sent (the paper's
#: ns-2.30; see :func:`ethersim.sizing.bdp_frames`); ``bytes``, the BDP in bytes of
#: switch memory (:func:`ethersim.sizing.bdp_bytes`).
QUEUES = ("packets", "bytes")
#: The packet an ns-2 queue limit counts: the paper's MTU (§5: 'The MTU length is 1500
#: bytes', 'transmit maximum size packets').
NS2_PACKET_BYTES = 1500
#: Replications per cell and simulated seconds per run where not given: (full grid,
#: quick grid).
REPLICATIONS = (5, 2)
DURATION_S = (300.0, 20.0)


@dataclass(frozen=True)
class Options:
    """What a reproduction runs."""

    #: A small grid, short runs, two replications (seconds).
    quick: bool = False
    #: The base seed every run's seed is derived from.
    seed: int = 1
    #: Runs at once (default: every core).
    jobs: int | None = None
    #: Replications per cell (default: 5, or 2 with ``quick``).
    replications: int | None = None
    #: Simulated seconds per run (default: 300, or 20 with ``quick``).
    duration_s: float | None = None
    #: The background's payload rate during a burst, Mb/s (the specification leaves it
    #: open; half the port's largest rate).
    burst_rate_mbps: float = 5.0
    #: Power at any rate as a fraction of the power at 10 Mb/s (linear power model):
    #: P(r) = Pmax * (s + (1 - s) * r / 10 Mb/s). An assumption, stated in the summary.
    static_fraction: float = 0.5
    #: The delay bound, the dark time δ of a change, and practRA's moving average.
    delay_bound_ms: float = 10.0
    dark_ms: float = 1.0
    ewma_weight: float = 0.25
    sample_ms: float = 10.0
    #: The results database (default: beside the output folder).
    db: Path | None = None
    #: A Dask scheduler's address, or a local Dask cluster.
    scheduler: str | None = None
    dask_local: bool = False
    #: The TCP profile of the study's own run (``tcp.profile``): ns-2's, the paper's tool.
    tcp_profile: str = "ns2"
    #: Profiles run again over the same grid and shown beside it (not by sensitivity points).
    also_profiles: tuple[str, ...] = ("linux",)
    #: How the routers' one-BDP buffers are counted (see :data:`QUEUES`).
    queue: str = "packets"

    def rtts_ms(self) -> list[int]:
        return [10, 50] if self.quick else [1, 10, 50, 100]

    def mrcis_ms(self) -> list[int]:
        return [50, 500] if self.quick else [10, 50, 100, 500, 1000]

    def b_ons_ms(self) -> list[int]:
        return [10] if self.quick else [1, 10, 50, 100]

    def bns_s(self) -> list[float]:
        return [0.5] if self.quick else [0.005, 0.05, 0.5, 5.0]

    @property
    def reps(self) -> int:
        return self.replications or REPLICATIONS[self.quick]

    @property
    def seconds(self) -> float:
        return self.duration_s or DURATION_S[self.quick]

    def timeseries_cells(self) -> list[tuple[int, int]]:
        """(RTT, mRCI) of the single-flow cells whose time series are recorded."""
        return [(50, 50), (50, 500)] if self.quick else [(50, 10), (50, 1000)]

    @property
    def timeseries_s(self) -> float:
        """Seconds of each recorded time series."""
        return min(self.seconds, 60.0)


def buffer_limit(options: Options, rtt_ms: float) -> tuple[str, int | str]:
    """The routers' buffer at ``rtt_ms`` as (``port_buffer`` key, value): one BDP at
    10 Mb/s, as an ns-2 queue limit in packets or as bytes (``options.queue``)."""
    if options.queue == "packets":
        return "frames", bdp_frames(MAX_MBPS * 1e6, rtt_ms / 1e3, NS2_PACKET_BYTES)
    return "bytes", f"{bdp_bytes(MAX_MBPS * 1e6, rtt_ms / 1e3)} B"


def check(options: Options) -> None:
    """Raises ``ScenarioError`` naming the option for a profile or queue convention the
    study does not know."""
    from ethersim.errors import ScenarioError

    for name, value in (
        ("--tcp-profile", options.tcp_profile),
        *(("--also-profile", p) for p in options.also_profiles),
    ):
        if value not in TCP_PROFILES:
            raise ScenarioError(
                f"{value!r} is no TCP profile; expected one of {', '.join(TCP_PROFILES)}", name
            )
    if options.queue not in QUEUES:
        raise ScenarioError(
            f"{options.queue!r} is no queue convention; expected one of {', '.join(QUEUES)}",
            "--queue",
        )


@dataclass
class Reproduction:
    """What a reproduction found."""

    options: Options
    #: ``capacity_scaling.csv``: one row per cell.
    table: pd.DataFrame
    #: One row per pair of runs (cell and replication), with both runs' metrics.
    pairs: pd.DataFrame
    #: Time series per chosen cell: ``name -> table``.
    timeseries: dict[str, pd.DataFrame] = field(default_factory=dict)
    #: The sweep files and base scenarios run: ``file name -> text``.
    sweep_files: dict[str, str] = field(default_factory=dict)
    runs: int = 0
    skipped: int = 0
    wall_s: float = 0.0
    jobs: int = 1
    db: Path = Path()
    #: The same grid under each of ``options.also_profiles``, by profile name.
    profiles: dict[str, Reproduction] = field(default_factory=dict)


def scenario(
    setting: str,
    options: Options,
    rtt_ms: float = 50.0,
    mrci_ms: float = 100.0,
    power_control: bool = True,
    series: bool = False,
) -> str:
    """The scenario of ``setting`` (TOML) at one RTT and mRCI, with power control or
    without (a fixed 10 Mb/s port with the same power model), ``b_on`` 10 ms and ``BN``
    0.5 s; the sweeps set each cell's values. ``series`` records the scaled port's rate
    and offered bytes and the TCP sender's state."""
    delay = f"{rtt_ms / 2:g} ms"
    unit, limit = buffer_limit(options, rtt_ms)
    # An ns-2 queue limit counts the packet being sent (sizing.bdp_frames).
    buffer = f"{unit} = {_toml(limit)}" + (", counts_in_service = true" if unit == "frames" else "")
    rates = ", ".join(f'"{r} Mb/s"' for r in RATES_MBPS)
    s = options.static_fraction
    policy = f"policy = {_toml(_practra(options) if power_control else {'kind': 'fixed'})}"
    text = f"""# capacity-scaling, setting "{setting}": TCP NewReno from n0 to n3 through router n1,
# whose output port practRA scales between 1 and 10 Mb/s. RTT = 2 x the n0-n1 delay;
# router buffers of one bandwidth-delay product at 10 Mb/s; TCP with the {options.tcp_profile}
# profile's defaults, full-sized segments and no sender window limit.
name = "capacity-scaling-{setting}"
seed = {options.seed}
duration = "{options.seconds:g} s"

[[hosts]]
name = "n0"

[[hosts]]
name = "n3"

[[switches]]
name = "n1"
port_buffer = {{ {buffer} }}

[[switches]]
name = "n2"
port_buffer = {{ {buffer} }}

[[links]]
between = ["n0", "n1"]
rate = "100 Mb/s"
delay = "{delay}"

[[links]]
between = ["n1", "n2"]
rate = "{MAX_MBPS} Mb/s"

[links.rate_switching]
rates = [{rates}]
switch_time = "{options.dark_ms:g} ms"
from = "n1"
min_interval = "{mrci_ms:g} ms"
{policy}
power = {{ kind = "linear", static_w = {s}, max_w = 1.0 }}

[[links]]
between = ["n2", "n3"]
rate = "{MAX_MBPS} Mb/s"
"""
    if setting == "bottleneck":
        text += (
            'capacity = { min = "1 Mb/s", max = "10 Mb/s", mean_hold = "500 ms", from = "n2" }\n'
        )
    text += f"""
[[apps]]
name = "tcp"
kind = "tcp_bulk"
from = "n0"
to = "n3"
tcp = {{ profile = "{options.tcp_profile}", mss = "1460 B", window_limit = 0 }}
"""
    if setting == "background":
        text += f"""
[[apps]]
name = "background"
kind = "on_off"
from = "n0"
to = "n3"
rate = "{options.burst_rate_mbps:g} Mb/s"
mean_burst = "10 ms"
period = "1 s"
"""
    if series:
        text += f"""
[[series]]
port = "{SCALED_PORT}"
until = "{options.timeseries_s:g} s"
max_points = 1000000

[[series]]
app = "tcp"
until = "{options.timeseries_s:g} s"
max_points = 1000000
"""
    return text


def _practra(options: Options) -> dict[str, Any]:
    """The practRA policy table of the scenarios."""
    return {
        "kind": "practra",
        "delay_bound": f"{options.delay_bound_ms:g} ms",
        "weight": options.ewma_weight,
        "sample_interval": f"{options.sample_ms:g} ms",
    }


def _toml(value: Any) -> str:
    """``value`` (strings, numbers, lists and tables of them) as a TOML value."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value)


def _ms(values: list[float]) -> list[str]:
    return [f"{v:g} ms" for v in values]


def _sweep_text(setting: str, options: Options, fixed: Sequence[tuple[str, str]] = ()) -> str:
    """The sweep of one setting: the grid, power control on and off as a paired
    parameter, the replications and the metrics the table needs. ``fixed`` are key
    paths set to one value in every run (a sensitivity point's), through the sweep's
    ``[set]``, so they leave every run's seed as it is; the sweep then gets a name of its
    own, so its runs never replace the study's own in the database."""
    rtts = options.rtts_ms()
    grid: dict[str, list[Any]] = {
        "links[1].rate_switching.min_interval": _ms([float(m) for m in options.mrcis_ms()]),
        POLICY_KEY: [_practra(options), {"kind": "fixed"}],
    }
    if setting == "background":
        grid["apps[1].mean_burst"] = _ms([float(b) for b in options.b_ons_ms()])
    if setting == "bottleneck":
        grid["links[2].capacity.mean_hold"] = _ms([b * 1e3 for b in options.bns_s()])
    unit = buffer_limit(options, rtts[0])[0]
    limits = [buffer_limit(options, r)[1] for r in rtts]
    zipped: dict[str, list[Any]] = {
        "links[0].delay": _ms([r / 2 for r in rtts]),
        f"switches[0].port_buffer.{unit}": limits,
        f"switches[1].port_buffer.{unit}": limits,
    }
    metrics = [
        "flow.window_goodput_bps",
        "flow.loss_fraction",
        "flow.packets_sent",
        "flow.send_drops",
        "flow.retransmissions",
        "port.service_*",
        "port.rate_changes",
        "port.mean_rate_bps",
        "port.drops",
        "link.capacity_changes",
    ]

    def table(values: dict[str, list[Any]]) -> str:
        return "\n".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in values.items())

    fixed_lines = ""
    suffix = ""
    if fixed:
        from ethersim.errors import ScenarioError

        for path, _ in fixed:
            if path in grid or path in zipped:
                raise ScenarioError(
                    "the study varies this key itself; expected a parameter it holds fixed",
                    path,
                )
        # In [set], not [grid]: a key set in every cell is no parameter of the run's seed,
        # so a sensitivity point at the study's own value gives the study's own runs.
        fixed_lines = "\n\n[set]" + "".join(
            f"\n{json.dumps(k)} = {_toml_literal(v)}" for k, v in fixed
        )
        digest = hashlib.sha256(repr(list(fixed)).encode()).hexdigest()[:10]
        suffix = f"-point-{digest}"

    variant = f"-{options.tcp_profile}-{options.queue}"
    return f"""# The capacity-scaling study's "{setting}" setting (reproduce capacity-scaling).
name = "capacity-scaling-{"quick-" if options.quick else ""}{setting}{variant}{suffix}"
scenario = "{setting}.toml"
seed = {options.seed}
replications = {options.reps}
paired = [{json.dumps(POLICY_KEY)}]
metrics = {json.dumps(metrics)}

[grid]
{table(grid)}

[zip]
{table(zipped)}{fixed_lines}
"""


def _toml_literal(value: str) -> str:
    """An override's value as a TOML value: itself where it is one (``16``, ``true``,
    ``"1 Gb/s"``), else a string (``64 KiB``), as ``--set`` reads it."""
    from ethersim.studies.contract import is_toml_value

    return value if is_toml_value(value) else json.dumps(value)


def point_db(db: Path, changes: Mapping[str, Any]) -> Path:
    """The database of a run with the study's options changed by ``changes`` (a
    sensitivity point): in the folder ``DB.points`` beside ``db``, named by the changes;
    ``db`` itself for none."""
    if not changes:
        return db
    digest = hashlib.sha256(json.dumps(changes, sort_keys=True, default=str).encode())
    return db.parent / f"{db.name}.points" / f"{digest.hexdigest()[:10]}{db.suffix}"


def _record_timeseries(options: Options, jobs: int, tick: Any) -> dict[str, pd.DataFrame]:
    """The chosen cells' time series, with and without power control (a run each, the
    same seed)."""
    import pandas as pd

    from ethersim.studies import capacity_scaling_tables as tables

    texts, names = [], []
    for rtt, mrci in options.timeseries_cells():
        for pc in (True, False):
            texts.append(scenario("single", options, rtt, mrci, power_control=pc, series=True))
            names.append((f"single_rtt{rtt}ms_mrci{mrci}ms", pc))
    results = run_many(texts, jobs, tick)
    out: dict[str, list[pd.DataFrame]] = {}
    for (name, pc), result in zip(names, results, strict=True):
        out.setdefault(name, []).append(tables.timeseries(result, 0.1).assign(power_control=pc))
    return {name: pd.concat(parts, ignore_index=True) for name, parts in out.items()}


def default_db(out: Path) -> Path:
    """The results database of a reproduction written to ``out``: beside it."""
    return out.parent / f"{out.name}.duckdb"


def reproduce(options: Options, db: Path, progress: bool = False) -> Reproduction:
    """Runs the study on the sweeps machinery (runs stored in ``db``; those already
    there are not run again) under ``options.tcp_profile`` and again under each of
    ``options.also_profiles``, and returns what it found (nothing else is written)."""
    check(options)
    started = time.perf_counter()
    show = Progress(progress)
    try:
        rep = _reproduce_one(options, db, show, "")
        for profile in options.also_profiles:
            other = replace(options, tcp_profile=profile, also_profiles=())
            rep.profiles[profile] = _reproduce_one(other, db, show, f"{profile}: ")
    finally:
        show.close()
    rep.wall_s = time.perf_counter() - started
    rep.runs += sum(r.runs for r in rep.profiles.values())
    rep.skipped += sum(r.skipped for r in rep.profiles.values())
    return rep


def _reproduce_one(options: Options, db: Path, show: Progress, label: str) -> Reproduction:
    """The study's grid under ``options.tcp_profile`` alone."""
    import tempfile

    import pandas as pd

    from ethersim.studies import capacity_scaling_tables as tables
    from ethersim.sweeps import Store, parse_sweep, sweep

    started = time.perf_counter()
    jobs = options.jobs or default_jobs()
    make_folders(db.parent)
    files: dict[str, str] = {}
    pairs, runs, skipped = [], 0, 0
    with tempfile.TemporaryDirectory(prefix="ethersim-capacity-") as tmp:
        overrider = active_overrider()
        for setting in SETTINGS:
            files[f"{setting}.toml"] = scenario(setting, options)
            fixed = [
                (path, value)
                for path, _, value in (
                    o.partition("=")
                    for o in (overrider(files[f"{setting}.toml"]) if overrider else [])
                )
            ]
            files[f"{setting}-sweep.toml"] = _sweep_text(setting, options, fixed)
            for name in (f"{setting}.toml", f"{setting}-sweep.toml"):
                (Path(tmp) / name).write_text(files[name], encoding="utf-8")
            spec = parse_sweep(files[f"{setting}-sweep.toml"], Path(tmp) / f"{setting}-sweep.toml")
            tick = show.phase(f"{label}{setting}")

            def sweep_tick(done: int, total: int, failed: int, tick: Any = tick) -> None:
                tick(done, total)

            report = sweep(
                spec,
                db=db,
                jobs=jobs,
                scheduler=options.scheduler,
                dask_local=options.dask_local,
                tick=sweep_tick,
            )
            runs += report.runs
            skipped += report.skipped
            with Store(db, read_only=True) as store:
                runs_table = store.runs(spec.name, raw=True)  # the parameters as JSON
                pairs.append(tables.pairs(setting, runs_table, store.metrics(spec.name)))
    timeseries = _record_timeseries(options, jobs, show.phase(f"{label}time series"))
    all_pairs = pd.concat(pairs, ignore_index=True)
    return Reproduction(
        options=options,
        table=tables.cells(all_pairs).assign(tcp_profile=options.tcp_profile, queue=options.queue),
        pairs=all_pairs,
        timeseries=timeseries,
        sweep_files=files,
        runs=runs + 2 * len(options.timeseries_cells()),
        skipped=skipped,
        wall_s=time.perf_counter() - started,
        jobs=jobs,
        db=db,
    )


#: The contract's columns of ``capacity_scaling.csv``, in order (more follow).
COLUMNS = [
    "setting",
    "rtt_ms",
    "mrci_ms",
    "b_on_ms",
    "bn_s",
    "replications",
    "mean_service_rate_mbps",
    "mean_service_rate_ci_mbps",
    "throughput_reduction_percent",
    "throughput_reduction_ci_percent",
    "rate_changes",
    "loss_percent_pc",
    "loss_percent_nopc",
    "energy_saved_percent",
]

#: Figures: (metric column, its confidence column or None, axis label).
FIGURES = [
    ("mean_service_rate_mbps", "mean_service_rate_ci_mbps", "mean service rate (Mb/s)"),
    (
        "throughput_reduction_percent",
        "throughput_reduction_ci_percent",
        "TCP throughput reduction (%)",
    ),
    ("rate_changes", None, "rate changes per run"),
    ("loss_percent_pc", None, "TCP loss with power control (%)"),
    ("energy_saved_percent", "energy_saved_ci_percent", "energy saved (%)"),
]


def _ordered(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with the contract's :data:`COLUMNS` first."""
    return table[COLUMNS + [c for c in table.columns if c not in COLUMNS]]


class _CapacityScaling(Study[Options, Reproduction]):
    """The capacity-scaling study's command, runs and files."""

    name = "capacity-scaling"
    title = "Capacity scaling against TCP: what practRA saves, and what it costs a TCP flow."
    description = (
        "Capacity scaling against TCP: practRA scales a router's output port between 1 and "
        "10 Mb/s under a TCP NewReno flow (alone, with bursty background traffic, or behind "
        "a varying bottleneck); each run paired with the same run without power control. "
        "Runs on the sweeps machinery: resumable, on all cores or a Dask cluster."
    )
    examples = (
        "ethersim reproduce capacity-scaling --quick",
        "ethersim reproduce capacity-scaling --tcp-profile linux --also-profile none",
    )
    quick_help = "RTT 10 and 50 ms, mRCI 50 and 500 ms, one b_on and BN, 20 s runs, 2 replications."
    out_help = "Folder for the tables, time series, figures and summary."
    backend = "sweeps"
    options = (
        Option(
            "replications",
            "--replications",
            int | None,
            None,
            "Runs per cell",
            metavar="N",
            min=1,
            max=1000,
            grid_default=REPLICATIONS,
        ),
        Option(
            "duration_s",
            "--duration",
            float | None,
            None,
            "Simulated seconds per run",
            metavar="SECONDS",
            min=1.0,
            max=100_000.0,
            finite=True,
            grid_default=DURATION_S,
        ),
        Option(
            "burst_rate_mbps",
            "--burst-rate",
            float,
            5.0,
            "Background payload rate during a burst, Mb/s.",
            metavar="MBPS",
            min=0.01,
            max=100.0,
            finite=True,
        ),
        Option(
            "static_fraction",
            "--static-power",
            float,
            0.5,
            "Power at any rate as a fraction of the power at 10 Mb/s.",
            metavar="FRACTION",
            min=0.0,
            max=1.0,
            finite=True,
        ),
        Option(
            "delay_bound_ms",
            "--delay-bound",
            float,
            10.0,
            "practRA's delay bound d, ms.",
            metavar="MS",
            min=2.0,
            max=10_000.0,
            finite=True,
        ),
        Option(
            "tcp_profile",
            "--tcp-profile",
            str,
            "ns2",
            "TCP profile of the study's own run: rfc, linux, ns3 or ns2 (the paper's ns-2.30).",
            metavar="PROFILE",
        ),
        Option(
            "also_profiles",
            "--also-profile",
            list[str] | None,
            None,
            "Run the grid again under this profile and show it beside the study's own "
            "(repeatable; default linux; 'none' for none).",
            metavar="PROFILE",
        ),
        Option(
            "queue",
            "--queue",
            str,
            "packets",
            "Routers' one-BDP buffers as an ns-2 queue limit in packets ('packets') or in "
            "bytes ('bytes').",
            metavar="CONVENTION",
        ),
        Option(
            "db",
            "--db",
            Path | None,
            None,
            "Results database (default: OUT.duckdb beside the output folder); runs already "
            "in it are not run again.",
            metavar="FILE",
        ),
    )

    def configure(self, values: Mapping[str, Any]) -> Options:
        given = ["linux"] if values["also_profiles"] is None else values["also_profiles"]
        return Options(
            quick=values["quick"],
            seed=values["seed"],
            jobs=values["jobs"],
            replications=values["replications"],
            duration_s=values["duration_s"],
            burst_rate_mbps=values["burst_rate_mbps"],
            static_fraction=values["static_fraction"],
            delay_bound_ms=values["delay_bound_ms"],
            db=values["db"] or default_db(values["out"]),
            scheduler=values["scheduler"],
            dask_local=values["dask_local"],
            tcp_profile=values["tcp_profile"],
            also_profiles=tuple(p for p in given if p not in ("none", values["tcp_profile"])),
            queue=values["queue"],
        )

    def reproduce(self, options: Options, progress: bool) -> Reproduction:
        assert options.db is not None  # configure sets it
        return reproduce(options, options.db, progress)

    def run(self, options: Options, changes: Mapping[str, Any], progress: bool) -> Reproduction:
        """A sensitivity point runs the study's own profile only, and keeps its runs apart
        from the study's own (a database of its own, :func:`point_db`)."""
        if changes:
            changes = {"also_profiles": (), **changes}
        assert options.db is not None  # configure sets it
        changed = replace(options, **changes)
        return reproduce(changed, point_db(options.db, changes), progress)

    def tables(self, rep: Reproduction) -> list[TableFile]:
        from ethersim.studies.capacity_scaling_report import profile_comparison

        tables = [
            TableFile("capacity_scaling", _ordered(rep.table)),
            TableFile("capacity_scaling_pairs", rep.pairs),
            *(TableFile(f"timeseries/{n}", ts, ("parquet",)) for n, ts in rep.timeseries.items()),
        ]
        for profile, other in rep.profiles.items():
            tables += [
                TableFile(f"capacity_scaling_{profile}", _ordered(other.table)),
                TableFile(f"capacity_scaling_pairs_{profile}", other.pairs),
                *(
                    TableFile(f"timeseries/{profile}/{n}", ts, ("parquet",))
                    for n, ts in other.timeseries.items()
                ),
            ]
        if rep.profiles:
            tables.append(TableFile("profiles", profile_comparison(rep)))
        return tables

    def figures(self, rep: Reproduction, folder: Path, published: Published) -> None:
        from ethersim.studies import capacity_scaling_report

        capacity_scaling_report.figures(rep, folder, published)

    def summary(self, rep: Reproduction) -> str:
        from ethersim.studies import capacity_scaling_report as report

        text = report.summary(rep)
        if rep.profiles:
            text += "\n" + report.profiles_section(rep, report.profile_comparison(rep))
        return text

    def scenario_files(self, rep: Reproduction) -> dict[str, str]:
        return {f"sweeps/{name}": text for name, text in rep.sweep_files.items()}

    def marker(self, rep: Reproduction) -> dict[str, Any]:
        o = rep.options
        return {
            "quick": o.quick,
            "seed": o.seed,
            "tcp_profile": o.tcp_profile,
            "also_profiles": list(o.also_profiles),
            "queue": o.queue,
            "replications": o.reps,
            "duration_s": o.seconds,
            "runs": rep.runs,
            "skipped": rep.skipped,
            "jobs": rep.jobs,
            "wall_time_s": rep.wall_s,
            "database": str(rep.db),
        }

    def main_table(self, rep: Reproduction) -> Table:
        from ethersim.studies import capacity_scaling_report

        return capacity_scaling_report.main_table(rep)

    def findings(self) -> Findings[Reproduction]:
        from ethersim.studies.capacity_scaling_findings import FINDINGS

        return FINDINGS


#: The study, as :mod:`ethersim.studies.registry` lists it.
STUDY = _CapacityScaling()

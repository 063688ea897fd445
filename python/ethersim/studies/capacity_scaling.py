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
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ethersim.batch import Progress, active_overrider, default_jobs, run_many, write_table
from ethersim.safe_write import make_folders
from ethersim.sizing import bdp_bytes, bdp_frames
from ethersim.studies.runner import write_marker

if TYPE_CHECKING:
    import pandas as pd

    from ethersim.results import Result

__all__ = [
    "QUEUES",
    "SETTINGS",
    "TCP_PROFILES",
    "Options",
    "Reproduction",
    "buffer_limit",
    "check",
    "default_db",
    "reproduce",
    "scenario",
    "write",
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
        return self.replications or (2 if self.quick else 5)

    @property
    def seconds(self) -> float:
        return self.duration_s or (20.0 if self.quick else 300.0)

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


def _number(text: str) -> float:
    return float(str(text).split()[0])


def _pairs(setting: str, runs: pd.DataFrame, metrics: pd.DataFrame) -> pd.DataFrame:
    """One row per (cell, replication) of ``setting``: the runs with and without power
    control side by side. Checks that each pair saw the same background and bottleneck."""
    import pandas as pd

    failed = runs[runs.status != "ok"]
    if len(failed):
        first = failed.iloc[0]
        raise RuntimeError(f"{len(failed)} runs of {setting} failed; the first: {first.error}")
    wide = metrics.assign(
        key=metrics.scope + ":" + metrics["name"] + ":" + metrics.metric
    ).pivot_table(index="run_id", columns="key", values="value", aggfunc="first")
    rows: dict[tuple[Any, ...], dict[str, Any]] = {}
    for run in runs.itertuples():
        params = json.loads(str(run.parameters))
        pc = params[POLICY_KEY]["kind"] == "practra"
        cell = (
            2 * _number(params["links[0].delay"]),
            _number(params["links[1].rate_switching.min_interval"]),
            _number(params["apps[1].mean_burst"]) if setting == "background" else math.nan,
            _number(params["links[2].capacity.mean_hold"]) / 1e3
            if setting == "bottleneck"
            else math.nan,
            run.replication,
        )
        m = wide.loc[str(run.run_id)]
        tag = "pc" if pc else "nopc"
        row = rows.setdefault(cell, {})
        row[f"seed_{tag}"] = run.seed
        row[f"throughput_{tag}_bps"] = m["flow:tcp:window_goodput_bps"]
        row[f"loss_{tag}_percent"] = 100 * m["flow:tcp:loss_fraction"]
        row[f"retransmissions_{tag}"] = m["flow:tcp:retransmissions"]
        row[f"energy_{tag}_j"] = m[f"port:{SCALED_PORT}:service_energy_j"]
        row[f"service_rate_{tag}_bps"] = m[f"port:{SCALED_PORT}:service_rate_mean_bps"]
        row[f"rate_changes_{tag}"] = m[f"port:{SCALED_PORT}:rate_changes"]
        # What the pair must share: the bottleneck's trajectory and the background.
        row[f"bottleneck_changes_{tag}"] = m[f"port:{BOTTLENECK_PORT}:rate_changes"]
        row[f"bottleneck_mean_{tag}_bps"] = m[f"port:{BOTTLENECK_PORT}:mean_rate_bps"]
        if setting == "background":
            sent = m["flow:background:packets_sent"] + m["flow:background:send_drops"]
            row[f"background_generated_{tag}"] = sent
    out = []
    for (rtt, mrci, b_on, bn, rep), row in sorted(rows.items()):
        if "seed_pc" not in row or "seed_nopc" not in row:
            raise RuntimeError(
                f"{setting}: a run of the pair (RTT {rtt} ms, mRCI {mrci} ms) is missing"
            )
        shared = ["seed", "bottleneck_changes", "bottleneck_mean"]
        if setting == "background":
            shared.append("background_generated")
        for key in shared:
            a = row.get(f"{key}_pc", row.get(f"{key}_pc_bps"))
            b = row.get(f"{key}_nopc", row.get(f"{key}_nopc_bps"))
            if a != b:
                raise RuntimeError(
                    f"{setting} (RTT {rtt} ms, mRCI {mrci} ms, replication {rep}): the paired "
                    f"runs differ in {key} ({a} vs {b}); they must share it"
                )
        out.append(
            {
                "setting": setting,
                "rtt_ms": rtt,
                "mrci_ms": mrci,
                "b_on_ms": b_on,
                "bn_s": bn,
                "replication": rep,
                **row,
            }
        )
    return pd.DataFrame(out)


def _cells(pairs: pd.DataFrame) -> pd.DataFrame:
    """The contract table: one row per cell, means and 95% confidence intervals over the
    replications."""
    import pandas as pd

    from ethersim.sweeps.stats import summarize

    rows = []
    keys = ["setting", "rtt_ms", "mrci_ms", "b_on_ms", "bn_s"]
    for key, g in pairs.groupby(keys, sort=False, dropna=False):
        setting, rtt, mrci, b_on, bn = key
        reduction = summarize(list(100 * (1 - g.throughput_pc_bps / g.throughput_nopc_bps)))
        service = summarize(list(g.service_rate_pc_bps / 1e6))
        saved = summarize(list(100 * (1 - g.energy_pc_j / g.energy_nopc_j)))
        rows.append(
            {
                "setting": setting,
                "rtt_ms": rtt,
                "mrci_ms": mrci,
                "b_on_ms": b_on,
                "bn_s": bn,
                "replications": len(g),
                "mean_service_rate_mbps": service.mean,
                "mean_service_rate_ci_mbps": service.ci95,
                "throughput_reduction_percent": reduction.mean,
                "throughput_reduction_ci_percent": reduction.ci95,
                "rate_changes": g.rate_changes_pc.mean(),
                "loss_percent_pc": g.loss_pc_percent.mean(),
                "loss_percent_nopc": g.loss_nopc_percent.mean(),
                "energy_saved_percent": saved.mean,
                "energy_saved_ci_percent": saved.ci95,
                "throughput_pc_mbps": g.throughput_pc_bps.mean() / 1e6,
                "throughput_nopc_mbps": g.throughput_nopc_bps.mean() / 1e6,
                "service_rate_reduction_percent": 100 * (1 - service.mean / MAX_MBPS),
            }
        )
    table = pd.DataFrame(rows)
    order = {s: i for i, s in enumerate(SETTINGS)}
    table = table.sort_values(
        ["setting", "b_on_ms", "bn_s", "rtt_ms", "mrci_ms"],
        key=lambda c: c.map(order) if c.name == "setting" else c,
    )
    return table.reset_index(drop=True)


def _timeseries(result: Result, bin_s: float) -> pd.DataFrame:
    """Arrival rate (offered bytes per bin), service rate and cwnd of one run, in bins."""
    import numpy as np
    import pandas as pd

    series = result.series
    tcp = result.tcp_series

    def step(t: np.ndarray, v: np.ndarray, at: np.ndarray) -> np.ndarray:
        idx = np.searchsorted(t, at, side="right") - 1
        return np.where(idx >= 0, v[np.clip(idx, 0, None)], 0)

    def of(
        table: pd.DataFrame, column: str, name: str, quantity: str
    ) -> tuple[np.ndarray, np.ndarray]:
        s = table[(table[column] == name) & (table.quantity == quantity)]
        return s.t_s.to_numpy(), s.value.to_numpy(dtype=float)

    end = max(series.t_s.max(), bin_s)
    edges = np.arange(0.0, end + bin_s / 2, bin_s)
    t_off, offered = of(series, "port", SCALED_PORT, "offered_bytes")
    t_rate, rate = of(series, "port", SCALED_PORT, "rate_bps")
    t_cwnd, cwnd = of(tcp, "flow", "tcp", "cwnd")
    cumulative = step(t_off, offered, edges)
    return pd.DataFrame(
        {
            "t_s": edges[:-1],
            "arrival_rate_mbps": np.diff(cumulative) * 8 / bin_s / 1e6,
            "service_rate_mbps": step(t_rate, rate, edges[:-1]) / 1e6,
            "cwnd_bytes": step(t_cwnd, cwnd, edges[:-1]),
        }
    )


def _record_timeseries(options: Options, jobs: int, tick: Any) -> dict[str, pd.DataFrame]:
    """The chosen cells' time series, with and without power control (a run each, the
    same seed)."""
    import pandas as pd

    texts, names = [], []
    for rtt, mrci in options.timeseries_cells():
        for pc in (True, False):
            texts.append(scenario("single", options, rtt, mrci, power_control=pc, series=True))
            names.append((f"single_rtt{rtt}ms_mrci{mrci}ms", pc))
    results = run_many(texts, jobs, tick)
    out: dict[str, list[pd.DataFrame]] = {}
    for (name, pc), result in zip(names, results, strict=True):
        out.setdefault(name, []).append(_timeseries(result, 0.1).assign(power_control=pc))
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
                pairs.append(_pairs(setting, runs_table, store.metrics(spec.name)))
    timeseries = _record_timeseries(options, jobs, show.phase(f"{label}time series"))
    all_pairs = pd.concat(pairs, ignore_index=True)
    return Reproduction(
        options=options,
        table=_cells(all_pairs).assign(tcp_profile=options.tcp_profile, queue=options.queue),
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


def _panels(table: pd.DataFrame, setting: str) -> list[tuple[str, pd.DataFrame]]:
    rows = table[table.setting == setting]
    if setting == "background":
        return [(f"b_on = {b:g} ms", g) for b, g in rows.groupby("b_on_ms")]
    if setting == "bottleneck":
        return [(f"BN = {b:g} s", g) for b, g in rows.groupby("bn_s")]
    return [("single flow", rows)]


def _figures(rep: Reproduction, folder: Path) -> None:
    """One figure per metric and setting: a curve per RTT against mRCI (a panel per
    ``b_on`` or ``BN``); and one per recorded time series."""
    from ethersim.figures import prepare, write_figure

    prepare(folder)
    import matplotlib.pyplot as plt

    from ethersim.studies.contract import draw_published
    from ethersim.studies.registry import study

    published = study("capacity-scaling").published()
    for metric, ci, label in FIGURES:
        for setting in SETTINGS:
            panels = _panels(rep.table, setting)
            fig, axes = plt.subplots(
                1, len(panels), figsize=(4.2 * len(panels), 3.6), squeeze=False
            )
            for ax, (title, g) in zip(axes[0], panels, strict=True):
                for rtt, curve in g.groupby("rtt_ms"):
                    curve = curve.sort_values("mrci_ms")
                    yerr = curve[ci] if ci else None
                    ax.errorbar(
                        curve.mrci_ms,
                        curve[metric],
                        yerr=yerr,
                        marker="o",
                        capsize=3,
                        label=f"RTT {rtt:g} ms",
                    )
                    if metric == "loss_percent_pc":
                        ax.plot(curve.mrci_ms, curve.loss_percent_nopc, linestyle=":", color="grey")
                draw_published(ax, published, f"{metric}_{setting}", title)
                ax.set_xscale("log")
                ax.set_xlabel("mRCI (ms)")
                ax.set_title(title)
                ax.grid(True, alpha=0.3)
            axes[0][0].set_ylabel(label)
            axes[0][-1].legend(fontsize=8)
            fig.suptitle(f"capacity scaling, {setting}")
            fig.tight_layout()
            write_figure(fig, folder, f"{metric}_{setting}")
    for name, ts in rep.timeseries.items():
        fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 5.5), sharex=True)
        for pc, style in ((True, "-"), (False, "--")):
            s = ts[ts.power_control == pc]
            tag = "with" if pc else "without"
            top.plot(
                s.t_s,
                s.arrival_rate_mbps,
                style,
                lw=0.8,
                label=f"arrival rate, {tag} power control",
            )
            top.step(
                s.t_s,
                s.service_rate_mbps,
                style,
                where="post",
                lw=1.2,
                label=f"service rate, {tag} power control",
            )
            bottom.step(
                s.t_s, s.cwnd_bytes / 1e3, style, where="post", lw=0.8, label=f"cwnd, {tag}"
            )
        top.set_ylabel("Mb/s")
        bottom.set_ylabel("cwnd (kB)")
        bottom.set_xlabel("time (s)")
        top.legend(fontsize=7, ncol=2)
        bottom.legend(fontsize=7)
        top.set_title(name.replace("_", ", "))
        fig.tight_layout()
        write_figure(fig, folder, f"timeseries_{name}")


def _extra(row: Any) -> str:
    """The b_on or BN of a cell, for its description."""
    if not math.isnan(row.b_on_ms):
        return f", b_on {row.b_on_ms:g} ms"
    if not math.isnan(row.bn_s):
        return f", BN {row.bn_s:g} s"
    return ""


def _summary(rep: Reproduction) -> str:
    t = rep.table
    o = rep.options
    lines = [
        "# Capacity scaling against TCP congestion control",
        "",
        f"{'Quick grid' if o.quick else 'Full grid'}: {len(t)} cells, {o.reps} replications each, "
        f"{o.seconds:g} s per run, each run paired with the same run (same seed) without power "
        f"control; {rep.runs} runs ({rep.skipped} already in the results database) on {rep.jobs} "
        f"workers in {rep.wall_s:.1f} s; base seed {o.seed}.",
        "",
        f"TCP: the `{o.tcp_profile}` profile's defaults (docs/tcp.md), 1460-B segments, no "
        f"sender window limit. Router buffers: one BDP at 10 Mb/s, "
        + (
            "an ns-2 queue limit of BDP / 1500-B packets counting the one being sent."
            if o.queue == "packets"
            else "in bytes of switch memory."
        ),
        "",
        f"practRA: delay bound {o.delay_bound_ms:g} ms, dark time {o.dark_ms:g} ms per change, "
        f"moving-average weight {o.ewma_weight:g} on {o.sample_ms:g} ms samples. Power model "
        f"(an assumption): P(r) = Pmax·({o.static_fraction:g} + "
        f"{1 - o.static_fraction:g}·r/10 Mb/s). "
        f"Background bursts at {o.burst_rate_mbps:g} Mb/s.",
        "",
        "| setting | mean service rate (Mb/s) | throughput reduction (%) | rate changes "
        "| energy saved (%) |",
        "|---|---|---|---|---|",
    ]
    for setting in SETTINGS:
        g = t[t.setting == setting]

        def span(column: str, digits: int, g: pd.DataFrame = g) -> str:
            return f"{g[column].min():.{digits}f} to {g[column].max():.{digits}f}"

        lines.append(
            f"| {setting} | {span('mean_service_rate_mbps', 2)} "
            f"| {span('throughput_reduction_percent', 1)} | {span('rate_changes', 0)} "
            f"| {span('energy_saved_percent', 1)} |"
        )
    lines.append("")
    for setting in SETTINGS:
        g = t[t.setting == setting]
        worst = g.sort_values("throughput_reduction_percent").iloc[-1]
        harmless = g[g.throughput_reduction_percent < 2]
        by_rtt = g.groupby("rtt_ms")[
            ["throughput_reduction_percent", "energy_saved_percent"]
        ].mean()
        per_rtt = "; ".join(
            f"RTT {rtt:g} ms: {r.throughput_reduction_percent:.1f} % throughput, "
            f"{r.energy_saved_percent:.1f} % energy"
            for rtt, r in by_rtt.iterrows()
        )
        lines.append(f"- **{setting}** (means over the cells of each RTT): {per_rtt}.")
        lines.append(
            f"  Largest throughput reduction {worst.throughput_reduction_percent:.1f} % "
            f"(± {worst.throughput_reduction_ci_percent:.1f}) at RTT {worst.rtt_ms:g} ms, mRCI "
            f"{worst.mrci_ms:g} ms{_extra(worst)}, with {worst.rate_changes:.0f} rate changes."
        )
        if len(harmless):
            best = harmless.sort_values("energy_saved_percent").iloc[-1]
            lines.append(
                f"  {len(harmless)} of {len(g)} cells cost TCP under 2 % of its throughput; the "
                f"best of them saves {best.energy_saved_percent:.1f} % (RTT {best.rtt_ms:g} ms, "
                f"mRCI {best.mrci_ms:g} ms{_extra(best)}, TCP at {best.throughput_pc_mbps:.2f} "
                f"Mb/s against {best.throughput_nopc_mbps:.2f} without power control)."
            )
    lines += [
        "",
        "Table: `capacity_scaling.csv` (one row per cell; `capacity_scaling_pairs.csv` has every "
        "pair of runs). Figures: `figures/<metric>_<setting>.png`, time series in "
        "`timeseries/` and `figures/timeseries_*.png`. Sweep files: `sweeps/`.",
        "",
    ]
    return "\n".join(lines)


def profile_comparison(rep: Reproduction) -> pd.DataFrame:
    """``profiles.csv``: every published finding's verdict and simulated value under the
    study's own TCP profile and under each of ``also_profiles``, side by side (columns
    ``finding``, then ``verdict_<profile>`` and ``simulated_<profile>`` per profile)."""
    from ethersim.studies.contract import compare
    from ethersim.studies.registry import study

    glue = study("capacity-scaling")
    published = glue.published()
    out = None
    for profile, r in [(rep.options.tcp_profile, rep), *rep.profiles.items()]:
        c = compare(published, glue, r)[["finding", "verdict", "simulated"]]
        c = c.rename(columns={"verdict": f"verdict_{profile}", "simulated": f"simulated_{profile}"})
        out = c if out is None else out.merge(c, on="finding")
    assert out is not None
    return out


def _profiles_section(rep: Reproduction, side: pd.DataFrame) -> str:
    """The summary's side-by-side paragraph: K of N under each profile, and every finding
    whose verdict the profile changes."""
    names = [rep.options.tcp_profile, *rep.profiles]
    lines = [
        "## TCP profiles side by side",
        "",
        f"The whole grid again under each profile, the routers' buffers as before "
        f"({rep.options.queue}); `profiles.csv` has every finding's verdict under each, "
        "`capacity_scaling_<profile>.csv` the other profiles' tables.",
        "",
    ]
    for p in names:
        k = int((side[f"verdict_{p}"] == "reproduced").sum())
        lines.append(f"- `{p}`: {k} of {len(side)} published findings reproduced.")
    changed = side[side[[f"verdict_{p}" for p in names]].nunique(axis=1) > 1]
    if len(changed):
        lines += ["", "Verdicts the profile changes:", ""]
        for row in changed.to_dict("records"):
            shown = "; ".join(
                f"{p}: {row[f'verdict_{p}']} ({row[f'simulated_{p}']})" for p in names
            )
            lines.append(f"- **{row['finding']}** — {shown}")
    return "\n".join(lines) + "\n"


def write(rep: Reproduction, folder: Path) -> None:
    """Writes a reproduction's files into ``folder`` (a fresh, empty folder)."""
    table = rep.table[COLUMNS + [c for c in rep.table.columns if c not in COLUMNS]]
    write_table(table, folder, "capacity_scaling")
    write_table(rep.pairs, folder, "capacity_scaling_pairs")
    (folder / "timeseries").mkdir()
    for name, ts in rep.timeseries.items():
        ts.to_parquet(folder / "timeseries" / f"{name}.parquet", index=False)
    for profile, other in rep.profiles.items():
        other_table = other.table[COLUMNS + [c for c in other.table.columns if c not in COLUMNS]]
        write_table(other_table, folder, f"capacity_scaling_{profile}")
        write_table(other.pairs, folder, f"capacity_scaling_pairs_{profile}")
        (folder / "timeseries" / profile).mkdir()
        for name, ts in other.timeseries.items():
            ts.to_parquet(folder / "timeseries" / profile / f"{name}.parquet", index=False)
    _figures(rep, folder / "figures")
    summary = _summary(rep)
    if rep.profiles:
        side = profile_comparison(rep)
        write_table(side, folder, "profiles")
        summary += "\n" + _profiles_section(rep, side)
    (folder / "summary.md").write_text(summary, encoding="utf-8")
    (folder / "sweeps").mkdir()
    for name, text in rep.sweep_files.items():
        (folder / "sweeps" / name).write_text(text, encoding="utf-8")
    o = rep.options
    info: dict[str, Any] = {
        "study": "capacity-scaling",
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
    write_marker(folder, info)

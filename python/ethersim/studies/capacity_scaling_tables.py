"""The tables of ``ethersim reproduce capacity-scaling`` from its runs: each pair of runs
(with and without power control) side by side, the cells' means and confidence
intervals (``capacity_scaling.csv``), and a recorded run's time series in bins."""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

from ethersim.studies.capacity_scaling import (
    BOTTLENECK_PORT,
    MAX_MBPS,
    POLICY_KEY,
    SCALED_PORT,
    SETTINGS,
)

if TYPE_CHECKING:
    import pandas as pd

    from ethersim.results import Result

__all__ = ["cells", "pairs", "timeseries"]


def _number(text: str) -> float:
    """The number of a quantity's text (``50 ms`` → 50)."""
    return float(str(text).split()[0])


def pairs(setting: str, runs: pd.DataFrame, metrics: pd.DataFrame) -> pd.DataFrame:
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


def cells(pairs: pd.DataFrame) -> pd.DataFrame:
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


def timeseries(result: Result, bin_s: float) -> pd.DataFrame:
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

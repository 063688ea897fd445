"""The capacity-scaling study's TOML: the scenario of each setting (:func:`scenario`) and
the sweep that runs its grid with power control on and off as a paired parameter
(:func:`_sweep_text`). Re-exported by :mod:`ethersim.studies.capacity_scaling`."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from ethersim.studies.capacity_scaling_options import (
    MAX_MBPS,
    POLICY_KEY,
    RATES_MBPS,
    SCALED_PORT,
    Options,
    buffer_limit,
)


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

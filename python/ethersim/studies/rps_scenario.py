"""The cell of ``ethersim reproduce rps`` (:mod:`ethersim.studies.rps`): the study's
constants, the reproduction's options, the scenario text of one cell, the readers of a
run's summary, the check of the options and the calibration of the server's per-packet
time to the study's control transfer."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ethersim.batch import Tick, run_many
from ethersim.studies.rps_bursts import FRAME_BYTES

if TYPE_CHECKING:
    from ethersim.results import Result

__all__ = [
    "CALIBRATION_MAX_RUNS",
    "CALIBRATION_TOLERANCE_S",
    "DEFAULT_BUFFER_BYTES",
    "HOST_BOTTLENECKS",
    "PAUSES_MS",
    "PAUSE_EVERY_S",
    "PAUSE_START_S",
    "PAYLOAD_BYTES",
    "QUANTUM_PS_1G",
    "QUICK_FILE_BYTES",
    "SERIES_WINDOW_MS",
    "STUDY_CONTROL_S",
    "STUDY_FILE_BYTES",
    "Calibration",
    "Options",
    "calibrate",
    "check",
    "pause_generator",
    "port_summary",
    "scenario",
]

#: Where the server's calibrated per-packet time is spent, and the host key it sets:
#: ``cpu``, the network stack's time per packet before the transmit buffers
#: (``tx_processing``); ``nic``, the controller's service time after each frame
#: (``tx_interrupt``: the next frame starts no sooner than this after the last bit).
HOST_BOTTLENECKS = {"cpu": "tx_processing", "nic": "tx_interrupt"}

#: The study's measured transfer times with no pauses (the calibration targets), s.
STUDY_CONTROL_S = {"tcp": 15.64, "udp": 28.08}
#: The study's file.
STUDY_FILE_BYTES = 500_000_000
#: The file of ``--quick`` runs.
QUICK_FILE_BYTES = 50_000_000
#: Pause times the client sends once a second, ms (0: the control, no PAUSE at all).
PAUSES_MS = (0, 1, 10, 20)
#: Default buffer of the switch's output port (see the module notes).
DEFAULT_BUFFER_BYTES = 128 * 1024
#: Calibration stops when the control transfer is this close to the study's time, s.
CALIBRATION_TOLERANCE_S = 1e-4
#: Most calibration runs per protocol.
CALIBRATION_MAX_RUNS = 12
#: Payload per packet: a TCP segment (MSS on a 1500 B MTU) and a UDP datagram.
PAYLOAD_BYTES = {"tcp": 1460, "udp": 1472}
#: The client's first PAUSE, and the time between them, s.
PAUSE_START_S = 1
PAUSE_EVERY_S = 1
#: The time series of the pause-event runs are kept over this window, ms.
SERIES_WINDOW_MS = (980, 1100)
#: 802.3x pause quantum at 1 Gb/s: 512 bit times, ps.
QUANTUM_PS_1G = 512_000


@dataclass(frozen=True)
class Options:
    """What a reproduction runs."""

    #: A smaller grid that runs in seconds (a 50 MB file, fewer buffers).
    quick: bool = False
    #: The switch's output buffer in the main grid, bytes.
    buffer_bytes: int = DEFAULT_BUFFER_BYTES
    #: Seed of every run (the study's runs draw no random numbers; it is recorded).
    seed: int = 1
    #: Runs at once (default: every core).
    jobs: int | None = None
    #: Whether the switch releases a paused server with a pause time of 0 (XON) when
    #: its buffer drains, or lets the pause (65535 quanta, 33.6 ms) run out.
    switch_releases: bool = True
    #: Where the server's per-packet time is spent (the calibrated host model, see
    #: :data:`HOST_BOTTLENECKS`): ``"cpu"``, before its transmit buffers, so the CPU keeps
    #: preparing packets while the NIC is paused; or ``"nic"``, in the controller after
    #: each frame, so a paused NIC stops the host's whole pipeline.
    host_bottleneck: str = "cpu"

    @property
    def file_bytes(self) -> int:
        """The file each transfer sends."""
        return QUICK_FILE_BYTES if self.quick else STUDY_FILE_BYTES

    def target_s(self, protocol: str) -> float:
        """The control transfer time to calibrate to: the study's, scaled to the file."""
        return STUDY_CONTROL_S[protocol] * self.file_bytes / STUDY_FILE_BYTES

    def sweep_buffers(self) -> list[int]:
        """Buffers of the UDP loss sweep, bytes: one maximum frame (the least a
        store-and-forward switch holds; the sweep's "0") up to 256 KiB."""
        step = 64 if self.quick else 16
        return [FRAME_BYTES] + [k * 1024 for k in range(step, 256 + 1, step)]

    def burst_buffers(self) -> list[int]:
        """Buffers of the simulated bursts: whole maximum frames near 0 to 8 MB."""
        step = 2 if self.quick else 1
        return [
            max(1, round(mb * 1_000_000 / FRAME_BYTES)) * FRAME_BYTES for mb in range(0, 9, step)
        ]


@dataclass(frozen=True)
class Calibration:
    """The host model found for one protocol."""

    protocol: str
    #: The control transfer time aimed at, s.
    target_s: float
    #: The server's per-packet time found, ps (its ``host_key``: the stack's time per
    #: packet, or the controller's service time after each frame).
    tx_processing_ps: int
    #: The control transfer time it gives, s.
    simulated_s: float
    #: Runs it took.
    runs: int
    #: Every (tx_processing_ps, simulated_s) tried, in order.
    history: list[tuple[int, float]] = field(default_factory=list)
    #: The host key the time was found for (:data:`HOST_BOTTLENECKS`).
    host_key: str = "tx_processing"


def pause_generator(pause_ms: int) -> str:
    """The client's PAUSE of ``pause_ms`` once a second, as scenario text (none for 0)."""
    if pause_ms == 0:
        return ""
    return f"""
# The client pauses the switch once a second, as a link-rate switch would block it.
[[pause_generators]]
port = "client->switch"
every = "{PAUSE_EVERY_S} s"
pause = "{pause_ms} ms"
start = "{PAUSE_START_S} s"
"""


def scenario(
    protocol: str,
    pause_ms: int,
    honours: bool,
    tx_processing_ps: int,
    *,
    file_bytes: int,
    buffer_bytes: int = DEFAULT_BUFFER_BYTES,
    switch_sends_pause: bool = True,
    switch_releases: bool = True,
    series: bool = False,
    seed: int = 1,
    host_bottleneck: str = "cpu",
) -> str:
    """The scenario of one cell, as TOML text (``ethersim run`` takes it as it is);
    ``tx_processing_ps`` is the server's calibrated per-packet time, spent where
    ``host_bottleneck`` says (:data:`HOST_BOTTLENECKS`)."""
    honour = "true" if honours else "false"
    server = (
        "# Calibrated to the study's control time:\n"
        f'{HOST_BOTTLENECKS[host_bottleneck]} = "{tx_processing_ps} ps"\n'
        f"pause = {{ honour = {honour} }}"
    )
    app = "tcp_file" if protocol == "tcp" else "udp_file"
    tcp = '\n# Linux hosts: SACK on, 200 ms minimum RTO.\ntcp = { sack = true, rto_min = "200 ms" }'
    window = f'from = "{SERIES_WINDOW_MS[0]} ms"\nuntil = "{SERIES_WINDOW_MS[1]} ms"\n'
    series_text = (
        "\n# Around the first pause event.\n"
        + "".join(
            f"[[series]]\n{what}\nmax_points = 1000000\n{window}"
            for what in ('port = "switch->client"', 'port = "server->switch"', 'app = "file"')
        )
        if series
        else ""
    )
    return f"""# Rapid PHY Selection study, one cell: {protocol.upper()}, pause {pause_ms} ms,
# server {"honours" if honours else "ignores"} PAUSE. Written by `ethersim reproduce rps`.
name = "rps-{protocol}-{pause_ms}ms-{"honour" if honours else "ignore"}"
seed = {seed}

{network(server, buffer_bytes, _switch_pause(switch_sends_pause, switch_releases))}
[[apps]]
kind = "{app}"
name = "file"
from = "server"
to = "client"
size = "{file_bytes} B"{tcp if protocol == "tcp" else ""}
{pause_generator(pause_ms)}{series_text}"""


def network(server: str, buffer_bytes: int, switch_pause: str) -> str:
    """The study's network as TOML text, every cell's (Fig. 2's testbed, as the module
    notes say): the server with the settings ``server`` (TOML lines of its table), a
    1 Gb/s switch whose ports hold ``buffer_bytes`` each and whose PAUSE settings are
    ``switch_pause`` (an inline table's contents), and the client, on 100 m cables.
    ``reproduce rps-apps`` runs its applications on this same network."""
    return f"""[[hosts]]
name = "server"
{server}

[[hosts]]
name = "client"

[[switches]]
name = "switch"
port_buffer = {{ bytes = "{buffer_bytes} B" }}
pause = {{ {switch_pause} }}

[[links]]
between = ["server", "switch"]
rate = "1 Gb/s"
delay = "500 ns"

[[links]]
between = ["switch", "client"]
rate = "1 Gb/s"
delay = "500 ns"
"""


def _switch_pause(sends: bool, releases: bool) -> str:
    if not sends:
        return "send = false"
    return "send = true" if releases else "send = true, release = false"


def _flow(result: Result) -> dict[str, Any]:
    flow: dict[str, Any] = result.summary["flows"][0]
    return flow


def port_summary(result: Result, node: str, peer: str) -> dict[str, Any]:
    """The summary row of the port of ``node`` towards ``peer``."""
    for p in result.summary["ports"]:
        if p["node"] == node and p["peer"] == peer:
            port: dict[str, Any] = p
            return port
    raise KeyError(f"{node}->{peer}")


def _transfer_time(result: Result) -> float:
    done = _flow(result)["completion_time_s"]
    if done is None:
        raise RuntimeError(f"the transfer of {result.summary['scenario']} did not finish")
    return float(done)


def check(options: Options) -> None:
    """Raises :class:`~ethersim.errors.ScenarioError` (naming the option) if a cell of
    the grid would not be a valid scenario, before anything runs."""
    from ethersim import _core
    from ethersim.errors import ScenarioError

    if options.host_bottleneck not in HOST_BOTTLENECKS:
        raise ScenarioError(
            f"{options.host_bottleneck!r}; expected one of {', '.join(HOST_BOTTLENECKS)}",
            "--host-bottleneck",
        )
    text = scenario(
        "tcp",
        max(PAUSES_MS),
        True,
        1,
        file_bytes=options.file_bytes,
        buffer_bytes=options.buffer_bytes,
        switch_releases=options.switch_releases,
        seed=options.seed,
    )
    try:
        _core.validate(text)
    except ScenarioError as e:
        raise ScenarioError(
            f"{options.buffer_bytes} B does not make a valid switch: {e}", "--buffer"
        ) from None


def calibrate(
    protocol: str, options: Options, tick: Tick | None = None, target_s: float | None = None
) -> Calibration:
    """The server's per-packet time (spent where ``options.host_bottleneck`` says) that
    makes the control transfer last the study's time, scaled to the file (or
    ``target_s``): secant iterations on T_sim(p) - T_target."""
    target = options.target_s(protocol) if target_s is None else target_s
    packets = math.ceil(options.file_bytes / PAYLOAD_BYTES[protocol])
    p = target / packets * 1e12
    if options.host_bottleneck == "nic":
        # The controller's time follows the frame's own time on the wire (1538 B at 1 Gb/s).
        p -= 1538 * 8 * 1000
    p = max(1, round(p))
    history: list[tuple[int, float]] = []
    for _ in range(CALIBRATION_MAX_RUNS):
        text = scenario(
            protocol,
            0,
            True,
            p,
            file_bytes=options.file_bytes,
            seed=options.seed,
            host_bottleneck=options.host_bottleneck,
        )
        t = _transfer_time(run_many([text], jobs=1)[0])
        history.append((p, t))
        if tick is not None:
            tick(len(history), CALIBRATION_MAX_RUNS)
        if abs(t - target) <= CALIBRATION_TOLERANCE_S:
            break
        if len(history) >= 2 and history[-1][1] != history[-2][1]:
            (p0, t0), (p1, t1) = history[-2], history[-1]
            step = (target - t1) * (p1 - p0) / (t1 - t0)
        else:
            step = p * (target / t - 1)
        p = max(1, round(p + step))
        if any(p == tried for tried, _ in history):
            break  # the picosecond grid allows no closer value
    best_p, best_t = min(history, key=lambda h: abs(h[1] - target))
    key = HOST_BOTTLENECKS[options.host_bottleneck]
    return Calibration(protocol, target, best_p, best_t, len(history), history, key)

"""Bad input: one clear message naming the key path and what was expected, exit status 2,
no traceback, and no output directory left behind."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from scenario_edits import edit, sets

ROOT = Path(__file__).resolve().parents[1]
GOOD = (ROOT / "examples" / "udp-file.toml").read_text()
PING = '[[apps]]\nkind = "ping"\nfrom = "server"\nto = "client"\n{}\n'
TCP = (ROOT / "examples" / "tcp-file.toml").read_text()
OFFICE = ROOT / "examples" / "traces" / "office.pcapng"
REPLAY = '[[apps]]\nkind = "replay"\nfrom = "server"\nto = "client"\n{}\n'
CALL = '[[apps]]\nkind = "voip"\nfrom = "server"\nto = "client"\n{}\n'
WEB = '[[apps]]\nkind = "web"\nfrom = "client"\nto = "server"\n{}\n'


def app(kind: str, *keys: str) -> str:
    """An override replacing the example's application (``file``, server to client) by
    one of another ``kind`` with ``keys`` (TOML ``key = value``) and nothing else: no
    ``size`` unless given."""
    fields = [f'kind = "{kind}"', 'name = "file"', 'from = "server"', 'to = "client"', *keys]
    return "apps[0]={ " + ", ".join(fields) + " }"


SEGMENT = """
duration = "10 ms"
[[hosts]]
name = "a"
[[hosts]]
name = "b"
[[segments]]
name = "coax"
stations = [{ node = "a", at = 0.0 }, { node = "b", at = 100.0 }]
[[apps]]
kind = "saturating"
from = "a"
to = "b"
frame = "64 B"
"""


def run_cli(tmp_path: Path, text: str, *extra: str) -> subprocess.CompletedProcess[str]:
    scenario = tmp_path / "scenario.toml"
    scenario.write_text(text)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "ethersim.cli",
            "run",
            str(scenario),
            "--out",
            str(tmp_path / "out"),
            *extra,
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )


# (case id, scenario text, extra CLI args, fragments the message must contain)
CASES = [
    (
        "unknown key",
        GOOD,
        sets("switches[0].colour=red"),
        [
            "switches[0].colour",
            "unknown field `colour`",
            "expected one of `name`, `port_buffer`, `pause`",
        ],
    ),
    (
        "wrong unit",
        GOOD,
        sets("links[0].rate=1 GB"),
        ["links[0].rate", 'unknown rate unit "GB"', "Gb/s"],
    ),
    (
        "missing unit",
        GOOD,
        sets('apps[0].size="500"'),
        ["apps[0].size", "has no unit"],
    ),
    (
        "zero rate",
        GOOD,
        sets("links[0].rate=0 Gb/s"),
        ["links[0].rate", "must be greater than 0"],
    ),
    (
        "negative rate",
        GOOD,
        sets("links[0].rate=-1 Gb/s"),
        ["links[0].rate", "negative"],
    ),
    (
        "number instead of string",
        GOOD,
        sets("links[0].rate=1000"),
        ["links[0].rate", "a string with a unit"],
    ),
    (
        "link to a missing node",
        GOOD,
        sets("links[1].between[1]=cleint"),
        ["links[1].between[1]", 'no node named "cleint"', "known nodes: client, server, switch"],
    ),
    (
        "buffer smaller than a frame",
        GOOD,
        sets("switches[0].port_buffer.bytes=1000 B"),
        ["switches[0].port_buffer.bytes", "smaller than one maximum frame (1518 B)"],
    ),
    (
        "off-grid time",
        GOOD,
        sets("links[0].delay=0.5 ps"),
        ["links[0].delay", "whole number of picoseconds"],
    ),
    (
        "duplicate name",
        GOOD,
        sets("hosts[1].name=server"),
        ["hosts[1].name", 'node name "server" is used twice'],
    ),
    (
        "unknown app kind",
        GOOD,
        sets("apps[0].kind=sctp_file"),
        ["apps[0].kind", 'unknown application kind "sctp_file"', "udp_file"],
    ),
    (
        "unknown app field",
        GOOD,
        sets("apps[0].sise=1 MB"),
        ["apps[0]", "unknown field `sise`"],
    ),
    (
        "payload too large",
        GOOD,
        sets("apps[0].payload=1500 B"),
        ["apps[0].payload", "1472 B"],
    ),
    (
        "endless source",
        GOOD,
        sets(app("poisson", 'rate = "1 Mb/s"')),
        ["apps[0]", "never stops"],
    ),
    ("not TOML", "[[hosts]\nname = ", [], ["not valid TOML", "line 1"]),
    ("bad --set path", GOOD, ["--set", "links[9].rate=1 Gb/s"], ["links[9].rate", "has 2 entries"]),
    (
        "bad --set value",
        GOOD,
        ["--set", "links[0].rate=fast"],
        ["links[0].rate", "does not start with a number"],
    ),
    ("--set without =", GOOD, ["--set", "seed"], ["--set", "path=value"]),
    (
        "host with two links",
        GOOD + '\n[[links]]\nbetween = ["server", "client"]\nrate = "1 Gb/s"\n',
        [],
        ["hosts[0]", "has 2 links"],
    ),
    (
        "zero tx buffers",
        GOOD,
        ["--set", "hosts[0].tx_buffers=0"],
        ["hosts[0].tx_buffers", "expected 1 to"],
    ),
    (
        "too many rx buffers",
        GOOD,
        ["--set", "hosts[1].rx_buffers=4000000000"],
        ["hosts[1].rx_buffers", "4000000000 is out of range; expected 1 to 1048576"],
    ),
    (
        "zero-frame buffer",
        GOOD,
        sets("switches[0].port_buffer={ frames = 0 }"),
        ["switches[0].port_buffer.frames", "at least 1 frame"],
    ),
    (
        "buffer without limits",
        GOOD,
        sets("switches[0].port_buffer={}"),
        ["switches[0].port_buffer", "a buffer must be finite"],
    ),
    ("zero duration", GOOD, ["--set", "duration=0 s"], ["duration", "greater than 0 s"]),
    ("zero event budget", GOOD, ["--set", "max_events=0"], ["max_events", "at least 1"]),
    ("negative event budget", GOOD, ["--set", "max_events=-5"], ["max_events", "-5"]),
    ("MTU too large", GOOD, ["--set", "links[0].mtu=9001 B"], ["links[0].mtu", "9000 B"]),
    ("MTU too small", GOOD, ["--set", "links[0].mtu=60 B"], ["links[0].mtu", "68 B"]),
    ("empty file", GOOD, ["--set", "apps[0].size=0 B"], ["apps[0].size", "greater than 0 B"]),
    (
        "zero count",
        GOOD,
        sets(app("constant_rate", 'rate = "1 Mb/s"', "count = 0")),
        ["apps[0].count", "at least 1"],
    ),
    (
        "stop before start",
        GOOD,
        sets(app("poisson", 'rate = "1 Mb/s"', 'start = "2 s"', 'stop = "1 s"')),
        ["apps[0].stop", "must be later than start (2 s)"],
    ),
    (
        "link to itself",
        GOOD,
        sets("links[1].between[1]=switch"),
        ["links[1].between", "two different nodes"],
    ),
    ("empty name", GOOD, sets('switches[0].name=""'), ["switches[0].name", "empty"]),
    (
        "sending to itself",
        GOOD,
        sets("apps[0].to=server"),
        ["apps[0].to", "must differ from `from`"],
    ),
    (
        "TCP MSS above the path MTU",
        TCP,
        ["--set", "apps[0].tcp.mss=1461 B"],
        ["apps[0].tcp.mss", "1461 B does not fit", "1460 B"],
    ),
    (
        "TCP zero RTO",
        TCP,
        ["--set", "apps[0].tcp.rto_min=0 s"],
        ["apps[0].tcp.rto_min", "greater than 0 s"],
    ),
    (
        "TCP maximum RTO below the minimum",
        TCP,
        ["--set", "apps[0].tcp.rto_max=100 ms"],
        ["apps[0].tcp.rto_max", "below rto_min"],
    ),
    (
        "TCP window too large without scaling",
        TCP,
        ["--set", "apps[0].tcp.window_scaling=false", "--set", "apps[0].tcp.receive_buffer=1 MiB"],
        ["apps[0].tcp.receive_buffer", "65535 B", "without window scaling"],
    ),
    (
        "TCP unknown profile",
        TCP,
        ["--set", "apps[0].tcp.profile=ns4"],
        ["apps[0].tcp.profile", "ns4", "rfc", "linux", "ns3", "ns2"],
    ),
    (
        "TCP Limited Transmit under a window limit of one segment",
        TCP,
        ["--set", "apps[0].tcp.limited_transmit=true", "--set", "apps[0].tcp.window_limit=1"],
        [
            "apps[0].tcp.limited_transmit",
            "window limit of one segment",
            "window_limit of at least 2",
        ],
    ),
    (
        "TCP unknown congestion control",
        TCP,
        ["--set", "apps[0].tcp.congestion_control=bbr"],
        ["apps[0].tcp.congestion_control", "bbr", "newreno", "cubic"],
    ),
    (
        "TCP unknown setting",
        TCP,
        ["--set", "apps[0].tcp.cubic=true"],
        ["apps[0].tcp.cubic", "unknown field"],
    ),
    (
        "TCP zero read rate",
        TCP,
        ["--set", "apps[0].read_rate=0 b/s"],
        ["apps[0].read_rate", "greater than 0 b/s"],
    ),
    (
        "TCP bulk flow that never stops",
        TCP,
        sets(app("tcp_bulk", 'tcp = { mss = "1460 B" }')),
        ["apps[0]", "never stops"],
    ),
    (
        "TCP bulk empty measurement window",
        TCP,
        sets(app("tcp_bulk", 'stop = "1 s"', 'measure_from = "2 s"', 'tcp = { mss = "1460 B" }')),
        ["apps[0].measure_from", "the measurement window is empty"],
    ),
    (
        "loss probability above 1",
        TCP,
        sets("links[1].loss={ probability = 1.5 }"),
        ["links[1].loss.probability", "1.5 is not a probability"],
    ),
    (
        "loss from a node not on the link",
        TCP,
        sets('links[1].loss={ probability = 0.1, from = "server" }'),
        ["links[1].loss.from", "not an end of this link"],
    ),
    (
        "loss of frame zero",
        TCP,
        sets('links[1].loss={ drop = [{ app = "file", frames = [0, 3] }] }'),
        ["links[1].loss.drop[0].frames", "counted from 1"],
    ),
    (
        "loss of an unknown application",
        TCP,
        sets('links[1].loss={ drop = [{ app = "nope", frames = [3] }] }'),
        ["links[1].loss.drop[0].app", 'no application named "nope"', "file"],
    ),
    (
        "TCP series of a UDP application",
        GOOD + '[[series]]\napp = "file"\n',
        [],
        ["series[0].app", "not a TCP application"],
    ),
    (
        "series of both a port and an application",
        TCP + '[[series]]\napp = "file"\nport = "switch->client"\n',
        [],
        ["series[0]", "exactly one of `port` and `app`"],
    ),
    (
        "PAUSE generator on an unknown port",
        GOOD + '[[pause_generators]]\nport = "client->nowhere"\nevery = "1 s"\npause = "1 ms"\n',
        [],
        ["pause_generators[0].port", "nowhere"],
    ),
    (
        "PAUSE longer than a frame can ask for",
        GOOD + '[[pause_generators]]\nport = "client->switch"\nevery = "1 s"\npause = "40 ms"\n',
        [],
        ["pause_generators[0].pause", "at most 65535 quanta", "33553920 ns"],
    ),
    (
        "PAUSE generator faster than PAUSE frames can leave",
        GOOD + '[[pause_generators]]\nport = "client->switch"\nevery = "1 ns"\npause = "1 ms"\n',
        [],
        ["pause_generators[0].every", "shorter than one PAUSE frame's line time", "672 ns"],
    ),
    (
        "PAUSE generator that never lets the run end",
        GOOD + '[[pause_generators]]\nport = "client->switch"\nevery = "10 ms"\npause = "20 ms"\n',
        [],
        ["pause_generators[0]", "hold the partner paused for good", "give `stop` or `count`"],
    ),
    (
        "PAUSE thresholds without sending",
        GOOD,
        sets('switches[0].pause={ high_water = "10 kB" }'),
        ["switches[0].pause.high_water", "add `send = true`"],
    ),
    (
        "PAUSE low-water mark above the high-water mark",
        GOOD,
        sets('switches[0].pause={ send = true, high_water = "10 kB", low_water = "20 kB" }'),
        ["switches[0].pause.low_water", "not below high_water"],
    ),
    (
        "PAUSE default marks in too small a buffer",
        GOOD,
        sets("switches[0].pause={ send = true }", "switches[0].port_buffer.bytes=3000 B"),
        ["switches[0].pause.high_water", "headroom"],
    ),
    (
        "rate switching to a rate the link lacks",
        GOOD,
        sets(
            'links[1].rate_switching.rates=["1 Gb/s", "10 Gb/s"]',
            "links[1].rate_switching.switch_time=1 us",
            "links[1].rate_switching.policy.kind=schedule",
            'links[1].rate_switching.policy.changes=[{ at = "1 s", rate = "2 Gb/s" }]',
        ),
        ["links[1].rate_switching.policy.changes[0].rate", "not one of the link's rates"],
    ),
    (
        "rate switching with one rate",
        GOOD,
        sets(
            'links[1].rate_switching.rates=["1 Gb/s"]',
            "links[1].rate_switching.switch_time=1 us",
            "links[1].rate_switching.policy.kind=alr",
            "links[1].rate_switching.policy.high=2 kB",
            "links[1].rate_switching.policy.low=1 kB",
        ),
        ["links[1].rate_switching.rates", "at least two different rates"],
    ),
    (
        "ALR thresholds the wrong way round",
        GOOD,
        sets(
            'links[1].rate_switching.rates=["1 Gb/s", "10 Gb/s"]',
            "links[1].rate_switching.switch_time=1 us",
            "links[1].rate_switching.policy.kind=alr",
            "links[1].rate_switching.policy.high=1 kB",
            "links[1].rate_switching.policy.low=2 kB",
        ),
        ["links[1].rate_switching.policy.low", "expected low < high"],
    ),
    (
        "unknown rate policy",
        GOOD,
        sets(
            'links[1].rate_switching.rates=["1 Gb/s", "10 Gb/s"]',
            "links[1].rate_switching.switch_time=1 us",
            "links[1].rate_switching.policy.kind=magic",
        ),
        ["links[1].rate_switching.policy", "magic"],
    ),
    (
        "practRA without the port it scales",
        GOOD,
        sets(
            'links[1].rate_switching.rates=["1 Gb/s", "10 Gb/s"]',
            "links[1].rate_switching.switch_time=1 us",
            "links[1].rate_switching.policy.kind=practra",
        ),
        ["links[1].rate_switching.from", "practRA scales one output port"],
    ),
    (
        "practRA scaling a port of another link",
        GOOD,
        sets(
            'links[1].rate_switching.rates=["1 Gb/s", "10 Gb/s"]',
            "links[1].rate_switching.switch_time=1 us",
            "links[1].rate_switching.from=server",
            "links[1].rate_switching.policy.kind=practra",
        ),
        ["links[1].rate_switching.from", "not an end of this link"],
    ),
    (
        "a delay bound within the dark time",
        GOOD,
        sets(
            'links[1].rate_switching.rates=["1 Gb/s", "10 Gb/s"]',
            "links[1].rate_switching.switch_time=1 ms",
            "links[1].rate_switching.from=switch",
            "links[1].rate_switching.policy.kind=practra",
            "links[1].rate_switching.policy.delay_bound=1 ms",
        ),
        ["links[1].rate_switching.policy.delay_bound", "expected d > δ"],
    ),
    (
        "a moving-average weight above 1",
        GOOD,
        sets(
            'links[1].rate_switching.rates=["1 Gb/s", "10 Gb/s"]',
            "links[1].rate_switching.switch_time=1 us",
            "links[1].rate_switching.from=switch",
            "links[1].rate_switching.policy.kind=practra",
            "links[1].rate_switching.policy.weight=1.5",
        ),
        ["links[1].rate_switching.policy.weight", "(0, 1]"],
    ),
    (
        "a minimum interval shorter than the dark time",
        GOOD,
        sets(
            'links[1].rate_switching.rates=["1 Gb/s", "10 Gb/s"]',
            "links[1].rate_switching.switch_time=1 ms",
            "links[1].rate_switching.min_interval=10 us",
            "links[1].rate_switching.policy.kind=fixed",
        ),
        ["links[1].rate_switching.min_interval", "at least the dark time"],
    ),
    (
        "a power table of the wrong length",
        GOOD,
        sets(
            'links[1].rate_switching.rates=["1 Gb/s", "10 Gb/s"]',
            "links[1].rate_switching.switch_time=1 us",
            "links[1].rate_switching.policy.kind=fixed",
            "links[1].rate_switching.power.kind=table",
            "links[1].rate_switching.power.watts=[1.0]",
        ),
        ["links[1].rate_switching.power.watts", "one per rate"],
    ),
    (
        "static power above the maximum",
        GOOD,
        sets(
            'links[1].rate_switching.rates=["1 Gb/s", "10 Gb/s"]',
            "links[1].rate_switching.switch_time=1 us",
            "links[1].rate_switching.policy.kind=fixed",
            "links[1].rate_switching.power.kind=cubic",
            "links[1].rate_switching.power.static_w=3.0",
            "links[1].rate_switching.power.max_w=2.0",
            "links[1].rate_switching.power.max_scaling=2.0",
        ),
        ["links[1].rate_switching.power.static_w", "Ps ≤ Pmax"],
    ),
    (
        "a varying capacity upside down",
        GOOD,
        sets(
            "links[1].capacity.min=10 Mb/s",
            "links[1].capacity.max=1 Mb/s",
            "links[1].capacity.mean_hold=1 s",
        ),
        ["links[1].capacity.min", "0 b/s < min ≤ max"],
    ),
    (
        "a varying capacity on a switching link",
        GOOD,
        sets(
            "links[1].capacity.min=1 Mb/s",
            "links[1].capacity.max=10 Mb/s",
            "links[1].capacity.mean_hold=1 s",
            'links[1].rate_switching.rates=["1 Gb/s", "10 Gb/s"]',
            "links[1].rate_switching.switch_time=1 us",
            "links[1].rate_switching.policy.kind=fixed",
        ),
        ["links[1].capacity", "not both"],
    ),
    (
        "an on/off source with bursts of no length",
        GOOD
        + '[[apps]]\nkind = "on_off"\nfrom = "client"\nto = "server"\n'
        + 'rate = "1 Mb/s"\nmean_burst = "0 s"\n',
        [],
        ["apps[1].mean_burst", "greater than 0 s"],
    ),
    (
        "duplicate application name",
        GOOD
        + '[[apps]]\nkind = "udp_file"\nname = "file"\n'
        + 'from = "client"\nto = "server"\nsize = "1 MB"\n',
        [],
        ["apps[1].name", 'application name "file" is used twice'],
    ),
    (
        "time beyond range",
        GOOD,
        ["--set", "links[0].delay=18446744 s"],
        ["links[0].delay", "larger than the largest accepted, 1000000 s"],
    ),
    (
        "exponent beyond range",
        GOOD,
        ["--set", "apps[0].start=1.0e-2147483648 s"],
        ["apps[0].start", "exponent out of range"],
    ),
    (
        "out path too long",
        GOOD,
        ["--set", "apps[0].size=1 MB", "--out", "x" * 300],
        ["cannot create results folder", "File name too long"],
    ),
    ("negative seed", GOOD, ["--seed", "-1"], ["seed", "out of range"]),
    (
        "missing required key",
        edit(GOOD, 'size = "500 MB"\n', ""),
        [],
        ["apps[0]", "missing field `size`"],
    ),
    (
        "unreachable host",
        GOOD
        + '[[switches]]\nname = "island"\n[[hosts]]\nname = "far"\n'
        + '[[links]]\nbetween = ["far", "island"]\nrate = "1 Gb/s"\n'
        + '[[apps]]\nkind = "udp_file"\nfrom = "server"\nto = "far"\nsize = "1 MB"\n',
        [],
        ["apps[1].to", '"far" cannot be reached from "server"'],
    ),
    (
        "overlapping outages",
        GOOD,
        sets(
            'links[1].outages=[{ start = "1 s", duration = "1 s" }, '
            '{ start = "1500 ms", duration = "1 s" }]'
        ),
        [
            "links[1].outages[1].start",
            "1500 ms is before the end of outages[0] (2 s)",
            "time order",
        ],
    ),
    (
        "zero-length outage",
        GOOD,
        sets('links[1].outages=[{ start = "1 s", duration = "0 s" }]'),
        ["links[1].outages[0].duration", "greater than 0 s"],
    ),
    (
        "misspelt outage key",
        GOOD,
        sets('links[1].outages=[{ start = "1 s", lenght = "1 s" }]'),
        ["links[1].outages[0]", "unknown field `lenght`"],
    ),
    (
        "series of an unknown node",
        GOOD + '[[series]]\nport = "switch->nowhere"\n',
        [],
        ["series[0].port", 'no node named "nowhere"'],
    ),
    (
        "series port without a peer",
        GOOD + '[[series]]\nport = "switch"\n',
        [],
        ["series[0].port", '"node->peer"'],
    ),
    (
        "series of a link that is not there",
        GOOD + '[[series]]\nport = "server->client"\n',
        [],
        ["series[0].port", 'no link joins "server" and "client"'],
    ),
    (
        "ping every 0 s",
        GOOD + PING.format('interval = "0 s"\ncount = 3'),
        [],
        ["apps[1].interval", "greater than 0 s"],
    ),
    (
        "ping data too large",
        GOOD + PING.format('interval = "1 ms"\ncount = 3\npayload = "1473 B"'),
        [],
        ["apps[1].payload", "expected 0 B to 1472 B", "ICMP echo"],
    ),
    (
        "endless ping",
        GOOD + PING.format('interval = "1 ms"'),
        [],
        ["apps[1]", "never stops"],
    ),
    (
        "saturating without frames",
        GOOD,
        sets(app("saturating")),
        ["apps[0]", "give exactly one of `frame`, `mix` and `frames`"],
    ),
    (
        "saturating frame shorter than its headers",
        GOOD,
        sets(app("saturating", 'frame = "40 B"')),
        ["apps[0].frame", "40 B does not fit; expected 46 B"],
    ),
    (
        "saturating mix without long frames",
        GOOD,
        sets(app("saturating", 'mix = { short = "64 B", long = "1518 B", ratio = [8, 0] }')),
        ["apps[0].mix.ratio", "[8, 0] is not a mix"],
    ),
    (
        "measurement window without an end",
        'measure = { from = "1 s" }\n' + GOOD,
        [],
        ["measure.until", "missing; expected the window's end"],
    ),
    (
        "measurement window beyond the run",
        'duration = "2 s"\nmeasure = { from = "1 s", until = "3 s" }\n' + GOOD,
        [],
        ["measure.until", "is after the run's duration (2 s)"],
    ),
    (
        "segment station unknown",
        SEGMENT,
        sets('segments[0].stations=[{ node = "a", at = 0.0 }, { node = "c", at = 1.0 }]'),
        ["segments[0].stations[1].node", 'no node named "c"'],
    ),
    (
        "segment without stations",
        SEGMENT,
        sets("segments[0].stations=[]"),
        ["segments[0].stations", "is empty; expected at least one station"],
    ),
    (
        "segment station twice",
        SEGMENT,
        sets('segments[0].stations=[{ node = "a", at = 0.0 }, { node = "a", at = 1.0 }]'),
        ["segments[0].stations[1].node", "is already a station of this segment"],
    ),
    (
        "segment station position not a number",
        SEGMENT,
        sets('segments[0].stations=[{ node = "a", at = 0.0 }, { node = "b", at = nan }]'),
        ["segments[0].stations[1].at", "is not a position"],
    ),
    (
        "segment signal faster than light",
        SEGMENT,
        sets("segments[0].velocity=1.5"),
        ["segments[0].velocity", "expected a fraction of c from 0.01 to 1"],
    ),
    (
        "segment rate without a whole-picosecond bit",
        SEGMENT,
        sets("segments[0].rate=3 Mb/s"),
        ["segments[0].rate", "not a whole number of picoseconds"],
    ),
    (
        "segment repeater delay too long",
        SEGMENT,
        sets('segments[0].repeaters=[{ at = 50.0, delay = "2 s" }]'),
        ["segments[0].repeaters[0].delay", "exceeds the limit of 1 s"],
    ),
    (
        "segment named like a node",
        SEGMENT,
        sets("segments[0].name=a"),
        ["segments[0].name", "is already the name of a node or segment"],
    ),
    (
        "segment frames beyond jumbo",
        SEGMENT,
        sets("segments[0].max_frame=10000 B"),
        ["segments[0].max_frame", "10000 B is outside 86 B"],
    ),
    (
        "segment frame longer than its maximum",
        SEGMENT,
        sets("apps[0].frame=1600 B"),
        ["apps[0].frame", "1600 B does not fit", "path MTU 1500 B"],
    ),
    (
        "host on a link and a segment",
        SEGMENT + '[[hosts]]\nname = "c"\n[[links]]\nbetween = ["a", "c"]\nrate = "1 Gb/s"\n',
        [],
        ["hosts[0]", 'host "a" has 2 links'],
    ),
    (
        "PAUSE on a segment",
        SEGMENT + '[[pause_generators]]\nport = "a->coax"\nevery = "1 ms"\npause = "100 us"\n',
        [],
        ["pause_generators[0].port", "is on a shared-medium segment"],
    ),
    (
        "interrupt jitter without an interrupt",
        SEGMENT,
        sets("hosts[0].tx_interrupt_jitter=10 us"),
        ["hosts[0].tx_interrupt_jitter", "the host has none; give tx_interrupt too"],
    ),
    (
        "host sending to itself off a segment",
        GOOD,
        sets("apps[0].to=server"),
        ["apps[0].to", "only a station of a shared-medium segment sends to itself"],
    ),
    (
        "capture of an unknown port",
        GOOD + '[[captures]]\nport = "server->nowhere"\n',
        [],
        ["captures[0].port", "nowhere"],
    ),
    (
        "capture of a segment's station",
        SEGMENT + '[[captures]]\nport = "a->coax"\n',
        [],
        ["captures[0].port", "is a station of a shared-medium segment"],
    ),
    (
        "pcap in picoseconds",
        GOOD + '[[captures]]\nport = "server->switch"\nformat = "pcap"\nresolution = "ps"\n',
        [],
        ["captures[0].resolution", "a pcap file's timestamps are us or ns"],
    ),
    (
        "capture file in a folder",
        GOOD + '[[captures]]\nport = "server->switch"\nfile = "../x.pcapng"\n',
        [],
        ["captures[0].file", "is not a plain file name"],
    ),
    (
        "two captures to one file",
        GOOD + '[[captures]]\nport = "server->switch"\n[[captures]]\nport = "switch->server"\n'
        'file = "server-switch.pcapng"\n',
        [],
        ["captures[1].file", "is already the file of another capture"],
    ),
    (
        "capture snaplen too short",
        GOOD + '[[captures]]\nport = "server->switch"\nsnaplen = 10\n',
        [],
        ["captures[0].snaplen", "expected at least 64"],
    ),
    (
        "pcap option without an output folder's help",
        GOOD,
        ["--pcap", "server->nowhere"],
        ["error: --pcap:", "nowhere"],  # as typed, not the captures[0] it became
    ),
    (
        "replay of a missing trace",
        GOOD + REPLAY.format('file = "no-such.pcapng"'),
        [],
        ["apps[1].file", "cannot read trace", "no-such.pcapng"],
    ),
    (
        "replay time scale zero",
        GOOD + REPLAY.format(f'file = "{OFFICE}"\ntime_scale = 0.0'),
        [],
        ["apps[1].time_scale", "is not a positive number"],
    ),
    (
        "replay repeated and looped",
        GOOD + REPLAY.format(f'file = "{OFFICE}"\nrepeat = 2\nloop = true'),
        [],
        ["apps[1].repeat", "give `repeat` or `loop = true`, not both"],
    ),
    (
        "replay looped forever",
        GOOD + REPLAY.format(f'file = "{OFFICE}"\nloop = true'),
        [],
        ["apps[1]", "this application never stops"],
    ),
    (
        "call with an unknown codec",
        GOOD + CALL.format('codec = "G.722"'),
        [],
        ["apps[1].codec", "unknown variant `G.722`", "G.711", "G.729A"],
    ),
    (
        "call of no length",
        GOOD + CALL.format('duration = "0 s"'),
        [],
        ["apps[1].duration", "greater than 0 s"],
    ),
    (
        "call with an unknown jitter buffer",
        GOOD + CALL.format('jitter_buffer = { kind = "elastic" }'),
        [],
        ["apps[1].jitter_buffer", "unknown variant `elastic`", "fixed", "adaptive"],
    ),
    (
        "call with a negative jitter buffer margin",
        GOOD + CALL.format('jitter_buffer = { kind = "adaptive", beta = -1.0 }'),
        [],
        ["apps[1].jitter_buffer.beta", "-1 is not a number of variations", "0 to 100"],
    ),
    (
        "call with a misspelt jitter buffer key",
        GOOD + CALL.format('jitter_buffer = { kind = "fixed", dpeth = "20 ms" }'),
        [],
        ["apps[1].jitter_buffer", "unknown field `dpeth`"],
    ),
    (
        "call with silent talkers",
        GOOD + CALL.format('talk_spurts = { mean_spurt = "0 s" }'),
        [],
        ["apps[1].talk_spurts.mean_spurt", "greater than 0 s"],
    ),
    (
        "web client loading no pages",
        GOOD + WEB.format("pages = 0"),
        [],
        ["apps[1].pages", "at least 1"],
    ),
    (
        "web client with no connections",
        GOOD + WEB.format("connections = 0"),
        [],
        ["apps[1].connections", "0 is not a number of connections", "1 to 256"],
    ),
    (
        "web request of no bytes",
        GOOD + WEB.format('request_size = "0 B"'),
        [],
        ["apps[1].request_size", "0 B is not an object size", "1 B to"],
    ),
    (
        "web page with an empty embedded object",
        GOOD + WEB.format('page = { kind = "fixed", main = "1 kB", embedded = ["1 kB", "0 B"] }'),
        [],
        ["apps[1].page.embedded[1]", "0 B is not an object size"],
    ),
    (
        "web page model unknown",
        GOOD + WEB.format('page = { kind = "surge" }'),
        [],
        ["apps[1].page", "unknown variant `surge`", "3gpp2", "fixed"],
    ),
    (
        "web object sizes with a negative spread",
        GOOD + WEB.format('page = { kind = "3gpp2", main_sigma = -1.0 }'),
        [],
        ["apps[1].page.main_sigma", "-1 is not a spread", "more than 0"],
    ),
    (
        "web object bounds reversed",
        GOOD
        + WEB.format('page = { kind = "3gpp2", embedded_min = "10 kB", embedded_max = "1 kB" }'),
        [],
        ["apps[1].page.embedded_max", "below embedded_min"],
    ),
    (
        "web object bounds keeping nothing of the law",
        GOOD + WEB.format('page = { kind = "3gpp2", main_min = "1 GB", main_max = "2 GB" }'),
        [],
        ["apps[1].page.main_min", "keeps almost nothing"],
    ),
    (
        "web object count capped below its scale",
        GOOD + WEB.format('page = { kind = "3gpp2", count_m = 1.0 }'),
        [],
        ["apps[1].page.count_m", "is not a cap", "count_k (2)"],
    ),
    (
        "web client stopping before it starts",
        GOOD + WEB.format('start = "2 s"\nstop = "1 s"'),
        [],
        ["apps[1].stop", "must be later than start"],
    ),
    (
        "app to a switch",
        GOOD,
        sets("apps[0].to=switch"),
        ["apps[0].to", '"switch" is a switch; expected a host'],
    ),
]


@pytest.mark.parametrize(
    ("text", "extra", "fragments"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_bad_scenario_is_reported_clearly(
    tmp_path: Path, text: str, extra: list[str], fragments: list[str]
) -> None:
    p = run_cli(tmp_path, text, *extra)
    assert p.returncode == 2, (p.stdout, p.stderr)
    message = " ".join(p.stderr.split())  # undo any line wrapping
    for fragment in fragments:
        assert fragment in message, message
    assert "Traceback" not in p.stderr
    assert not (tmp_path / "out").exists()
    assert not any(e.name.startswith(".out.") for e in tmp_path.iterdir())


def test_missing_file_is_exit_2(tmp_path: Path) -> None:
    p = subprocess.run(
        [sys.executable, "-m", "ethersim.cli", "run", str(tmp_path / "nope.toml")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 2
    assert "no scenario file" in p.stderr and "Traceback" not in p.stderr


def test_unknown_option_is_exit_2() -> None:
    p = subprocess.run(
        [sys.executable, "-m", "ethersim.cli", "run", "--colour"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 2

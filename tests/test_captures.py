"""Packet captures read by tshark, and traces replayed.

tshark (Wireshark's dissectors, with checksum validation on) decodes the captures of a
TCP transfer with losses, a UDP transfer with pings, and 802.3x PAUSE: no malformed
frame, no bad checksum, every frame of the expected protocol; its TCP analysis finds as
many retransmissions as the simulator made; it reads the PAUSE opcode and the quanta the
simulator wrote. ``.ci/run`` installs tshark; without it these tests skip and say so.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import pytest
import tomllib
from cli_helpers import invoke
from scenario_edits import sets

ROOT = Path(__file__).resolve().parents[1]
TSHARK = shutil.which("tshark")
needs_tshark = pytest.mark.skipif(
    TSHARK is None, reason="tshark is not installed (apt-get install tshark; .ci/run does)"
)

#: Checksum validation on (Wireshark leaves it off by default).
CHECKSUMS = [
    "-o",
    "ip.check_checksum:TRUE",
    "-o",
    "tcp.check_checksum:TRUE",
    "-o",
    "udp.check_checksum:TRUE",
]


def tshark(capture: Path, display_filter: str, *fields: str) -> list[list[str]]:
    """The frames of ``capture`` matching ``display_filter``, as their ``fields``."""
    assert TSHARK is not None
    args = [TSHARK, "-n", "-r", str(capture), *CHECKSUMS, "-Y", display_filter, "-T", "fields"]
    for f in fields or ("frame.number",):
        args += ["-e", f]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return [line.split("\t") for line in out.splitlines()]


def count(capture: Path, display_filter: str) -> int:
    return len(tshark(capture, display_filter))


def run_with_captures(
    tmp_path: Path, text: str, *ports: str, overrides: Sequence[str] = ()
) -> Path:
    """Runs ``text`` with a capture of each of ``ports`` and each ``path=value`` of
    ``overrides`` (``--set``); the results folder."""
    scenario = tmp_path / "scenario.toml"
    scenario.write_text(text)
    out = tmp_path / "out"
    args = ["run", str(scenario), "--out", str(out), "-q"]
    for p in ports:
        args += ["--pcap", p]
    args += sets(*overrides)
    r = invoke(*args)
    assert r.exit_code == 0, r.output
    return out


def assert_clean(capture: Path, frames: int) -> None:
    """tshark reads every frame, none malformed, no checksum wrong, no error."""
    assert count(capture, "frame") == frames
    bad = "_ws.malformed || _ws.expert.severity >= error || ip.checksum.status == 0"
    bad += " || tcp.checksum.status == 0 || udp.checksum.status == 0"
    assert count(capture, bad) == 0
    assert count(capture, '_ws.expert.message contains "checksum"') == 0


TCP = (ROOT / "examples" / "tcp-file.toml").read_text()
UDP = (ROOT / "examples" / "udp-file.toml").read_text()
#: The TCP example made lossy: 5 MB with SACK through a 64 KiB buffer into 100 Mb/s.
LOSSY = (
    "apps[0].size=5 MB",
    "switches[0].port_buffer.bytes=64 KiB",
    "links[1].rate=100 Mb/s",
    "apps[0].tcp.sack=true",
)


@needs_tshark
def test_tshark_decodes_a_tcp_transfer_and_counts_its_retransmissions(tmp_path: Path) -> None:
    out = run_with_captures(tmp_path, TCP, "server->switch", overrides=LOSSY)
    flows = pd.read_parquet(out / "flows.parquet")
    captures = pd.read_parquet(out / "captures.parquet")
    capture = out / captures.loc[0, "file"]
    frames = int(captures.loc[0, "frames"])
    retransmissions = int(flows.loc[0, "retransmissions"])
    assert retransmissions > 5, "the scenario loses segments at the 100 Mb/s bottleneck"
    assert_clean(capture, frames)
    assert count(capture, "tcp") == frames
    assert count(capture, "tcp.flags.syn == 1") == 2, "SYN and SYN-ACK"
    assert count(capture, "tcp.flags.fin == 1") == 2
    # Wireshark's analysis marks resent data as a retransmission, or, when it follows
    # the segment it repeats closely (SACK recovery), as out-of-order; in the sender's
    # capture there is no other reordering.
    resent = "tcp.analysis.retransmission || tcp.analysis.out_of_order"
    resent += " || tcp.analysis.spurious_retransmission"
    assert count(capture, resent) == retransmissions
    # Sequence numbers as the simulator numbered them: the last data byte is the file's.
    data = tshark(capture, "tcp.len > 0 && ip.src == 10.0.0.1", "tcp.seq", "tcp.len")
    assert max(int(s) + int(n) for s, n in data) == 5_000_000 + 1


@needs_tshark
def test_tshark_decodes_udp_and_icmp_echo(tmp_path: Path) -> None:
    text = UDP + (
        '[[apps]]\nkind = "ping"\nfrom = "client"\nto = "server"\ninterval = "1 ms"\ncount = 5\n'
    )
    out = run_with_captures(tmp_path, text, "switch->client", overrides=["apps[0].size=2 MB"])
    captures = pd.read_parquet(out / "captures.parquet")
    flows = pd.read_parquet(out / "flows.parquet").set_index("kind")
    capture = out / captures.loc[0, "file"]
    assert_clean(capture, int(captures.loc[0, "frames"]))
    assert count(capture, "udp") == flows.loc["udp_file", "packets_received"]
    assert count(capture, "icmp.type == 8") == 5, "requests, sent by the client"
    assert count(capture, "icmp.type == 0") == 5, "replies, received"
    lengths = {int(x[0]) for x in tshark(capture, "udp", "udp.length")}
    # 1472 B of payload and the 8-byte UDP header; the file's last datagram has the rest.
    assert lengths == {1480, 2_000_000 % 1472 + 8}


@needs_tshark
def test_tshark_reads_the_pause_frames_written(tmp_path: Path) -> None:
    text = (ROOT / "examples" / "pause-tcp.toml").read_text()
    overrides = (
        "apps[0].size=20 MB",
        "pause_generators[0].every=50 ms",
        "pause_generators[0].start=10 ms",
    )
    out = run_with_captures(tmp_path, text, "client->switch", "server->switch", overrides=overrides)
    captures = pd.read_parquet(out / "captures.parquet").set_index("port")
    ports = pd.read_parquet(out / "ports.parquet").set_index(["node", "peer"])
    generator = out / captures.loc["client->switch", "file"]
    assert_clean(generator, int(captures.loc["client->switch", "frames"]))
    # The generator's 20 ms at 1 Gb/s: 20 ms / 512 ns = 39062.5, rounded up.
    sent = tshark(generator, "macc", "macc.opcode", "macc.pause_time", "eth.dst")
    assert len(sent) == ports.loc[("client", "switch"), "pause_sent"] > 0
    assert {tuple(f) for f in sent} == {("0x0001", "39063", "01:80:c2:00:00:01")}
    # The switch's own PAUSE towards the server: XOFF of the largest pause, then XON.
    server = out / captures.loc["server->switch", "file"]
    received = tshark(server, "macc", "macc.pause_time")
    assert len(received) == ports.loc[("switch", "server"), "pause_sent"] > 0
    assert {int(q[0]) for q in received} == {0, 65535}


def test_a_capture_replayed_from_the_cli_gives_back_its_frames(tmp_path: Path) -> None:
    from ethersim.traces import read_trace

    out = run_with_captures(tmp_path, UDP, "server->switch", overrides=["apps[0].size=1 MB"])
    original = out / "captures" / "server-switch.pcapng"
    replay = (
        'duration = "1 s"\n[[hosts]]\nname = "a"\n[[hosts]]\nname = "b"\n'
        '[[links]]\nbetween = ["a", "b"]\nrate = "1 Gb/s"\n'
        f'[[apps]]\nkind = "replay"\nfrom = "a"\nto = "b"\nfile = "{original}"\nalign = "capture"\n'
    )
    (tmp_path / "again").mkdir()
    again = run_with_captures(tmp_path / "again", replay, "a->b")
    first = read_trace(original)
    second = read_trace(again / "captures" / "a-b.pcapng")
    assert len(first) > 600
    assert first.first_ps == second.first_ps
    assert (first.offset_ps == second.offset_ps).all()
    assert (first.frame_len == second.frame_len).all()


def write_trace(path: Path, frames: int) -> bytes:
    """A small pcapng trace of ``frames`` frames, written by a run."""
    size = f"apps[0].size={1472 * frames} B"
    out = run_with_captures(path.parent / "gen", UDP, "server->switch", overrides=[size])
    data = (out / "captures" / "server-switch.pcapng").read_bytes()
    path.write_bytes(data)
    return data


@pytest.mark.parametrize(
    ("cut", "fragments"),
    [
        (-7, ["record 12 (byte", "the file ends inside this record (truncated)"]),
        (None, ["not a pcap or pcapng file"]),
    ],
    ids=["truncated", "not a capture"],
)
def test_a_bad_trace_names_the_file_and_the_record(
    tmp_path: Path, cut: int | None, fragments: list[str]
) -> None:
    (tmp_path / "gen").mkdir()
    trace = tmp_path / "trace.pcapng"
    data = write_trace(trace, 10)
    trace.write_bytes(data[:cut] if cut is not None else b"GIF89a" + data)
    scenario = tmp_path / "replay.toml"
    scenario.write_text(
        '[[hosts]]\nname = "a"\n[[hosts]]\nname = "b"\n[[links]]\nbetween = ["a", "b"]\n'
        'rate = "1 Gb/s"\n[[apps]]\nkind = "replay"\nfrom = "a"\nto = "b"\nfile = "trace.pcapng"\n'
    )
    r = invoke("run", str(scenario), "--out", str(tmp_path / "out"))
    assert r.exit_code == 2, r.output
    message = " ".join(r.output.split())
    assert "apps[0].file" in message and str(trace) in message, message
    for fragment in fragments:
        assert fragment in message, message
    assert not (tmp_path / "out").exists()


def test_summary_lists_the_captures(tmp_path: Path) -> None:
    out = run_with_captures(
        tmp_path, UDP, "server->switch", "switch->client", overrides=["apps[0].size=100 kB"]
    )
    summary = json.loads((out / "summary.json").read_text())
    assert [c["file"] for c in summary["captures"]] == [
        "captures/server-switch.pcapng",
        "captures/switch-client.pcapng",
    ]
    for c in summary["captures"]:
        assert (out / c["file"]).stat().st_size > 0
    ran = tomllib.loads((out / "scenario.toml").read_text())
    assert [c["port"] for c in ran["captures"]] == ["server->switch", "switch->client"]


def test_the_example_trace_is_what_its_scenario_writes(tmp_path: Path) -> None:
    out = tmp_path / "office"
    r = invoke("run", str(ROOT / "examples" / "trace-office.toml"), "--out", str(out), "-q")
    assert r.exit_code == 0, r.output
    shipped = ROOT / "examples" / "traces" / "office.pcapng"
    assert (out / "captures" / "office.pcapng").read_bytes() == shipped.read_bytes()


def test_what_if_compares_every_policy_frame_by_frame(tmp_path: Path) -> None:
    from ethersim.traces import read_trace

    trace = ROOT / "examples" / "traces" / "office.pcapng"
    table_file = tmp_path / "what-if.csv"
    r = invoke("what-if", str(trace), "--phy", "10GBASE-T", "--csv", str(table_file))
    assert r.exit_code == 0, r.output
    t = pd.read_csv(table_file)
    assert list(t.policy) == [
        "off",
        "immediate",
        "timeout",
        "timeout",
        "timeout",
        "coalescing",
        "coalescing",
    ]
    assert (t.frames == len(read_trace(trace))).all(), "every frame arrives in every run"
    off = t.iloc[0]
    assert off.energy_saved_percent == 0 and off.added_delay_max_us == 0 and off.sleeps == 0
    lpi = t.iloc[1:]
    # A sleeping PHY only delays: no frame arrives earlier than without LPI.
    assert (lpi.added_delay_mean_us >= 0).all() and (lpi.added_delay_p99_us >= 0).all()
    assert (lpi.energy_j < lpi.energy_eee_off_j).all() and (lpi.sleeps > 0).all()
    # Immediate: a frame after an idle gap finds the PHY asleep and waits at least the
    # wake, Tw = 4.48 us on 10GBASE-T; at 0.14 % load that is most frames.
    immediate = t.iloc[1]
    assert 4.48 - 1e-6 <= immediate.added_delay_p99_us
    # Coalescing holds the first frame up to its timer before the wake.
    for row in t[t.policy == "coalescing"].itertuples():
        timer_us = 100.0 if "100 us" in row.setting else 1000.0
        assert row.added_delay_max_us >= timer_us


def test_what_if_refuses_a_bad_trace_or_phy(tmp_path: Path) -> None:
    r = invoke("what-if", str(tmp_path / "none.pcapng"))
    assert r.exit_code == 2 and "TRACE: cannot read trace" in " ".join(r.output.split())
    r = invoke("what-if", str(ROOT / "examples" / "traces" / "office.pcapng"), "--phy", "40GBASE-T")
    assert r.exit_code == 2 and "--phy" in r.output
    r = invoke("what-if", str(ROOT / "examples" / "traces" / "office.pcapng"), "--timeout", "soon")
    assert r.exit_code == 2 and "--timeout" in r.output

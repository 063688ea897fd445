"""Runs that cannot run away: a capture stops at its size bound (the file whole, the run
going on), a snap length keeps the first bytes of each frame, a write error names the
file and the operating system's reason, and a run that reaches the end of the clock or
``--max-wall`` keeps and writes what it simulated, saying why it stopped."""

from __future__ import annotations

import json
import struct
import subprocess
from pathlib import Path

import ethersim
import pandas as pd
import pytest
from test_captures import count, needs_tshark, tshark
from test_cli import ethersim as ethersim_cli

ROOT = Path(__file__).resolve().parents[1]
TCP = (ROOT / "examples" / "tcp-file.toml").read_text()
#: The TCP example's transfer cut to 5 MB: as overrides, and as ``--set`` options.
SMALL = {"apps[0].size": "5 MB"}
SET_SMALL = ["--set", "apps[0].size=5 MB"]

PING_FOREVER = """
name = "ping-forever"
[[hosts]]
name = "a"
[[hosts]]
name = "b"
[[links]]
between = ["a", "b"]
rate = "1 Gb/s"
delay = "1 us"
[[apps]]
kind = "ping"
from = "a"
to = "b"
interval = "10000 s"
count = 1000000000
"""


def run(tmp_path: Path, text: str, name: str, *args: str) -> subprocess.CompletedProcess[str]:
    scenario = tmp_path / f"{name}.toml"
    scenario.write_text(text)
    return ethersim_cli("run", str(scenario), "--out", str(tmp_path / name), "-q", *args)


def summary(folder: Path) -> dict:  # type: ignore[type-arg]
    loaded: dict = json.loads((folder / "summary.json").read_text())  # type: ignore[type-arg]
    return loaded


@needs_tshark
def test_a_capture_stops_at_its_bound_and_the_run_goes_on(tmp_path: Path) -> None:
    pcap = ["--pcap", "server->switch"]
    bounded = run(tmp_path, TCP, "bounded", *SET_SMALL, *pcap, "--pcap-limit", "100 kB")
    assert bounded.returncode == 0, bounded.stderr
    whole = run(tmp_path, TCP, "whole", *SET_SMALL, *pcap)
    assert whole.returncode == 0, whole.stderr

    kept = summary(tmp_path / "bounded")["captures"][0]
    full = summary(tmp_path / "whole")["captures"][0]
    assert kept["truncated"] is True and full["truncated"] is False
    assert kept["max_bytes"] == 100_000 and full["max_bytes"] == 2**30
    assert 0 < kept["frames"] < full["frames"]
    assert kept["frames"] + kept["frames_not_kept"] == full["frames"]
    # Whole records up to the bound: the next (at most a 1514 B frame's) would not fit.
    capture = tmp_path / "bounded" / kept["file"]
    assert capture.stat().st_size == kept["file_bytes"]
    assert 100_000 - (44 + 1516) < capture.stat().st_size <= 100_000
    assert count(capture, "frame") == kept["frames"]
    assert count(capture, "_ws.malformed || _ws.expert.severity >= error") == 0
    # The frames kept are the first ones of the whole capture.
    first = tshark(tmp_path / "whole" / full["file"], "frame", "frame.time_epoch", "frame.len")
    assert tshark(capture, "frame", "frame.time_epoch", "frame.len") == first[: kept["frames"]]
    # One warning naming the capture and its bound.
    warned = [line for line in bounded.stderr.splitlines() if line.startswith("warning:")]
    assert len(warned) == 1, bounded.stderr
    assert "captures/server-switch.pcapng" in warned[0] and "(100 kB)" in warned[0]
    assert "warning:" not in whole.stderr
    # The report says it in words, with the summary's own counts.
    report = ethersim_cli("report", str(tmp_path / "bounded"), "-q")
    assert report.returncode == 0, report.stderr
    page = (tmp_path / "bounded" / "report.html").read_text()
    assert (
        f"captures/server-switch.pcapng of server-&gt;switch reached its size bound (100 kB):"
        f" it kept the first {kept['frames']:,} frames and not the"
        f" {kept['frames_not_kept']:,} after them"
    ) in page
    ethersim_cli("report", str(tmp_path / "whole"), "-q")
    assert "reached its size bound" not in (tmp_path / "whole" / "report.html").read_text()
    # The bound changes the capture, nothing else.
    a, b = summary(tmp_path / "bounded"), summary(tmp_path / "whole")
    del a["captures"], b["captures"]
    assert a == b


@needs_tshark
def test_a_snap_length_keeps_the_first_bytes_and_the_length_of_each_frame(
    tmp_path: Path,
) -> None:
    p = run(tmp_path, TCP, "cli", *SET_SMALL, "--pcap", "server->switch", "--snaplen", "96")
    assert p.returncode == 0, p.stderr
    capture = tmp_path / "cli" / summary(tmp_path / "cli")["captures"][0]["file"]
    lengths = tshark(capture, "frame", "frame.cap_len", "frame.len")
    assert lengths and all(int(cap) == min(96, int(n)) for cap, n in lengths)
    assert {int(n) for _, n in lengths} >= {1514, 60}, "data segments and (padded) bare ACKs"
    assert count(capture, "_ws.malformed") == 0

    # In the scenario, as a size, in a classic pcap: every record's incl_len and orig_len.
    text = TCP + '\n[[captures]]\nport = "server->switch"\nformat = "pcap"\nsnaplen = "96 B"\n'
    p = run(tmp_path, text, "file", *SET_SMALL)
    assert p.returncode == 0, p.stderr
    data = (tmp_path / "file" / "captures" / "server-switch.pcap").read_bytes()
    assert struct.unpack_from("<I", data, 16)[0] == 96, "the header's snaplen"
    at, records = 24, []
    while at < len(data):
        incl, orig = struct.unpack_from("<II", data, at + 8)
        records.append((incl, orig))
        at += 16 + incl
    assert at == len(data) and len(records) == len(lengths)
    assert all(incl == min(96, orig) for incl, orig in records)
    assert [orig for _, orig in records] == [int(n) for _, n in lengths]


def test_a_full_disk_says_cannot_write_the_capture_and_why(tmp_path: Path) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    (tmp_path / "captures").mkdir()
    (tmp_path / "captures" / "server-switch.pcapng").symlink_to("/dev/full")
    text = TCP + '\n[[captures]]\nport = "server->switch"\n'
    with pytest.raises(ethersim.OutputError) as e:
        ethersim.run_text(text, overrides=SMALL, output=tmp_path)
    message = str(e.value)
    assert message.startswith("cannot write capture "), message
    assert "server-switch.pcapng: No space left on device" in message
    assert "Error reading bytes" not in message


def test_a_run_that_reaches_the_end_of_the_clock_keeps_its_results(tmp_path: Path) -> None:
    p = run(tmp_path, PING_FOREVER, "ping")
    assert p.returncode == 0, p.stderr
    warned = [line for line in p.stderr.splitlines() if line.startswith("warning:")]
    # Before the run: the plan goes beyond the clock; after: where and why it stopped.
    assert "apps[0] plans to send until about" in p.stderr
    assert "beyond the engine's clock" in p.stderr
    assert "the run stopped at" in p.stderr and "clock_overflow" in p.stderr
    assert len(warned) == 2, p.stderr
    s = summary(tmp_path / "ping")
    assert s["stop_reason"] == "clock_overflow"
    assert s["sim_time_s"] > 213 * 86_400
    flows = pd.read_parquet(tmp_path / "ping" / "flows.parquet")
    # A request every 10,000 s until the clock's end (2^64 ps, 213.5 days).
    assert flows.loc[0, "packets_sent"] == 2**64 // 10**16 + 1
    assert flows.loc[0, "packets_received"] == flows.loc[0, "packets_sent"]


def test_a_scenario_that_fits_the_clock_gets_no_warning(tmp_path: Path) -> None:
    p = run(tmp_path, PING_FOREVER, "ping", "--set", "apps[0].count=1000")
    assert p.returncode == 0, p.stderr
    assert "warning:" not in p.stderr
    assert summary(tmp_path / "ping")["stop_reason"] == "work_done"


def test_max_wall_ends_the_run_keeping_what_it_simulated(tmp_path: Path) -> None:
    p = run(tmp_path, TCP, "big", "--set", "apps[0].size=1000 TB", "--max-wall", "0.5")
    assert p.returncode == 0, p.stderr
    assert "note: the run reached --max-wall (0.5 s) at simulated time" in p.stderr
    s = summary(tmp_path / "big")
    assert s["stop_reason"] == "wall_limit" and s["sim_time_s"] > 0 and s["events"] > 0
    flows = pd.read_parquet(tmp_path / "big" / "flows.parquet")
    f = flows.loc[0]
    assert 0 < f["bytes_received"] <= f["bytes_sent"]
    assert f["packets_received"] <= f["packets_sent"]
    assert pd.isna(f["completion_time_s"]), "the transfer did not finish"
    run_json = json.loads((tmp_path / "big" / "run.json").read_text())
    assert "--max-wall" in json.dumps(run_json)


def test_a_progress_callback_ends_a_run_with_its_results() -> None:
    calls = []

    def stop(sim_s: float, events: int, until_s: float | None) -> None:
        calls.append(events)
        raise ethersim.WallLimitReached("enough")

    r = ethersim.run_text(TCP, overrides={"apps[0].size": "1000 TB"}, progress=stop)
    assert calls and r.summary["stop_reason"] == "wall_limit"
    assert r.summary["events"] == calls[0]


def test_capture_options_need_a_pcap_and_a_size(tmp_path: Path) -> None:
    example = str(ROOT / "examples" / "tcp-file.toml")
    p = ethersim_cli("run", example, "--pcap-limit", "1 MB", "--out", str(tmp_path / "o"))
    assert p.returncode == 2 and "--pcap-limit: applies to the captures of --pcap" in p.stderr
    p = ethersim_cli(
        "run", example, "--pcap", "server->switch", "--pcap-limit", "1000", "--out", str(tmp_path)
    )
    assert p.returncode == 2 and "--pcap-limit" in p.stderr and "no unit" in p.stderr
    text = TCP + '\n[[captures]]\nport = "server->switch"\nmax_bytes = "100 B"\n'
    with pytest.raises(ethersim.ScenarioError, match=r"captures\[0\]\.max_bytes.*at least 1 kB"):
        ethersim.run_text(text, overrides=SMALL, output=tmp_path)

"""A results folder says exactly what ran: ``scenario.toml`` is the scenario with its
overrides and seed applied (running it again gives the same ``summary.json``, byte for
byte), and ``run.json`` and the report name the overrides, the seed, the version, the
commit when known and the command."""

from __future__ import annotations

import json
import re
from pathlib import Path

import ethersim
import pandas as pd
import tomllib
from cli_helpers import invoke

ROOT = Path(__file__).resolve().parent.parent
TCP = ROOT / "examples" / "tcp-file.toml"


def test_scenario_toml_reruns_to_a_byte_identical_summary(tmp_path: Path) -> None:
    first = tmp_path / "first"
    r = invoke(
        "run",
        str(TCP),
        "--set",
        "apps[0].size=5 MB",
        "--set",
        "links[1].rate=100 Mb/s",
        "--seed",
        "7",
        "--out",
        str(first),
        "-q",
    )
    assert r.exit_code == 0, r.output
    scenario = (first / "scenario.toml").read_text()
    doc = tomllib.loads(scenario)
    assert doc["apps"][0]["size"] == "5 MB" and doc["links"][1]["rate"] == "100 Mb/s"
    assert doc["seed"] == 7
    assert "apps[0].size=5 MB" in scenario, "the header names the overrides"
    again = tmp_path / "again"
    r = invoke("run", str(first / "scenario.toml"), "--out", str(again), "-q")
    assert r.exit_code == 0, r.output
    assert (again / "summary.json").read_bytes() == (first / "summary.json").read_bytes()

    run = json.loads((first / "run.json").read_text())
    assert run["overrides"] == ["apps[0].size=5 MB", "links[1].rate=100 Mb/s"]
    assert run["seed"] == 7 and run["seed_given"] == 7
    assert run["scenario"] == str(TCP)
    assert run["ethersim"] == ethersim.__version__
    assert run["command"][:3] == ["ethersim", "run", str(TCP)]
    assert run["git_commit"] is None or re.fullmatch(r"[0-9a-f]{40}", run["git_commit"])
    from ethersim import _core

    assert run["build"] == _core.build_profile()
    rerun = json.loads((again / "run.json").read_text())
    assert rerun["overrides"] == [] and rerun["seed_given"] is None and rerun["seed"] == 7


def test_a_seed_beyond_toml_is_given_again_as_the_header_says(tmp_path: Path) -> None:
    seed = 2**64 - 1
    r = ethersim.run(ROOT / "examples" / "poisson-fan-in.toml", seed=seed)
    assert f"--seed {seed}" in (r.scenario_text or "")
    again = ethersim.run_text(r.scenario_text or "", seed=seed)
    assert again.summary_json() == r.summary_json()


def test_python_runs_keep_their_provenance_too(tmp_path: Path) -> None:
    text = (ROOT / "examples" / "udp-file.toml").read_text()
    r = ethersim.run_text(text, overrides={"apps[0].size": "1 MB"})
    out = r.write(tmp_path / "res")
    assert tomllib.loads((out / "scenario.toml").read_text())["apps"][0]["size"] == "1 MB"
    again = ethersim.run(out / "scenario.toml")
    assert again.summary_json() == r.summary_json()
    run = json.loads((out / "run.json").read_text())
    assert run["overrides"] == ['apps[0].size="1 MB"'] and "command" not in run


def test_the_report_header_shows_the_provenance(tmp_path: Path) -> None:
    out = tmp_path / "res"
    r = invoke(
        "run",
        str(ROOT / "examples" / "udp-file.toml"),
        "--set",
        "apps[0].size=1 MB",
        "--seed",
        "3",
        "--out",
        str(out),
        "-q",
    )
    assert r.exit_code == 0, r.output
    assert invoke("report", str(out)).exit_code == 0
    html = (out / "report.html").read_text()
    for shown in ("apps[0].size=1 MB", "udp-file.toml", ethersim.__version__, "--seed 3"):
        assert shown in html, shown


def test_a_series_past_its_limit_is_decimated_with_its_pause_and_says_so(
    tmp_path: Path,
) -> None:
    # The client pauses the switch's port for 20 ms at 1 s; the port's series is limited
    # to 100 points over a transfer of about 1.7 s: its pause and its queue's peak still
    # show, and the command line and the report say the series was decimated.
    text = (ROOT / "examples" / "pause-tcp.toml").read_text() + (
        '\n[[series]]\nport = "switch->client"\nmax_points = 100\n'
    )
    scenario = tmp_path / "pause.toml"
    scenario.write_text(text)
    out = tmp_path / "res"
    r = invoke("run", str(scenario), "--set", "apps[0].size=200 MB", "--out", str(out))
    assert r.exit_code == 0, r.output
    assert "passed its point limit" in r.output and "lowest, highest and last" in r.output
    summary = json.loads((out / "summary.json").read_text())
    # summary.json says how each series was bounded; its points are in series.parquet.
    index = {s["quantity"]: s for s in summary["series"]}
    assert "t_ps" not in index["queue_bytes"]
    assert index["queue_bytes"]["bucket_ps"] > 0 and index["queue_bytes"]["dropped_points"] > 0
    points = pd.read_parquet(out / "series.parquet")
    queue = points[points.quantity == "queue_bytes"]
    assert len(queue) == index["queue_bytes"]["points"] <= 100
    port = next(p for p in summary["ports"] if p["node"] == "switch" and p["peer"] == "client")
    assert queue.value.max() == port["max_queue_bytes"], "the peak is kept"
    gate = points[points.quantity == "gate_open"]
    closed = gate[gate.value == 0].t_s
    assert len(closed) and abs(closed.iloc[0] - 1.0) < 0.001, "the pause at 1 s shows"
    assert invoke("report", str(out)).exit_code == 0
    assert "passed its point limit" in (out / "report.html").read_text()


def test_a_result_says_what_it_is_in_a_shell_and_a_notebook() -> None:
    name = '<script>alert("x")</script>'
    r = ethersim.run(
        ROOT / "examples" / "udp-file.toml", overrides={"apps[0].size": "1 MB", "name": name}
    )
    text = repr(r)
    assert text.startswith("<ethersim.Result ") and "seed 1" in text and "1 flows" in text
    html = r._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "udp_file" in html and "goodput_bps" in html

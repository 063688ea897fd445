"""The ethersim command: run, validate, schema, and how it reports bad input."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pytest
from scenario_edits import sets

if TYPE_CHECKING:
    from ethersim.results import Result

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "udp-file.toml"
SMALL = ["--set", "apps[0].size=5 MB"]


def ethersim(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ethersim.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


def test_run_prints_a_summary_and_writes_tables(tmp_path: Path) -> None:
    out = tmp_path / "out"
    p = ethersim("run", str(EXAMPLE), *SMALL, "--out", str(out))
    assert p.returncode == 0, p.stderr
    assert "file" in p.stdout and "server → client" in p.stdout
    summary = json.loads((out / "summary.json").read_text())
    flow = summary["flows"][0]
    assert flow["bytes_received"] == 5_000_000
    assert flow["lost"] == 0
    flows = pd.read_parquet(out / "flows.parquet")
    assert flows.loc[0, "bytes_received"] == 5_000_000
    assert "delay_p99_s" in flows.columns
    assert set(pd.read_parquet(out / "ports.parquet")["node"]) == {"server", "switch", "client"}


def test_same_seed_gives_byte_identical_summary_and_another_seed_does_not(tmp_path: Path) -> None:
    random_workload = [str(ROOT / "examples" / "poisson-fan-in.toml"), "--set", "duration=20 ms"]
    outs = {}
    for name, seed in (("a", "3"), ("b", "3"), ("c", "4")):
        outs[name] = tmp_path / name
        p = ethersim("run", *random_workload, "--seed", seed, "--out", str(outs[name]), "-q")
        assert p.returncode == 0, p.stderr
    summary = {k: (v / "summary.json").read_bytes() for k, v in outs.items()}
    assert summary["a"] == summary["b"]
    assert summary["a"] != summary["c"]


def test_out_refuses_a_folder_with_other_files(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("keep me")
    p = ethersim("run", str(EXAMPLE), *SMALL, "--out", str(tmp_path))
    assert p.returncode == 2
    assert "holds files ethersim did not write" in " ".join(p.stderr.split())
    assert "Traceback" not in p.stderr
    assert [e.name for e in tmp_path.iterdir()] == ["notes.txt"]


def test_internal_error_exits_with_status_3(monkeypatch: pytest.MonkeyPatch) -> None:
    from ethersim import _core, api, cli
    from typer.testing import CliRunner

    def panicking_run(*args: object, **kwargs: object) -> None:
        _core._trigger_panic()

    monkeypatch.setattr(api, "run", panicking_run)
    result = CliRunner().invoke(cli.app, ["run", str(EXAMPLE)])
    assert result.exit_code == 3
    assert "this is a bug in ethersim" in result.output


def test_validate_and_schema() -> None:
    p = ethersim("validate", str(EXAMPLE))
    assert p.returncode == 0 and "ok" in p.stdout, p.stderr
    schema = json.loads(ethersim("schema").stdout)
    assert schema["title"] == "Scenario"
    assert schema["additionalProperties"] is False


def test_scenario_reference_is_generated_from_the_schema() -> None:
    from ethersim import schema, schema_doc

    committed = (ROOT / "docs" / "scenarios.md").read_text(encoding="utf-8")
    assert committed == schema_doc.render(schema()), (
        "docs/scenarios.md is stale: run `ethersim schema --markdown > docs/scenarios.md`"
    )


def test_ctrl_c_stops_a_long_run() -> None:
    import signal
    import time

    # A transfer that would take minutes of wall time, started once imports are done.
    # The child takes Ctrl-C as a terminal's foreground process would, even if this test
    # runs where SIGINT is ignored (a background job of a shell without job control
    # starts with it ignored, and children inherit that).
    script = (
        "import signal, sys, ethersim\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "print('ready', flush=True)\n"
        f"ethersim.run({str(EXAMPLE)!r}, overrides={{'apps[0].size': '1000 TB'}})\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n"
        time.sleep(0.5)  # into the event loop
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert "KeyboardInterrupt" in err, err
    assert "panicked" not in err


def test_a_signal_handlers_own_exception_comes_through() -> None:
    script = (
        "import signal, ethersim\n"
        "class Timeout(Exception): pass\n"
        "def on_alarm(*_): raise Timeout('took too long')\n"
        "signal.signal(signal.SIGALRM, on_alarm)\n"
        "signal.alarm(1)\n"
        "try:\n"
        f"    ethersim.run({str(EXAMPLE)!r}, overrides={{'apps[0].size': '1000 TB'}})\n"
        "except Timeout as e:\n"
        "    print('caught', e)\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert p.stdout.strip() == "caught took too long", p.stderr


def test_cli_maps_an_interrupt_to_status_130(monkeypatch: pytest.MonkeyPatch) -> None:
    from ethersim import api, cli
    from typer.testing import CliRunner

    def interrupted_run(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(api, "run", interrupted_run)
    result = CliRunner().invoke(cli.app, ["run", str(EXAMPLE)])
    assert result.exit_code == 130
    assert "interrupted: nothing was written" in result.output


def test_run_shows_round_trips_and_dark_links() -> None:
    p = ethersim("run", str(ROOT / "examples" / "ping-outage.toml"))
    assert p.returncode == 0, p.stderr
    for fragment in ("round trips", "ping", "links", "switch ↔ client", "20 ms", "lost on wire"):
        assert fragment in p.stdout, p.stdout


def test_run_shows_tcp_figures_and_link_losses() -> None:
    loss = 'links[1].loss={ drop = [{ app = "file", frames = [100] }] }'
    scenario = ROOT / "examples" / "tcp-file.toml"
    p = ethersim("run", str(scenario), "--set", loss, "--set", "apps[0].size=1 MB")
    assert p.returncode == 0, p.stderr
    for fragment in ("tcp", "fast retx", "transfer", "frames lost", "1 → / 0 ←"):
        assert fragment in p.stdout, p.stdout


def test_set_chooses_cubic_for_a_tcp_application(tmp_path: Path) -> None:
    # One scripted loss in the TCP example: NewReno sets ssthresh to half the flight
    # (RFC 5681 equation (4)), CUBIC to 0.7 of it (RFC 9438 section 4.6).
    scenario = ROOT / "examples" / "tcp-file.toml"
    common = sets(
        'links[1].loss={ drop = [{ app = "file", frames = [100] }] }',
        'series=[{ app = "file" }]',
        "apps[0].size=1 MB",
        "apps[0].tcp.limited_transmit=false",
    )

    def first_reduction(*more: str) -> float:
        out = tmp_path / f"out{len(more)}"
        p = ethersim("run", str(scenario), *common, *more, "--out", str(out))
        assert p.returncode == 0, p.stderr
        s = pd.read_parquet(out / "tcp_series.parquet")
        ssthresh, flight = (s[s["quantity"] == q] for q in ("ssthresh", "flight"))
        t, value = ssthresh["t_ps"].iloc[1], ssthresh["value"].iloc[1]
        return float(value / flight[flight["t_ps"] <= t]["value"].iloc[-1])

    assert first_reduction() == pytest.approx(0.5, abs=1e-3)
    cubic = first_reduction(*sets("apps[0].tcp.congestion_control=cubic"))
    assert cubic == pytest.approx(0.7, abs=1e-3)


QUIET_IMPORTS = """
import sys
from ethersim.cli import main
sys.argv = ["ethersim", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
heavy = ("pandas", "pyarrow", "numpy", "pydantic", "rich.table")
heavy = sorted(m for m in heavy if m in sys.modules)
print("HEAVY", *heavy)
"""


@pytest.mark.parametrize(
    "args",
    [["run", str(EXAMPLE), *SMALL, "-q"], ["validate", str(EXAMPLE)]],
    ids=["run -q", "validate"],
)
def test_quick_commands_import_no_dataframe_library(args: list[str]) -> None:
    p = subprocess.run(
        [sys.executable, "-c", QUIET_IMPORTS, *args], capture_output=True, text=True, check=False
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().splitlines()[-1] == "HEAVY", p.stdout


@pytest.mark.parametrize(
    "example",
    sorted(p.name for p in (ROOT / "examples").glob("*.toml") if "sweep" not in p.name),
)
def test_every_example_runs_and_prints_its_mechanisms(example: str, tmp_path: Path) -> None:
    from ethersim.api import run

    result = run(ROOT / "examples" / example, output=tmp_path)
    s = result.summary
    assert s["stop_reason"] in ("work_done", "time_limit"), s["stop_reason"]
    assert all(f["packets_received"] > 0 for f in s["flows"]), example
    # The summary printer shows each mechanism's table when the run used it.
    import io

    from ethersim import cli_run, cli_summary
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(file=buffer, width=80)
    original = cli_summary.lines_output
    cli_summary.lines_output = lambda: console  # type: ignore[assignment]
    try:
        cli_run.print_summary(result)
    finally:
        cli_summary.lines_output = original
    text = buffer.getvalue()
    # Every table fits 80 columns, and no number is split across lines.
    assert max(len(line) for line in text.splitlines()) <= 80, text
    # The header line wraps between its fields, never inside one.
    for field in (r"seed \d+", r"simulated [\d.]+ \w+", r"events [\d,]+", r"wall [\d.]+ s "):
        assert re.search(field, text), (field, text)
    for f in s["flows"]:
        assert f"{f['packets_received']:,}" in text, text
    if any(p["eee"] for p in s["ports"]):
        assert "eee (802.3az)" in text
    if any(p["pause_received"] for p in s["ports"]):
        assert "pause (802.3x)" in text
    if any(link["rate_switches"] for link in s["links"]):
        assert "rate switches" in text
    if s["captures"]:
        assert "packet captures" in text
        assert all((tmp_path / c["file"]).stat().st_size > 0 for c in s["captures"])
    if any(p["rate_scaled"] for p in s["ports"]):
        assert "capacity scaling" in text and "mean service rate" in text
    if any(f["kind"] == "voip" for f in s["flows"]):
        assert "calls" in text and "MOS caller" in text


def _printed_summary(result: Result, width: int) -> str:
    """What ``ethersim run`` prints of ``result`` on a terminal ``width`` columns wide."""
    import io

    from ethersim import cli_summary
    from rich.console import Console

    buffer = io.StringIO()
    original = cli_summary.lines_output
    console = Console(file=buffer, width=width, force_terminal=False)
    cli_summary.lines_output = lambda: console  # type: ignore[assignment]
    try:
        cli_summary.print_summary(result)
    finally:
        cli_summary.lines_output = original
    return buffer.getvalue()


@pytest.mark.parametrize("example", ["pause-tcp.toml", "csma-bridged.toml", "poisson-fan-in.toml"])
def test_piped_tables_are_what_rich_prints_without_a_terminal(
    example: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Standard output that is not a terminal gets the tables without rich: the same text.
    import ethersim
    from ethersim import cli_common, cli_summary

    result = ethersim.run(ROOT / "examples" / example, overrides=["duration=5 ms"])
    flows = result.summary["flows"]
    result.summary["flows"] = [dict(f, name=f"流 {i}") for i in range(30) for f in flows[:1]]
    assert isinstance(cli_common.lines_output(), cli_common.PlainOutput), "pytest captures"
    capsys.readouterr()
    cli_summary.print_summary(result)
    plain = capsys.readouterr().out
    assert "... and 10 more flows" in plain and "流 29" not in plain
    assert plain == _printed_summary(result, width=cli_common.PIPED_WIDTH)


def test_a_run_with_many_flows_prints_the_first_rows_and_counts_the_rest() -> None:
    import ethersim
    from ethersim import cli_summary

    result = ethersim.run(ROOT / "examples" / "poisson-fan-in.toml", overrides=["duration=5 ms"])
    flows = result.summary["flows"]
    # Many flows, as a large scenario has them: the table's length must not follow them.
    result.summary["flows"] = [dict(f, name=f"f{i}") for i in range(3000) for f in flows[:1]]
    text = _printed_summary(result, width=80)
    shown = cli_summary.MAX_ROWS
    assert f" f{shown - 1} " in text and f" f{shown} " not in text, text
    assert f"... and {3000 - shown:,} more flows" in text, text
    assert len(text.splitlines()) < 120, text


def test_with_rows_hidden_the_flows_table_ends_with_every_flows_totals() -> None:
    import ethersim

    result = ethersim.run(ROOT / "examples" / "poisson-fan-in.toml", overrides=["duration=5 ms"])
    one = result.summary["flows"][0]
    counts = {"packets_sent": 10, "packets_received": 8, "lost": 2, "send_drops": 5}
    # 3,000 flows of 10 sent, 8 received, 2 lost and 5 dropped at the sender: 30,000,
    # 24,000, 6,000 and 15,000; loss (6,000 + 15,000) / (30,000 + 15,000) = 46.7%.
    result.summary["flows"] = [dict(one, name=f"f{i}", **counts) for i in range(3000)]
    text = _printed_summary(result, width=100)
    totals = [line for line in text.splitlines() if "all 3,000" in line]
    assert len(totals) == 1, text
    assert totals[0].split()[2:] == ["30,000", "24,000", "6,000", "15,000", "46.7%"], totals


TRACE = ROOT / "examples" / "traces" / "office.pcapng"
PROFILE = "t_base_s,communications,mean_bytes,bandwidth_bps\n1,100,1000,1e9\n"


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["what-if", str(TRACE), "--frames", "4294967296"], "--frames"),
        (["what-if", str(TRACE), "--time-scale", "1e300"], "--time-scale"),
        (["run", str(EXAMPLE), "--out", "o", "--pcap", "client->nowhere"], "--pcap"),
        (["run", str(EXAMPLE), "--out", "o", "--pcap", "client"], "--pcap"),
        (["run", str(EXAMPLE), "--out", "o", "--pcap", "a->b", "--pcap", "a->b"], "--pcap"),
        (
            ["run", str(EXAMPLE), "--out", "o", "--pcap", "client->switch", "--pcap-limit", "0 B"],
            "--pcap-limit",
        ),
        (["run", str(EXAMPLE), "--seed", "-1"], "--seed"),
        (["run", str(EXAMPLE), "--seed", str(2**64)], "--seed"),
        (["mpi-trace", "cg", "-o", "t.csv", "--ranks", "3"], "--ranks"),
        (["mpi-trace", "mg", "-o", "t.csv", "--ranks", "8"], "--ranks"),
        (["mpi-trace", "synthetic", "-o", "t.csv", "--size", str(2**40 + 1)], "--size"),
        (["mpi-trace", "synthetic", "-o", "t.csv", "--sleep-us", "1e300"], "--sleep-us"),
        (["model", "eee-predict", "PROFILE", "--c", "inf", "--alpha", "1", "--t", "1"], "--c"),
        (["model", "eee-predict", "PROFILE", "--c", "1", "--alpha", "0", "--t", "1"], "--alpha"),
        (["model", "eee-predict", "PROFILE", "--c", "1", "--alpha", "1", "--t", "inf"], "--t"),
    ],
    ids=lambda a: " ".join(a)[-48:] if isinstance(a, list) else str(a),
)
def test_each_option_is_checked_where_it_is_given_and_named_as_typed(
    tmp_path: Path, args: list[str], named: str
) -> None:
    """Issue 27: every case the probe found is exit 2, names the option as the user typed
    it (never a key of the scenario the command built: ``links[0].eee.policy``,
    ``captures[0].port``, ``seed``), and writes nothing."""
    profile = tmp_path.parent / f"{tmp_path.name}-profile.csv"
    profile.write_text(PROFILE)
    p = ethersim(*[str(profile) if a == "PROFILE" else a for a in args], cwd=tmp_path)
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    assert f"error: {named}:" in p.stderr, p.stderr
    said = p.stderr.split(f"error: {named}:", 1)[1]
    assert "expected" in said or "known nodes" in said, "says what is expected"
    assert not re.search(r"\b(links|captures|apps)\[\d+\]|error: seed:", p.stderr), p.stderr
    assert "Traceback" not in p.stderr
    assert list(tmp_path.iterdir()) == [], "a refused command left something behind"


@pytest.mark.parametrize("command", ["results", "plot"])
def test_a_duckdb_file_that_is_not_a_sweeps_is_exit_2_naming_db(
    tmp_path: Path, command: str
) -> None:
    """docs/cli.md: `results` and `plot` give 0 or 2 (a database that is not a sweep's is
    bad input), never a traceback with 1."""
    import duckdb

    for name, setup in (("empty.duckdb", None), ("other.duckdb", "CREATE TABLE sweeps (a INT)")):
        db = duckdb.connect(str(tmp_path / name))
        if setup:
            db.execute(setup)
        db.close()
        args = ["results", "s"] if command == "results" else ["plot", "s", "--x", "k", "--y", "m"]
        p = ethersim(*args, "--db", name, cwd=tmp_path)
        assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
        # Refused as it opens (no ethersim tables), or as it is read (tables of another
        # shape): either way bad input naming --db and what is expected.
        assert p.stderr.startswith(f"error: --db: '{name}' "), p.stderr
        assert "`ethersim sweep`" in p.stderr and "expected a" in p.stderr, p.stderr
        assert "Traceback" not in p.stderr
    assert sorted(f.name for f in tmp_path.iterdir()) == ["empty.duckdb", "other.duckdb"]

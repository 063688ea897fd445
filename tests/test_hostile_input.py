"""Hostile input at the edges of the Python front: user text printed literally, output
paths checked before the work, a closed pipe, typed API overrides, values spanning lines.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import ethersim
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scenario_edits import sets
from test_cli import ethersim as ethersim_cli

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "udp-file.toml"
SMALL = ["--set", "apps[0].size=1 MB"]


def test_user_text_in_an_error_is_printed_literally() -> None:
    p = ethersim_cli("run", str(EXAMPLE), "--set", "apps[0].to=gh[/]ost")
    assert p.returncode == 2, p.stderr
    assert 'no node named "gh[/]ost"' in p.stderr
    assert "Traceback" not in p.stderr


def test_a_scenario_path_with_brackets_is_named_as_given(tmp_path: Path) -> None:
    p = ethersim_cli("run", "exp[baseline].toml", cwd=tmp_path)
    assert p.returncode == 2
    assert "'exp[baseline].toml'" in p.stderr


def test_names_with_markup_and_control_characters_are_shown_literally() -> None:
    # The client renamed rack[b] wherever it is named: its host, its link, the transfer's end.
    client = ["hosts[1].name", "links[1].between[1]", "apps[0].to"]
    rack = sets(*(f"{path}=rack[b]" for path in client))
    p = ethersim_cli("run", str(EXAMPLE), *SMALL, *rack, "--set", "name=[/]\x1b[31mred")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("[/]\\x1b[31mred  seed 1"), p.stdout[:80]
    assert "\x1b" not in p.stdout, "a control character reached the terminal"
    assert "server → rack[b]" in p.stdout and "switch → rack[b]" in p.stdout


def test_an_output_path_that_cannot_be_used_is_refused_before_the_run(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    for out in (blocker, blocker / "below"):
        p = ethersim_cli("run", str(EXAMPLE), "--out", str(out))
        assert p.returncode == 2, p.stderr
        assert p.stdout == "", "nothing ran"
        assert "a-file" in p.stderr and "is a file" in p.stderr


@pytest.mark.parametrize(
    "args", [["run", str(EXAMPLE), *SMALL], ["validate", str(EXAMPLE)], ["schema"]]
)
def test_a_reader_that_stops_reading_is_not_a_failure(args: list[str]) -> None:
    p = subprocess.Popen(
        [sys.executable, "-m", "ethersim.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert p.stdout is not None and p.stderr is not None
    p.stdout.close()  # like `| head -0`: every write finds the pipe closed
    err = p.stderr.read()
    p.stderr.close()
    assert p.wait() == 0
    assert err == b""


def test_a_set_value_spanning_lines_is_refused() -> None:
    p = ethersim_cli("run", str(EXAMPLE), "--set", "apps[0].size=1 MB\nseed = 5")
    assert p.returncode == 2
    assert "apps[0].size: the value spans several lines" in p.stderr


def test_api_overrides_are_typed() -> None:
    r = ethersim.run(EXAMPLE, overrides={"name": "2024", "apps[0].size": "1 MB", "seed": 4})
    assert r.summary["scenario"] == "2024" and r.summary["seed"] == 4
    with pytest.raises(ethersim.ScenarioError) as e:
        ethersim.run(EXAMPLE, overrides={"description": {"a": 1}})
    assert e.value.path == "description"
    for bad in ({"seed": None}, {"seed": "7"}):
        with pytest.raises(ethersim.ScenarioError) as e:
            ethersim.run(EXAMPLE, overrides=bad)
        assert e.value.path == "seed"
    with pytest.raises(ethersim.ScenarioError) as e:
        ethersim.run(EXAMPLE, seed=True)  # type: ignore[arg-type]
    assert e.value.path == "seed"
    # One "path=value" string is one override, not one per character.
    assert (
        ethersim.run(EXAMPLE, overrides="apps[0].size=1 MB").flows.loc[0, "bytes_received"] == 1e6
    )


def test_write_errors_do_not_speak_of_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("x")
    r = ethersim.run(EXAMPLE, overrides={"apps[0].size": "1 MB"})
    with pytest.raises(ethersim.OutputError) as e:
        r.write(tmp_path / "taken")
    assert "--out" not in str(e.value)


def test_version_and_plural_counts() -> None:
    p = ethersim_cli("--version")
    assert p.returncode == 0 and p.stdout.startswith("ethersim ")
    p = ethersim_cli("validate", str(EXAMPLE))
    assert "(2 hosts, 1 switch, 2 links, 1 app)" in p.stdout


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(max_size=40))
def test_any_name_goes_through_the_api_unchanged(text: str) -> None:
    try:
        r = ethersim.run(EXAMPLE, overrides={"name": text, "apps[0].size": "10 kB"})
    except ethersim.ScenarioError as e:
        # The one refusal a name may meet: TOML cannot hold a lone surrogate.
        assert any(0xD800 <= ord(c) <= 0xDFFF for c in text), e
        return
    assert r.summary["scenario"] == text


def _arg(text: str) -> bool:
    """Whether ``text`` can be a command-line argument at all."""
    return "\x00" not in text and not any(0xD800 <= ord(c) <= 0xDFFF for c in text)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=st.text(max_size=30), key=st.sampled_from(["name", "apps[0].to", "links[0].rate"]))
def test_any_set_value_exits_0_or_2_prints_literally_and_leaves_nothing_behind(
    tmp_path_factory: pytest.TempPathFactory, value: str, key: str
) -> None:
    import json

    from ethersim.cli import _visible

    if not _arg(value):
        return
    parent = tmp_path_factory.mktemp("out")
    p = ethersim_cli(
        "run", str(EXAMPLE), *SMALL, "--set", f"{key}={value}", "--out", str(parent / "r")
    )
    assert p.returncode in (0, 2), p.stderr
    assert "Traceback" not in p.stderr
    left = sorted(x.name for x in parent.iterdir())
    assert left == (["r"] if p.returncode == 0 else []), left
    if p.returncode == 0:
        # The scenario's name (as the value was read) heads the output, as it is.
        name = json.loads((parent / "r" / "summary.json").read_text())["scenario"]
        assert p.stdout.startswith(_visible(name) + "  seed "), (name, p.stdout[:80])
    else:
        assert p.stderr.startswith("error: "), p.stderr


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.text(min_size=1, max_size=30))
def test_any_scenario_path_exits_2_and_is_named_literally(
    tmp_path_factory: pytest.TempPathFactory, path: str
) -> None:
    from ethersim.cli import _visible

    if not _arg(path) or path.startswith("-"):
        return  # an option, or not an argument at all
    cwd = tmp_path_factory.mktemp("cwd")
    p = ethersim_cli("validate", path, cwd=cwd)
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr
    assert _visible(repr(path)) in p.stderr or _visible(path) in p.stderr, p.stderr


def test_sigterm_stops_a_run_like_ctrl_c(tmp_path: Path) -> None:
    import signal
    import time

    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "ethersim.cli", "run", str(EXAMPLE)),
            *("--set", "apps[0].size=1000 TB", "--out", str(tmp_path / "out")),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(3.0)  # imports done (even on a loaded machine), into the event loop
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    assert "terminated: nothing was written" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("attempt", range(6))
def test_a_signal_at_any_instant_leaves_results_whole_or_absent(
    tmp_path: Path, attempt: int
) -> None:
    """SIGINT or SIGTERM at a random instant of a run that writes results: the folder is
    complete or absent, an earlier results folder survives, and nothing hidden remains."""
    import random
    import signal
    import time

    from ethersim.results import RESULT_FILES

    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "ethersim.cli", "run", str(EXAMPLE), "--set", "apps[0].size=20 MB"]
    first = subprocess.run([*cmd, "--out", str(out), "-q"], capture_output=True, check=False)
    assert first.returncode == 0
    before = (out / "summary.json").read_text()
    rng = random.Random(attempt)
    sig = signal.SIGTERM if attempt % 2 else signal.SIGINT
    proc = subprocess.Popen(
        [*cmd, "--seed", "2", "--out", str(out), "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    time.sleep(rng.uniform(0.1, 1.5))  # in start-up, the run, the write, or after
    proc.send_signal(sig)
    proc.communicate(timeout=60)
    assert proc.returncode in (0, 130, 143, -sig), proc.returncode
    assert [p.name for p in tmp_path.iterdir()] == ["out"], "no hidden folder remains"
    assert {p.name for p in out.iterdir()} == RESULT_FILES | {"scenario.toml"}, "whole results"
    if proc.returncode != 0:
        assert (out / "summary.json").read_text() == before, "the earlier results survive"


def test_results_folders_follow_the_umask(tmp_path: Path) -> None:
    import os

    r = ethersim.run(EXAMPLE, overrides={"apps[0].size": "1 MB"})
    old = os.umask(0o022)
    try:
        out = r.write(tmp_path / "res")
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o755


def test_pointless_scenarios_are_warned_about_and_show_no_fake_statistics(tmp_path: Path) -> None:
    late = ["duration=1 s", "apps[0].size=1 MB", "apps[0].start=2 s"]
    for text, overrides, warning in (
        ("", [], "the scenario has no applications and no MPI jobs"),
        (
            EXAMPLE.read_text(),
            late,
            "apps[0] starts at 2 s, at or after the run's duration (1 s): it sends nothing",
        ),
    ):
        scenario = tmp_path / "s.toml"
        scenario.write_text(text)
        p = ethersim_cli("run", str(scenario), *sets(*overrides))
        assert p.returncode == 0, p.stderr
        assert f"warning: {warning}" in p.stderr
    assert "0 ps" not in p.stdout and "\N{EN DASH}" in p.stdout, p.stdout


def test_a_scenario_whose_traffic_is_mpi_jobs_is_not_said_to_carry_none() -> None:
    mpi = EXAMPLE.parent / "mpi-trace-two-switches.toml"
    p = ethersim_cli("run", str(mpi), "-q")
    assert p.returncode == 0, p.stderr
    assert "no applications" not in p.stderr, p.stderr


def test_only_a_regular_file_of_bounded_size_is_read(tmp_path: Path) -> None:
    p = ethersim_cli("validate", "/dev/zero")
    assert p.returncode == 2
    assert "'/dev/zero' is a character device; expected a scenario file" in p.stderr
    huge = tmp_path / "huge.toml"
    huge.write_bytes(b"# padding\n" * (2 << 20))  # 20 MiB of comments
    p = ethersim_cli("validate", str(huge))
    assert p.returncode == 2
    assert "is larger than 16 MiB" in p.stderr


def test_a_scenario_can_come_from_standard_input() -> None:
    p = subprocess.run(
        [sys.executable, "-m", "ethersim.cli", "run", "-", *SMALL, "-q"],
        input=EXAMPLE.read_text(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 0, p.stderr


def test_max_wall_stops_a_run_that_would_go_on_for_hours(tmp_path: Path) -> None:
    p = ethersim_cli(
        "run",
        str(EXAMPLE),
        "--set",
        "apps[0].size=1000 TB",
        "--max-wall",
        "1",
        "--out",
        str(tmp_path / "o"),
    )
    # It ends the run keeping what was simulated (tests/test_bounded_runs.py checks it).
    assert p.returncode == 0, p.stderr
    assert "note: the run reached --max-wall (1 s) at simulated time" in p.stderr
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["stop_reason"] == "wall_limit"


def test_progress_is_reported_and_can_stop_a_run() -> None:
    seen: list[tuple[float, int, float | None]] = []

    class Enough(Exception):
        pass

    def progress(sim_s: float, events: int, until_s: float | None) -> None:
        seen.append((sim_s, events, until_s))
        if len(seen) == 3:
            raise Enough

    with pytest.raises(Enough):
        ethersim.run(
            EXAMPLE, overrides={"apps[0].size": "1000 TB", "duration": "1000 s"}, progress=progress
        )
    assert [s[2] for s in seen] == [1000.0] * 3
    assert seen[0][0] < seen[1][0] < seen[2][0] and seen[0][1] < seen[1][1] < seen[2][1]


def test_two_writers_of_one_folder_never_both_succeed(tmp_path: Path) -> None:
    from ethersim.results import writing_lock

    r = ethersim.run(EXAMPLE, overrides={"apps[0].size": "1 MB"})
    out = tmp_path / "res"
    with writing_lock(out):  # another writer is busy with the folder
        with pytest.raises(ethersim.OutputError, match="another ethersim is writing results"):
            r.write(out)
    assert not out.exists()
    r.write(out)  # once it is done, the folder is free
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res"], "no lock file is left"


def test_an_80_column_terminal_cuts_no_number(monkeypatch: pytest.MonkeyPatch) -> None:
    from ethersim import cli_run, cli_summary
    from rich.console import Console

    narrow = Console(width=80, record=True, file=open(os.devnull, "w"))
    monkeypatch.setattr(cli_summary, "lines_output", lambda: narrow)
    r = ethersim.run(EXAMPLE, overrides={"apps[0].size": "12345 kB"})
    cli_run.print_summary(r)
    text = narrow.export_text()
    narrow.file.close()
    assert "…" not in text, text
    assert max(len(line) for line in text.splitlines()) <= 80, text
    # No number is folded: the packets received appear whole on one line.
    assert f"{r.flows.loc[0, 'packets_received']:,}" in text, text


def test_help_names_plain_placeholders() -> None:
    p = ethersim_cli("run", "--help")
    assert p.returncode == 0
    for fragment in ("SCENARIO", "DIR", "KEY=VALUE", "SEED", "SECONDS", "--max-wall"):
        assert fragment in p.stdout, p.stdout
    for bad in ("list[", "<bool>", "range>", "<str>", "<path>", "<int>"):
        assert bad not in p.stdout, p.stdout


def test_output_paths_that_cannot_work_are_refused_before_the_run(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("the user's own file")
    bad_utf8 = os.fsdecode(b"o\xff")
    for out, fragment in (
        (bad_utf8, "is not a valid UTF-8 path"),
        ("nothere/..", "holds files ethersim did not write"),  # resolves to the cwd
    ):
        p = ethersim_cli("run", str(EXAMPLE), *SMALL, "--out", out, cwd=tmp_path)
        assert p.returncode == 2, p.stderr
        assert fragment in p.stderr and p.stdout == ""
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"], "nothing made on the way"


def test_a_results_link_updates_the_folder_it_points_to(tmp_path: Path) -> None:
    r = ethersim.run(EXAMPLE, overrides={"apps[0].size": "1 MB"})
    r.write(tmp_path / "real")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    ethersim.run(EXAMPLE, overrides={"apps[0].size": "2 MB"}).write(tmp_path / "link")
    assert (tmp_path / "link").is_symlink()
    assert '"bytes_received": 2000000' in (tmp_path / "real" / "summary.json").read_text()


def test_a_failing_standard_output_is_an_error_not_a_traceback() -> None:
    with open("/dev/full", "w") as full:
        p = subprocess.run(
            [sys.executable, "-m", "ethersim.cli", "run", str(EXAMPLE), *SMALL],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    assert p.returncode == 1
    assert p.stderr.startswith("error: cannot write to standard output"), p.stderr


def test_odd_values_are_refused_naming_what_was_wrong() -> None:
    p = ethersim_cli("run", str(EXAMPLE), "--max-wall", "nan")
    assert p.returncode == 2 and "--max-wall: nan is not a number of seconds" in p.stderr
    for overrides, path in ((5, "overrides"), (b"seed=1", "overrides"), ({"seed": 2**64}, "seed")):
        with pytest.raises(ethersim.ScenarioError) as e:
            ethersim.run(EXAMPLE, overrides=overrides)  # type: ignore[arg-type]
        assert e.value.path == path
    with pytest.raises(ethersim.ScenarioError, match="embedded null byte"):
        ethersim.run("a\x00b")


def test_typer_usage_errors_escape_format_characters() -> None:
    p = ethersim_cli("run", str(EXAMPLE), "--bogus\u202ex")
    assert p.returncode == 2
    assert "\u202e" not in p.stderr and "--bogus\\u202ex" in p.stderr, p.stderr


def test_bytes_that_are_not_utf8_are_escaped_in_messages(tmp_path: Path) -> None:
    name = os.fsdecode(b"sc\xff.toml")
    p = subprocess.run(
        [sys.executable, "-m", "ethersim.cli", "validate", name],
        capture_output=True,
        cwd=tmp_path,
        check=False,
    )
    assert p.returncode == 2
    assert b"\xff" not in p.stderr and b"\\udcff" in p.stderr, p.stderr


def test_a_sigterm_before_a_command_takes_over_exits_143_without_a_traceback() -> None:
    """A SIGTERM that lands while the command line is still being parsed (a busy machine
    stretches that window) is mapped in one place, ``main``: exit 143 and one line."""
    code = (
        "import ethersim.cli as c\n"
        "from ethersim.cli_common import Terminated\n"
        "def parsing(*a, **k):\n"
        "    raise Terminated\n"
        "c._app_for = lambda args: parsing\n"
        "c.main()\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert p.returncode == 143, p.stderr
    assert p.stderr.strip() == "terminated: nothing was written"

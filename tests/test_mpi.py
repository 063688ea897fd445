"""MPI jobs from Python and the command line: trace replay against the synthetic
benchmark, the shipped traces, the tables a run reports, and bad traces."""

from __future__ import annotations

from pathlib import Path

import ethersim
import pytest
from cli_helpers import invoke
from ethersim import mpi_traces
from scenario_edits import sets

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def star(job: str, eee: bool = True) -> str:
    """Four hosts on one switch, 1000BASE-T EEE links (100 us timeout), and ``job``."""
    eee_text = 'eee = { phy = "1000BASE-T", policy = { kind = "timeout", timeout = "100 us" } }\n'
    text = '[[switches]]\nname = "sw"\n'
    for i in range(4):
        text += (
            f'[[hosts]]\nname = "n{i}"\n[[links]]\nbetween = ["n{i}", "sw"]\n'
            f'rate = "1 Gb/s"\ndelay = "1 us"\n{eee_text if eee else ""}'
        )
    return text + job


JOB = """[[mpi_jobs]]
name = "a2a"
nodes = ["n0", "n1", "n2", "n3"]
processes_per_node = 2
overhead = {{ fixed = "3 us", per_byte = "0.25 ns" }}
{program}
"""


def test_replaying_the_synthetic_benchmarks_own_trace_gives_its_results_exactly(
    tmp_path: Path,
) -> None:
    trace = tmp_path / "a2a.csv"
    mpi_traces.write_trace(mpi_traces.synthetic(8, "alltoall", 3000, 150.5, 12), trace)
    synthetic = star(
        JOB.format(
            program='synthetic = { collective = "alltoall", bytes = "3000 B", '
            'sleep = "150.5 us", iterations = 12 }'
        )
    )
    replayed = star(JOB.format(program=f"trace = {str(trace)!r}"))
    a, b = ethersim.run_text(synthetic).summary, ethersim.run_text(replayed).summary
    assert a["jobs"][0]["completed"] and a["jobs"][0]["messages"] == 12 * 8 * 6
    for key in ("jobs", "job_nodes", "ports", "flows", "idle_intervals", "events", "sim_time_ps"):
        assert a[key] == b[key], key


def test_the_shipped_traces_are_what_the_generator_writes(tmp_path: Path) -> None:
    for pattern in ("ft", "cg", "mg"):
        out = tmp_path / f"{pattern}.csv"
        r = invoke("mpi-trace", pattern, "--ranks", "16", "--iterations", "20", "-o", str(out))
        assert r.exit_code == 0, r.output
        shipped = EXAMPLES / "traces" / f"{pattern}-16.csv"
        assert out.read_bytes() == shipped.read_bytes(), pattern


@pytest.mark.parametrize("pattern", ["ft", "cg", "mg"])
def test_every_shipped_trace_runs_to_completion_across_two_switches(pattern: str) -> None:
    # The example places the job on two edge switches; relative trace paths are relative to
    # the scenario file, wherever the run starts.
    result = ethersim.run(
        EXAMPLES / "mpi-trace-two-switches.toml",
        overrides={"mpi_jobs[0].trace": str(EXAMPLES / "traces" / f"{pattern}-16.csv")},
    )
    job = result.jobs.iloc[0]
    assert bool(job.completed) and job.ranks == 16
    nodes = result.job_nodes
    # Every message sent between hosts arrived whole.
    assert nodes.messages_sent.sum() == nodes.messages_received.sum() > 0
    assert nodes.bytes_sent.sum() == nodes.bytes_received.sum()
    # The idle-interval table sums to each port's count of gaps.
    bins = result.idle_intervals.groupby(["node", "peer"])["count"].sum()
    for p in result.ports.itertuples():
        assert bins.get((p.node, p.peer), 0) == p.idle_count


def test_the_example_finds_its_trace_relative_to_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    r = invoke("run", str(EXAMPLES / "mpi-trace-two-switches.toml"), "--out", str(out))
    assert r.exit_code == 0, r.output
    assert "mpi jobs" in r.output
    for table in ("jobs", "job_nodes", "idle_intervals"):
        assert (out / f"{table}.parquet").is_file()


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("0,0,bcast,8,", "line 3: call 'bcast'"),
        ("9,0,barrier,,", "line 3: rank '9'"),
        ("0,0,send,8,8", "line 3: peer '8'"),
        ("0,0,send,8,7", "rank 0 sends rank 7 1 messages"),
    ],
)
def test_a_bad_trace_names_the_key_the_file_and_the_line(
    tmp_path: Path, row: str, message: str
) -> None:
    trace = tmp_path / "bad.csv"
    trace.write_text(f"# a comment\nrank,compute_us,call,bytes,peers\n{row}\n")
    scenario = tmp_path / "s.toml"
    scenario.write_text(star(JOB.format(program='trace = "bad.csv"')))
    out = tmp_path / "out"
    r = invoke("run", str(scenario), "--out", str(out))
    assert r.exit_code == 2
    assert "mpi_jobs[0].trace" in r.output and str(trace) in r.output
    assert message.replace("'", '"') in r.output
    assert not out.exists()


def test_a_trace_that_cannot_be_read_or_a_job_without_a_program_is_refused(
    tmp_path: Path,
) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text(star(JOB.format(program='trace = "missing.csv"')))
    r = invoke("validate", str(scenario))
    assert r.exit_code == 2 and "cannot read the trace" in r.output
    scenario.write_text(star(JOB.format(program="")))
    r = invoke("validate", str(scenario))
    assert r.exit_code == 2 and "exactly one of `synthetic` and `trace`" in r.output


def test_mpi_trace_refuses_an_unknown_pattern_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "t.csv"
    r = invoke("mpi-trace", "lu", "-o", str(out))
    assert r.exit_code == 2 and "PATTERN" in r.output
    r = invoke("mpi-trace", "cg", "--ranks", "15", "-o", str(out))
    assert r.exit_code == 2 and "even number" in r.output
    assert list(tmp_path.iterdir()) == []


BARRIER = 'synthetic = { collective = "barrier", iterations = 1 }'


@pytest.mark.parametrize(
    ("program", "overrides", "key"),
    [
        (
            'synthetic = { collective = "barrier", iterations = 2000000000 }',
            [],
            "synthetic.iterations",
        ),
        (
            'synthetic = { collective = "alltoall", bytes = "2 TiB", iterations = 1 }',
            [],
            "synthetic.bytes",
        ),
        (
            'synthetic = { collective = "barrier", bytes = "1 B", iterations = 1 }',
            [],
            "synthetic.bytes",
        ),
        ('synthetic = { collective = "gather", iterations = 1 }', [], "synthetic.collective"),
        (BARRIER, ["mpi_jobs[0].processes_per_node=0"], "processes_per_node"),
        ('segment = "9000 B"\n' + BARRIER, [], "segment"),
    ],
)
def test_bad_job_values_name_their_key(
    tmp_path: Path, program: str, overrides: list[str], key: str
) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text(star(JOB.format(program=program)))
    r = invoke("validate", str(scenario), *sets(*overrides))
    assert r.exit_code == 2, r.output
    assert f"mpi_jobs[0].{key}" in r.output, r.output

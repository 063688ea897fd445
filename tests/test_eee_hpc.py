"""``ethersim reproduce eee-hpc``: the output contract, and every cell against what the
workload and Low Power Idle's rules imply."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest
from cli_helpers import invoke
from ethersim.errors import ScenarioError
from ethersim.studies import eee_hpc as study

POINT_COLUMNS = (
    "processes",
    "sleep_us",
    "array_bytes",
    "iterations",
    "communications_per_node",
    "mean_bytes",
    "idle_interval_us",
    "elapsed_off_s",
    "elapsed_on_s",
    "overhead_percent",
    "energy_saved_percent",
)
MODEL_COLUMNS = (
    "processes",
    "model",
    "c",
    "alpha_per_us",
    "t_us",
    "mean_error_percent",
    "worst_error_percent",
    "worst_cell",
)


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("eee-hpc") / "quick"
    r = invoke("reproduce", "eee-hpc", "--quick", "--out", str(out), "-q")
    assert r.exit_code == 0, r.output
    assert (out / "report.html").is_file(), "every reproduction ends with its report"
    return out


def test_quick_writes_the_contracted_files_and_columns(quick: Path) -> None:
    points = pd.read_csv(quick / "eee_hpc_points.csv")
    models = pd.read_csv(quick / "eee_hpc_model.csv")
    assert list(points.columns[: len(POINT_COLUMNS)]) == list(POINT_COLUMNS)
    assert list(models.columns[: len(MODEL_COLUMNS)]) == list(MODEL_COLUMNS)
    assert set(points.processes) == {4, 16}
    assert points.sleep_us.min() == 0 and points.sleep_us.max() == 1000
    assert sorted(zip(models.processes, models.model, strict=True)) == [
        (4, "distribution"),
        (4, "mean-interval"),
        (16, "distribution"),
        (16, "mean-interval"),
    ]
    assert models[["c", "alpha_per_us", "t_us", "mean_error_percent"]].notna().all().all()
    for name in ("fit_mean_interval", "predicted_vs_simulated", "overhead_and_energy"):
        for ext in ("png", "svg"):
            assert (quick / "figures" / f"{name}.{ext}").stat().st_size > 1000
    assert "mean-interval" in (quick / "summary.md").read_text()


def test_each_cell_has_the_profile_the_workload_implies(quick: Path) -> None:
    t = pd.read_csv(quick / "eee_hpc_points.csv")
    per_node = t.processes // study.NODES
    # Each rank sends one block to every rank on another host per iteration.
    expected = t.iterations * per_node * (t.processes - per_node)
    assert (t.communications_per_node == expected).all()
    assert (t.mean_bytes == t.array_bytes).all()
    assert (t.pair_bytes == t.array_bytes).all()
    # With EEE off, a sleep adds exactly itself to every iteration.
    for _, cells in t.groupby(["processes", "array_bytes"]):
        base = cells[cells.sleep_us == 0].iloc[0]
        added = cells.elapsed_off_s - base.elapsed_off_s
        assert added.to_numpy() == pytest.approx(
            (cells.iterations * cells.sleep_us * 1e-6).to_numpy(), rel=1e-9
        )


def test_the_whole_buffer_reading_sends_an_equal_block_to_every_rank() -> None:
    """--array-reading buffer: the paper's array is MPI_Alltoall's whole send buffer, so
    each pair exchanges array / ranks bytes; the per-pair reading sends the array itself.
    A run's traffic says which: a node's mean bytes per communication is the block."""
    from ethersim.api import run_text

    options = study.Options(quick=True, array_reading="buffer")
    assert options.pair_bytes(4096, 4) == 1024 and options.pair_bytes(4096, 16) == 256
    assert study.Options(quick=True).pair_bytes(4096, 16) == 4096
    for processes, block in ((4, 1024), (16, 256)):
        job = run_text(study.scenario(processes, 0, 4096, False, 2, options)).summary["jobs"][0]
        assert job["mean_bytes"] == block
    with pytest.raises(ScenarioError) as e:
        study.check(study.Options(array_reading="whole"))
    assert e.value.path == "--array-reading" and "pair, buffer" in e.value.message


def test_eee_costs_only_where_links_sleep_and_at_most_a_sleep_and_a_wake_per_hop(
    quick: Path,
) -> None:
    t = pd.read_csv(quick / "eee_hpc_points.csv")
    assert (t.overhead_percent >= 0).all()
    awake = t[t.lpi_sleeps_per_link == 0]
    assert (awake.overhead_percent == 0).all() and (awake.energy_saved_percent == 0).all()
    slept = t[t.lpi_sleeps_per_link > 0]
    assert len(slept) > 0
    # A message crosses two links (its sender's and its receiver's); at each, a frame waits
    # at most the rest of a sleep and a wake for every time that link slept.
    bound_s = slept.lpi_sleeps_per_link * 2 * (study.SLEEP_US + study.WAKE_US) * 1e-6
    assert (slept.elapsed_on_s - slept.elapsed_off_s <= bound_s + 1e-12).all()


def test_a_reproduction_is_deterministic(quick: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    r = invoke("reproduce", "eee-hpc", "--quick", "--out", str(again), "-q")
    assert r.exit_code == 0, r.output
    for name in ("eee_hpc_points.csv", "eee_hpc_model.csv"):
        assert (again / name).read_bytes() == (quick / name).read_bytes()


def test_the_model_commands_refit_and_repredict_the_distribution_variant(
    quick: Path, tmp_path: Path
) -> None:
    points = pd.read_csv(quick / "eee_hpc_points.csv")
    models = pd.read_csv(quick / "eee_hpc_model.csv")
    gaps = quick / "eee_hpc_gaps.csv"
    mine = points[(points.processes == 16) & points.fitted]
    subset = tmp_path / "fit.csv"
    mine[["point", "overhead_us"]].to_csv(subset, index=False)
    r = invoke("model", "eee-fit", str(subset), "--gaps", str(gaps))
    assert r.exit_code == 0, r.output
    fitted = models[(models.processes == 16) & (models.model == "distribution")].iloc[0]
    t_us = float(r.output.split("t = ")[1].split(" us")[0])
    assert t_us == pytest.approx(fitted.t_us, rel=1e-5)
    # Predicting every 16-process cell from its profile and gaps gives the study's figures.
    cells = points[points.processes == 16]
    profile = tmp_path / "profile.csv"
    cells.assign(t_base_s=cells.elapsed_off_s, communications=cells.communications_per_node)[
        ["point", "t_base_s", "communications"]
    ].to_csv(profile, index=False)
    args = ["--c", repr(float(fitted.c)), "--alpha", repr(float(fitted.alpha_per_us))]
    args += ["--t", repr(float(fitted.t_us))]
    r = invoke("model", "eee-predict", str(profile), "--gaps", str(gaps), *args)
    assert r.exit_code == 0, r.output
    predicted = pd.read_csv(io.StringIO(r.output))
    assert predicted.elapsed_s.to_numpy() == pytest.approx(
        cells.predicted_on_s_distribution.to_numpy(), rel=1e-12
    )
    # The mean-interval fit reads the points file as written (its idle_interval_us).
    r = invoke("model", "eee-fit", str(quick / "eee_hpc_points.csv"))
    assert r.exit_code == 0, r.output

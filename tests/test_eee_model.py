"""The EEE performance model: its closed forms, and fits that recover the parameters of
points the model itself generated (with noise, fixed seeds)."""

from __future__ import annotations

import io
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_helpers import invoke
from ethersim.errors import ScenarioError
from ethersim.models.eee_perf import (
    EeeModel,
    fit_distribution,
    fit_gaps,
    fit_mean_interval,
    gaps_penalty_us,
    idle_interval_us,
    penalty_us,
)

TRUE = EeeModel(c_us=60.0, alpha_per_us=0.01, t_us=1000.0)


def test_the_penalty_is_zero_up_to_the_timeout_then_rises_to_c() -> None:
    got = penalty_us([0.0, 999.0, 1000.0, 1100.0, 1e6], 60.0, 0.01, 1000.0)
    assert list(got[:3]) == [0.0, 0.0, 0.0]
    assert got[3] == pytest.approx(60.0 * (1 - math.exp(-1.0)), rel=1e-12)
    assert got[4] == pytest.approx(60.0, rel=1e-12)


def test_the_idle_interval_is_the_time_per_communication_less_its_transfer() -> None:
    # 1 s, 1000 communications of 1250 B at 1 Gb/s: 1000 us less 10 us on the wire.
    assert idle_interval_us(1.0, 1000, 1250, 1e9) == pytest.approx(990.0, rel=1e-12)
    with pytest.raises(ScenarioError, match="need more than its time"):
        idle_interval_us(1e-3, 1000, 1250, 1e9)
    with pytest.raises(ScenarioError, match="communications"):
        idle_interval_us(1.0, 0, 1250, 1e9)


def test_elapsed_time_adds_n_penalties() -> None:
    # I = 2000 - 10 us: f = 60 (1 - e^-9.9); 500 communications over 1.005 s.
    t = TRUE.elapsed_s(1.005, 500, 1250, 1e9)
    interval = 1.005 / 500 * 1e6 - 10.0
    assert t == pytest.approx(1.005 + 500 * 60.0 * -math.expm1(-0.01 * (interval - 1000)) * 1e-6)
    assert TRUE.elapsed_from_intervals_s(1.0, 2, [500.0, 1e9]) == pytest.approx(1.0 + 2 * 30e-6)


def test_a_fit_recovers_the_parameters_of_noisy_model_points() -> None:
    rng = np.random.default_rng(11)
    intervals = np.linspace(200.0, 5000.0, 60)
    overheads = TRUE.penalty_us(intervals) + rng.normal(0.0, 0.5, intervals.size)
    fit = fit_mean_interval(intervals, overheads)
    assert fit.model.c_us == pytest.approx(TRUE.c_us, rel=0.03)
    assert fit.model.alpha_per_us == pytest.approx(TRUE.alpha_per_us, rel=0.15)
    assert fit.model.t_us == pytest.approx(TRUE.t_us, abs=30.0)
    assert fit.rms_us < 0.7 and fit.points == 60


def test_the_distribution_aware_fit_recovers_the_parameters_from_interval_samples() -> None:
    rng = np.random.default_rng(5)
    samples = [rng.exponential(mean, 400) for mean in np.linspace(300.0, 6000.0, 30)]
    overheads = np.array([TRUE.penalty_us(s).mean() for s in samples])
    overheads += rng.normal(0.0, 0.3, overheads.size)
    fit = fit_distribution(samples, overheads)
    assert fit.model.c_us == pytest.approx(TRUE.c_us, rel=0.05)
    assert fit.model.alpha_per_us == pytest.approx(TRUE.alpha_per_us, rel=0.25)
    assert fit.model.t_us == pytest.approx(TRUE.t_us, abs=80.0)


def test_the_gap_histogram_fit_recovers_the_parameters() -> None:
    # Points as a simulation reports them: histograms of idle gaps (values, and gaps of
    # each value per communication), the overhead per communication their penalties sum to.
    rng = np.random.default_rng(11)
    points = []
    for mean in np.linspace(500.0, 4000.0, 30):
        values = np.sort(rng.uniform(0.8 * mean, 1.2 * mean, 50))
        weights = np.full(values.size, rng.uniform(0.2, 1.0) / values.size)
        points.append((values, weights))
    overheads = np.array([gaps_penalty_us(TRUE, v, w) for v, w in points])
    overheads += rng.normal(0.0, 0.2, overheads.size)
    fit = fit_gaps(points, overheads)
    assert fit.model.c_us == pytest.approx(TRUE.c_us, rel=0.05)
    assert fit.model.alpha_per_us == pytest.approx(TRUE.alpha_per_us, rel=0.25)
    assert fit.model.t_us == pytest.approx(TRUE.t_us, abs=80.0)
    with pytest.raises(ScenarioError, match="one weight per gap"):
        fit_gaps([(np.ones(3), np.ones(2))] * 3, [0.0, 0.0, 0.0])


def test_too_few_or_unequal_points_are_refused() -> None:
    with pytest.raises(ScenarioError, match="at least 3"):
        fit_mean_interval([1.0, 2.0], [0.0, 1.0])
    with pytest.raises(ScenarioError, match="as many overheads"):
        fit_mean_interval([1.0, 2.0, 3.0], [0.0, 1.0])
    with pytest.raises(ScenarioError, match="finite"):
        fit_mean_interval([1.0, 2.0, float("nan")], [0.0, 1.0, 2.0])


def test_the_cli_fits_points_and_predicts_profiles(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    intervals = np.linspace(200.0, 5000.0, 40)
    overheads = TRUE.penalty_us(intervals) + rng.normal(0.0, 0.5, intervals.size)
    points = tmp_path / "points.csv"
    pd.DataFrame({"interval_us": intervals, "overhead_us": overheads}).to_csv(points, index=False)
    r = invoke("model", "eee-fit", str(points))
    assert r.exit_code == 0, r.output
    c = float(r.output.split("c = ")[1].split(" us")[0])
    assert c == pytest.approx(TRUE.c_us, rel=0.05)
    profile = tmp_path / "profile.csv"
    pd.DataFrame(
        {"t_base_s": [1.0], "communications": [1000], "mean_bytes": [1250], "bandwidth_bps": [1e9]}
    ).to_csv(profile, index=False)
    r = invoke("model", "eee-predict", str(profile), "--c", "60", "--alpha", "0.01", "--t", "980")
    assert r.exit_code == 0, r.output
    row = pd.read_csv(io.StringIO(r.output)).iloc[0]
    assert row.interval_us == pytest.approx(990.0)
    assert row.elapsed_s == pytest.approx(1.0 + 1000 * 60 * -math.expm1(-0.01 * 10) * 1e-6)


def test_the_cli_names_a_bad_points_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("interval_us,overhead\n1,2\n")
    r = invoke("model", "eee-fit", str(bad))
    assert r.exit_code == 2
    assert "missing column(s) overhead_us" in " ".join(r.output.split())

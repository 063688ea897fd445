"""``ethersim reproduce capacity-scaling``: the output contract, the pairing of runs,
the results against what the power model and the mechanism imply, and resuming from the
results database."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from cli_helpers import invoke
from ethersim.sizing import bdp_bytes, bdp_frames
from ethersim.studies import capacity_scaling as study

COLUMNS = [
    "setting",
    "rtt_ms",
    "mrci_ms",
    "b_on_ms",
    "bn_s",
    "replications",
    "mean_service_rate_mbps",
    "mean_service_rate_ci_mbps",
    "throughput_reduction_percent",
    "throughput_reduction_ci_percent",
    "rate_changes",
    "loss_percent_pc",
    "loss_percent_nopc",
    "energy_saved_percent",
]


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("capacity")
    out = folder / "quick"
    r = invoke(
        "reproduce",
        "capacity-scaling",
        "--quick",
        "--out",
        str(out),
        "--db",
        str(folder / "db.duckdb"),
        "-q",
    )
    assert r.exit_code == 0, r.output
    assert (out / "report.html").is_file(), "every reproduction ends with its report"
    return out


def test_quick_writes_the_contracted_files_and_columns(quick: Path) -> None:
    text = (quick / "capacity_scaling.csv").read_text()
    assert text.splitlines()[0].split(",")[: len(COLUMNS)] == COLUMNS
    t = pd.read_csv(quick / "capacity_scaling.csv")
    pd.testing.assert_frame_equal(pd.read_parquet(quick / "capacity_scaling.parquet"), t)
    options = study.Options(quick=True)
    per_setting = len(options.rtts_ms()) * len(options.mrcis_ms())
    assert (t.setting.value_counts() == per_setting).all() and set(t.setting) == set(study.SETTINGS)
    # b_on and BN are empty where the setting has none.
    assert t[t.setting != "background"].b_on_ms.isna().all()
    assert t[t.setting != "bottleneck"].bn_s.isna().all()
    assert (t[t.setting == "background"].b_on_ms == 10).all()
    assert (t[t.setting == "bottleneck"].bn_s == 0.5).all()
    assert (t.replications == options.reps).all()
    for ts in quick.glob("timeseries/*.parquet"):
        s = pd.read_parquet(ts)
        assert {
            "t_s",
            "arrival_rate_mbps",
            "service_rate_mbps",
            "cwnd_bytes",
            "power_control",
        } <= set(s)
        assert set(s.power_control) == {True, False}
    assert len(list(quick.glob("timeseries/*.parquet"))) == len(options.timeseries_cells())
    for metric, _, _ in study.FIGURES:
        for setting in study.SETTINGS:
            for ext in ("png", "svg"):
                assert (quick / "figures" / f"{metric}_{setting}.{ext}").stat().st_size > 1000
    assert "Capacity scaling" in (quick / "summary.md").read_text()
    assert (quick / "sweeps" / "bottleneck-sweep.toml").exists()


def test_runs_are_paired_and_share_what_they_must(quick: Path) -> None:
    pairs = pd.read_csv(quick / "capacity_scaling_pairs.csv")
    assert (pairs.seed_pc == pairs.seed_nopc).all()
    b = pairs[pairs.setting == "bottleneck"]
    assert (b.bottleneck_changes_pc == b.bottleneck_changes_nopc).all() and (
        b.bottleneck_changes_pc > 0
    ).all()
    assert (b.bottleneck_mean_pc_bps == b.bottleneck_mean_nopc_bps).all()
    g = pairs[pairs.setting == "background"]
    assert (g.background_generated_pc == g.background_generated_nopc).all()
    # Without power control the port never changes rate and runs at 10 Mb/s.
    assert (pairs.rate_changes_nopc == 0).all() and (pairs.service_rate_nopc_bps == 10e6).all()
    # The replications of a random setting differ; TCP alone draws nothing.
    assert b.groupby(["rtt_ms", "mrci_ms"]).throughput_pc_bps.nunique().min() > 1


def test_results_follow_the_power_model_and_the_mechanism(quick: Path) -> None:
    t = pd.read_csv(quick / "capacity_scaling.csv")
    pairs = pd.read_csv(quick / "capacity_scaling_pairs.csv")
    options = study.Options(quick=True)
    assert t.mean_service_rate_mbps.between(1, 10).all()
    # Linear power, P = Pmax (s + (1 - s) r / rmax): the energy saved is (1 - s) times the
    # reduction of the mean service rate, up to the dark times (each at the higher rate's
    # power while the mean rate counts the old one): at most 1 ms per change.
    s = options.static_fraction
    dark_share = 100 * pairs.rate_changes_pc * options.dark_ms / 1000 / options.seconds
    saved = 100 * (1 - pairs.energy_pc_j / pairs.energy_nopc_j)
    reduction = 100 * (1 - pairs.service_rate_pc_bps / 10e6)
    assert ((saved - (1 - s) * reduction).abs() <= dark_share + 1e-9).all()
    # Changes are at least mRCI apart: no more than the run holds.
    assert (pairs.rate_changes_pc <= options.seconds * 1000 / pairs.mrci_ms + 1).all()
    # A longer mRCI changes the rate less often.
    single = t[t.setting == "single"].set_index(["rtt_ms", "mrci_ms"])
    for rtt in options.rtts_ms():
        fast, slow = options.mrcis_ms()
        assert single.rate_changes[(rtt, slow)] < single.rate_changes[(rtt, fast)]


def test_a_rerun_resumes_from_the_database(quick: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    db = quick.parent / "db.duckdb"
    r = invoke(
        "reproduce", "capacity-scaling", "--quick", "--out", str(again), "--db", str(db), "-q"
    )
    assert r.exit_code == 0, r.output
    import json

    marker = json.loads((again / "reproduction.json").read_text())
    options = study.Options(quick=True)
    profiles = 1 + len(options.also_profiles)
    assert marker["skipped"] == marker["runs"] - 2 * len(options.timeseries_cells()) * profiles
    assert (again / "capacity_scaling.csv").read_bytes() == (
        quick / "capacity_scaling.csv"
    ).read_bytes()


def test_bdp_buffers() -> None:
    assert bdp_bytes(10e6, 0.1) == 125_000
    assert bdp_bytes(10e6, 0.001) == 3036, "at least two maximum frames"
    assert bdp_bytes(10e6, 0.0104) == 13_000
    with pytest.raises(ValueError, match="rtt_s"):
        bdp_bytes(10e6, -1)


def test_bdp_frames_state_the_queue_convention() -> None:
    # 10 Mb/s x 100 ms = 125,000 B = 83.3 packets of 1500 B: 84 in all (ns-2's queue
    # limit counts the one on the link), or 83 behind the one being sent (ns-3's).
    assert bdp_frames(10e6, 0.1, 1500) == 84
    assert bdp_frames(10e6, 0.1, 1500, counts_in_service=False) == 83
    # An exact product is not pushed up by rounding: 10 Mb/s x 10 ms = 10 x 1250 B.
    assert bdp_frames(10e6, 0.01, 1250) == 10
    # Below two in all (ns-2's limit of 1 drops every packet): two, or one waiting.
    assert bdp_frames(10e6, 0.001, 1500) == 2
    assert bdp_frames(10e6, 0.001, 1500, counts_in_service=False) == 1
    with pytest.raises(ValueError, match="frame_bytes"):
        bdp_frames(10e6, 0.1, 0)


def test_a_sensitivity_point_keeps_every_runs_seed(tmp_path: Path) -> None:
    # A key a sensitivity point sets in every run goes into the sweep's [set], not its
    # grid: at the study's own value the runs are the study's own, seed for seed.
    from ethersim.sweeps import parse_sweep

    options = study.Options(quick=True)
    base = study.scenario("single", options)
    (tmp_path / "single.toml").write_text(base)
    own = study._sweep_text("single", options)
    point = study._sweep_text("single", options, [("links[0].rate", "100 Mb/s")])
    assert "[set]" in point and own.splitlines()[1] != point.splitlines()[1], "its own name"
    seeds = [
        [t.seed for t in parse_sweep(text, tmp_path / "sweep.toml").tasks] for text in (own, point)
    ]
    assert seeds[0] == seeds[1] and len(seeds[0]) > 1


def test_the_studys_profiles_are_the_schemas() -> None:
    import ethersim

    variants = ethersim.schema()["$defs"]["TcpProfileName"]["oneOf"]
    names = [v["const"] for v in variants]
    assert tuple(names) == study.TCP_PROFILES


def test_the_study_runs_ns2_with_packet_queues_and_linux_beside_it(quick: Path) -> None:
    base = (quick / "sweeps" / "single.toml").read_text()
    assert 'profile = "ns2"' in base and "counts_in_service = true" in base
    sweep = (quick / "sweeps" / "single-sweep.toml").read_text()
    rtts = study.Options(quick=True).rtts_ms()
    frames = [bdp_frames(10e6, r / 1e3, 1500) for r in rtts]
    assert f'"switches[0].port_buffer.frames" = {frames}'.replace("'", "") in sweep
    side = pd.read_csv(quick / "profiles.csv")
    assert list(side.columns) == [
        "finding",
        "verdict_ns2",
        "simulated_ns2",
        "verdict_linux",
        "simulated_linux",
    ]
    comparison = pd.read_csv(quick / "comparison.csv")
    assert list(side.verdict_ns2) == list(comparison.verdict), "the study's own run is ns2's"
    linux = pd.read_csv(quick / "capacity_scaling_linux.csv")
    assert set(linux.tcp_profile) == {"linux"} and len(linux) == len(
        pd.read_csv(quick / "capacity_scaling.csv")
    )
    summary = (quick / "summary.md").read_text()
    assert "## TCP profiles side by side" in summary
    for p in ("ns2", "linux"):
        k = int((side[f"verdict_{p}"] == "reproduced").sum())
        assert f"`{p}`: {k} of {len(side)} published findings reproduced" in summary


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--replications", "0"], "--replications"),
        (["--static-power", "2"], "--static-power"),
        (["--delay-bound", "1"], "--delay-bound"),
        (["--tcp-profile", "ns4"], "rfc, linux, ns3, ns2"),
        (["--also-profile", "bsd"], "--also-profile"),
        (["--queue", "litres"], "packets, bytes"),
    ],
)
def test_bad_options_exit_2_and_write_nothing(tmp_path: Path, args: list[str], words: str) -> None:
    out = tmp_path / "out"
    r = invoke("reproduce", "capacity-scaling", "--quick", "--out", str(out), *args)
    assert r.exit_code == 2 and words in r.output
    assert not out.exists()

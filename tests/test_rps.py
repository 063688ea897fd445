"""``ethersim reproduce rps`` and the mechanisms it rests on, checked against closed forms
and conservation: the burst-loss model against simulated bursts into a link that
switches rate, the calibration re-derived, the output contract, determinism."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import ethersim
import pandas as pd
import pytest
from cli_helpers import invoke
from ethersim.models import burst_loss
from ethersim.studies import rps


def burst_into_dark_link(
    rate_bps: int, frames: int, buffer_frames: int, dark_ms: int
) -> tuple[int, Fraction]:
    """Frames lost when ``frames`` maximum frames arrive at ``rate_bps`` of frame bytes
    into a link that goes dark for ``dark_ms`` as they begin, behind ``buffer_frames``
    frames of buffer; and the exact fill rate."""
    text, fill = rps.burst_scenario(rate_bps, frames, buffer_frames * 1518, dark_ms)
    flow = ethersim.run_text(text).flows.iloc[0]
    assert flow.packets_received + flow.lost == frames, "every frame delivered or lost"
    return int(flow.lost), fill


@pytest.mark.parametrize(
    ("rate_gbps", "frames", "buffer_frames", "dark_ms"),
    [
        (2, 6588, 1, 10),
        (4, 6588, 600, 10),
        (6, 3000, 100, 5),
        (1, 2000, 10, 3),
        (7, 8000, 2000, 10),  # the buffer holds more than the dark time brings
        (3, 500, 50, 20),  # a burst shorter than the dark time
    ],
)
def test_a_burst_into_a_dark_link_loses_the_models_amount_to_within_one_packet(
    rate_gbps: int, frames: int, buffer_frames: int, dark_ms: int
) -> None:
    lost, fill = burst_into_dark_link(rate_gbps * 10**9, frames, buffer_frames, dark_ms)
    model = burst_loss(fill, frames * 1518, Fraction(dark_ms, 1000), buffer_frames * 1518, 1518)
    assert model.lost_packets is not None
    assert abs(lost - model.lost_packets) <= 1, (lost, model.lost_packets)


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("rps") / "quick"
    r = invoke("reproduce", "rps", "--quick", "--out", str(out), "-q")
    assert r.exit_code == 0, r.output
    assert (out / "report.html").is_file(), "every reproduction ends with its report"
    return out


def test_quick_writes_the_contracted_files_and_columns(quick: Path) -> None:
    cells = pd.read_csv(quick / "rps.csv")
    for column in (
        "protocol",
        "pause_ms",
        "server_honours_pause",
        "transfer_time_s",
        "loss_percent",
        "pause_frames_to_server",
        "seed",
    ):
        assert column in cells.columns
    assert len(cells) == 2 * 4 * 2, "protocol x pause x honour"
    assert set(cells.protocol) == {"tcp", "udp"}
    # Booleans are spelled as the contract says.
    column = (quick / "rps.csv").read_text().splitlines()[1].split(",")[2]
    assert column in ("true", "false"), column
    assert set(cells.pause_ms) == {0, 1, 10, 20}
    pd.testing.assert_frame_equal(pd.read_parquet(quick / "rps.parquet"), cells)
    buffers = pd.read_csv(quick / "rps_buffer.csv")
    assert {"buffer_bytes", "pause_ms", "loss_percent"} <= set(buffers.columns)
    bursts = pd.read_csv(quick / "burst_loss.csv")
    assert {"rate_gbps", "buffer_bytes", "lost_percent", "lost_percent_simulated"} <= set(
        bursts.columns
    )
    for name in ("transfer_time", "udp_loss", "burst_loss", "pause_event"):
        for ext in ("png", "svg"):
            assert (quick / "figures" / f"{name}.{ext}").stat().st_size > 1000
    assert "What the run found" in (quick / "summary.md").read_text()


def test_the_cells_obey_what_pause_promises(quick: Path) -> None:
    cells = pd.read_csv(quick / "rps.csv")
    control = cells[cells.pause_ms == 0]
    assert (control.pause_frames_to_server == 0).all()
    assert (control.loss_percent == 0).all(), "nothing to lose without pauses"
    honoured = cells[cells.server_honours_pause]
    assert (honoured.loss_percent == 0).all(), "PAUSE honoured end to end loses nothing"
    assert (honoured.switch_drops == 0).all()
    udp_ignored = cells[(cells.protocol == "udp") & ~cells.server_honours_pause]
    loss = udp_ignored.sort_values("pause_ms").loss_percent.tolist()
    assert loss == sorted(loss) and loss[-1] > 0, "a longer pause loses more"
    # The switch paused the server only when the pause outgrew its buffer.
    long = cells[cells.pause_ms >= 10]
    assert (long.pause_frames_to_server > 0).all()
    # The client sent one PAUSE a second while the transfer ran.
    paused = cells[cells.pause_ms > 0]
    expected = paused.transfer_time_s.apply(lambda t: math.floor(t - rps.PAUSE_START_S) + 1)
    assert (paused.client_pauses == expected).all()


def test_udp_loss_with_pause_ignored_is_what_the_buffer_cannot_hold(quick: Path) -> None:
    # Each pause of T holds back R*T of the UDP stream; what exceeds the buffer is lost:
    # the burst-loss model, once per pause.
    cells = pd.read_csv(quick / "rps.csv")
    calibration = pd.read_csv(quick / "calibration.csv").set_index("protocol")
    buffers = pd.read_csv(quick / "rps_buffer.csv")
    options = rps.Options(quick=True)
    packets = math.ceil(options.file_bytes / 1472)
    interval_s = calibration.loc["udp", "tx_processing_ps"] * 1e-12
    fill_bps = Fraction(1518 * 8) / Fraction(interval_s)
    for _, row in buffers.iterrows():
        pauses = int(
            cells[(cells.protocol == "udp") & (cells.pause_ms == row.pause_ms)].client_pauses.iloc[
                0
            ]
        )
        length = Fraction(rps._pause_length_s(int(row.pause_ms)))
        per_pause = burst_loss(fill_bps, 10**12, length, int(row.buffer_bytes), 1518).lost_packets
        assert per_pause is not None
        lost = round(row.loss_percent * packets / 100)
        assert abs(lost - pauses * per_pause) <= pauses, (row.to_dict(), lost, per_pause)


def test_the_calibration_is_re_derived_from_the_control_run(quick: Path) -> None:
    calibration = pd.read_csv(quick / "calibration.csv").set_index("protocol")
    options = rps.Options(quick=True)
    for protocol in ("tcp", "udp"):
        text = rps.scenario(
            protocol,
            0,
            True,
            int(calibration.loc[protocol, "tx_processing_ps"]),
            file_bytes=options.file_bytes,
        )
        done = ethersim.run_text(text).flows.iloc[0].completion_time_s
        target = rps.STUDY_CONTROL_S[protocol] * options.file_bytes / rps.STUDY_FILE_BYTES
        assert abs(done - target) <= rps.CALIBRATION_TOLERANCE_S


def test_the_burst_curves_agree_with_their_simulated_points(quick: Path) -> None:
    bursts = pd.read_csv(quick / "burst_loss.csv").dropna(subset=["lost_percent_simulated"])
    assert len(bursts) >= 9
    assert (bursts.lost_packets_simulated - bursts.lost_packets).abs().max() <= 1


def test_a_reproduction_is_deterministic(quick: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    r = invoke("reproduce", "rps", "--quick", "--out", str(again), "-q")
    assert r.exit_code == 0, r.output
    for name in ("rps.csv", "rps_buffer.csv", "burst_loss.csv", "rps_release.csv"):
        assert (quick / name).read_bytes() == (again / name).read_bytes(), name
    for svg in sorted((quick / "figures").glob("*.svg")):
        assert svg.read_bytes() == (again / "figures" / svg.name).read_bytes(), svg.name
    info = json.loads((again / "reproduction.json").read_text())
    assert info["study"] == "rps" and info["runs"] > 50


def test_bad_options_exit_2_and_write_nothing(tmp_path: Path) -> None:
    out = tmp_path / "never"
    r = invoke("reproduce", "rps", "--quick", "--buffer", "1 kB", "--out", str(out))
    assert r.exit_code == 2
    assert "--buffer" in r.output and "maximum frame" in r.output
    # A buffer that holds a frame but leaves no headroom for PAUSE is named too.
    r = invoke("reproduce", "rps", "--quick", "--buffer", "2 KiB", "--out", str(out))
    assert r.exit_code == 2 and "--buffer" in r.output and "headroom" in r.output, r.output
    r = invoke("reproduce", "rps", "--quick", "--buffer", "12 parsecs")
    assert r.exit_code == 2 and "--buffer" in r.output
    assert not out.exists()
    # A folder holding someone else's files is not replaced, and nothing runs.
    (tmp_path / "theirs").mkdir()
    (tmp_path / "theirs" / "notes.txt").write_text("mine")
    r = invoke("reproduce", "rps", "--quick", "--out", str(tmp_path / "theirs"))
    assert r.exit_code == 2 and "did not write" in r.output
    assert (tmp_path / "theirs" / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize(("bottleneck", "known_ps"), [("cpu", 40_000_000), ("nic", 25_000_000)])
def test_the_calibration_recovers_a_known_host_from_simulated_data(
    bottleneck: str, known_ps: int
) -> None:
    """Synthetic data made by the simulator with a known per-packet time: the calibration,
    aimed at the transfer time that host gives, finds that time again."""
    options = rps.Options(quick=True, host_bottleneck=bottleneck)
    text = rps.scenario(
        "udp", 0, True, known_ps, file_bytes=options.file_bytes, host_bottleneck=bottleneck
    )
    target = ethersim.run_text(text).flows.iloc[0].completion_time_s
    found = rps.calibrate("udp", options, target_s=target)
    assert found.host_key == rps.HOST_BOTTLENECKS[bottleneck]
    assert abs(found.simulated_s - target) <= rps.CALIBRATION_TOLERANCE_S
    # 33,968 datagrams: 1e-4 s of tolerance is 3 ns of per-packet time.
    assert abs(found.tx_processing_ps - known_ps) <= 3_000


def test_the_calibration_targets_are_the_published_control_times() -> None:
    from ethersim.studies import registry

    published = {f.id: f.published for f in registry.study("rps").published().findings}
    assert rps.STUDY_CONTROL_S["tcp"] == published["tcp-control-honoured-time"]
    assert rps.STUDY_CONTROL_S["udp"] == published["udp-control-honoured-time"]

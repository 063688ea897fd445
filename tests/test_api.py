"""The Python API: results as DataFrames, overrides, errors as exceptions."""

from __future__ import annotations

from pathlib import Path

import ethersim
import pandas as pd
import pytest
from ethersim import _core

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "udp-file.toml"


def test_run_returns_tables_as_dataframes() -> None:
    r = ethersim.run(EXAMPLE, overrides={"apps[0].size": "2 MB"})
    assert isinstance(r.flows, pd.DataFrame) and isinstance(r.ports, pd.DataFrame)
    flow = r.flows.iloc[0]
    # 2 MB in 1472-byte datagrams: 1358 full ones and one of 1024 bytes.
    assert flow["packets_sent"] == 1359 and flow["bytes_received"] == 2_000_000
    assert r.summary["stop_reason"] == "work_done"
    assert r.wall_time_s > 0 and r.summary["events"] > 0


def test_goodput_of_a_link_limited_transfer_matches_the_wire_share() -> None:
    # Fast hosts: the transfer runs at the link rate, so goodput is the payload's share
    # of the line time per frame, 1472 / (1518 + 20), to within the pipeline fill time.
    r = ethersim.run(
        EXAMPLE,
        overrides={
            "apps[0].size": "14720000 B",
            "hosts[0].tx_processing": "0 s",
            "hosts[1].rx_processing": "0 s",
        },
    )
    expected = 1e9 * 1472 / 1538
    assert r.flows.loc[0, "goodput_bps"] == pytest.approx(expected, rel=1e-3)


def test_overrides_accept_path_value_strings_and_seed() -> None:
    a = ethersim.run(EXAMPLE, overrides=["apps[0].size=1 MB"], seed=5)
    assert a.summary["seed"] == 5 and a.flows.loc[0, "bytes_received"] == 1_000_000


def test_scenario_error_is_a_value_error_with_a_path() -> None:
    with pytest.raises(ethersim.ScenarioError) as info:
        ethersim.run(EXAMPLE, overrides={"links[0].rate": "0 b/s"})
    assert isinstance(info.value, ValueError)
    assert info.value.path == "links[0].rate"
    assert "greater than 0" in info.value.message


def test_a_rust_panic_becomes_an_internal_error() -> None:
    with pytest.raises(ethersim.InternalError, match="this is a bug in ethersim"):
        _core._trigger_panic()


def test_validate_fills_in_defaults() -> None:
    checked = ethersim.validate(EXAMPLE)
    assert checked["links"][0]["mtu"] == "1500 B"
    assert checked["hosts"][1]["tx_buffers"] == 256


def test_write_is_all_or_nothing(tmp_path: Path) -> None:
    r = ethersim.run(EXAMPLE, overrides={"apps[0].size": "1 MB"})
    out = r.write(tmp_path / "res")
    assert sorted(p.name for p in out.iterdir()) == [
        "captures.parquet",
        "flows.parquet",
        "hosts.parquet",
        "idle_intervals.parquet",
        "job_nodes.parquet",
        "jobs.parquet",
        "links.parquet",
        "ports.parquet",
        "run.json",
        "scenario.toml",
        "series.parquet",
        "stations.parquet",
        "summary.json",
        "tcp_series.parquet",
    ]
    assert [p.name for p in tmp_path.iterdir()] == ["res"]


def test_a_seed_out_of_range_is_a_scenario_error() -> None:
    for seed in (-1, 2**64):
        with pytest.raises(ethersim.ScenarioError, match="out of range") as info:
            ethersim.run(EXAMPLE, seed=seed)
        assert info.value.path == "seed"


def test_write_never_replaces_a_folder_it_did_not_write(tmp_path: Path) -> None:
    r = ethersim.run(EXAMPLE, overrides={"apps[0].size": "1 MB"})
    precious = tmp_path / "notes.txt"
    precious.write_text("keep me")
    with pytest.raises(ethersim.OutputError, match="did not write"):
        r.write(tmp_path)
    assert precious.read_text() == "keep me"
    with pytest.raises(ethersim.OutputError, match="is a file"):
        r.write(precious)
    # An earlier results folder is replaced.
    out = r.write(tmp_path / "res")
    (out / "summary.json").write_text("stale")
    r.write(out)
    assert (out / "summary.json").read_text() == r.summary_json()


def test_a_failure_while_writing_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = ethersim.run(EXAMPLE, overrides={"apps[0].size": "1 MB"})

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", broken)
    with pytest.raises(ethersim.OutputError, match="No space left"):
        r.write(tmp_path / "res")
    assert list(tmp_path.iterdir()) == []


PING_OUTAGE = ROOT / "examples" / "ping-outage.toml"


def test_ping_and_outage_example_reports_rtts_links_and_series() -> None:
    r = ethersim.run(PING_OUTAGE)
    ping = r.flows.set_index("name").loc["ping"]
    assert ping["kind"] == "ping"
    assert ping["ping_requests"] == 500
    # Every request is answered or lost; replies travel back on the flow's reverse direction.
    assert ping["ping_replies"] + ping["lost"] + ping["reverse_lost"] == 500
    assert ping["reverse_packets_received"] == ping["ping_replies"]
    # A ping sent as the link went dark waited the whole 20 ms outage.
    assert 0.020 <= ping["rtt_max_s"] < 0.021
    link = r.links.set_index(r.links["between"].map(tuple)).loc[[("switch", "client")]].iloc[0]
    assert (link["outages"], link["dark_s"]) == (1, pytest.approx(0.020, abs=1e-15))
    gate = r.series[(r.series["port"] == "switch->client") & (r.series["quantity"] == "gate_open")]
    assert gate["t_s"].tolist() == pytest.approx([0.0, 0.2, 0.22])
    assert gate["value"].tolist() == [1, 0, 1]
    queue = r.series[r.series["quantity"] == "queue_bytes"]
    port = r.ports.set_index(["node", "peer"]).loc[("switch", "client")]
    assert queue["value"].max() == port["max_queue_bytes"] <= 256 * 1024


def test_results_without_series_have_an_empty_series_table() -> None:
    r = ethersim.run(EXAMPLE, overrides={"apps[0].size": "1 MB"})
    assert r.series.empty
    assert list(r.series.columns) == ["port", "quantity", "t_ps", "t_s", "value"]


TCP_EXAMPLE = ROOT / "examples" / "tcp-file.toml"


def test_a_tcp_transfer_reports_its_transport_figures(tmp_path: Path) -> None:
    text = TCP_EXAMPLE.read_text() + '[[series]]\napp = "file"\n'
    r = ethersim.run_text(text, overrides={"apps[0].size": "5 MB"})
    flow = r.flows.iloc[0]
    assert flow["kind"] == "tcp_file" and flow["delivered_bytes"] == 5_000_000
    assert flow["retransmissions"] == 0 and flow["timeouts"] == 0
    # Goodput over the whole life of the connection, handshake and close included:
    # just under the line share of a full segment, 1460 / (1518 + 20).
    assert 0.99 < flow["goodput_bps"] / (1e9 * 1460 / 1538) <= 1.0
    assert 0 < flow["transfer_time_s"] < flow["completion_time_s"]
    series = r.tcp_series
    assert list(series.columns) == ["flow", "quantity", "t_ps", "t_s", "value"]
    assert set(series["quantity"]) == {"cwnd", "ssthresh", "srtt", "rto", "flight"}
    cwnd = series[series["quantity"] == "cwnd"]["value"]
    # RFC 6928: ten segments to start with; slow start only grows it on a clean path.
    assert cwnd.iloc[0] == 14_600 and cwnd.is_monotonic_increasing
    out = r.write(tmp_path / "res")
    back = pd.read_parquet(out / "tcp_series.parquet")
    assert len(back) == len(series)

"""The packaged bench scenarios (``ethersim bench``) are valid scenarios: a bench that
no longer loads would only be found when someone times it."""

from __future__ import annotations

from pathlib import Path

import ethersim
import pytest
from ethersim.benchmark import bench_scenarios

SCENARIOS = bench_scenarios()


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_each_bench_scenario_is_valid(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.toml"
    path.write_text(SCENARIOS[name], encoding="utf-8")
    assert ethersim.validate(path)["name"]


def test_a_bench_scenario_exercises_each_port_attachment(tmp_path: Path) -> None:
    # The attachment path is timed with a mechanism on it: threshold PAUSE (a switch that
    # sends PAUSE), rate switching, LPI and the token-bucket shaper each appear in some
    # bench scenario, as the validated scenarios say (not their comments).
    found: set[str] = set()
    for name, text in SCENARIOS.items():
        path = tmp_path / f"{name}.toml"
        path.write_text(text, encoding="utf-8")
        checked = ethersim.validate(path)
        found |= {
            key
            for link in checked["links"]
            for key in ("eee", "rate_switching", "shaper")
            if link.get(key)
        }
        if any((sw.get("pause") or {}).get("send") for sw in checked["switches"]):
            found.add("threshold pause")
    assert found == {"eee", "rate_switching", "shaper", "threshold pause"}, found


def test_the_generated_scenarios_hold_what_their_documents_say(tmp_path: Path) -> None:
    # The dumbbell: a sender and a receiver per flow, a link each plus the bottleneck,
    # one TCP transfer per flow starting 10 us after the one before.
    path = tmp_path / "dumbbell.toml"
    path.write_text(SCENARIOS["tcp-dumbbell-100"], encoding="utf-8")
    checked = ethersim.validate(path)
    assert (len(checked["hosts"]), len(checked["links"]), len(checked["apps"])) == (200, 201, 100)
    assert {a["kind"] for a in checked["apps"]} == {"tcp_bulk"}
    # Many flows: 10,000 flows from 100 senders to 100 receivers, one between each sender
    # and each receiver.
    path = tmp_path / "flows.toml"
    path.write_text(SCENARIOS["flows-poisson-10000"], encoding="utf-8")
    checked = ethersim.validate(path)
    apps = checked["apps"]
    assert len(apps) == 10_000 and len(checked["hosts"]) == 200
    assert len({(a["from"], a["to"]) for a in apps}) == 10_000


def test_a_scenarios_peak_memory_is_its_own_not_that_of_the_process_it_came_from() -> None:
    # The bench process holds 300 MiB while its child runs a light scenario: the figure
    # must be the child's (the kernel's rusage would carry the parent's peak over).
    from ethersim.benchmark import _run_child

    ballast = bytearray(300 * 1024 * 1024)
    ballast[::4096] = b"\x01" * len(ballast[::4096])  # touch every page
    figures = _run_child("eee-10g-poisson")
    assert 5 < figures["peak_rss_mib"] < 200, figures
    del ballast

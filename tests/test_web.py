"""Web page loads end to end: the figures a client reports agree with its own list of
page-load times (nearest-rank percentiles computed here), the pages drawn do not depend
on the network, persistent connections open at most `connections` while one per object
opens one per object, and a run is deterministic."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import ethersim
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "web-browsing.toml"


def _client(overrides: dict[str, object] | None = None) -> dict[str, Any]:
    flows = ethersim.run(EXAMPLE, overrides=overrides or {}).summary["flows"]
    return next(f for f in flows if f["kind"] == "web")


def _nearest_rank(sorted_times: list[float], p: float) -> float:
    return sorted_times[max(1, math.ceil(p * len(sorted_times))) - 1]


def test_the_summary_is_the_clients_own_list_of_load_times() -> None:
    f = _client()
    times = f["page_load_times_s"]
    assert f["pages_loaded"] == len(times) == 50
    assert all(t > 0 for t in times)
    s = sorted(times)
    assert f["page_load_p50_s"] == _nearest_rank(s, 0.5)
    assert f["page_load_p95_s"] == _nearest_rank(s, 0.95)
    assert f["page_load_max_s"] == s[-1]
    assert f["page_load_mean_s"] == pytest.approx(sum(s) / len(s), rel=1e-12)
    # Every page has a main object; the 3GPP2 count adds 0 to 53 embedded ones.
    assert 50 <= f["objects"] <= 50 * 54
    assert f["failed_objects"] == 0 and f["retransmissions"] == 0


def test_the_pages_do_not_depend_on_the_network() -> None:
    """The client draws its pages from its own stream whatever the network does, so a
    slower access link loads the same objects, each page more slowly."""
    fast = _client()
    slow = _client({"links[0].rate": "10 Mb/s"})
    assert (slow["objects"], slow["object_bytes"]) == (fast["objects"], fast["object_bytes"])
    assert all(
        s >= f for s, f in zip(slow["page_load_times_s"], fast["page_load_times_s"], strict=True)
    )
    assert slow["page_load_mean_s"] > fast["page_load_mean_s"]


def test_connections_follow_the_persistence_setting() -> None:
    kept = _client()
    assert 1 <= kept["connections_opened"] <= 6
    each = _client({"apps[0].persistent": False})
    assert each["connections_opened"] == each["objects"] == kept["objects"]
    # A handshake per object makes every page at least as slow.
    assert all(
        e >= k for e, k in zip(each["page_load_times_s"], kept["page_load_times_s"], strict=True)
    )


def test_a_run_is_deterministic() -> None:
    assert _client() == _client()


def test_the_cli_prints_the_pages_table() -> None:
    p = subprocess.run(
        [sys.executable, "-m", "ethersim.cli", "run", str(EXAMPLE)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "pages" in p.stdout
    assert "browse" in p.stdout
    assert "flow of thought kept" in p.stdout or "feels instantaneous" in p.stdout

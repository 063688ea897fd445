"""Small scenarios the sweep tests share."""

from __future__ import annotations


def poisson_pair(count: int) -> str:
    """Two hosts on one 1 Gb/s link, a Poisson flow of ``count`` packets at 200 Mb/s
    (a few hundred microseconds of simulated time)."""
    return f"""
name = "ping"
seed = 1
[[hosts]]
name = "a"
[[hosts]]
name = "b"
[[links]]
between = ["a", "b"]
rate = "1 Gb/s"
delay = "1 us"
[[apps]]
kind = "poisson"
name = "load"
from = "a"
to = "b"
rate = "200 Mb/s"
count = {count}
"""

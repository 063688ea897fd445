"""The burst-loss model of link-rate switching (ethersim.models.burst) and its
command, ``ethersim model burst-loss``: closed forms worked by hand, properties the model
must have whatever its inputs, bad input, and the command's output."""

from __future__ import annotations

import io
import math
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pandas as pd
import pytest
from ethersim.errors import ScenarioError
from ethersim.models import CURVE_COLUMNS, BurstLoss, burst_loss, burst_loss_curve
from hypothesis import given, settings
from hypothesis import strategies as st

GOOD: dict[str, Any] = {"rate_bps": 2e9, "burst_bytes": 10e6, "dark_s": 0.01, "buffer_bytes": 0}

# Positive and non-negative quantities, as ints, floats and fractions alike.
positive = st.one_of(
    st.integers(min_value=1, max_value=10**13),
    st.floats(min_value=1e-6, max_value=1e13, allow_nan=False, allow_infinity=False),
    st.fractions(min_value=Fraction(1, 10**6), max_value=10**13).filter(lambda f: f > 0),
)
non_negative = st.one_of(
    st.just(0),
    st.integers(min_value=0, max_value=10**13),
    st.floats(min_value=0, max_value=1e13, allow_nan=False, allow_infinity=False),
    st.fractions(min_value=0, max_value=10**13),
)
# Dark times from a picosecond (the simulator's tick) to 100 s, or none: far below that,
# float results are subnormal and lose the precision the properties below compare at.
seconds = st.one_of(st.just(0.0), st.floats(min_value=1e-12, max_value=100))


# Closed forms, worked by hand.


def test_a_dark_link_with_no_buffer_loses_what_arrives_while_it_is_dark() -> None:
    # 2 Gb/s for 10 ms is 20 Mb = 2.5 MB, all lost; a quarter of the 10 MB burst.
    loss = burst_loss(2e9, 10e6, 0.01, 0)
    assert loss.lost_bits == 20e6
    assert loss.lost_bytes == 2.5e6
    assert loss.lost_fraction == 0.25
    assert loss.lost_percent == 25.0
    assert loss.lost_packets is None


def test_the_buffer_holds_back_its_size() -> None:
    # 2.5 MB arrive while dark; a 256 kB buffer keeps 256,000 B of them.
    loss = burst_loss(2e9, 10e6, 0.01, 256_000)
    assert loss.lost_bytes == 2_500_000 - 256_000
    assert loss.lost_bits == 8 * (2_500_000 - 256_000)
    assert loss.lost_percent == pytest.approx(22.44, rel=1e-12)


def test_a_burst_shorter_than_the_dark_time_loses_all_but_the_buffer() -> None:
    # 1 MB at 10 Gb/s lasts 0.8 ms < 10 ms: the whole burst arrives while dark.
    assert 8 * 1e6 / 10e9 < 0.01
    loss = burst_loss(10e9, 1e6, 0.01, 200_000)
    assert loss.lost_bytes == 1_000_000 - 200_000
    assert loss.lost_fraction == 0.8


def test_a_buffer_larger_than_what_arrives_while_dark_loses_nothing() -> None:
    # R·T = 2 Gb/s x 10 ms = 2.5 MB < 3 MB of buffer.
    loss = burst_loss(2e9, 10e6, 0.01, 3e6)
    assert loss.lost_bits == loss.lost_bytes == loss.lost_percent == 0.0
    assert burst_loss(2e9, 10e6, 0.01, 2.5e6, packet_bytes=1500).lost_packets == 0


def test_a_link_that_is_never_dark_loses_nothing() -> None:
    assert burst_loss(100e9, 10e6, 0, 0).lost_bytes == 0.0


def test_lost_packets_round_up() -> None:
    # 1.2 Gb/s x 10 ms = 1.5 MB lost: exactly 1000 packets of 1500 B, one more of 1499 B.
    assert burst_loss(1.2e9, 10e6, 0.01, 0, packet_bytes=1500).lost_packets == 1000
    assert 1499 * 1000 < 1_500_000 <= 1499 * 1001
    assert burst_loss(1.2e9, 10e6, 0.01, 0, packet_bytes=1499).lost_packets == 1001
    # 2.5 MB in 1500 B packets: 1666.67, so 1667.
    assert burst_loss(2e9, 10e6, 0.01, 0, packet_bytes=1500).lost_packets == 1667


def test_decimal_floats_are_taken_at_their_decimal_value() -> None:
    # 0.01 as a binary float is a little more than 1/100; counted as that, 1.2 Gb/s would
    # lose a sliver more than 1000 packets of 1500 B and round up to 1001.
    assert Fraction(0.01) > Fraction(1, 100)
    exact = burst_loss(Fraction(6, 5) * 10**9, 10**7, Fraction(1, 100), 0, packet_bytes=1500)
    assert exact.lost_packets == 1000
    assert burst_loss(1.2e9, 1e7, 0.01, 0, 1500) == exact
    assert burst_loss(1.2e9, 1e7, Decimal("0.01"), 0, 1500) == exact


def test_result_keeps_the_inputs() -> None:
    loss = burst_loss(2e9, 10e6, 0.01, 4096, packet_bytes=1500)
    assert (loss.rate_bps, loss.burst_bytes, loss.dark_s, loss.buffer_bytes) == (
        2e9,
        10e6,
        0.01,
        4096.0,
    )
    with pytest.raises(AttributeError):
        loss.lost_bytes = 0.0  # type: ignore[misc]


# Properties, whatever the inputs.


@settings(deadline=None)
@given(
    rate=st.integers(1, 10**13),
    burst=st.integers(1, 10**10),
    dark_ps=st.integers(0, 10**13),
    buffer=st.integers(0, 10**10),
    packet=st.integers(1, 10**5),
)
def test_matches_integer_arithmetic(
    rate: int, burst: int, dark_ps: int, buffer: int, packet: int
) -> None:
    """The model worked in integers: bits x 10^12 (the dark time in picoseconds)."""
    lost_bits_e12 = max(0, min(8 * burst * 10**12, rate * dark_ps) - 8 * buffer * 10**12)
    loss = burst_loss(rate, burst, Fraction(dark_ps, 10**12), buffer, packet)
    assert loss.lost_bits == lost_bits_e12 / 10**12
    assert loss.lost_bytes == lost_bits_e12 / (8 * 10**12)
    assert loss.lost_packets == -(-lost_bits_e12 // (8 * 10**12 * packet))


@settings(deadline=None)
@given(rate=positive, burst=positive, dark=seconds, buffers=st.lists(non_negative, min_size=2))
def test_more_buffer_never_loses_more(
    rate: float, burst: float, dark: float, buffers: list[float]
) -> None:
    losses = [burst_loss(rate, burst, dark, s).lost_bytes for s in sorted(buffers)]
    assert losses == sorted(losses, reverse=True)


@settings(deadline=None)
@given(rates=st.lists(positive, min_size=2), burst=positive, dark=seconds, buffer=non_negative)
def test_a_faster_burst_never_loses_less(
    rates: list[float], burst: float, dark: float, buffer: float
) -> None:
    losses = [burst_loss(r, burst, dark, buffer).lost_bytes for r in sorted(rates)]
    assert losses == sorted(losses)


@settings(deadline=None)
@given(rate=positive, burst=positive, dark=seconds, buffer=non_negative, packet=positive)
def test_loss_is_within_the_burst_and_counted_in_whole_packets(
    rate: float, burst: float, dark: float, buffer: float, packet: float
) -> None:
    loss = burst_loss(rate, burst, dark, buffer, packet)
    assert 0 <= loss.lost_bytes <= loss.burst_bytes
    assert 0 <= loss.lost_fraction <= 1
    assert loss.lost_percent == pytest.approx(100 * loss.lost_fraction)
    assert loss.lost_bits == 8 * loss.lost_bytes
    assert loss.lost_bytes <= max(0.0, min(loss.burst_bytes, loss.rate_bps * dark / 8)) * (
        1 + 1e-12
    )
    assert isinstance(loss.lost_packets, int)
    # The smallest whole number of packets that holds what was lost.
    assert loss.lost_packets * packet >= loss.lost_bytes * (1 - 1e-12)
    assert (loss.lost_packets - 1) * packet < loss.lost_bytes * (1 + 1e-12) or (
        loss.lost_packets == 0
    )


# Bad input: a ScenarioError naming the parameter.


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("rate_bps", 0, "greater than 0"),
        ("rate_bps", -1e9, "greater than 0"),
        ("rate_bps", True, "not a number"),
        ("rate_bps", "2 Gb/s", "not a number"),
        ("rate_bps", math.nan, "not a finite number"),
        ("rate_bps", math.inf, "not a finite number"),
        ("rate_bps", 10**400, "out of range"),
        ("rate_bps", Decimal("1e999999999"), "out of range"),
        ("burst_bytes", 0, "greater than 0"),
        ("burst_bytes", None, "not a number"),
        ("dark_s", -0.001, "negative"),
        ("dark_s", -math.inf, "not a finite number"),
        ("dark_s", Decimal("NaN"), "not a finite number"),
        ("dark_s", Decimal("1e-999999999"), "out of range"),
        ("buffer_bytes", -1, "negative"),
        ("buffer_bytes", False, "not a number"),
        ("packet_bytes", 0, "greater than 0"),
        ("packet_bytes", math.nan, "not a finite number"),
        ("packet_bytes", "1500", "not a number"),
    ],
)
def test_bad_arguments_are_named(name: str, value: object, words: str) -> None:
    with pytest.raises(ScenarioError) as raised:
        burst_loss(**{**GOOD, name: value})
    assert raised.value.path == name
    assert words in raised.value.message
    assert "expected" in raised.value.message


def test_zero_dark_time_and_buffer_are_allowed() -> None:
    assert burst_loss(1, 1, 0, 0) == BurstLoss(1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, None)


# The table over rates and buffers.


def test_curve_has_one_row_per_rate_and_buffer_in_order() -> None:
    table = burst_loss_curve([4e9, 2e9], [256_000, 0, 256_000], 10e6, 0.01, packet_bytes=1500)
    assert list(table.columns) == list(CURVE_COLUMNS)
    assert list(table.columns[:3]) == ["rate_gbps", "buffer_bytes", "lost_percent"]
    assert list(zip(table["rate_gbps"], table["buffer_bytes"], strict=True)) == [
        (2.0, 0.0),
        (2.0, 256_000.0),
        (4.0, 0.0),
        (4.0, 256_000.0),
    ]
    assert list(table["lost_percent"]) == [25.0, 22.44, 50.0, 47.44]
    assert list(table["lost_bytes"]) == [2.5e6, 2.244e6, 5e6, 4.744e6]
    assert list(table["lost_packets"]) == [1667, 1496, 3334, 3163]
    assert set(table["burst_bytes"]) == {10e6} and set(table["dark_s"]) == {0.01}
    for row in table.itertuples(index=False):
        one = burst_loss(row.rate_bps, 10e6, 0.01, row.buffer_bytes, 1500)
        assert (row.lost_bytes, row.lost_packets) == (one.lost_bytes, one.lost_packets)


def test_curve_without_a_packet_length_has_no_packet_counts() -> None:
    table = burst_loss_curve([2e9], [0], 10e6, 0.01)
    assert table["lost_packets"].isna().all()
    assert str(table["lost_packets"].dtype) == "Int64"


def test_curve_of_nothing_is_an_empty_table() -> None:
    table = burst_loss_curve([], [0], 10e6, 0.01)
    assert table.empty and list(table.columns) == list(CURVE_COLUMNS)


@pytest.mark.parametrize(
    ("arguments", "path"),
    [
        ({"rates_bps": [2e9, 0]}, "rates_bps[1]"),
        ({"rates_bps": "2e9"}, "rates_bps"),
        ({"rates_bps": 2e9}, "rates_bps"),
        ({"buffers_bytes": [0, -1]}, "buffers_bytes[1]"),
        ({"burst_bytes": -1}, "burst_bytes"),
        ({"dark_s": math.nan}, "dark_s"),
        ({"packet_bytes": 0}, "packet_bytes"),
    ],
)
def test_curve_names_the_bad_argument(arguments: dict[str, Any], path: str) -> None:
    good: dict[str, Any] = {
        "rates_bps": [2e9],
        "buffers_bytes": [0],
        "burst_bytes": 10e6,
        "dark_s": 0.01,
    }
    with pytest.raises(ScenarioError) as raised:
        burst_loss_curve(**{**good, **arguments})
    assert raised.value.path == path


# The command.


def invoke(*args: str) -> Any:
    from ethersim.cli_model import model_app
    from typer.testing import CliRunner

    return CliRunner().invoke(model_app, ["burst-loss", *args])


SPEC_EXAMPLE = ("--rate", "2Gb/s", "--burst", "10 MB", "--dark", "10 ms", "--buffer", "0 B")


def test_command_prints_a_table() -> None:
    result = invoke(*SPEC_EXAMPLE, "--buffer", "256 kB", "--rate", "4 Gb/s", "--packet", "1500 B")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    row = next(line for line in lines if "2 Gb/s" in line and "256,000 B" in line)
    for cell in ("22.44%", "2,244,000 B", "1,496"):
        assert cell in row, row
    row = next(line for line in lines if "4 Gb/s" in line and " 0 B" in line)
    for cell in ("50%", "5,000,000 B", "3,334"):
        assert cell in row, row
    assert result.stderr == ""


def test_command_without_options_shows_the_default_grid() -> None:
    result = invoke()
    assert result.exit_code == 0, result.output
    for rate in ("2 Gb/s", "4 Gb/s", "6 Gb/s"):
        assert rate in result.stdout
    assert "25%" in result.stdout and "75%" in result.stdout  # 2 and 6 Gb/s, no buffer
    assert "lost packets" not in result.stdout


def test_command_prints_csv() -> None:
    result = invoke(*SPEC_EXAMPLE, "--buffer", "256 KiB", "--packet", "1500 B", "--csv")
    assert result.exit_code == 0, result.output
    header, *rows = result.stdout.splitlines()
    assert header == (
        "rate_gbps,buffer_bytes,lost_percent,rate_bps,burst_bytes,dark_s,lost_bytes,lost_packets"
    )
    assert len(rows) == 2
    table = pd.read_csv(io.StringIO(result.stdout))
    assert list(table["buffer_bytes"]) == [0, 262_144]
    assert list(table["lost_bytes"]) == [2_500_000, 2_500_000 - 262_144]
    assert list(table["lost_packets"]) == [1667, math.ceil((2_500_000 - 262_144) / 1500)]


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("--rate", "2GB"), "--rate"),  # bytes per second is not a rate unit
        (("--rate", "0 b/s"), "--rate"),
        (("--burst", "0 B"), "--burst"),
        (("--burst", "ten MB"), "--burst"),
        (("--dark", "10"), "--dark"),
        (("--buffer", "-1 B"), "--buffer"),
        (("--packet", "0 B"), "--packet"),
    ],
)
def test_command_refuses_bad_quantities_with_status_2(args: tuple[str, ...], option: str) -> None:
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.startswith(f"error: {option}: "), result.stderr
    assert "expected" in result.stderr or "does not start with a number" in result.stderr
    assert "Traceback" not in result.output


def test_command_prints_user_text_as_it_is() -> None:
    result = invoke("--rate", "[bold]2[/bold] Gb/s\x1b[2J")
    assert result.exit_code == 2
    assert "[bold]2[/bold]" in result.stderr
    assert "\x1b" not in result.stderr

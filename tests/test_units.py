"""The number tests of ``ethersim.units``: answered for Python's own types without
importing :mod:`numbers` (start-up), and for everything else exactly as its abstract
classes answer."""

from __future__ import annotations

import enum
import fractions
import numbers
from decimal import Decimal

import numpy as np
import pytest
from ethersim.units import fmt_number, is_integral, is_real


class Level(enum.IntEnum):
    LOW = 1


class Text(str):
    pass


class Count(int):
    pass


VALUES = [
    0,
    -(2**70),
    True,
    False,
    1.5,
    float("nan"),
    float("inf"),
    "3",
    Text("3"),
    None,
    b"3",
    1j,
    Decimal("2.5"),  # not a numbers.Real
    fractions.Fraction(1, 3),
    Level.LOW,
    Count(7),
    np.int64(5),
    np.uint8(5),
    np.float32(0.25),
    np.float64(2.0),
    np.bool_(True),  # registered as neither
    [1],
    object(),
]


def _value_id(value: object) -> str:
    # A bare object's repr holds its address, which differs from one process to the next:
    # the test workers (pytest -n) must collect the same ids.
    return "object()" if type(value) is object else repr(value)


@pytest.mark.parametrize("value", VALUES, ids=_value_id)
def test_the_number_tests_agree_with_the_abstract_classes(value: object) -> None:
    assert is_integral(value) == isinstance(value, numbers.Integral)
    assert is_real(value) == isinstance(value, numbers.Real)


def test_numpys_numbers_print_as_pythons_do() -> None:
    assert fmt_number(np.int64(1234567)) == fmt_number(1234567) == "1,234,567"
    assert fmt_number(np.float64(0.000123456)) == fmt_number(0.000123456) == "0.0001235"
    assert fmt_number(np.float32(float("nan"))) == fmt_number(float("nan")) == "\N{EN DASH}"
    assert fmt_number(fractions.Fraction(3, 2)) == "1.5"
    assert fmt_number(Decimal("2.5")) == "2.5"  # not a real number: its text

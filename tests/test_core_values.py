"""The core hands a run's report to Python as data, not JSON text (so that a run need not
import the json module): the data must be exactly what Python's own ``json.loads``
makes of the same text, the oracle here. Same values, same types, floats to the bit,
keys in the same order."""

from __future__ import annotations

import json
import math
import struct

import pytest
from ethersim import _core, api
from hypothesis import example, given, settings
from hypothesis import strategies as st

#: JSON values as the core's reports hold them: integers within 64 bits, finite floats,
#: text, booleans, null, lists and objects.
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30,
)


def same(a: object, b: object) -> bool:
    """Equal with the same types throughout, floats bit for bit, keys in the same order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return struct.pack("<d", a) == struct.pack("<d", b)  # type: ignore[arg-type]
    if isinstance(a, dict):
        assert isinstance(b, dict)
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        assert isinstance(b, list)
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


@settings(max_examples=300)
@given(VALUES)
@example({"mean_queue_frames": 0.9921943147496661, "events": 1698373})
@example([5e-324, 1.7976931348623157e308, -0.0, 2.2250738585072014e-308, 0.1 + 0.2])
def test_the_cores_data_is_what_json_loads_makes_of_the_text(value: object) -> None:
    for text in (json.dumps(value), json.dumps(value, ensure_ascii=False, indent=1)):
        assert same(_core._json_value(text), json.loads(text)), text


def test_a_float_the_text_spells_at_full_length_is_parsed_to_the_nearest() -> None:
    # 17 significant digits and more, where a parse that is not correctly rounded misses.
    for text in ("0.99219431474966608", "9007199254740993.0", "1.00000000000000011102230246251565"):
        assert _core._json_value(text) == float(text)
    assert math.isclose(_core._json_value("1e-5"), 1e-5, rel_tol=0)


def test_text_that_is_not_json_is_refused() -> None:
    with pytest.raises(ValueError):
        _core._json_value("{'single': 'quotes'}")


def test_a_runs_report_is_plain_data() -> None:
    result = api.run_text(
        'name = "r"\n[[hosts]]\nname = "a"\n[[hosts]]\nname = "b"\n'
        '[[links]]\nbetween = ["a", "b"]\nrate = "1 Gb/s"\n'
        '[[apps]]\nkind = "udp_file"\nfrom = "a"\nto = "b"\nsize = "100 kB"\n'
    )
    # Through JSON and back it is unchanged: nothing but JSON's kinds of value in it.
    assert same(json.loads(json.dumps(result.summary)), result.summary)

"""ethersim._lean's three pieces behave as functools' own where ethersim uses them."""

from __future__ import annotations

import functools
import inspect
import typing

from ethersim import _lean


def test_once_calls_its_function_once() -> None:
    calls: list[int] = []

    def make() -> list[int]:
        """Makes a list."""
        calls.append(1)
        return [len(calls)]

    made = _lean.once(make)
    first = made()
    assert made() is first
    assert calls == [1]
    assert (made.__name__, made.__doc__) == ("make", "Makes a list.")


def test_cached_property_computes_once_per_instance_and_keeps_the_value() -> None:
    class Thing:
        def __init__(self, n: int) -> None:
            self.n = n
            self.computed = 0

        @_lean.cached_property
        def double(self) -> int:
            """Twice n."""
            self.computed += 1
            return 2 * self.n

    a, b = Thing(2), Thing(5)
    assert (a.double, a.double, b.double) == (4, 4, 10)
    assert (a.computed, b.computed) == (1, 1)
    assert a.__dict__["double"] == 4
    del a.double  # as with functools: forgetting the value computes it again
    assert (a.double, a.computed) == (4, 2)
    descriptor = Thing.__dict__["double"]
    assert Thing.double is descriptor
    assert descriptor.__doc__ == "Twice n."


def test_wraps_carries_what_functools_does() -> None:
    def command(path: str, count: int = 3, *, quiet: bool = False) -> None:
        """A command."""

    command.extra = "kept"  # type: ignore[attr-defined]

    def ours(*args: object, **kwargs: object) -> None:
        command(*args, **kwargs)  # type: ignore[arg-type]

    def theirs(*args: object, **kwargs: object) -> None:
        command(*args, **kwargs)  # type: ignore[arg-type]

    ours = _lean.wraps(command)(ours)
    theirs = functools.wraps(command)(theirs)
    for name in ("__module__", "__name__", "__qualname__", "__doc__", "__wrapped__", "extra"):
        assert getattr(ours, name) == getattr(theirs, name), name
    # What typer reads a command's options from.
    assert inspect.signature(ours) == inspect.signature(theirs) == inspect.signature(command)
    assert typing.get_type_hints(ours) == typing.get_type_hints(command)


def test_visible_text_is_the_same_with_or_without_its_ascii_shortcut() -> None:
    # Printable text is returned as it is, without unicodedata; every character of the
    # first 0x3000 code points, the format characters and lone surrogates escape exactly
    # as by category.
    import unicodedata

    from ethersim.cli_common import visible

    def by_category(text: str) -> str:
        return "".join(
            c.encode("unicode_escape").decode("ascii")
            if unicodedata.category(c) in ("Cc", "Cf", "Cs")
            else c
            for c in text
        )

    samples = ["server", "a b", "x\x1by", "tab\there", "\x7f", "caf\u00e9", "\u202e", "\udcff"]
    samples += [chr(i) for i in range(0x3000)] + ["\u2066", "\ufeff", "\U000e0001"]
    samples += ["server \u2192 client", "a\u00a0b", "\u2028"]
    for text in samples:
        assert visible(text) == by_category(text), repr(text)
    assert visible(42) == "42"

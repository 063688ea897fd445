"""Three pieces of :mod:`functools`, without the modules that come with it.

``functools`` imports ``collections`` (and ``contextlib`` imports ``functools``): together
some 2.5 ms of CPU on a 2-core machine, a twentieth of a 500 MB UDP run's whole process
(issue 29). A run in its plain forms needs only these three pieces, which are small;
type checkers see the standard library's own, with their full signatures. Anything that
needs more of ``functools`` imports it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from functools import cache as once
    from functools import cached_property, wraps
else:

    def once(make):
        """``functools.cache`` for a function of no arguments: ``make()`` is called the
        first time and its answer kept."""
        kept = []

        def made():
            if not kept:
                kept.append(make())
            return kept[0]

        return wraps(make)(made)

    class cached_property:  # named as functools names it
        """``functools.cached_property``: the value, computed on first access, is kept in
        the instance's ``__dict__`` under the attribute's own name."""

        def __init__(self, compute):
            self.compute = compute
            self.name = compute.__name__
            self.__doc__ = compute.__doc__

        def __set_name__(self, owner, name):
            self.name = name

        def __get__(self, instance, owner=None):
            if instance is None:
                return self
            value = instance.__dict__[self.name] = self.compute(instance)
            return value

    def wraps(wrapped):
        """``functools.wraps``: the wrapper takes ``wrapped``'s name, documentation and
        annotations, and ``__wrapped__`` points at it (``inspect.signature``, which typer
        reads a command's options from, follows it)."""

        def decorate(wrapper):
            for name in ("__module__", "__name__", "__qualname__", "__doc__", "__annotations__"):
                try:
                    setattr(wrapper, name, getattr(wrapped, name))
                except AttributeError:
                    pass
            wrapper.__dict__.update(getattr(wrapped, "__dict__", {}))
            wrapper.__wrapped__ = wrapped
            return wrapper

        return decorate


__all__ = ["cached_property", "once", "wraps"]

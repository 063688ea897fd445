"""The exceptions ethersim raises: one base class, one subclass per kind of failure.

The Rust extension instantiates these classes (see ``crates/ethersim-py/src/errors.rs``);
the CLI maps each to an exit status in one place (``cli.py``).
"""

from __future__ import annotations

__all__ = [
    "EthersimError",
    "InternalError",
    "OutputError",
    "ScenarioError",
    "WallLimitError",
    "WallLimitReached",
    "install_hint",
]


def install_hint(extra: str) -> str:
    """How to install the optional dependencies ``extra`` names (``dask``, ``xarray``),
    said both for an installed package and for a source checkout, where the package
    name does not resolve and the extra is given on ``.``."""
    return f'pip install "ethersim[{extra}]" (in a source checkout: pip install ".[{extra}]")'


class EthersimError(Exception):
    """Base class of every error ethersim raises on purpose."""


class ScenarioError(EthersimError, ValueError):
    """A scenario is malformed or inconsistent.

    ``path`` is the key path of the offending value (``links[2].rate``), or ``""`` when
    the problem concerns the file as a whole; ``message`` says what was wrong and what
    is expected.
    """

    def __init__(self, message: str, path: str = "") -> None:
        self.message = message
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


class OutputError(EthersimError):
    """Results cannot be written where asked (an existing folder that ethersim did not
    write, a file in the way, a device or a link at the name, no permission).

    ``path`` names the option or key the destination was given with (``--out``), or is
    ``""``; ``message`` says what was wrong and what is expected.
    """

    def __init__(self, message: str, path: str = "") -> None:
        self.message = message
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


class InternalError(EthersimError):
    """A bug in ethersim (a Rust panic caught at the boundary)."""


class WallLimitError(EthersimError):
    """A run went on longer in wall-clock time than its caller allowed (``--max-wall``)."""


class WallLimitReached(Exception):
    """Raised by a ``progress`` callback to end the run where it stands, keeping what it
    simulated: the run returns its results, complete up to the instant reached, with
    ``stop_reason`` ``wall_limit`` (``ethersim run --max-wall`` raises it). Any other
    exception a callback raises stops the run with no results."""

"""Type stubs of the private Rust extension ``ethersim._core``."""

__all__ = [
    "_json_value",
    "_trigger_panic",
    "build_profile",
    "core_version",
    "effective_scenario",
    "parse_quantity",
    "read_trace",
    "record_views",
    "run",
    "schema",
    "validate",
]

import os
from collections.abc import Callable
from typing import Any

def run(
    text: str,
    overrides: list[tuple[str, str]] = ...,
    seed: int | None = None,
    progress: Callable[[float, int, float | None], object] | None = None,
    output: str | os.PathLike[str] | None = None,
) -> dict[str, Any]: ...
def effective_scenario(
    text: str, overrides: list[tuple[str, str]] = ..., seed: int | None = None
) -> str: ...
def validate(text: str, overrides: list[tuple[str, str]] = ...) -> str: ...
def schema() -> str: ...
def record_views() -> list[dict[str, Any]]: ...
def core_version() -> str: ...
def build_profile() -> str: ...
def parse_quantity(kind: str, text: str, path: str = ...) -> int: ...
def read_trace(file: str | os.PathLike[str], path: str = ...) -> tuple[int, bytes, bytes]: ...
def _trigger_panic() -> None: ...
def _json_value(json: str) -> Any: ...

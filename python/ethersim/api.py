"""The Python API: run or check a scenario, get a :class:`~ethersim.results.Result`."""

from __future__ import annotations

import math
import os

# The abstract classes themselves, from the module the interpreter's start-up loads:
# collections.abc re-exports them, and importing that loads all of collections.
from _collections_abc import Callable, Iterable, Mapping

from ethersim import _core, inputs
from ethersim.errors import ScenarioError
from ethersim.inputs import MAX_SCENARIO_BYTES
from ethersim.results import Result
from ethersim.units import is_integral, is_real

# typing is imported only by type checkers: a run does not load it (start-up, issue 29).
# Nor are pathlib and json, with the regular expressions both load (some 10 ms): the
# core returns a run's report as Python objects, and a path is made only where one is
# given.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

__all__ = [
    "Overrides",
    "Progress",
    "load_text",
    "run",
    "run_text",
    "schema",
    "validate",
    "with_captures",
]

#: Overrides of scenario values by key path. A mapping ``{"links[0].rate": "10 Gb/s",
#: "seed": 7}`` or ``(path, value)`` pairs take typed Python values: a ``str`` is a
#: string, whatever it looks like, and ints, floats, bools, lists and dicts are what they
#: are. ``"path=value"`` strings (one, or an iterable of them) work as ``--set`` does: the
#: value is read as TOML when it is TOML (``3``, ``true``) and as a string otherwise.
Overrides = Mapping[str, object] | Iterable[str | tuple[str, object]] | str


def _pairs(overrides: Overrides | None) -> list[tuple[str, str]]:
    if overrides is None:
        return []
    if isinstance(overrides, str):
        overrides = [overrides]  # one "path=value", not one override per character
    if isinstance(overrides, (bytes, bytearray)) or not isinstance(overrides, Iterable):
        raise ScenarioError(
            f"{overrides!r} is not overrides; expected a mapping of key paths to values, "
            "(path, value) pairs or 'path=value' strings",
            "overrides",
        )
    items: Iterable[Any] = overrides.items() if isinstance(overrides, Mapping) else overrides
    pairs: list[tuple[str, str]] = []
    for item in items:
        if isinstance(item, str):
            path, sep, value = item.partition("=")
            if not sep or not path.strip():
                raise ScenarioError(f"override {item!r} is not of the form path=value", "--set")
            pairs.append((path.strip(), value.strip()))
        elif isinstance(item, tuple) and len(item) == 2:
            path, value = item
            pairs.append((str(path), _toml_literal(value, str(path))))
        else:
            raise ScenarioError(
                f"override {item!r} is neither a 'path=value' string nor a (path, value) pair",
                "overrides",
            )
    return pairs


def _toml_string(text: str, path: str) -> str:
    """``text`` as a TOML basic string: quotes, backslashes and control characters
    escaped (TOML forbids them raw), everything else as it is."""
    out = []
    for c in text:
        code = ord(c)
        if 0xD800 <= code <= 0xDFFF:
            raise ScenarioError(
                f"{text!r} holds a lone surrogate (U+{code:04X}), which no scenario can hold",
                path,
            )
        if c in ('"', "\\"):
            out.append("\\" + c)
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04X}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def _toml_literal(value: Any, path: str) -> str:
    """``value`` as a TOML literal of its own type (a ``str`` stays a string)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if is_integral(value):
        # TOML integers are 64-bit signed; a larger one is refused, not turned into text.
        if not -(2**63) <= int(value) < 2**63:
            raise ScenarioError(f"{int(value)} is out of range; expected a 64-bit integer", path)
        return str(int(value))
    if is_real(value):
        value = float(value)  # numpy and other real numbers, as plain floats
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, os.PathLike):
        value = os.fspath(value)  # a path, pathlib's or any other: its text
    if isinstance(value, str):
        return _toml_string(value, path)
    if isinstance(value, Mapping):
        inner = ", ".join(
            f"{_toml_string(str(k), path)} = {_toml_literal(v, f'{path}.{k}')}"
            for k, v in value.items()
        )
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_literal(v, f"{path}[{i}]") for i, v in enumerate(value)) + "]"
    raise ScenarioError(
        f"{value!r} ({type(value).__name__}) is not a scenario value; "
        "expected a string, number, boolean, list or table",
        path,
    )


#: The largest scenario file read, bytes (16 MiB: far beyond any hand-written scenario,
#: and a bound on what a mistaken path such as ``/dev/zero`` can cost).
def load_text(scenario: str | Path) -> str:
    """The TOML text of a scenario file, or of standard input for ``"-"``.

    Only a regular file (or standard input) of at most :data:`MAX_SCENARIO_BYTES` is
    read, opened without blocking (see :mod:`ethersim.inputs`). Raises
    :class:`ScenarioError` if it cannot be read.
    """
    return inputs.read_text(scenario, "", "scenario file", MAX_SCENARIO_BYTES, stdin=True)


def file_overrides(scenario: str | Path, text: str) -> list[tuple[str, str]]:
    """Overrides that make the relative paths inside a scenario file (MPI traces, the
    packet traces of replay applications) relative to the file's folder rather than the
    working directory.

    ``text`` is the file's text; nothing is returned for standard input or a text the
    core will refuse anyway (it reports the error)."""
    if str(scenario) == "-" or ("trace" not in text and "replay" not in text):
        return []
    from pathlib import Path

    import tomllib  # here, not above: a run without trace files does without it

    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return []
    base = Path(scenario).resolve().parent
    pairs = []
    for table, key in (("mpi_jobs", "trace"), ("apps", "file")):
        entries = doc.get(table)
        if not isinstance(entries, list):
            continue
        for i, entry in enumerate(entries):
            value = entry.get(key) if isinstance(entry, dict) else None
            if table == "apps" and isinstance(entry, dict) and entry.get("kind") != "replay":
                continue
            if isinstance(value, str) and value and not Path(value).is_absolute():
                path = f"{table}[{i}].{key}"
                pairs.append((path, _toml_string(str(base / value), path)))
    return pairs


def with_captures(
    text: str,
    ports: Iterable[str],
    *,
    max_bytes: str | None = None,
    snaplen: int | str | None = None,
) -> str:
    """The scenario ``text`` with a packet capture of each port in ``ports``
    (``node->peer``) added (``--pcap``): at its defaults, or with the file's size bound
    ``max_bytes`` (a size, ``"100 MB"``; ``--pcap-limit``) and the bytes kept of each
    frame ``snaplen`` (``--snaplen``)."""
    settings = ""
    if max_bytes is not None:
        settings += f"max_bytes = {_toml_literal(max_bytes, '--pcap-limit')}\n"
    if snaplen is not None:
        settings += f"snaplen = {_toml_literal(snaplen, '--snaplen')}\n"
    added = "".join(
        f"\n[[captures]]\nport = {_toml_string(p, '--pcap')}\n{settings}" for p in ports
    )
    return text + added if added else text


def _added_capture_error(error: ScenarioError, own_text: str) -> ScenarioError:
    """``error`` named as it was given when it concerns a capture that
    :func:`with_captures` added after the file's own (``own_text``): its ``port`` (or
    its file, the same port twice) is ``--pcap``'s, ``max_bytes`` is ``--pcap-limit``
    and ``snaplen`` ``--snaplen``, not a ``captures[N]`` the user never wrote.
    ``error`` itself otherwise."""
    import re

    import tomllib

    at = re.fullmatch(r"captures\[(\d+)\](?:\.(\w+))?", error.path)
    if at is None:
        return error
    try:
        own = tomllib.loads(own_text).get("captures", [])
    except tomllib.TOMLDecodeError:
        return error
    if isinstance(own, list) and int(at[1]) < len(own):
        return error  # one of the file's own captures, named as the file names it
    option = {"max_bytes": "--pcap-limit", "snaplen": "--snaplen"}.get(at[2] or "", "--pcap")
    return ScenarioError(error.message, option)


def _check_seed(seed: int | None) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ScenarioError(f"{seed!r} is not a whole number; expected 0 to 2^64 - 1", "seed")
    if not 0 <= seed < 2**64:
        raise ScenarioError(f"{seed} is out of range; expected 0 to 2^64 - 1", "seed")
    return seed


#: Called every million or so events with (simulated time reached in s, events
#: executed, simulated time limit in s or None); whatever it raises stops the run and is
#: raised, except :class:`~ethersim.errors.WallLimitReached`, which ends the run keeping
#: its results (``stop_reason`` ``wall_limit``).
Progress = Callable[[float, int, float | None], object]


def run_text(
    text: str,
    *,
    overrides: Overrides | None = None,
    seed: int | None = None,
    progress: Progress | None = None,
    output: str | Path | None = None,
) -> Result:
    """Runs a scenario given as TOML text and returns its results.

    ``output`` is the folder the scenario's packet captures are written to (in its
    ``captures/`` folder); a scenario with captures needs one. :meth:`Result.write`
    moves them into the results folder it writes."""
    out = _folder(output)
    pairs = _pairs(overrides)
    checked = _check_seed(seed)
    report = _core.run(text, pairs, checked, progress, out)
    return Result(report, captures_in=out, **_provenance(text, [], pairs, checked, None))


def _folder(output: str | Path | None) -> Path | None:
    """The folder a run's captures go to, as a path, if one is given."""
    if output is None:
        return None
    from pathlib import Path  # only for a run that writes

    return Path(output)


def _provenance(
    text: str,
    file_pairs: list[tuple[str, str]],
    pairs: list[tuple[str, str]],
    seed: int | None,
    source: str | None,
) -> dict[str, Any]:
    """What a results folder says of the run's origin: ``scenario_text``, a function that
    gives the scenario as it ran (``scenario.toml``: the overrides and seed applied, so
    that running it again gives the same summary), and ``provenance`` (for ``run.json``:
    the source file, the overrides as given, the seed given). ``file_pairs`` are the
    overrides that make the file's relative trace paths absolute; ``pairs`` the user's."""
    given = [f"{path}={value}" for path, value in pairs]
    said = [f"# The scenario as it ran: {source or 'scenario text'}"]
    if file_pairs:
        said.append("# with its relative trace paths made absolute")
    if given:
        said.append("# with these overrides applied:")
        said += [f"#   {g}" for g in given]
    if seed is not None:
        said.append(f"# with seed {seed}.")
        if seed >= 2**63:
            said.append(
                f"# That seed is beyond TOML's integers, so it is not written below: "
                f"run this file with --seed {seed}."
            )
    said.append("# Running this file again gives the same summary.json. Comments of the")
    said.append("# original are not kept.")
    header = "\n".join(line.replace("\n", " ").replace("\r", " ") for line in said)

    def scenario_text() -> str:
        # Built when asked for (a results folder written), not on every run: the run
        # has already parsed the text once.
        return header + "\n\n" + _core.effective_scenario(text, file_pairs + pairs, seed)

    return {
        "scenario_text": scenario_text,
        "provenance": {"scenario": source, "overrides": given, "seed_given": seed},
    }


def run(
    scenario: str | Path,
    *,
    overrides: Overrides | None = None,
    seed: int | None = None,
    progress: Progress | None = None,
    output: str | Path | None = None,
    captures: Iterable[str] = (),
    capture_max_bytes: str | None = None,
    capture_snaplen: int | str | None = None,
    warn: Callable[[str], object] | None = None,
) -> Result:
    """Runs the scenario file ``scenario`` and returns its results.

    ``overrides`` replace scenario values by key path (``{"apps[0].size": "5 GB"}``);
    ``seed`` replaces the scenario's seed; ``progress`` is called as the run goes (see
    :data:`Progress`); ``captures`` adds a packet capture of each port named
    (``"server->switch"``), written in ``output``'s ``captures/`` folder (see
    :func:`run_text`), each bounded to ``capture_max_bytes`` (default 1 GiB) and keeping
    ``capture_snaplen`` bytes of each frame (default: whole frames). ``warn`` is called
    with each warning known before the run starts (a replay planned past the engine's
    clock), before it starts; every warning is in the result's ``warnings`` too.
    """
    own = load_text(scenario)
    text = with_captures(own, captures, max_bytes=capture_max_bytes, snaplen=capture_snaplen)
    file_pairs = file_overrides(scenario, text)
    pairs = _pairs(overrides)
    out = _folder(output)
    checked = _check_seed(seed)
    early = _replay_clock_warnings(text, file_pairs + pairs)
    if warn is not None:
        for warning in early:
            warn(warning)
    try:
        report = _core.run(text, file_pairs + pairs, checked, progress, out)
    except ScenarioError as e:
        raise _added_capture_error(e, own) from None
    report["warnings"] = early + report.get("warnings", [])
    provenance = _provenance(text, file_pairs, pairs, checked, str(scenario))
    return Result(report, captures_in=out, **provenance)


def _replay_clock_warnings(text: str, pairs: list[tuple[str, str]]) -> list[str]:
    """A warning for each ``replay`` application of the scenario ``text`` (with the
    overrides ``pairs``, as the core takes them) that plans to send past the engine's
    clock (about 213 days): its trace's span times its ``time_scale``, over its passes,
    from its ``start``, cut short by its ``stop``; none when the scenario has a
    ``duration``, which always ends within the clock. The core warns of other sources'
    plans when it builds the run, but not of a replay's (its plan is in the trace file),
    and reports the clock's end only once the run reaches it: this is known before the
    run starts. A scenario the run will refuse gives no warning here (the run reports
    what is wrong)."""
    if "replay" not in text and not any("replay" in value for _, value in pairs):
        return []  # no replay application can be in it (and numpy stays unimported)
    import tomllib

    from ethersim.traces import CLOCK_END_S, read_trace

    try:
        doc = tomllib.loads(_core.effective_scenario(text, pairs))
    except (ScenarioError, tomllib.TOMLDecodeError):
        return []
    apps = doc.get("apps")
    if doc.get("duration") is not None or not isinstance(apps, list):
        return []
    out = []
    for i, app in enumerate(apps):
        if not isinstance(app, dict) or app.get("kind") != "replay" or app.get("loop"):
            continue  # a loop needs a `stop` (the core checks it), within the clock
        try:
            scale = float(app.get("time_scale", 1.0))
            passes = int(app.get("repeat", 1))
            start_s = _core.parse_quantity("duration", app.get("start", "0 s")) * 1e-12
            trace = read_trace(app["file"])
        except (ScenarioError, TypeError, ValueError, KeyError):
            continue  # malformed: the run refuses it, saying why
        if not (math.isfinite(scale) and scale > 0 and passes >= 1):
            continue
        if app.get("align") == "capture":
            start_s += trace.first_ps * 1e-12
        end_s = start_s + trace.replay_end_s(scale, passes)
        stop = app.get("stop")
        if isinstance(stop, str):
            try:
                end_s = min(end_s, _core.parse_quantity("duration", stop) * 1e-12)
            except ScenarioError:
                continue
        if end_s <= CLOCK_END_S:
            continue
        times = f" x {passes} passes" if passes > 1 else ""
        out.append(
            f"apps[{i}] replays its trace ({trace.span_s:.6g} s at time_scale {scale:g}"
            f"{times}) until about {end_s / 86_400:.3g} days of simulated time, beyond the "
            "engine's clock (about 213 days): the run will stop at the clock's end with the "
            "results up to there (stop_reason clock_overflow); give it a smaller "
            "`time_scale`, fewer passes or a `stop`, or the scenario a `duration`"
        )
    return out


def validate(scenario: str | Path, *, overrides: Overrides | None = None) -> dict[str, Any]:
    """Checks a scenario file without running it; returns it with every default filled in."""
    text = load_text(scenario)
    pairs = file_overrides(scenario, text) + _pairs(overrides)
    import json

    checked: dict[str, Any] = json.loads(_core.validate(text, pairs))
    return checked


def schema() -> dict[str, Any]:
    """The JSON Schema of scenario files, generated from the Rust schema types."""
    import json

    generated: dict[str, Any] = json.loads(_core.schema())
    return generated

"""The core's layout is its architecture (docs/architecture.md): these tests keep it so.

- Every reference from one top-level module of ethersim-core to another points down the
  layer list of ``lib.rs``: no arrow runs back up, so the core has no import circle
  between layers. A mechanism built as a room (``mechanisms/NAME/``) spans layers: each
  of its files is named after its layer and keeps that layer's rule, and references
  into a room name the file (``crate::mechanisms::NAME::node``).
- Within the scenario layer, no builder imports the orchestrator (``scenario::build``):
  shared rules live in ``scenario/common.rs``.
- No source file outside the tests is longer than 600 lines.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "crates" / "ethersim-core" / "src"

#: The layers of lib.rs, top first: a module may name modules of its own layer or above.
LAYERS = [
    {"time", "ids", "input"},
    {"engine"},
    {"wire"},
    {"stats", "capture"},
    {"phy"},
    {"node"},
    {"transport"},
    {"app"},
    {"sim"},
    {"scenario"},
    {"run", "error"},
]
RANK = {module: i for i, layer in enumerate(LAYERS) for module in layer}

#: Longest a source file may be.
MAX_LINES = 600


def _code(path: Path) -> str:
    """The file's code without its comments and its unit-test module."""
    text = path.read_text(encoding="utf-8").split("#[cfg(test)]")[0]
    return re.sub(r"//[^\n]*", "", text)


def _core_files() -> list[Path]:
    return sorted(p for p in CORE.rglob("*.rs") if p.name != "lib.rs")


#: The top-level module whose directories are mechanisms' rooms (see ``_rank_of``).
ROOMS = "mechanisms"


def _rank_of(path: Path) -> int | None:
    """The layer of a core file: its top-level module's, or, in a room, its own name's
    (``mechanisms/shaper/sim.rs`` is of the sim layer). None for a room's ``mod.rs``,
    which only declares its files."""
    parts = path.relative_to(CORE).parts
    top = parts[0].removesuffix(".rs")
    if top != ROOMS:
        return RANK[top]
    if parts[-1] == "mod.rs":
        return None
    layer = parts[2].removesuffix(".rs") if len(parts) > 2 else ""
    assert layer in RANK, f"{path}: a room's file is named after a layer, not {layer!r}"
    return RANK[layer]


def _named_ranks(path: Path) -> list[tuple[str, int]]:
    """The modules a core file names (``crate::X``, and in a room ``super::FILE``) with
    their layers."""
    code = _code(path)
    named = []
    for top, room, file in sorted(set(re.findall(r"\bcrate::(\w+)(?:::(\w+)(?:::(\w+))?)?", code))):
        if top == ROOMS:
            assert file in RANK, f"{path}: crate::{ROOMS}::{room} is named without its file"
            named.append((f"crate::{ROOMS}::{room}::{file}", RANK[file]))
        else:
            assert top in RANK, f"{path}: crate::{top} is in no layer"
            named.append((f"crate::{top}", RANK[top]))
    if path.relative_to(CORE).parts[0] == ROOMS:
        for sibling in sorted(set(re.findall(r"\bsuper::(\w+)", code))):
            assert sibling in RANK, f"{path}: super::{sibling} is not a file of the room"
            named.append((f"super::{sibling}", RANK[sibling]))
    return named


def test_every_core_module_is_in_a_layer() -> None:
    tops = {p.relative_to(CORE).parts[0].removesuffix(".rs") for p in _core_files()}
    assert tops - {ROOMS} == set(RANK), tops ^ set(RANK)


def test_no_reference_runs_back_up_the_layers() -> None:
    upward = []
    for path in _core_files():
        rank = _rank_of(path)
        for named, named_rank in _named_ranks(path):
            assert rank is not None, f"{path}: a room's mod.rs only declares its files"
            if named_rank > rank:
                upward.append(f"{path.relative_to(ROOT)} names {named}")
    assert not upward, "\n".join(upward)


def test_the_layer_check_reads_a_room_file_by_file(tmp_path, monkeypatch) -> None:
    # A room's node file may not name the sim layer, its sim file may; a reference into
    # a room is ranked by the file it names.
    room = tmp_path / ROOMS / "gadget"
    room.mkdir(parents=True)
    (room / "mod.rs").write_text("pub mod node;\npub mod sim;\n")
    (room / "node.rs").write_text("use crate::sim::Network;\n")
    (room / "sim.rs").write_text("use super::node::Gadget;\nuse crate::sim::Network;\n")
    (tmp_path / "phy.rs").write_text("use crate::mechanisms::gadget::node::Gadget;\n")
    monkeypatch.setattr(sys.modules[__name__], "CORE", tmp_path)
    assert _rank_of(room / "node.rs") == RANK["node"] and _rank_of(room / "mod.rs") is None
    assert [r for _, r in _named_ranks(room / "node.rs")] == [RANK["sim"]]
    assert _named_ranks(room / "sim.rs") == [
        ("crate::sim", RANK["sim"]),
        ("super::node", RANK["node"]),
    ]
    assert _named_ranks(tmp_path / "phy.rs") == [("crate::mechanisms::gadget::node", RANK["node"])]


def test_no_scenario_builder_imports_the_orchestrator() -> None:
    scenario = CORE / "scenario"
    offenders = [
        str(p.relative_to(ROOT))
        for p in scenario.rglob("*.rs")
        if p.parent != scenario / "build" or p.name != "mod.rs"
        if re.search(r"\b(super|scenario)::build::(?!\{?build\b|Built\b)", _code(p))
    ]
    assert not offenders, offenders


def _sources() -> list[Path]:
    rust = [
        p
        for p in (ROOT / "crates").rglob("*.rs")
        if "tests" not in p.relative_to(ROOT).parts and p.name != "tests.rs"
    ]
    return sorted(rust + list((ROOT / "python" / "ethersim").rglob("*.py")))


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_source_file_grows_past_600_lines(path: Path) -> None:
    name = str(path.relative_to(ROOT))
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{name} has {lines} lines; at most {MAX_LINES} (split it by job)"


#: The design's bound (issue 28): the places outside its room that name a link or port
#: mechanism (`scripts/mechanism-reach`): its line in mechanisms/mod.rs, the registry
#: (`sim/attach/`, one module of two files, counted once) and the spec its keys sit on
#: (docs/architecture.md, "Adding a port mechanism").
REACH_BOUND = 3

#: The mechanisms the checker knows: a new one is added to it with its room.
MECHANISMS = {"Low Power Idle", "PAUSE", "rate switching", "token-bucket shaper", "CSMA/CD"}


def _mechanism_reach():
    import importlib.machinery
    import importlib.util

    path = ROOT / "scripts" / "mechanism-reach"
    loader = importlib.machinery.SourceFileLoader("mechanism_reach", str(path))
    spec = importlib.util.spec_from_loader("mechanism_reach", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_no_mechanism_reaches_further_into_the_core_than_the_bound() -> None:
    reach = _mechanism_reach()
    assert set(reach.MECHANISMS) == MECHANISMS
    for name, (pattern, room) in reach.MECHANISMS.items():
        places = reach.reach(pattern, room)
        assert len(places) <= REACH_BOUND, f"{name} reaches {len(places)} places: {places}"


def test_the_reach_checker_sees_a_mechanism_named_outside_its_room(tmp_path) -> None:
    # The checker itself: a file outside the room that names the mechanism is counted,
    # one inside it or naming it only in a comment or a unit test is not.
    reach = _mechanism_reach()
    (tmp_path / "room").mkdir()
    (tmp_path / "room" / "shaper.rs").write_text("pub struct TokenBucket;\n")
    (tmp_path / "uses.rs").write_text("use crate::room::shaper::TokenBucket;\n")
    (tmp_path / "comment.rs").write_text("// a TokenBucket in a comment\nfn f() {}\n")
    (tmp_path / "tested.rs").write_text("fn f() {}\n#[cfg(test)]\nmod t { use TokenBucket; }\n")
    # Unit tests in a file of their own (`#[cfg(test)] mod tests;`) are test code too.
    (tmp_path / "tested").mkdir()
    (tmp_path / "tested" / "tests.rs").write_text("use crate::room::shaper::TokenBucket;\n")
    # The registry's two files are one place.
    (tmp_path / "sim" / "attach").mkdir(parents=True)
    for name in ("state.rs", "dispatch.rs"):
        (tmp_path / "sim" / "attach" / name).write_text("use crate::room::shaper::TokenBucket;\n")
    reach.CORE = tmp_path
    assert reach.reach(r"\bTokenBucket\b", ["room/"]) == ["sim/attach/", "uses.rs"]

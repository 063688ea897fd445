"""The build backend (``build_backend/ethersim_build.py``): when the committed
profile-guided optimisation profile is applied, how its flags join the caller's, what
its source digest covers, and that the installed extension says how it was built."""

from __future__ import annotations

import gzip
import json
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "build_backend"))

import ethersim_build  # noqa: E402

#: The first eight bytes of an LLVM indexed instrumentation profile (its magic number,
#: 0x8169666f72706cff, little-endian: what `-Cprofile-use` reads).
INDEXED_PROFILE_MAGIC = b"\xfflprofi\x81"

RECORD = {"llvm_major": 22, "rustc": "1.95.0", "source_digest": "ab" * 32}


def test_ethersim_pgo_0_turns_the_profile_off() -> None:
    d = ethersim_build.decide({"ETHERSIM_PGO": "0"}, 22, RECORD)
    assert not d.apply
    assert "ETHERSIM_PGO=0" in d.reason


def test_a_compiler_with_an_older_llvm_builds_without_the_profile() -> None:
    d = ethersim_build.decide({}, 19, RECORD)
    assert not d.apply
    assert "LLVM 19" in d.reason and "LLVM 22" in d.reason and "1.95.0" in d.reason


@pytest.mark.parametrize("llvm", [22, 23])
def test_a_compiler_whose_llvm_reads_the_profile_uses_it(llvm: int) -> None:
    assert ethersim_build.decide({}, llvm, RECORD).apply


def test_no_profile_or_no_llvm_version_builds_without_it() -> None:
    assert not ethersim_build.decide({}, 22, None).apply
    d = ethersim_build.decide({}, None, RECORD)
    assert not d.apply
    assert "LLVM version" in d.reason


def test_the_profile_flags_follow_the_callers_own(monkeypatch: pytest.MonkeyPatch) -> None:
    record = ethersim_build.read_record()
    assert record is not None, "the profile is committed"
    monkeypatch.setattr(ethersim_build, "rustc_llvm_major", lambda env: int(record["llvm_major"]))
    # Encoded flags keep an argument with a space whole; they win over RUSTFLAGS, as in Cargo.
    env = {"CARGO_ENCODED_RUSTFLAGS": "-Ctarget-cpu=native\x1f--cfg=a b", "RUSTFLAGS": "-Cignored"}
    out, line = ethersim_build.profile_env(env)
    flags = out["CARGO_ENCODED_RUSTFLAGS"].split("\x1f")
    assert flags[:2] == ["-Ctarget-cpu=native", "--cfg=a b"]
    (use,) = [f for f in flags if f.startswith("-Cprofile-use=")]
    unpacked = Path(use.removeprefix("-Cprofile-use="))
    assert unpacked.read_bytes()[:8] == INDEXED_PROFILE_MAGIC
    assert out[ethersim_build.BUILD_PROFILE_VAR].startswith(f"pgo {record['source_digest'][:12]} ")
    assert "profile-guided optimisation" in line
    # Without encoded flags, RUSTFLAGS is read (split on white space, as Cargo does).
    out, _ = ethersim_build.profile_env({"RUSTFLAGS": " -Copt-level=3  -g "})
    assert out["CARGO_ENCODED_RUSTFLAGS"].split("\x1f")[:2] == ["-Copt-level=3", "-g"]


def test_a_build_without_the_profile_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ethersim_build, "rustc_llvm_major", lambda env: 3)
    out, line = ethersim_build.profile_env({"RUSTFLAGS": "-g"})
    assert "CARGO_ENCODED_RUSTFLAGS" not in out
    assert out["RUSTFLAGS"] == "-g"
    assert out[ethersim_build.BUILD_PROFILE_VAR].startswith("none: the Rust compiler's LLVM 3 ")
    assert "without profile-guided optimisation" in line


def test_flags_from_a_cargo_configuration_keep_the_build_without_the_profile(
    tmp_path: Path,
) -> None:
    home = tmp_path / "cargo-home"
    tree = tmp_path / "src" / "ethersim"
    tree.mkdir(parents=True)
    env = {"CARGO_HOME": str(home)}
    assert ethersim_build.cargo_config_flags(env, tree) is None
    config = tmp_path / ".cargo" / "config.toml"
    config.parent.mkdir()
    config.write_text('[build]\nrustflags = ["-Ctarget-cpu=native"]\n')
    assert ethersim_build.cargo_config_flags(env, tree) == str(config)
    # Flags the caller gives in the environment replace the configuration's anyway.
    assert ethersim_build.cargo_config_flags({**env, "RUSTFLAGS": "-g"}, tree) is None
    config.unlink()
    target = {**env, "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUSTFLAGS": "-g"}
    assert ethersim_build.cargo_config_flags(target, tree) == (
        "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUSTFLAGS"
    )
    d = ethersim_build.decide({}, 22, RECORD, str(config))
    assert not d.apply
    assert str(config) in d.reason and "RUSTFLAGS" in d.reason


def test_a_damaged_profile_never_stops_the_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = ethersim_build.read_record()
    assert record is not None
    monkeypatch.setattr(ethersim_build, "rustc_llvm_major", lambda env: int(record["llvm_major"]))
    damaged = tmp_path / "ethersim.profdata.gz"
    with gzip.open(ethersim_build.PROFILE, "rb") as f:
        whole = gzip.compress(f.read(4096))
    damaged.write_bytes(whole[: len(whole) // 2])  # cut short
    monkeypatch.setattr(ethersim_build, "PROFILE", damaged)
    monkeypatch.setattr(ethersim_build, "ROOT", tmp_path)
    out, line = ethersim_build.profile_env({"RUSTFLAGS": "-g"})
    assert "CARGO_ENCODED_RUSTFLAGS" not in out
    assert out[ethersim_build.BUILD_PROFILE_VAR].startswith("none: the profile could not be used: ")
    assert "without profile-guided optimisation" in line
    assert not list((tmp_path / "target" / "pgo").glob(".*.part")), "no partial file left"


def _tree(root: Path) -> None:
    (root / "crates" / "a" / "src" / "m").mkdir(parents=True)
    (root / "crates" / "a" / "tests").mkdir()
    (root / "Cargo.toml").write_text("[workspace]\n")
    (root / "Cargo.lock").write_text("# lock\n")
    (root / "crates" / "a" / "Cargo.toml").write_text("[package]\n")
    (root / "crates" / "a" / "src" / "lib.rs").write_text("mod m;\n")
    (root / "crates" / "a" / "src" / "m" / "x.rs").write_text("fn x() {}\n")
    (root / "crates" / "a" / "tests" / "t.rs").write_text("#[test] fn t() {}\n")


def test_the_source_digest_covers_the_compiled_sources_and_no_tests(tmp_path: Path) -> None:
    _tree(tmp_path)
    before = ethersim_build.source_digest(tmp_path)
    (tmp_path / "crates" / "a" / "tests" / "t.rs").write_text("#[test] fn u() {}\n")
    # The workspace manifest, as a source distribution rewrites it.
    (tmp_path / "Cargo.toml").write_text("[workspace]\nmembers = []\n")
    assert ethersim_build.source_digest(tmp_path) == before
    for changed in ["crates/a/src/m/x.rs", "crates/a/Cargo.toml", "Cargo.lock"]:
        path = tmp_path / changed
        original = path.read_text()
        path.write_text(original + "// changed\n")
        assert ethersim_build.source_digest(tmp_path) != before, changed
        path.write_text(original)
    assert ethersim_build.source_digest(tmp_path) == before


def test_the_committed_profile_is_what_its_record_says() -> None:
    from ethersim.benchmark import bench_scenarios

    record = json.loads(ethersim_build.RECORD.read_text())
    with gzip.open(ethersim_build.PROFILE, "rb") as f:
        assert f.read(8) == INDEXED_PROFILE_MAGIC
    assert record["llvm_version"].split(".")[0] == str(record["llvm_major"])
    assert re.fullmatch(r"[0-9a-f]{64}", record["source_digest"])
    assert record["training"], "the profile was made from runs"
    assert set(record["training"]) <= set(bench_scenarios())


def test_the_extension_says_how_it_was_built() -> None:
    """The installed extension's own account. Installed from this checkout by
    ``pip install .`` on this machine (as the README's test command does), it was built
    with the profile exactly when this machine's compiler reads it."""
    from ethersim import _core

    said = _core.build_profile()
    forms = r"pgo [0-9a-f]{12} \(made for (these|earlier) sources\)|none: .+"
    assert re.fullmatch(forms, said), said
    if Path(_core.__file__).resolve().is_relative_to(ROOT):
        # The checkout's own extension: `cargo build`, or `pip install -e .` (which builds
        # through the backend), so either form.
        return
    if said == "none: turned off by ETHERSIM_PGO=0":
        return  # installed so on purpose, whatever the environment says now

    decision = ethersim_build.decide(
        os.environ,
        ethersim_build.rustc_llvm_major(os.environ),
        ethersim_build.read_record(),
        ethersim_build.cargo_config_flags(os.environ),
    )
    assert said.startswith("pgo ") == decision.apply, (said, decision)


def test_the_wheels_scripts_are_made_executable(tmp_path: Path) -> None:
    # As a source distribution unpacks them: no execute bits. maturin packs the mode the
    # file has, and pip installs the script with it.
    script = tmp_path / "ethersim"
    script.write_text("#!python\n")
    script.chmod(0o644)
    private = tmp_path / "private"
    private.write_text("#!python\n")
    private.chmod(0o600)
    ethersim_build.scripts_executable(tmp_path)
    assert script.stat().st_mode & 0o777 == 0o755
    assert private.stat().st_mode & 0o777 == 0o700
    ethersim_build.scripts_executable(tmp_path / "absent")  # no folder: nothing to do


def test_the_committed_script_is_executable() -> None:
    assert os.access(ethersim_build.SCRIPTS / "ethersim", os.X_OK)


def test_the_wheel_hooks_make_the_scripts_executable_before_maturin_packs_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import contextlib
    import types

    script = tmp_path / "ethersim"
    script.write_text("#!python\n")
    script.chmod(0o644)
    seen: list[tuple[str, int]] = []

    def packs(hook: str) -> object:
        def build(wheel_directory: str, config_settings: object, metadata_directory: object) -> str:
            seen.append((hook, script.stat().st_mode & 0o777))
            return "ethersim.whl"

        return build

    maturin = types.SimpleNamespace(build_wheel=packs("wheel"), build_editable=packs("editable"))
    monkeypatch.setitem(sys.modules, "maturin", maturin)
    monkeypatch.setattr(ethersim_build, "SCRIPTS", tmp_path)
    monkeypatch.setattr(ethersim_build, "_profiled", contextlib.nullcontext)
    ethersim_build.build_wheel(str(tmp_path))
    script.chmod(0o644)
    ethersim_build.build_editable(str(tmp_path))
    assert seen == [("wheel", 0o755), ("editable", 0o755)]


@pytest.mark.parametrize("with_packaging", [False, True], ids=["bare", "packaging only"])
def test_pgo_profile_stops_before_its_build_without_the_projects_dependencies(
    tmp_path: Path, with_packaging: bool
) -> None:
    # scripts/pgo-profile trains through `ethersim run` with its own Python: run by one
    # without the site's packages (-S), it must say so at once, not after its build.
    import shutil
    import subprocess

    import packaging

    path = ""
    if with_packaging:
        shutil.copytree(Path(packaging.__file__).parent, tmp_path / "packaging")
        path = str(tmp_path)
    p = subprocess.run(
        [sys.executable, "-S", str(ROOT / "scripts" / "pgo-profile")],
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr, p.stderr
    assert "lacks the project's dependencies" in p.stderr, p.stderr
    named = "pandas" if with_packaging else "packaging"
    assert named in p.stderr, p.stderr

"""ethersim's PEP 517 build backend: maturin, with profile-guided optimisation.

``pip install .`` builds the Rust extension through this module. It is maturin's own
backend with one addition: when the Rust compiler can read the profile committed in
``build_backend/pgo/`` (an LLVM instrumentation profile of the bench scenarios, written
by ``scripts/pgo-profile``), the release build is optimised with it
(``-Cprofile-use``). The compiler then lays out and inlines the event path as the
scenarios actually ran it: the same code, the same results bit for bit (profile-guided
optimisation reorders and inlines; it does not change what any instruction computes),
and 8-9% less CPU time on the TCP, UDP and dumbbell runs (see README, "Speed").

The profile is used only when it can help and cannot break the build:

- ``ETHERSIM_PGO=0`` turns it off;
- a compiler whose LLVM is older than the one that wrote the profile cannot read it, so
  the build goes on without it (``rust-version`` allows compilers older than the
  profile's);
- a profile made for other sources still builds: functions that changed since lose
  their profile data and are compiled as without it. The extension records which case
  it was built under (``ethersim._core.build_profile()``), and ``ethersim bench`` prints
  it beside its figures.

The flags are added to the ones the caller gave (``CARGO_ENCODED_RUSTFLAGS`` or
``RUSTFLAGS``). Flags from the environment replace those of a Cargo configuration
(``build.rustflags``, ``target.<triple>.rustflags`` and their variables), so when the
caller's flags come from one of those the build goes without the profile and says so.
Nothing about the profile stops a build: a damaged file, or nowhere to unpack it, and
the build goes on without it, saying why.

One more thing the wheel needs: its scripts (the ``ethersim`` command, in
``python/ethersim.data/scripts/``) are made executable before maturin packs them, as
maturin packs a file with the mode it has on disk, a source distribution keeps no modes
and pip installs a script with the mode the wheel gives it.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

__all__ = [
    "Decision",
    "build_editable",
    "build_sdist",
    "build_wheel",
    "cargo_config_flags",
    "decide",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
    "prepare_metadata_for_build_editable",
    "prepare_metadata_for_build_wheel",
    "profile_env",
    "rustc_llvm_major",
    "scripts_executable",
    "source_digest",
]

HERE = Path(__file__).resolve().parent
#: The source tree the extension is built from (this folder's parent).
ROOT = HERE.parent
#: The committed profile, gzip-compressed (rustc reads it uncompressed).
PROFILE = HERE / "pgo" / "ethersim.profdata.gz"
#: What the profile was made from: LLVM version, source digest, training scenarios.
RECORD = HERE / "pgo" / "profile.json"

#: The wheel's scripts, installed as commands (maturin's ``data`` folder in pyproject.toml).
SCRIPTS = ROOT / "python" / "ethersim.data" / "scripts"

#: The environment variable the extension's build reads to record how it was optimised.
BUILD_PROFILE_VAR = "ETHERSIM_BUILD_PROFILE"


def source_digest(root: Path = ROOT) -> str:
    """SHA-256 of what the extension's machine code is compiled from: every Rust source
    file of the crates, their manifests and the lock file (not tests or benches), by
    path and content. A profile records the digest of the sources it was made from.

    The workspace's own `Cargo.toml` is left out: a source distribution rewrites it
    (maturin drops `default-members`), and what it holds (members, lints, the release
    profile) does not change a function's control flow, which is what a profile is
    matched against."""
    files = sorted(
        [root / "Cargo.lock"]
        + [p for crate in sorted((root / "crates").iterdir()) for p in _crate_files(crate)]
    )
    h = hashlib.sha256()
    for path in files:
        h.update(path.relative_to(root).as_posix().encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def _crate_files(crate: Path) -> list[Path]:
    """A crate's manifest and the Rust files under its ``src/``."""
    src = crate / "src"
    manifest = crate / "Cargo.toml"
    found = sorted(src.rglob("*.rs")) if src.is_dir() else []
    return ([manifest] if manifest.is_file() else []) + found


def rustc_llvm_major(env: Mapping[str, str]) -> int | None:
    """The major version of the LLVM inside the compiler Cargo will use (``RUSTC``, else
    ``rustc``), or ``None`` if it cannot be run or does not say."""
    rustc = env.get("RUSTC") or "rustc"
    try:
        out = subprocess.run(
            [rustc, "-vV"], capture_output=True, text=True, check=True, env=dict(env)
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    m = re.search(r"^LLVM version: (\d+)", out, re.MULTILINE)
    return int(m.group(1)) if m else None


class Decision(NamedTuple):
    """Whether the build uses the profile, and why (one line for the build's output)."""

    apply: bool
    reason: str


def decide(
    env: Mapping[str, str],
    llvm_major: int | None,
    record: Mapping[str, Any] | None,
    config_flags: str | None = None,
) -> Decision:
    """Whether a build in ``env``, by a compiler with LLVM ``llvm_major``, uses the
    profile described by ``record`` (``None``: no profile is committed).
    ``config_flags`` names where Cargo would otherwise take compiler flags from (a Cargo
    configuration file or variable) if anywhere: flags from the environment, which the
    profile needs, would replace those, so the build then goes without it."""
    if env.get("ETHERSIM_PGO", "").strip() == "0":
        return Decision(False, "turned off by ETHERSIM_PGO=0")
    if record is None:
        return Decision(False, f"no profile at {PROFILE.relative_to(ROOT)}")
    if config_flags is not None:
        return Decision(
            False,
            f"compiler flags come from {config_flags}, which flags in the environment would "
            "replace (give them in RUSTFLAGS to build with the profile)",
        )
    needed = int(record["llvm_major"])
    if llvm_major is None:
        return Decision(False, "the Rust compiler did not say its LLVM version")
    if llvm_major < needed:
        return Decision(
            False,
            f"the Rust compiler's LLVM {llvm_major} cannot read a profile written by LLVM "
            f"{needed} (rustc {record['rustc']} or later reads it)",
        )
    return Decision(True, f"profile written by LLVM {needed}, compiler's LLVM {llvm_major}")


def cargo_config_flags(env: Mapping[str, str], start: Path = ROOT) -> str | None:
    """Where Cargo would take compiler flags from other than ``CARGO_ENCODED_RUSTFLAGS``
    and ``RUSTFLAGS`` (which replace all of these, as Cargo documents): a
    ``CARGO_BUILD_RUSTFLAGS`` or ``CARGO_TARGET_<triple>_RUSTFLAGS`` variable, or a
    configuration file naming ``rustflags`` (those of ``start`` and its parents, then
    ``CARGO_HOME``'s). ``None`` if none, or if the caller gives flags in the environment
    already (they replace the configuration's anyway)."""
    if "CARGO_ENCODED_RUSTFLAGS" in env or "RUSTFLAGS" in env:
        return None
    for name in sorted(env):
        if name == "CARGO_BUILD_RUSTFLAGS" or (
            name.startswith("CARGO_TARGET_") and name.endswith("_RUSTFLAGS")
        ):
            return name
    home = Path(env.get("CARGO_HOME") or Path.home() / ".cargo")
    folders = [d / ".cargo" for d in (start, *start.parents)] + [home]
    for folder in folders:
        for file in (folder / "config.toml", folder / "config"):
            try:
                if "rustflags" in file.read_text(encoding="utf-8", errors="replace"):
                    return str(file)
            except OSError:
                continue
    return None


def read_record() -> dict[str, Any] | None:
    """The committed profile's record, or ``None`` if no profile is committed."""
    if not (PROFILE.is_file() and RECORD.is_file()):
        return None
    record: dict[str, Any] = json.loads(RECORD.read_text(encoding="utf-8"))
    return record


def _encoded_flags(env: Mapping[str, str]) -> list[str]:
    """The compiler flags the caller's environment gives Cargo, as Cargo reads them."""
    encoded = env.get("CARGO_ENCODED_RUSTFLAGS")
    if encoded is not None:
        return [f for f in encoded.split("\x1f") if f]
    return env.get("RUSTFLAGS", "").split()


def _unpacked_profile() -> Path:
    """The profile, uncompressed, at a path that stays the same from build to build of
    the same profile (so Cargo's incremental builds stay valid) and changes with it (it
    is named by the compressed file's SHA-256): under the source tree's ``target/`` if
    it can be written, else a folder of this user's in the temporary folder."""
    packed = PROFILE.read_bytes()
    name = f"ethersim-{hashlib.sha256(packed).hexdigest()[:24]}.profdata"
    user = os.getuid() if hasattr(os, "getuid") else os.getpid()
    folders = [ROOT / "target" / "pgo", Path(tempfile.gettempdir()) / f"ethersim-pgo-{user}"]
    for folder in folders:
        path = folder / name
        part = folder / f".{name}.{os.getpid()}.part"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if not path.is_file():
                part.write_bytes(gzip.decompress(packed))
                part.replace(path)
            return path
        except OSError:
            part.unlink(missing_ok=True)
            continue
    raise OSError("no folder to unpack the PGO profile into")


def profile_env(env: Mapping[str, str]) -> tuple[dict[str, str], str]:
    """The environment for the extension's build, and one line saying what it does.
    Whatever is wrong with the profile (a damaged file, nowhere to unpack it), the build
    goes on without it and says why."""
    try:
        return _profile_env(env)
    except Exception as e:  # the profile is an optimisation, never a cause to fail
        out = dict(env)
        reason = f"the profile could not be used: {type(e).__name__}: {e}"
        out[BUILD_PROFILE_VAR] = f"none: {reason}"
        return out, f"ethersim build: without profile-guided optimisation ({reason})"


def _profile_env(env: Mapping[str, str]) -> tuple[dict[str, str], str]:
    out = dict(env)
    record = read_record()
    decision = decide(env, rustc_llvm_major(env), record, cargo_config_flags(env))
    if not decision.apply or record is None:
        out[BUILD_PROFILE_VAR] = f"none: {decision.reason}"
        return out, f"ethersim build: without profile-guided optimisation ({decision.reason})"
    try:
        fresh = record["source_digest"] == source_digest()
    except OSError:  # a tree without the crates' layout: the profile's age is unknown
        fresh = False
    path = _unpacked_profile()
    flags = [
        *_encoded_flags(env),
        f"-Cprofile-use={path}",
        # A profile made for other sources is still used for what did not change; the
        # functions that did would each print a warning.
        "-Cllvm-args=-no-pgo-warn-mismatch",
    ]
    out["CARGO_ENCODED_RUSTFLAGS"] = "\x1f".join(flags)
    state = "made for these sources" if fresh else "made for earlier sources"
    out[BUILD_PROFILE_VAR] = f"pgo {record['source_digest'][:12]} ({state})"
    return out, f"ethersim build: profile-guided optimisation, {state} ({decision.reason})"


@contextlib.contextmanager
def _profiled() -> Iterator[None]:
    """Runs the body (a maturin build) in the environment `profile_env` gives."""
    saved = dict(os.environ)
    env, line = profile_env(os.environ)
    print(line, file=sys.stderr, flush=True)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def scripts_executable(folder: Path | None = None) -> None:
    """Makes every file in `folder` (default `SCRIPTS`) executable by whoever may read it
    (a source distribution unpacks them 0644). A tree that cannot be changed is left as
    it is."""
    folder = SCRIPTS if folder is None else folder
    if not folder.is_dir():
        return
    for script in folder.iterdir():
        try:
            mode = script.stat().st_mode
            script.chmod(mode | (mode & 0o444) >> 2)
        except OSError as e:
            print(f"ethersim build: {script} stays as it is: {e}", file=sys.stderr)


def _maturin_build(
    hook: str,
    wheel_directory: str,
    config_settings: Mapping[str, Any] | None,
    metadata_directory: str | None,
) -> str:
    """Runs maturin's build hook `hook` in the environment `profile_env` gives."""
    import maturin

    scripts_executable()
    with _profiled():
        return str(getattr(maturin, hook)(wheel_directory, config_settings, metadata_directory))


def build_wheel(
    wheel_directory: str,
    config_settings: Mapping[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """PEP 517: builds the wheel (maturin), with the profile if it applies."""
    return _maturin_build("build_wheel", wheel_directory, config_settings, metadata_directory)


def build_editable(
    wheel_directory: str,
    config_settings: Mapping[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """PEP 660: builds the editable wheel (maturin), with the profile if it applies."""
    return _maturin_build("build_editable", wheel_directory, config_settings, metadata_directory)


# The hooks that compile nothing are maturin's own (imported when called, so that the
# functions above can be used, and tested, without maturin).


def build_sdist(sdist_directory: str, config_settings: Mapping[str, Any] | None = None) -> str:
    """PEP 517: maturin's source distribution."""
    import maturin

    return str(maturin.build_sdist(sdist_directory, config_settings))


def get_requires_for_build_wheel(config_settings: Mapping[str, Any] | None = None) -> list[str]:
    """PEP 517: what maturin needs to build a wheel."""
    import maturin

    return list(maturin.get_requires_for_build_wheel(config_settings))


def get_requires_for_build_editable(config_settings: Mapping[str, Any] | None = None) -> list[str]:
    """PEP 660: what maturin needs to build an editable wheel."""
    import maturin

    hook = getattr(maturin, "get_requires_for_build_editable", maturin.get_requires_for_build_wheel)
    return list(hook(config_settings))


def get_requires_for_build_sdist(config_settings: Mapping[str, Any] | None = None) -> list[str]:
    """PEP 517: what maturin needs to build a source distribution."""
    import maturin

    return list(maturin.get_requires_for_build_sdist(config_settings))


def prepare_metadata_for_build_editable(
    metadata_directory: str, config_settings: Mapping[str, Any] | None = None
) -> str:
    """PEP 660: maturin's editable wheel metadata (without building the extension)."""
    import maturin

    hook = getattr(
        maturin, "prepare_metadata_for_build_editable", maturin.prepare_metadata_for_build_wheel
    )
    return str(hook(metadata_directory, config_settings))


def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: Mapping[str, Any] | None = None
) -> str:
    """PEP 517: maturin's wheel metadata."""
    import maturin

    return str(maturin.prepare_metadata_for_build_wheel(metadata_directory, config_settings))

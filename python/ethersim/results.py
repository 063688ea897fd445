"""Results of a run: the summary as plain data, and tables as pandas DataFrames."""

from __future__ import annotations

import os

# The abstract class itself, from the module the interpreter's start-up loads:
# collections.abc re-exports it, and importing that loads all of collections.
from _collections_abc import Callable

from ethersim._lean import cached_property
from ethersim.errors import OutputError
from ethersim.safe_write import make_folders

# typing is imported only by type checkers: a run does not load it (start-up, issue 29).
# Nor are pathlib and json, with the regular expressions both load: the functions that
# write import them (a run that prints its summary writes nothing).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from contextlib import AbstractContextManager
    from pathlib import Path
    from typing import Any

    import pandas as pd

__all__ = [
    "FolderCheck",
    "Result",
    "capture_folder",
    "check_output_folder",
    "is_run_folder",
    "write_folder",
]

#: Tables written beside ``summary.json``, by the summary key they come from.
TABLES = (
    "flows",
    "ports",
    "links",
    "hosts",
    "stations",
    "series",
    "tcp_series",
    "idle_intervals",
    "jobs",
    "job_nodes",
    "captures",
)

#: Every file a results folder holds.
RESULT_FILES = frozenset({"summary.json", "run.json", *(f"{t}.parquet" for t in TABLES)})

#: What a results folder may hold besides: the scenario as it ran (``ethersim run``), the
#: packet captures, and what ``ethersim report`` adds. A folder with anything else is not
#: replaced.
OPTIONAL_FILES = frozenset({"scenario.toml", "captures", "report.html", "figures"})


def writing_lock(out: Path) -> AbstractContextManager[None]:
    """Holds the right to write results to ``out`` (a lock beside it, released by the
    system if the process dies); another writer at the same time gets an
    :class:`OutputError` instead of a race in which both would say they wrote."""
    import contextlib  # only where results are written (start-up, issue 29)

    return contextlib.contextmanager(_hold_writing_lock)(out)


def _hold_writing_lock(out: Path) -> Iterator[None]:
    """:func:`writing_lock`'s work, as a generator: takes the lock, yields, releases it."""
    import fcntl

    lock_path = out.parent / f".{out.name}.lock"
    while True:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise OutputError(
                f"another ethersim is writing results to {str(out)!r}; try again when it is done"
            ) from None
        # The lock file may have been removed (and a new one made) between open and lock.
        try:
            same = os.stat(lock_path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        yield
    finally:
        # Removed while held, so no writer is left holding a file another cannot see.
        os.unlink(lock_path)
        os.close(fd)


def _umask() -> int:
    """The process's file-creation mask (read by setting it and putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def is_run_folder(names: set[str]) -> bool:
    """Whether a folder holding ``names`` is one that :meth:`Result.write` wrote."""
    return "summary.json" in names and names <= RESULT_FILES | OPTIONAL_FILES


#: Tells whether a folder holding these names is one ethersim wrote (and may replace).
FolderCheck = Callable[[set[str]], bool]


def _check_replaceable(out: Path, ours: FolderCheck = is_run_folder) -> None:
    """Refuses to replace anything but a folder of the kind ``ours`` recognizes."""
    if not out.exists():
        return
    if not out.is_dir():
        raise OutputError(f"{str(out)!r} is a file; expected a folder for the results")
    names = {p.name for p in out.iterdir()}
    if names and not ours(names):
        raise OutputError(
            f"{str(out)!r} already exists and holds files ethersim did not write; "
            "expected a new folder or an earlier results folder"
        )


def capture_folder(out_dir: str | Path) -> Path:
    """A new private folder beside the results folder ``out_dir``, for a run's packet
    captures while it runs (:meth:`Result.write` moves them into the results folder; the
    caller removes this folder afterwards, whatever happened)."""
    import tempfile  # here and in the writes below: a run that writes nothing skips it
    from pathlib import Path

    out = output_path(out_dir)
    try:
        make_folders(out.parent)
        return Path(tempfile.mkdtemp(prefix=f".{out.name}.captures.", dir=out.parent))
    except OSError as e:
        raise OutputError(f"cannot create a folder for captures beside {str(out)!r}: {e}") from None


def output_path(out_dir: str | Path) -> Path:
    """The folder results go to: absolute, with symbolic links and ``..`` resolved (a link
    to a results folder updates that folder). Raises :class:`OutputError` for a path that
    is not valid text (the Parquet writer takes UTF-8 paths only)."""
    from pathlib import Path

    out = Path(os.path.realpath(out_dir))
    try:
        str(out).encode("utf-8")
    except UnicodeEncodeError:
        raise OutputError(
            f"{str(out_dir)!r} is not a valid UTF-8 path; expected a folder name in UTF-8"
        ) from None
    return out


def check_output_folder(out_dir: str | Path, ours: FolderCheck = is_run_folder) -> None:
    """Raises :class:`OutputError` unless results could be written to ``out_dir``: it is
    absent or an earlier results folder (of the kind ``ours`` recognizes), and the
    nearest existing folder above it is a folder this process may write in. Cheap; the
    CLI calls it before running."""
    out = output_path(out_dir)
    try:
        _check_replaceable(out, ours)
        parent = out.parent
        while not parent.exists():
            parent = parent.parent
    except OSError as e:
        raise OutputError(f"cannot create results folder {str(out)!r}: {e.strerror}") from None
    why = None
    if not parent.is_dir():
        why = "is a file"
    elif not os.access(parent, os.W_OK | os.X_OK):
        why = "is not writable"
    if why is not None:
        raise OutputError(f"cannot create results folder {str(out)!r}: {str(parent)!r} {why}")


def write_folder(
    out_dir: str | Path, fill: Callable[[Path], None], ours: FolderCheck = is_run_folder
) -> Path:
    """Writes a results folder at ``out_dir`` with ``fill`` (which puts the files into
    the folder it is given).

    The folder appears complete or not at all: ``fill`` writes into a temporary sibling
    folder that is renamed into place at the end. An existing ``out_dir`` is replaced
    only if it is empty or ``ours`` recognizes it as a folder ethersim wrote; anything
    else raises :class:`OutputError`. Another process writing to the same folder at the
    same time gets an :class:`OutputError` too.
    """
    out = output_path(out_dir)
    try:
        make_folders(out.parent)
        with writing_lock(out):
            return _write_locked(out, fill, ours)
    except OSError as e:
        raise OutputError(f"cannot create results folder {str(out)!r}: {e}") from None


def _write_locked(out: Path, fill: Callable[[Path], None], ours: FolderCheck) -> Path:
    import shutil
    import tempfile
    from pathlib import Path

    try:
        _check_replaceable(out, ours)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    except OSError as e:
        raise OutputError(f"cannot create results folder {str(out)!r}: {e}") from None
    old: Path | None = None
    try:
        # mkdtemp makes a private (0700) folder; results get the umask's permissions.
        os.chmod(tmp, 0o777 & ~_umask())
        fill(tmp)
        # Move an earlier results folder aside before putting the new one in place, so
        # that at no moment are both gone; then delete the old one.
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
            os.replace(out, old / out.name)
        os.replace(tmp, out)
    except BaseException as e:
        # Whatever stopped the write (an error, Ctrl-C, SIGTERM): nothing half-written
        # stays, and an earlier results folder moved aside goes back.
        shutil.rmtree(tmp, ignore_errors=True)
        if old is not None:
            if not out.exists() and (old / out.name).exists():
                os.replace(old / out.name, out)
            shutil.rmtree(old, ignore_errors=True)
        if isinstance(e, OSError):
            raise OutputError(f"cannot write results to {str(out)!r}: {e}") from None
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return out


class Result:
    """The outcome of one run.

    ``summary`` holds everything the simulation determined and is byte-identical for the
    same scenario and seed; ``wall_time_s`` and ``events_per_s`` are what the run cost.
    """

    def __init__(
        self,
        report: dict[str, Any],
        *,
        captures_in: Path | None = None,
        scenario_text: str | Callable[[], str] | None = None,
        provenance: dict[str, Any] | None = None,
    ) -> None:
        summary: dict[str, Any] = report["summary"]
        #: The series' change points, kept out of ``summary`` (and ``summary.json``):
        #: they are the ``series`` and ``tcp_series`` tables.
        self._points: dict[str, list[dict[str, Any]]] = {
            key: summary.get(key, []) for key in ("series", "tcp_series")
        }
        for key, series in self._points.items():
            # summary.json keeps one record per series: what it is and how it was bounded.
            summary[key] = [_series_index(s) for s in series]
        self.summary = summary
        self.wall_time_s: float = report["wall_time_s"]
        self.events_per_s: float = report["events_per_s"]
        #: What was valid in the scenario but pointless (no traffic, an application
        #: that starts after the run's end).
        self.warnings: list[str] = report.get("warnings", [])
        #: The folder the run wrote its packet captures in (their paths are relative to
        #: it), until :meth:`write` moves them into a results folder.
        self.captures_in = captures_in
        self._scenario_text = scenario_text
        #: Where the run came from, written into ``run.json``: the scenario file, the
        #: overrides and seed given, and (added by the command line) the command.
        self.provenance: dict[str, Any] = dict(provenance or {})

    @property
    def scenario_text(self) -> str | None:
        """The scenario as it ran, overrides and seed applied (running it again gives the
        same ``summary.json``), written as ``scenario.toml``; built on first use."""
        if callable(self._scenario_text):
            self._scenario_text = self._scenario_text()
        return self._scenario_text

    def _table(self, key: str) -> pd.DataFrame:
        # pandas is imported on first use: a run that only prints needs none of it.
        import pandas as pd

        if key == "series":
            return self._series_table()
        if key == "tcp_series":
            return self._tcp_series_table()
        # Nested records ({"delay": {"mean_s": ...}}) become flat columns ("delay_mean_s").
        return numeric_columns(pd.json_normalize(self.summary.get(key, []), sep="_"))

    def _series_table(self) -> pd.DataFrame:
        import pandas as pd

        rows = [
            (s["port"], s["quantity"], t, t * 1e-12, v)
            for s in self._points["series"]
            for t, v in zip(s["t_ps"], s["value"], strict=True)
        ]
        return pd.DataFrame(rows, columns=["port", "quantity", "t_ps", "t_s", "value"])

    def _tcp_series_table(self) -> pd.DataFrame:
        import pandas as pd

        rows = [
            (s["flow"], s["quantity"], t, t * 1e-12, v)
            for s in self._points["tcp_series"]
            for t, v in zip(s["t_ps"], s["value"], strict=True)
        ]
        return pd.DataFrame(rows, columns=["flow", "quantity", "t_ps", "t_s", "value"])

    @cached_property
    def flows(self) -> pd.DataFrame:
        """One row per flow: bytes, losses, completion time, goodput, delay statistics."""
        return self._table("flows")

    @cached_property
    def ports(self) -> pd.DataFrame:
        """One row per port (link direction): frames, drops, queue statistics, utilization."""
        return self._table("ports")

    @cached_property
    def links(self) -> pd.DataFrame:
        """One row per link: outages begun and time spent dark."""
        return self._table("links")

    @cached_property
    def hosts(self) -> pd.DataFrame:
        """One row per host: packets sent and received, receive-ring drops."""
        return self._table("hosts")

    @cached_property
    def stations(self) -> pd.DataFrame:
        """One row per station of each shared-medium segment (CSMA/CD): frames sent, bit
        rate in wire bits, frame rate, transmission delay (mean, std), excess delay,
        collisions, collisions per frame and excessive-collision drops, over the
        measurement window when the scenario has one."""
        return self._table("stations")

    @cached_property
    def series(self) -> pd.DataFrame:
        """Time series asked for in the scenario, long format: one row per change point
        (``port``, ``quantity``, ``t_ps``, ``t_s``, ``value``: the level from ``t`` on)."""
        return self._table("series")

    @cached_property
    def tcp_series(self) -> pd.DataFrame:
        """TCP sender series asked for with ``[[series]] app = "name"``, long format: one
        row per change point (``flow``, ``quantity``, ``t_ps``, ``t_s``, ``value``).
        Quantities: ``cwnd``, ``ssthresh`` and ``flight`` in bytes; ``srtt`` and ``rto`` in
        picoseconds."""
        return self._table("tcp_series")

    @cached_property
    def idle_intervals(self) -> pd.DataFrame:
        """The distribution of every port's idle intervals (the silences between its
        transmissions, what an LPI PHY could sleep in), one row per histogram bin:
        ``node``, ``peer``, ``lower_s``, ``upper_s``, ``count``. Bins are within 1% of
        their values; the ports table has each port's exact count, total and maximum."""
        return self._table("idle_intervals")

    @cached_property
    def jobs(self) -> pd.DataFrame:
        """One row per MPI job: elapsed time, messages between hosts and within them,
        communications per node and mean bytes per message (the EEE performance model's
        profile), and rank 0's time per operation with its batch means."""
        return self._table("jobs")

    @cached_property
    def captures(self) -> pd.DataFrame:
        """One row per packet capture: ``port``, ``file`` (relative to the results
        folder), ``format``, ``frames`` written and their ``frame_bytes`` on the wire."""
        return self._table("captures")

    @cached_property
    def job_nodes(self) -> pd.DataFrame:
        """One row per host of each MPI job: messages and bytes it sent and received, and
        when its last rank finished."""
        return self._table("job_nodes")

    def __repr__(self) -> str:
        s = self.summary
        counts = ", ".join(
            f"{len(s.get(key, []))} {key}" for key in ("flows", "ports", "links") if s.get(key)
        )
        return (
            f"<ethersim.Result {s.get('scenario')!r} seed {s.get('seed')}: "
            f"{s.get('sim_time_s', 0):.6g} s simulated, {s.get('events', 0):,} events, "
            f"stopped by {s.get('stop_reason')}; {counts or 'no tables'}>"
        )

    def _repr_html_(self) -> str:
        """The run at a glance in a notebook: what ran and its flows, every string
        escaped."""
        from html import escape

        s = self.summary
        head = (
            f"<p><b>ethersim run {escape(str(s.get('scenario')))}</b>, seed "
            f"{escape(str(s.get('seed')))}: {s.get('sim_time_s', 0):.6g} s simulated, "
            f"{s.get('events', 0):,} events, stopped by {escape(str(s.get('stop_reason')))}"
            f"; {self.wall_time_s:.3g} s of wall time.</p>"
        )
        flows = self.flows
        if flows.empty:
            return head
        shown = [
            c for c in ("name", "kind", "from", "to", "goodput_bps", "loss_fraction") if c in flows
        ]
        return head + flows[shown].head(20).to_html(index=False, escape=True)

    def decimation_notes(self) -> list[str]:
        """Each series that passed its point limit, in words (see :func:`decimation_notes`)."""
        return decimation_notes(self.summary)

    def summary_json(self) -> str:
        """The summary as canonical JSON text (sorted keys, fixed indentation)."""
        import json

        return json.dumps(self.summary, indent=2, sort_keys=True) + "\n"

    def write(self, out_dir: str | Path) -> Path:
        """Writes ``summary.json``, ``run.json`` (wall-clock cost) and one Parquet file
        per table into ``out_dir``.

        The directory appears complete or not at all: files are written into a
        temporary sibling directory that is renamed into place at the end. An existing
        ``out_dir`` is replaced only if it is an earlier results folder (empty, or holding
        nothing but ethersim's result files); anything else raises :class:`OutputError`.
        """
        return write_folder(out_dir, self._fill)

    def _fill(self, folder: Path) -> None:
        import json

        (folder / "summary.json").write_text(self.summary_json(), encoding="utf-8")
        if self.scenario_text is not None:
            (folder / "scenario.toml").write_text(self.scenario_text, encoding="utf-8")
        if self.captures_in is not None:
            import shutil

            for capture in self.summary.get("captures", []):
                target = folder / capture["file"]
                target.parent.mkdir(exist_ok=True)
                shutil.move(self.captures_in / capture["file"], target)
        run_info = {
            "wall_time_s": self.wall_time_s,
            "events_per_s": self.events_per_s,
            "seed": self.summary.get("seed"),
            **self.provenance,
            "ethersim": _version(),
            "git_commit": _git_commit(),
            # The wall-clock figures above depend on how the extension was optimised.
            "build": _build_profile(),
        }
        (folder / "run.json").write_text(json.dumps(run_info, indent=2) + "\n", encoding="utf-8")
        for key in TABLES:
            self._table(key).to_parquet(folder / f"{key}.parquet", index=False)


def import_writers() -> None:
    """Imports the libraries that write result tables (pandas, pyarrow: about half a
    second). A command calls it before it holds the stopping signals for its writes, so
    that a Ctrl-C during those imports still stops the command and the held window is the
    writing alone (see :func:`ethersim.cli_common.hold_signals`)."""
    import pandas  # noqa: F401
    import pyarrow.parquet  # noqa: F401


def _version() -> str:
    from ethersim._version import __version__

    return __version__


def _build_profile() -> str:
    """How the extension was optimised (:func:`ethersim._core.build_profile`)."""
    from ethersim import _core

    return _core.build_profile()


def _git_commit() -> str | None:
    """The commit of the ethersim source checkout this package runs from (an editable
    install in a git work tree), or None when that is not known."""
    import subprocess
    from pathlib import Path

    source = Path(__file__).resolve().parent
    checkout = source.parent.parent  # python/ethersim in the project's layout
    if not ((checkout / ".git").exists() and (checkout / "crates" / "ethersim-core").is_dir()):
        return None
    try:
        done = subprocess.run(
            ["git", "-C", str(source), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and len(commit) == 40 else None


def decimation_notes(summary: dict[str, Any]) -> list[str]:
    """One sentence per series of ``summary`` that passed its point limit and was
    decimated (merged into buckets, each keeping its lowest, highest and last level)."""
    notes = []
    for key, owner in (("series", "port"), ("tcp_series", "flow")):
        for s in summary.get(key, []):
            bucket_ps = s.get("bucket_ps", 0)
            if bucket_ps:
                notes.append(
                    f"series {s[owner]} {s['quantity']} passed its point limit: "
                    f"{s['dropped_points']:,} changes were merged into buckets of "
                    f"{bucket_ps * 1e-12:.3g} s, each keeping its lowest, highest and last "
                    f"level ({s['points']:,} points kept; raise max_points to keep more)"
                )
    return notes


def capture_notes(summary: dict[str, Any]) -> list[str]:
    """One sentence per packet capture of ``summary`` that reached its size bound, so
    that the frames after it were not kept (the run's warning says the same)."""
    from ethersim.units import fmt_bytes

    return [
        f"capture {c['file']} of {c['port']} reached its size bound ({fmt_bytes(c['max_bytes'])}):"
        f" it kept the first {c['frames']:,} frames and not the {c['frames_not_kept']:,} after"
        " them (raise max_bytes, or --pcap-limit, to keep more)"
        for c in summary.get("captures", [])
        if c.get("truncated")
    ]


def numeric_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every column whose values are all numbers or missing made a float
    column, missing values NaN: a value the summary leaves ``null`` (statistics of no
    packets, a measurement window the run did not have) would otherwise make the column
    one of Python objects holding ``None``, which neither sorts nor sums."""
    import pandas as pd

    from ethersim.units import is_real

    for column in frame.columns:
        values = frame[column]
        if values.dtype != "object":
            continue
        present = values[values.notna()]
        if all(is_real(v) and not isinstance(v, bool) for v in present):
            frame[column] = pd.to_numeric(values, errors="coerce").astype("float64")
    return frame


def _series_index(series: dict[str, Any]) -> dict[str, Any]:
    """A series' record in ``summary.json``: everything but its points, and how many
    points it kept."""
    record = {k: v for k, v in series.items() if k not in ("t_ps", "value")}
    record["points"] = len(series.get("t_ps", []))
    return record

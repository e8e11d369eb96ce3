"""DuckDB runs a pipeline's SQL with no file or network access (docs/security.md, "The engine").

Each run gets a private scratch directory inside the project, `.osiris/tmp/run-<id>/` (so that a
finished file is renamed into place on the same file system). Before any step runs, the engine's
DuckDB may reach that one directory and nothing else, may neither install nor load an extension,
and its configuration is locked, so no SQL can undo this (measured with duckdb 2.0.1: once
`enable_external_access` is false and `lock_configuration` true, neither can be changed back).

Files cross the boundary only through the filesystem driver, in Python, after `osiris.trust.paths`
has checked them: `Files.stage` brings a source file into the scratch directory (a hard link, or a
copy across file systems) and `Files.place` moves a finished output onto its target with one atomic
rename, both through handles that refuse links (osiris.trust.handles); `place` here puts a sample's
output into Osiris's own session folder.
"""

from __future__ import annotations

import errno
import os
from secrets import token_hex  # not uuid, which imports platform: a run's fixed start
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from osiris.problems import RuntimeProblem, outside_inputs_problem
from osiris.trust.duckdb_sql import literal
from osiris.trust.sql import READ_WITH_A_STEP

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

SCRATCH = Path(".osiris") / "tmp"
# The JSON loader lowers the threads and raises the memory cap for one read (ADR 0065); neither
# reaches a file or the network.
ALWAYS_ALLOWED_SETTINGS = ("threads", "memory_limit")


OWNER = "owner.pid"  # in each scratch directory: the process whose run it is


def scratch_dir(project: Path) -> Path:
    """A new private directory for one run: `<project>/.osiris/tmp/run-<id>`, or one in the system's
    temporary directory when the project cannot hold it (a read-only checkout). The scratch of runs
    whose process is gone (killed before they could remove it) is removed first."""
    try:
        parent = project / SCRATCH
        parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        remove_stale_scratch(parent)
        made = Path(tempfile.mkdtemp(prefix="run-", dir=parent))
        (made / OWNER).write_text(str(os.getpid()), encoding="ascii")  # the next run's sweep reads it
        return made
    except OSError:
        return Path(tempfile.mkdtemp(prefix="osiris-run-"))


def remove_stale_scratch(parent: Path) -> list[Path]:
    """Remove each `run-*` directory under `parent` whose owner process no longer exists; the ones
    removed. A directory without an owner file (being made, or from an older Osiris) is left alone."""
    removed = []
    for run in parent.glob("run-*"):
        try:
            pid = int((run / OWNER).read_text(encoding="ascii"))
        except (OSError, ValueError):
            continue
        if not _alive(pid):
            shutil.rmtree(run, ignore_errors=True)
            removed.append(run)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def lock_down(con: DuckDBPyConnection, scratch: Path) -> None:
    """Let the DuckDB connection `con` reach `scratch` only, for good. Call it before any step runs,
    after the settings the engine needs (memory_limit, temp_directory) are made."""
    allowed = literal(str(scratch.resolve()) + os.sep)
    configs = ", ".join(literal(name) for name in ALWAYS_ALLOWED_SETTINGS)
    for statement in (
        f"SET allowed_directories = [{allowed}]",
        "SET enable_external_access = false",
        "SET autoinstall_known_extensions = false",
        "SET autoload_known_extensions = false",
        f"SET allowed_configs = [{configs}]",
        "SET lock_configuration = true",
    ):
        con.execute(statement)


def refused(detail: str) -> RuntimeProblem:
    """OML518: DuckDB's sandbox refused what a step's SQL tried to reach."""
    return outside_inputs_problem("the sandbox", detail, READ_WITH_A_STEP)


def output_file(scratch: Path, target: Path) -> Path:
    """Where DuckDB writes an output before it is placed: unique to the run and the step."""
    return scratch / f".osiris-out-{token_hex(16)}-{target.name}"


def place(finished: Path, target: Path) -> None:
    """Put `finished` onto `target` in one atomic rename; across file systems, copy it beside the
    target under a name unique to this run first. A reader sees the old file or the new one, whole,
    and two runs writing one target never mix their rows."""
    try:
        os.replace(finished, target)
        return
    except OSError as error:
        if error.errno != errno.EXDEV:  # another file system: copy, then rename
            raise
    beside = target.with_name(f".{target.name}.{token_hex(16)}.osiris-partial")
    try:
        shutil.copyfile(finished, beside)
        os.replace(beside, target)
    finally:
        beside.unlink(missing_ok=True)
        finished.unlink(missing_ok=True)

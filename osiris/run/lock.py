"""One run of a pipeline at a time (docs/run-again.md, "One run at a time").

A run holds an exclusive `flock` on `.osiris/locks/<pipeline name>.lock` from before its session
starts until it ends. The kernel releases the lock when the process ends, however it ends (`kill -9`
included), so a lock is never stale; the file itself stays and says who holds it (pid, session),
for the line a second run prints.

    with pipeline_lock(project_root, "customers-to-csv", wait=False) as held:
        held.note(session_id)
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, UTC
from pathlib import Path

from osiris.errors import ExitCode, OsirisError

LOCKS_DIR = Path(".osiris") / "locks"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


class PipelineBusy(OsirisError):
    """Another run of the same pipeline holds its lock (exit 7, README "Exit codes")."""

    exit_code = ExitCode.BUSY


def lock_path(project_root: Path, pipeline_name: str) -> Path:
    """The lock file of a pipeline: its name made safe for a file name."""
    safe = _UNSAFE.sub("_", pipeline_name).lstrip(".") or "_"
    return project_root / LOCKS_DIR / f"{safe}.lock"


@dataclass
class Held:
    """A lock this process holds; `note` records the session that runs under it."""

    fd: int
    started: str

    def note(self, session: str) -> None:
        _write(self.fd, {"pid": os.getpid(), "session": session, "started": self.started})


@contextmanager
def pipeline_lock(project_root: Path, pipeline_name: str, *, wait: bool,
                  waiting: Callable[[str], None] = lambda line: None) -> Iterator[Held]:
    """Hold the pipeline's lock for the block. Held by another run: raise PipelineBusy naming it, or,
    with `wait`, say so once through `waiting` and block until it is free (Ctrl-C stops the wait)."""
    import fcntl

    path = lock_path(project_root, pipeline_name)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            line = f"pipeline '{pipeline_name}' is already running ({_holder(fd)})"
            if not wait:
                raise PipelineBusy(f"{line}; wait for it with --wait, or try again later") from None
            waiting(f"{line}; waiting for it to finish")
            fcntl.flock(fd, fcntl.LOCK_EX)
        held = Held(fd, datetime.now(UTC).isoformat(timespec="seconds"))
        _write(fd, {"pid": os.getpid(), "session": None, "started": held.started})
        yield held
    finally:
        os.close(fd)  # releases the lock


def _holder(fd: int) -> str:
    """Who holds the lock, as its file says: "session 20261127-..., pid 4242, since ..."."""
    try:
        read: object = json.loads(os.pread(fd, 4096, 0).decode("utf-8") or "{}")
    except (OSError, ValueError):
        read = {}
    info = read if isinstance(read, dict) else {}
    parts = [f"session {info['session']}" if info.get("session") else "session starting",
             f"pid {info['pid']}" if info.get("pid") else "pid unknown"]
    if info.get("started"):
        parts.append(f"since {info['started']}")
    return ", ".join(parts)


def _write(fd: int, info: dict[str, int | str | None]) -> None:
    data = json.dumps(info).encode("utf-8")
    os.ftruncate(fd, 0)
    os.pwrite(fd, data, 0)

"""One writer per session directory: an flock on `<session>/session.lock`.

The process that writes a session holds an exclusive lock on its lock file; a second writer
(`chat --resume` of a session that is still open) is refused with one line. The operating system
drops the lock when the process ends, however it ends (kill -9 included), so a session marked
`running` whose lock nobody holds was interrupted.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

from osiris.errors import UsageError
from osiris.session.safe_io import encode, open_for_append

LOCK_FILE = "session.lock"
_ATTEMPTS = 5  # a reader (`sessions list`) holds the lock for microseconds; wait that out
_PAUSE_S = 0.02


class SessionInUseError(UsageError):
    """Another process is writing this session (exit 2)."""


class SessionLock:
    """The held lock of one session directory; `release()` (or the process ending) frees it."""

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, directory: Path, session_id: str) -> SessionLock:
        """Lock `directory`, or raise SessionInUseError naming the process that holds it."""
        fd = open_for_append(directory / LOCK_FILE)
        for attempt in range(_ATTEMPTS):
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if attempt == _ATTEMPTS - 1:
                    holder = _holder(directory)
                    os.close(fd)
                    raise SessionInUseError(
                        f"session {session_id} is open in another osiris process{holder}; "
                        "end that one first, or start a new session"
                    ) from None
                time.sleep(_PAUSE_S)
        os.ftruncate(fd, 0)
        os.write(fd, encode(f"{os.getpid()}\n"))
        return cls(fd)

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def is_held(directory: Path) -> bool:
    """Whether a process holds the lock of `directory` now (False when there is no lock file)."""
    try:
        fd = os.open(directory / LOCK_FILE, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing drops the shared lock taken just now
    return False


def _holder(directory: Path) -> str:
    """' (pid 1234)' from the lock file, or '' when it says nothing useful."""
    try:
        pid = (directory / LOCK_FILE).read_text(encoding="utf-8").strip()
    except (OSError, ValueError):
        return ""
    return f" (pid {pid})" if pid.isdigit() else ""

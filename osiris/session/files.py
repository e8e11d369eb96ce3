"""Private files: directories 0700, files 0600, JSON written atomically (temp file + rename)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from osiris.errors import FileWriteError

DIR_MODE = 0o700
FILE_MODE = 0o600


def ensure_private_dir(path: Path) -> Path:
    """Create `path` and any missing parents, each 0700 whatever the umask."""
    missing = []
    cursor = path
    while not cursor.exists():
        missing.append(cursor)
        cursor = cursor.parent
    for directory in reversed(missing):
        directory.mkdir(mode=DIR_MODE, exist_ok=True)
        os.chmod(directory, DIR_MODE)
    return path


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` in one step: readers see the old file or the new one, never half.
    The parent directory must exist (see `ensure_private_dir`)."""
    try:
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise FileWriteError(path, error) from None
    try:
        os.fchmod(fd, FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temp, path)  # atomic for readers; no fsync: a session is a log, not a database
    except OSError as error:
        Path(temp).unlink(missing_ok=True)
        raise FileWriteError(path, error) from None
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: Path, data: Any) -> None:
    write_atomic(path, json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


class AppendLog:
    """A 0600 file that lines are appended to and flushed one at a time, kept open between lines."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: Any = None

    def append(self, line: str) -> None:
        try:
            if self._handle is None:
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
                self._handle = os.fdopen(fd, "a", encoding="utf-8")
            self._handle.write(line.rstrip("\n") + "\n")
            self._handle.flush()
        except OSError as error:
            raise FileWriteError(self.path, error) from None

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

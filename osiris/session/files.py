"""Private files: directories 0700, files 0600, JSON written atomically (temp file + rename),
logs appended line by line. All of it strict JSON and valid UTF-8, never through a link."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from osiris.errors import FileWriteError
from osiris.session import strict_json
from osiris.session.safe_io import FILE_MODE, encode, open_for_append, write_all, write_error

DIR_MODE = 0o700


def ensure_private_dir(path: Path) -> Path:
    """Create `path` and any missing parents, each 0700 whatever the umask."""
    missing = []
    cursor = path
    while not cursor.exists():
        missing.append(cursor)
        cursor = cursor.parent
    for directory in reversed(missing):
        try:
            directory.mkdir(mode=DIR_MODE, exist_ok=True)
            os.chmod(directory, DIR_MODE)
        except OSError as error:  # e.g. a dangling link where the folder should be
            raise FileWriteError(directory, error) from None
    return path


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` in one step: readers see the old file or the new one, never half.
    A link at `path` is replaced, never written through. The parent directory must exist
    (see `ensure_private_dir`)."""
    try:
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise FileWriteError(path, error) from None
    try:
        os.fchmod(fd, FILE_MODE)
        with os.fdopen(fd, "wb") as handle:
            handle.write(encode(text))
        os.replace(temp, path)  # atomic for readers; no fsync: a session is a log, not a database
    except OSError as error:
        Path(temp).unlink(missing_ok=True)
        raise FileWriteError(path, error) from None
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: Path, data: object) -> None:
    write_atomic(path, strict_json.dumps(data, indent=2) + "\n")


class AppendLog:
    """A 0600 file that lines are appended to, one write each, kept open between lines.

    Opened with `open_for_append`: a link is refused and a torn last line is ended first. After a
    failed write (a full disk) the file is reopened for the next line, so that line starts afresh.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def append(self, line: str) -> None:
        try:
            if self._fd is None:
                self._fd = open_for_append(self.path)
            write_all(self._fd, encode(line.rstrip("\n") + "\n"))
        except OSError as error:
            self.close()
            raise write_error(self.path, error) from None

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

"""Bytes to disk without surprises: never through a symbolic link, never glued onto a torn line,
never a crash on text that UTF-8 cannot hold.

Every appending writer in Osiris (events.jsonl, conversation.jsonl, the chat input history, the
session lock) opens its file with `open_for_append`; text reaches disk through `encode`.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from osiris.errors import ExitCode, FileWriteError
from osiris.output_path import LINK_REFUSED, OutputPathError

FILE_MODE = 0o600
_APPEND_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


def encode(text: str) -> bytes:
    """UTF-8; a character UTF-8 cannot hold (a lone surrogate such as U+D800) is written as its
    escape, the six characters `\\ud800`, so nothing is lost and the file stays valid UTF-8."""
    return text.encode("utf-8", "backslashreplace")


def open_for_append(path: Path, mode: int = FILE_MODE) -> int:
    """A descriptor appending to the file `path` (created `mode` when missing).

    A symbolic link is refused, never followed (O_NOFOLLOW). When a regular file does not end
    with a newline (a line torn by a full disk or a kill), a newline is written first, so the next
    line starts on a line of its own. Raises OSError (OutputPathError for a link).
    """
    try:
        fd = os.open(path, _APPEND_FLAGS, mode)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise OutputPathError(LINK_REFUSED) from None
        raise
    try:
        info = os.fstat(fd)
        os.set_blocking(fd, True)
        if stat.S_ISREG(info.st_mode) and info.st_size and os.pread(fd, 1, info.st_size - 1) != b"\n":
            write_all(fd, b"\n")
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_all(fd: int, data: bytes) -> None:
    """os.write until every byte is written (a short write is not an error)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def refuse_links_below(base: Path, target: Path) -> None:
    """Raise OutputPathError when `target`, or a folder between `base` and it, is a symbolic link.
    `base` itself may be a link (a sessions folder kept elsewhere is the person's choice)."""
    cursor = base
    for part in target.relative_to(base).parts:
        cursor = cursor / part
        if cursor.is_symlink():
            raise OutputPathError(f"{cursor.relative_to(base)} {LINK_REFUSED}")


class LinkRefusedError(FileWriteError):
    """A session file or folder turned out to be a symbolic link: refused like `-o link` (exit 2)."""

    exit_code = ExitCode.USAGE


def write_error(path: Path, error: OSError) -> FileWriteError:
    """The OsirisError for a failed write of `path`: LinkRefusedError for a link."""
    kind = LinkRefusedError if isinstance(error, OutputPathError) else FileWriteError
    return kind(path, error)

"""Files a pipeline names are touched only through directory handles that refuse links (docs/security.md,
"Files": no window between the check and the write).

`osiris.trust.paths` checks a path's text and the file system as they are; another process could
swap a folder of the path for a link to elsewhere right after. So the filesystem components never
open a checked path by its name: they walk from the boundary's root one component at a time with
`O_DIRECTORY | O_NOFOLLOW` (a link in the way fails the open), make missing folders relative to the
handle of their parent, and act on the last name relative to its folder's handle: a source is
opened with `O_NOFOLLOW`, an output is renamed onto its name within that handle (across file
systems: a temporary file made in the same handle first). A swap after a step of the walk moves
the folder the handle holds; the file still lands in it, never behind the link.
"""

from __future__ import annotations

import errno
import os
from secrets import token_hex  # not uuid, which imports platform: a run's fixed start
import shutil
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_LINK_ERRORS = (errno.ELOOP, errno.ENOTDIR, errno.EMLINK)


class LinkInTheWay(OSError):
    """A component of a checked path is (now) a symbolic link, or not the kind of file it was;
    `str()` is that component, relative to the root."""

    def __init__(self, shown: str) -> None:
        super().__init__(errno.ELOOP, shown)
        self.shown = shown

    def __str__(self) -> str:
        return self.shown


@contextmanager
def folder(root: Path, parts: Sequence[str], *, create: bool = False) -> Iterator[int]:
    """A handle on the folder `root/parts...`, reached without following any link below `root`;
    missing folders are made (0777 less the umask) when `create`. Closed when the block ends."""
    handle = os.open(root, _FOLDER)
    try:
        for index, part in enumerate(parts):
            child = _child(handle, part, "/".join(parts[: index + 1]), create)
            os.close(handle)
            handle = child
        yield handle
    finally:
        os.close(handle)


def make_folders(root: Path, parts: Sequence[str]) -> None:
    """`root/parts...` as folders, each made relative to its parent's handle."""
    with folder(root, parts, create=True):
        pass


def place_into(finished: Path, root: Path, parts: Sequence[str]) -> None:
    """Rename `finished` onto `root/parts...` within its folder's handle: one atomic step, so a reader
    sees the old file or the new one. A link now standing at the name is refused, never followed."""
    *folders, name = parts
    with folder(root, folders) as handle:
        _refuse_link(handle, name, "/".join(parts))
        try:
            os.replace(finished, name, dst_dir_fd=handle)
            return
        except OSError as error:
            if error.errno != errno.EXDEV:  # another file system: copy inside the handle, then rename
                raise
        beside = f".{name}.{token_hex(16)}.osiris-partial"
        out = os.open(beside, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666,
                      dir_fd=handle)
        try:
            with open(finished, "rb") as source, os.fdopen(out, "wb") as target:
                shutil.copyfileobj(source, target)
            os.replace(beside, name, src_dir_fd=handle, dst_dir_fd=handle)
        finally:
            _unlink(beside, handle)
            finished.unlink(missing_ok=True)


def write_text(root: Path, parts: Sequence[str], text: str) -> None:
    """`text` as the file `root/parts...` (folders made), in one step: a temporary file made in the
    folder's handle, renamed over the name there. An existing file keeps its permissions."""
    *folders, name = parts
    with folder(root, folders, create=True) as handle:
        _refuse_link(handle, name, "/".join(parts))
        try:
            mode = stat.S_IMODE(os.stat(name, dir_fd=handle, follow_symlinks=False).st_mode)
        except FileNotFoundError:
            mode = None
        temp = f".{name[:200]}.{token_hex(16)}.tmp"
        out = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=handle)
        try:
            if mode is not None:
                os.fchmod(out, mode)
            with os.fdopen(out, "w", encoding="utf-8") as file:
                file.write(text)
            os.replace(temp, name, src_dir_fd=handle, dst_dir_fd=handle)
        except BaseException:
            _unlink(temp, handle)
            raise


def stage_from(root: Path, parts: Sequence[str], scratch: Path) -> Path:
    """The file `root/parts...` inside `scratch` under a name of its own (keeping its suffixes, so
    DuckDB still infers `.gz`): a hard link of the very file opened without following a link, or a
    copy of it where linking is refused."""
    *folders, name = parts
    staged = scratch / f"in-{token_hex(16)}-{name}"
    with folder(root, folders) as handle:
        try:
            source = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=handle)
        except OSError as error:
            if error.errno in _LINK_ERRORS:
                raise LinkInTheWay("/".join(parts)) from None
            raise
        with os.fdopen(source, "rb") as opened:
            opened_stat = os.fstat(opened.fileno())
            if not stat.S_ISREG(opened_stat.st_mode):
                raise LinkInTheWay("/".join(parts))
            if _linked(handle, name, staged, opened_stat):
                return staged
            with open(staged, "wb") as copy:
                shutil.copyfileobj(opened, copy)
    return staged


def _linked(handle: int, name: str, staged: Path, opened: os.stat_result) -> bool:
    """A hard link of `name` at `staged`, kept only when it is the file already opened."""
    try:
        os.link(name, staged, src_dir_fd=handle, follow_symlinks=False)
    except OSError:
        return False
    now = os.lstat(staged)
    if (now.st_dev, now.st_ino) == (opened.st_dev, opened.st_ino):
        return True
    staged.unlink()  # the name was swapped between the open and the link: copy what was opened
    return False


def _child(parent: int, part: str, shown: str, create: bool) -> int:
    """A handle on the folder `part` of `parent`, never through a link; made first when `create`."""
    try:
        return os.open(part, _FOLDER, dir_fd=parent)
    except FileNotFoundError:
        if not create:
            raise
    except OSError as error:
        if error.errno in _LINK_ERRORS:
            raise LinkInTheWay(shown) from None
        raise
    with suppress(FileExistsError):  # made meanwhile; a link made meanwhile is refused by the open below
        os.mkdir(part, dir_fd=parent)
    return _child(parent, part, shown, create=False)


def _refuse_link(handle: int, name: str, shown: str) -> None:
    try:
        found = os.stat(name, dir_fd=handle, follow_symlinks=False)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(found.st_mode):
        raise LinkInTheWay(shown)


def _unlink(name: str, handle: int) -> None:
    with suppress(FileNotFoundError):
        os.unlink(name, dir_fd=handle)

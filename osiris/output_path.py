"""Files Osiris writes for the person (`generate -o`, chat's `/save`, `init`): checked first,
written atomically, never through a symbolic link.

`output_problem(path)` says, in a person's words, why a file cannot be written there, or None.
Commands call it before they spend anything (an LLM call), so that a bad path costs nothing.
`write_output(path, text)` then writes to a temporary file beside the target and renames it over
the target: a link in the way is refused, and even one planted meanwhile is replaced, not
followed (ADR 0056).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

LINK_REFUSED = "is a symbolic link; Osiris does not write through links (remove it, or choose another path)"


class OutputPathError(OSError):
    """A target that must not be written: a link, a directory, a device."""


def output_problem(path: Path) -> str | None:
    """Why a file cannot be written at `path` (e.g. "is a directory"), or None when it can."""
    try:
        if path.is_symlink():
            return LINK_REFUSED
        if path.is_dir():
            return f"is a directory; give a file path such as {path / 'pipeline.yaml'}"
        if path.exists() and not path.is_file():
            return "is not a regular file"
    except OSError as error:
        return _reason(error)
    return directory_problem(path.parent)


def directory_problem(directory: Path) -> str | None:
    """Why files cannot be created in `directory` (made when missing), or None when they can.

    The nearest existing folder must be a directory in which a file can really be created:
    a probe file is made and removed, since permission bits say nothing for root or /proc.
    """
    existing = directory
    try:
        while not os.path.lexists(existing) and existing != existing.parent:
            existing = existing.parent
        if not existing.is_dir():
            return f"{existing} is a file, not a directory"
        handle, probe = tempfile.mkstemp(dir=existing, prefix=".osiris-probe-")
    except OSError as error:
        return f"cannot create files in {existing}: {_reason(error)}"
    os.close(handle)
    os.unlink(probe)
    return None


def write_output(path: Path, text: str) -> None:
    """Write `text` to `path` in one step (temporary file + rename), creating folders.

    Raises OutputPathError for a link or a non-file target, OSError when the disk says no. An
    existing file keeps its permissions; a new one gets the usual ones (0666 less the umask).
    """
    problem = _target_problem(path)
    if problem:
        raise OutputPathError(f"{path} {problem}")
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.exists() else _default_mode()
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(handle, mode)
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temp, path)  # replaces a link planted meanwhile; never writes into its target
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def describe_os_error(error: OSError) -> str:
    """'no space left on device', without Python's '[Errno 28]'."""
    return _reason(error)


def _target_problem(path: Path) -> str | None:
    if path.is_symlink():
        return LINK_REFUSED
    if path.exists() and not path.is_file():
        return "is a directory" if path.is_dir() else "is not a regular file"
    return None


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _reason(error: OSError) -> str:
    if isinstance(error, OutputPathError):
        return str(error)
    text = error.strerror or str(error)
    return text[:1].lower() + text[1:]

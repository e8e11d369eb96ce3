"""The canonical form of a whole file (`osiris validate --fix/--diff`): the file with its pipeline
replaced by the report's canonical text, whatever surrounds the YAML kept as it is."""

from __future__ import annotations

import difflib
import os
import tempfile
from pathlib import Path

from osiris.validate.issue import ValidationReport


def fixed_text(original: str, report: ValidationReport) -> str | None:
    """`original` with the canonical pipeline written in, or None when there is nothing to change."""
    source, canonical = report.source_text, report.oml_text
    if not source or canonical is None or canonical == source:
        return None
    start = original.find(source)
    if start < 0:
        return None
    return original[:start] + canonical + original[start + len(source):]


def unified_diff(name: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 fromfile=name, tofile=f"{name} (canonical)")
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def write_back(path: str, text: str, bom: bool) -> None:
    """Replace the file's contents in one step (a temporary file, then rename), keeping its mode."""
    target = Path(path)
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, target.stat().st_mode & 0o7777)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise

"""Opening a pipeline in the person's editor: $VISUAL, else $EDITOR, else a sensible default."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

FALLBACK_EDITORS = ("nano", "vi")


class EditorError(Exception):
    """No editor could be started, or it failed; the message says which and how to set one."""


def editor_command(env: Mapping[str, str] | None = None) -> list[str]:
    """The editor to run, as argv (the file name is appended)."""
    env = os.environ if env is None else env
    for name in ("VISUAL", "EDITOR"):
        value = env.get(name, "").strip()
        if value:
            return shlex.split(value)
    for fallback in FALLBACK_EDITORS:
        if shutil.which(fallback):
            return [fallback]
    raise EditorError("no editor found: set VISUAL or EDITOR, e.g. export EDITOR=nano")


def edit_text(text: str, env: Mapping[str, str] | None = None, suffix: str = ".yaml") -> str:
    """Write `text` to a private temporary file, open it in the editor, return what was saved."""
    command = editor_command(env)
    handle, name = tempfile.mkstemp(prefix="osiris-pipeline-", suffix=suffix)
    path = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        try:
            finished = subprocess.run([*command, str(path)], check=False)
        except OSError as error:
            raise EditorError(f"could not start the editor {command[0]!r}: {error.strerror}") from None
        if finished.returncode != 0:
            raise EditorError(f"the editor {command[0]!r} exited with code {finished.returncode}")
        return path.read_text(encoding="utf-8")
    finally:
        path.unlink(missing_ok=True)

"""The per-project input history (Up/Down at the prompt), kept without secrets.

People paste DSNs with passwords into requests. prompt_toolkit's FileHistory would keep them in
plain text; this one scrubs each entry the way the engine scrubs requests, and the file is 0600.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from prompt_toolkit.history import FileHistory


class ScrubbedFileHistory(FileHistory):
    """A FileHistory that stores `scrub(entry)` instead of the entry, in a private file."""

    def __init__(self, path: Path, scrub: Callable[[str], str]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.close(os.open(path, os.O_CREAT | os.O_APPEND | os.O_WRONLY, 0o600))
        self._scrub = scrub
        super().__init__(str(path))

    def store_string(self, string: str) -> None:
        super().store_string(self._scrub(string))

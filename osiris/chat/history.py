"""The per-project input history (Up/Down at the prompt), kept without secrets.

People paste DSNs with passwords into requests. prompt_toolkit's FileHistory would keep them in
plain text; this one scrubs each entry the way the engine scrubs requests, and the file is 0600.
It appends the way every Osiris log does (`open_for_append`): never through a symbolic link.
"""

from __future__ import annotations

import datetime
import os
import sys
from collections.abc import Callable
from pathlib import Path

from prompt_toolkit.history import FileHistory

from osiris.errors import FileWriteError, UsageError
from osiris.output_path import OutputPathError, describe_os_error
from osiris.session.safe_io import encode, open_for_append, write_all


class ScrubbedFileHistory(FileHistory):
    """A FileHistory that stores `scrub(entry)` instead of the entry, in a private file.
    A link where the file belongs is refused (UsageError) before the chat starts."""

    def __init__(self, path: Path, scrub: Callable[[str], str]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            os.close(open_for_append(path))
        except OutputPathError as error:
            raise UsageError(f"input history {path}: {error}") from None
        except OSError as error:
            raise FileWriteError(path, error) from None
        self._scrub = scrub
        self._path = path
        super().__init__(str(path))

    def store_string(self, string: str) -> None:
        """prompt_toolkit's format (a '# time' line, then '+' and each line), scrubbed. A failed
        write (a link planted since, a full disk) is said on stderr and the chat goes on."""
        scrubbed = self._scrub(string)
        entry = f"\n# {datetime.datetime.now()}\n" + "".join(f"+{line}\n" for line in scrubbed.split("\n"))
        try:
            fd = open_for_append(self._path)
            try:
                write_all(fd, encode(entry))
            finally:
                os.close(fd)
        except OSError as error:
            print(f"osiris: input history not saved: {self._path}: {describe_os_error(error)}", file=sys.stderr)

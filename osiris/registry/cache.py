"""Spec checks remembered between runs: the meta-schema and `check_schema` results of user specs.

Checking a user spec costs 5 to 7 ms (jsonschema's `check_schema` is most of it), on every start of
every command. A spec whose parsed content passed both checks once is remembered by a hash of that
content in `<project>/.osiris/cache/spec-checks.json`; an edited spec hashes differently and is
checked again. Only passes are remembered, so a broken spec is always explained in full. The file
holds nothing but hashes: deleting it is always safe, and a broken or unreadable one counts as empty.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import osiris

CACHE_FILE = "spec-checks.json"
FORMAT = 1
KEEP_AT_MOST = 5_000  # hashes kept, newest last; older edits of specs fall out


class SpecCheckCache:
    """`cache.passed(data)` before the checks, `cache.remember(data)` after they pass, `cache.save()`."""

    def __init__(self, directory: Path, meta_schema_text: str) -> None:
        self.path = directory / CACHE_FILE
        # A new meta-schema or a new Osiris (whose checks may differ) starts from nothing.
        self._salt = f"{FORMAT}\n{osiris.__version__}\n{meta_schema_text}\n"
        self._known: dict[str, None] = dict.fromkeys(self._read())
        self._added = False

    def key(self, data: dict[str, Any]) -> str:
        content = json.dumps(data, sort_keys=True, default=str, ensure_ascii=False)
        return hashlib.sha256((self._salt + content).encode("utf-8")).hexdigest()

    def passed(self, data: dict[str, Any]) -> bool:
        return self.key(data) in self._known

    def remember(self, data: dict[str, Any]) -> None:
        key = self.key(data)
        if key not in self._known:
            self._known[key] = None
            self._added = True

    def save(self) -> None:
        """Write the file if anything was added; a cache that cannot be written is simply not kept."""
        if not self._added:
            return
        from osiris.errors import FileWriteError
        from osiris.session.files import ensure_private_dir, write_atomic

        kept = list(self._known)[-KEEP_AT_MOST:]
        try:
            ensure_private_dir(self.path.parent)
            write_atomic(self.path, json.dumps({"format": FORMAT, "passed": kept}) + "\n")
        except (OSError, FileWriteError):
            return
        self._added = False

    def _read(self) -> list[str]:
        try:
            stored = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        if not isinstance(stored, dict) or stored.get("format") != FORMAT or not isinstance(stored.get("passed"), list):
            return []
        return [key for key in stored["passed"] if isinstance(key, str)]


def project_cache_dir(project_root: Path) -> Path:
    """Where the project's caches live: `.osiris/cache/`, safe to delete."""
    return project_root / ".osiris" / "cache"

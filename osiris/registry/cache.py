"""Component specs remembered between runs: parsed, and for user specs checked, once per content.

Parsing a spec and checking a user spec (the meta-schema and jsonschema's `check_schema`) cost a few
milliseconds each, on every start of every command. A spec file that parsed and passed its checks
is remembered by a hash of its bytes in `<project>/.osiris/cache/specs.json`, with its parsed
content: an edited file hashes differently and is parsed and checked again. Only passes are
remembered, so a broken spec is always explained in full. Deleting the file is always safe, and a
broken or unreadable one counts as empty.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from osiris.oml.values import MutableConfig, Value
import osiris

CACHE_FILE = "specs.json"
FORMAT = 1
KEEP_AT_MOST = 5_000  # specs kept, newest last; older versions of edited specs fall out


class SpecCache:
    """`cache.get(raw)` -> the parsed spec that passed before, or None; `cache.put(raw, data)`; `save()`."""

    def __init__(self, directory: Path, meta_schema_text: str) -> None:
        self.path = directory / CACHE_FILE
        # A new meta-schema or a new Osiris (whose parser and checks may differ) starts from nothing.
        self._salt = f"{FORMAT}\n{osiris.__version__}\n{meta_schema_text}\n".encode()
        self._specs: dict[str, Value] = self._read()
        self._added = False
        self._checked = False  # a user spec was checked: worth creating `.osiris/` for

    def key(self, raw: bytes) -> str:
        return hashlib.sha256(self._salt + raw).hexdigest()

    def get(self, raw: bytes) -> MutableConfig | None:
        data = self._specs.get(self.key(raw))
        return data if isinstance(data, dict) else None

    def put(self, raw: bytes, data: MutableConfig, *, checked: bool) -> None:
        """Remember a spec that parsed (and passed, if `checked`); one whose content JSON cannot carry as it
        is (dates) is not kept."""
        key = self.key(raw)
        if key in self._specs:
            return
        try:
            if json.loads(json.dumps(data)) != data:
                return
        except (TypeError, ValueError):
            return
        self._specs[key] = data
        self._added = True
        self._checked = self._checked or checked

    def save(self) -> None:
        """Write the file if anything was added; a cache that cannot be written is simply not kept. Parsed
        built-ins alone do not create `.osiris/` in a project that has none (a read-only command
        leaves no trace there)."""
        if not self._added or not (self._checked or self.path.parent.parent.is_dir()):
            return
        from osiris.errors import FileWriteError
        from osiris.session.files import ensure_private_dir, write_atomic

        kept = dict(list(self._specs.items())[-KEEP_AT_MOST:])
        try:
            ensure_private_dir(self.path.parent)
            write_atomic(self.path, json.dumps({"format": FORMAT, "specs": kept}, separators=(",", ":")) + "\n")
        except (OSError, FileWriteError):
            return
        self._added = False

    def _read(self) -> dict[str, Value]:
        try:
            stored = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(stored, dict) or stored.get("format") != FORMAT or not isinstance(stored.get("specs"), dict):
            return {}
        specs: dict[str, Value] = stored["specs"]  # JSON: these values, checked one by one in get()
        return specs


def project_cache_dir(project_root: Path) -> Path:
    """Where the project's caches live: `.osiris/cache/`, safe to delete."""
    return project_root / ".osiris" / "cache"

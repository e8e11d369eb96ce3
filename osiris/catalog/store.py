"""The project's schema catalog: `.osiris/catalog/<family>.<alias>.json` and `csv.<name>.json`.

A catalog holds names and types only, never connection fields or secrets:

    {"connection": "@mysql.default", "family": "mysql", "discovered_at": "2026-11-22T10:00:00Z",
     "tables": {"customers": {"columns": [{"name": "id", "type": "int", "nullable": false}],
                              "primary_key": ["id"]}}}
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from osiris.oml.values import Value

CATALOG_DIR = Path(".osiris") / "catalog"


@dataclass
class Catalog:
    """One connection's (or one CSV file's) tables as `osiris discover` found them."""

    name: str  # file stem: "mysql.default" or "csv.orders"
    family: str
    connection: str  # "@mysql.default", or the CSV file's path
    discovered_at: str  # UTC ISO time, e.g. 2026-11-22T10:00:00Z
    tables: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Value]:
        return {"connection": self.connection, "family": self.family,
                "discovered_at": self.discovered_at, "tables": self.tables}

    def columns(self, table: str) -> list[str] | None:
        """The column names of `table` (matched without regard to case), or None if unknown."""
        found = self.table(table)
        return None if found is None else [c["name"] for c in self.tables[found].get("columns", [])]

    def table(self, name: str) -> str | None:
        """The catalog's spelling of table `name` (an exact match first, then any case)."""
        if name in self.tables:
            return name
        lowered = {key.lower(): key for key in self.tables}
        return lowered.get(name.lower())

    def age_days(self, now: datetime | None = None) -> float:
        now = now or datetime.now(timezone.utc)
        return (now - parse_time(self.discovered_at)).total_seconds() / 86400

    def age_text(self, now: datetime | None = None) -> str:
        """How old the catalog is, for people: "3 hours", "12 days"."""
        days = self.age_days(now)
        if days >= 1:
            return _plural(int(days), "day")
        hours = days * 24
        if hours >= 1:
            return _plural(int(hours), "hour")
        return _plural(int(hours * 60), "minute") if hours * 60 >= 1 else "less than a minute"


def catalog_dir(root: Path) -> Path:
    return root / CATALOG_DIR


def catalog_path(root: Path, name: str) -> Path:
    return catalog_dir(root) / f"{name}.json"


def now_iso() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str) -> datetime:
    stamp = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=timezone.utc)


def write_catalog(root: Path, catalog: Catalog) -> Path:
    """Write atomically (temp file + rename), mode 0600, in a 0700 directory."""
    directory = catalog_dir(root)
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    target = catalog_path(root, catalog.name)
    fd, temp = tempfile.mkstemp(prefix=f".{catalog.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(catalog.to_dict(), handle, indent=2, sort_keys=False)
            handle.write("\n")
        os.chmod(temp, 0o600)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return target


def read_catalog(path: Path) -> Catalog | None:
    """The catalog in `path`, or None when it is missing or unreadable (a broken file is ignored)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        parse_time(data["discovered_at"])
        tables = data.get("tables") or {}
        if not isinstance(tables, dict):
            return None
        return Catalog(path.stem, str(data["family"]), str(data.get("connection", "")),
                       str(data["discovered_at"]), tables)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def list_catalogs(root: Path) -> list[Catalog]:
    """Every readable catalog of the project, by name."""
    directory = catalog_dir(root)
    if not directory.is_dir():
        return []
    found = (read_catalog(path) for path in sorted(directory.glob("*.json")))
    return [catalog for catalog in found if catalog is not None]


class Catalogs:
    """The project's catalogs, read when first needed and again when their file changes (a chat
    session outlives a discovery); knows when one is stale."""

    def __init__(self, root: Path, max_age_days: float = 7) -> None:
        self.root = root
        self.max_age_days = max_age_days
        self._cache: dict[str, tuple[int, Catalog | None]] = {}

    def get(self, name: str) -> Catalog | None:
        """The catalog `family.alias` (e.g. "mysql.default"), or None."""
        path = catalog_path(self.root, name)
        try:
            stamp = path.stat().st_mtime_ns
        except OSError:
            return None
        cached = self._cache.get(name)
        if cached is None or cached[0] != stamp:
            cached = self._cache[name] = (stamp, read_catalog(path))
        return cached[1]

    def all(self) -> list[Catalog]:
        return list_catalogs(self.root)

    def is_stale(self, catalog: Catalog) -> bool:
        return catalog.age_days() > self.max_age_days


def _plural(number: int, word: str) -> str:
    return f"{number} {word}{'' if number == 1 else 's'}"


def catalog_names(project: Path) -> list[str]:
    """The table and column names of the project's schema catalog (`osiris discover`), and an API's
    nested fields (`meta.tags`), known to a run."""
    return [name for catalog in list_catalogs(project) for table, entry in catalog.tables.items()
            for name in (table, *(str(column.get("name", "")) for column in entry.get("columns") or []),
                         *(str(item.get("name", "")) for item in entry.get("fields") or []))]

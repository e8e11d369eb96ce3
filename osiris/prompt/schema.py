"""The slice of the schema catalogs that a request needs, for the request prompt (not the system
prompt: that one stays byte-identical, so that it stays cached).

Tables are ranked by how the request names them: the table's own name (or its singular/plural),
then its columns, then the closest name; they are added in that order while they fit the budget
(`catalog.prompt_tokens`, about 4 characters a token).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from osiris.catalog.store import Catalog, list_catalogs
from osiris.prompt.fence import fenced_data

if TYPE_CHECKING:
    from osiris.settings.loader import EffectiveSettings

CHARS_PER_TOKEN = 4
_WORD = re.compile(r"[a-z0-9_]+")


def schema_for_project(effective: EffectiveSettings) -> Callable[[str], str]:
    """`schema_for(request)` -> the schema section for that request, "" when there is none."""
    budget = effective.settings.catalog.prompt_tokens
    root = effective.project_root

    def schema_for(request: str) -> str:
        return schema_section(request, list_catalogs(root), budget) if budget > 0 else ""
    return schema_for


def schema_section(request: str, catalogs: list[Catalog], budget_tokens: int) -> str:
    """The relevant tables as data for the prompt, within `budget_tokens`; "" when nothing fits."""
    words = _words(request)
    ranked = sorted(((_score(words, catalog, table), catalog.name, table, catalog)
                     for catalog in catalogs for table in catalog.tables),
                    key=lambda item: (-item[0], item[1], item[2]))
    budget = budget_tokens * CHARS_PER_TOKEN
    chosen: dict[str, list[str]] = {}
    used = 0
    for _, _, table, catalog in ranked:
        header = 0 if catalog.name in chosen else len(_source(catalog)) + 1
        line = table_line(table, catalog.tables[table], budget - used - header - 1)
        if not line:
            continue
        chosen.setdefault(catalog.name, []).append(line)
        used += header + len(line) + 1
    if not chosen:
        return ""
    by_name = {catalog.name: catalog for catalog in catalogs}
    blocks = [f"{_source(by_name[name])}\n" + "\n".join(lines) for name, lines in chosen.items()]
    return ("Known schemas (from `osiris discover`); use these exact table and column names:\n"
            + fenced_data("schema", "\n".join(blocks)))


def table_line(name: str, table: dict[str, Any], room: int) -> str:
    """`  customers(id int PK, email varchar(255))`, columns cut to fit `room` characters."""
    keys = set(table.get("primary_key") or [])
    columns = [f"{c['name']} {c.get('type', '')}".rstrip() + (" PK" if c["name"] in keys else "")
               for c in table.get("columns", []) if isinstance(c, dict) and "name" in c]
    line = f"  {name}({', '.join(columns)})"
    while len(line) > room and columns:
        columns.pop()
        line = f"  {name}({', '.join(columns)}, ...)"
    return line if 0 < len(line) <= room else ""


def _source(catalog: Catalog) -> str:
    day = catalog.discovered_at[:10]
    if catalog.family == "csv":
        return f"CSV file {catalog.connection} (discovered {day}):"
    return f"{catalog.connection} ({catalog.family}, discovered {day}):"


def _words(text: str) -> set[str]:
    words = set(_WORD.findall(text.lower()))
    return words | {w[:-1] for w in words if w.endswith("s") and len(w) > 3} | {w + "s" for w in words}


def _score(words: set[str], catalog: Catalog, table: str) -> float:
    name = table.rsplit(".", 1)[-1].lower()
    score = 0.0
    if name in words or name.rstrip("s") in words:
        score += 10
    columns = {str(c.get("name", "")).lower() for c in catalog.tables[table].get("columns", []) if isinstance(c, dict)}
    score += len(columns & words)
    if catalog.family in words or catalog.name.split(".", 1)[-1] in words:
        score += 0.5
    close = max((difflib.SequenceMatcher(None, name, word).ratio() for word in words), default=0.0)
    return score + (close if close >= 0.6 else 0.0)

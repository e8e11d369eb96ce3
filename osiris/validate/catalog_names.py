"""Tier 4: an extractor's `table` and `columns` against its connection's schema catalog (OML406).

No SQL is parsed here (sqlglot is not imported); SQL fields are checked in `osiris.validate.sql`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from osiris.oml.values import Config, Value
from osiris.suggest import closest, listing
from osiris.validate.connections import parse_reference
from osiris.validate.findings import Findings
from osiris.validate.pointer import join

if TYPE_CHECKING:
    from osiris.catalog import Catalog, Catalogs
    from osiris.registry import Registry


def check_table_fields(steps: Sequence[Value], sound: list[int], registry: Registry, catalogs: Catalogs | None,
                       findings: Findings) -> None:
    """For each sound read step with `table` (and optional `columns`) and a catalog for its connection."""
    if catalogs is None:
        return
    for index in sound:
        step = steps[index]
        if not isinstance(step, Mapping):  # never: a sound step is a mapping that names its component
            continue
        config = step.get("config")
        component = step["component"]
        spec = registry.get(component) if isinstance(component, str) else None
        if step.get("mode") != "read" or spec is None or not isinstance(config, dict):
            continue
        if not isinstance(config.get("table"), str) or "table" not in spec.properties:
            continue
        reference = parse_reference(config.get("connection"))
        catalog = catalogs.get(f"{reference[0].lower()}.{reference[1]}") if reference else None
        if catalog is not None:
            _check_step(join("/steps", index, "config"), config, catalog, catalogs, findings)


def _check_step(path: str, config: Config, catalog: Catalog, catalogs: Catalogs, findings: Findings) -> None:
    wanted = config["table"]
    if not isinstance(wanted, str):  # never: the caller checks it is text
        return
    stale = catalogs.is_stale(catalog)
    table = catalog.table(wanted)
    if table is None:
        names = list(catalog.tables)
        hint = _hint(wanted, names, "tables")
        _add(findings, join(path, "table"), wanted,
             f"table '{wanted}' is not in the catalog of {catalog.connection}",
             hint if stale else hint + new_table_hint(catalog.connection, wanted), catalog, stale)
        return
    known = catalog.columns(table) or []
    lowered = {name.lower() for name in known}
    columns = config.get("columns") or []
    for position, column in enumerate(columns if isinstance(columns, (list, str, Mapping)) else []):
        if isinstance(column, str) and column.lower() not in lowered:
            _add(findings, join(path, "columns", position), column,
                 f"column '{column}' is not a column of {table} (the catalog of {catalog.connection})",
                 _hint(column, known, "columns"), catalog, stale)


def new_table_hint(connection: str, table: str) -> str:
    """The other reason a table is missing from a fresh catalog (issue 30): it is newer than the catalog."""
    return f"; if {table} was created after the last discovery, run osiris discover {connection} {table}"


def _hint(name: str, known: list[str], kind: str) -> str:
    match = closest(name, known)
    return (f"did you mean '{match}'? " if match else "") + f"{kind}: {listing(known)}"


def _add(findings: Findings, path: str, value: str, message: str, hint: str, catalog: Catalog, stale: bool) -> None:
    if stale:
        message += f"; the catalog of {catalog.connection} is {catalog.age_text()} old, so this may have changed"
        hint += f"; run osiris discover {catalog.connection} --refresh"
    findings.add("OML406", path, message, hint, value=value, severity="warning" if stale else None)

"""Build a catalog: ask a connection's driver (or DuckDB, for a CSV file) what its tables are."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from osiris.catalog.connection import parse_connection, resolve_connection
from osiris.catalog.store import Catalog, now_iso
from osiris.errors import ExitCode, OsirisError, UsageError
from osiris.run.driver import RuntimeProblem, TableInfo


class DiscoveryFailed(OsirisError):
    """The connection or the file could not be read: exit code 6, one line without secrets."""

    exit_code = ExitCode.RUN_FAILED


def discover_connection(connections: Mapping[str, Any], env: Mapping[str, str], reference: str,
                        tables: list[str] | None) -> list[TableInfo]:
    """The named tables (all when `tables` is None) of `@family.alias`, through the family's driver."""
    from osiris.run.drivers import family_driver
    from osiris.secrets.names import is_secret_key
    from osiris.secrets.redact import Redactor

    family, alias = parse_connection(reference)
    config = resolve_connection(connections, env, family, alias)
    try:
        driver = family_driver(family)
    except (KeyError, ModuleNotFoundError):
        raise UsageError(f"'{family}' connections cannot be discovered: there is no {family} runtime driver") from None
    try:
        return driver.discover(config, tables)
    except RuntimeProblem as problem:
        secrets = [v for k, v in config.items() if is_secret_key(k) and v is not None and v != ""]
        redactor = Redactor(known_values=secrets)
        hint = f" ({redactor.text(problem.hint)})" if problem.hint else ""
        raise DiscoveryFailed(f"cannot discover {reference}: {redactor.text(problem.message)}{hint}") from None


def discover_csv(path: Path) -> TableInfo:
    from osiris.catalog.csv_file import sniff_csv

    if not path.is_file():
        raise UsageError(f"cannot read {path}: no such file")
    try:
        return sniff_csv(path)
    except RuntimeProblem as problem:
        raise DiscoveryFailed(f"{problem.message} ({problem.hint})") from None


def table_entry(table: TableInfo) -> dict[str, Any]:
    """A table as the catalog stores it."""
    return {"columns": [{"name": c.name, "type": c.type, "nullable": c.nullable} for c in table.columns],
            "primary_key": list(table.primary_key), **table.details}


def build_catalog(name: str, family: str, connection: str, found: Iterable[TableInfo],
                  previous: Catalog | None = None) -> Catalog:
    """A new catalog stamped now: `found` over what `previous` already held."""
    tables = dict(previous.tables) if previous else {}
    for table in found:
        tables[table.name] = table_entry(table)
    return Catalog(name, family, connection, now_iso(), dict(sorted(tables.items())))

"""Build a catalog: ask a connection's driver (or DuckDB, for a CSV file) what its tables are."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from osiris.catalog.connection import parse_connection, resolve_connection, secret_values
from osiris.catalog.store import Catalog, catalog_path, now_iso, read_catalog
from osiris.errors import ExitCode, OsirisError, UsageError
from osiris.families import ColumnInfo, TableInfo
from osiris.problems import RuntimeProblem

if TYPE_CHECKING:
    from osiris.oml.values import Config, Value
    from osiris.secrets.redact import Redactor


class DiscoveryFailed(OsirisError):
    """The connection or the file could not be read: exit code 6, one line without secrets."""

    exit_code = ExitCode.RUN_FAILED


def discover_connection(connections: Mapping[str, Mapping[str, Config]], env: Mapping[str, str], reference: str,
                        tables: list[str] | None) -> list[TableInfo]:
    """The named tables (all when `tables` is None) of `@family.alias`, through the family's driver."""
    from osiris.families import family, family_discoverer
    from osiris.secrets.redact import Redactor

    name, alias = parse_connection(reference)
    facts = family(name)
    if facts is None or not facts.discoverable:
        why = f"there is no {name} runtime driver" if facts is None else f"{facts.title} has no tables to read"
        raise UsageError(f"'{name}' connections cannot be discovered: {why}")
    connection = resolve_connection(connections, env, name, alias)
    driver = family_discoverer(name)
    redactor = Redactor(known_values=list(secret_values(connection)))
    config = {**reader_defaults(facts.components), **connection}  # as a read step's effective config
    try:
        return [masked_table(table, redactor) for table in driver.discover(config, tables)]
    except RuntimeProblem as problem:
        hint = f" ({redactor.text(problem.hint)})" if problem.hint else ""
        raise DiscoveryFailed(f"cannot discover {reference}: {redactor.text(problem.message)}{hint}") from None


def reader_defaults(components: Iterable[str]) -> Config:
    """The spec defaults of the family's extractor: what a read step of the connection would run with
    (docs/architecture.md, "Where each rule lives"), so that a driver reads no default from code."""
    from osiris.registry.registry import spec_defaults

    return next((spec_defaults(name) for name in components if name.endswith(".extractor")), {})


def masked_table(table: TableInfo, redactor: Redactor) -> TableInfo:
    """`table` with every known secret masked in its names as in its details: a server may echo the
    connection's own token back as a field, table or column name (docs/security.md)."""
    from dataclasses import replace

    def masked(text: str | None) -> str | None:
        return None if text is None else redactor.text(text)

    columns = [replace(c, name=redactor.text(c.name), type=redactor.text(c.type), default=masked(c.default),
                       values=None if c.values is None else [redactor.text(v) for v in c.values])
               for c in table.columns]
    return TableInfo(redactor.text(table.name), columns, [redactor.text(key) for key in table.primary_key],
                     redactor.data(table.details))


@dataclass
class CatalogUpdate:
    """One discovery of a connection: the catalog to write (or, when nothing was read, the one
    kept), and the tables named that the connection does not have."""

    catalog: Catalog
    fresh: bool  # False: every table named is in the catalog already and nothing was read
    missing: list[str] = field(default_factory=list)


def update_connection_catalog(connections: Mapping[str, Mapping[str, Config]], env: Mapping[str, str], root: Path,
                              reference: str, tables: list[str], refresh: bool,
                              paths_example: str = "") -> CatalogUpdate:
    """Read `tables` (all when empty) of `@family.alias` over the project's catalog of it: tables it
    holds already are read again only with `refresh`. An API read by endpoint (@rest) needs its
    paths named: a UsageError otherwise, ending with `paths_example` (how the caller takes them).
    Writes nothing (`write_catalog` does); `osiris discover` and the MCP server's
    `discovery_request` both come here (docs/discover.md)."""
    from osiris.families import discovers_endpoints

    family, alias = parse_connection(reference)
    if discovers_endpoints(family) and not tables:
        example = paths_example or f"osiris discover @{family}.{alias} /customers"
        raise UsageError(f"name the endpoint path(s) to read, e.g. {example}")
    name = f"{family}.{alias}"
    previous = read_catalog(catalog_path(root, name))
    wanted: list[str] | None = list(dict.fromkeys(tables)) or None
    if previous is not None and not refresh:
        wanted = [t for t in wanted if previous.table(t) is None] if wanted else []
        if not wanted:
            return CatalogUpdate(previous, fresh=False)
    found = discover_connection(connections, env, reference, wanted)
    missing = [t for t in wanted or [] if t.lower() not in {f.name.lower() for f in found}]
    if wanted and len(missing) == len(wanted):
        raise DiscoveryFailed(f"none of the tables named were found on {reference} ({', '.join(missing)})")
    keep = previous if (previous is not None and wanted) else None  # a full refresh starts afresh
    return CatalogUpdate(build_catalog(name, family, f"@{name}", found, keep), fresh=True, missing=missing)


def update_csv_catalog(root: Path, path: Path, refresh: bool, staged: Path | None = None) -> CatalogUpdate:
    """The catalog of the CSV file `path` (`csv.<stem>`): the project's own unless `refresh` or there
    is none, else sniffed now (from `staged`, its copy brought in through link-refusing handles, when
    given); its `connection` is the path relative to `root` when inside it."""
    previous = read_catalog(catalog_path(root, f"csv.{path.stem}"))
    if previous is not None and not refresh:
        return CatalogUpdate(previous, fresh=False)
    where, inside = path.resolve(), root.resolve()
    shown = where.relative_to(inside) if where.is_relative_to(inside) else where
    table = discover_csv(staged or path, path if not path.is_absolute() else shown)  # messages: as given, or in the project
    return CatalogUpdate(build_catalog(f"csv.{table.name}", "csv", shown.as_posix(), [table]), fresh=True)


def source_kind(family_name: str) -> str:
    """What a family's catalog holds, for messages: "table", "endpoint" (@rest), "query field" (@graphql)."""
    from osiris.families import family

    facts = family(family_name)
    return {"endpoints": "endpoint", "fields": "query field"}.get(facts.discovers if facts else "", "table")


def discover_csv(path: Path, shown: Path | None = None) -> TableInfo:
    """The table of the CSV file `path`, named in messages as `shown` (its place in the project, when
    `path` is a staged copy of it)."""
    from osiris.catalog.csv_file import sniff_csv

    if not path.is_file():
        raise UsageError(f"cannot read {shown or path}: no such file")
    try:
        return sniff_csv(path, shown)
    except RuntimeProblem as problem:
        raise DiscoveryFailed(f"{problem.message} ({problem.hint})") from None


def column_entry(column: ColumnInfo) -> dict[str, Value]:
    """A column as the catalog stores it: a default and enum values only where discovery found them."""
    entry: dict[str, Value] = {"name": column.name, "type": column.type, "nullable": column.nullable}
    if column.default is not None:
        entry["default"] = column.default
    if column.values:
        entry["values"] = list(column.values)
    return entry


def table_entry(table: TableInfo) -> dict[str, Value]:
    """A table as the catalog stores it."""
    return {"columns": [column_entry(c) for c in table.columns],
            "primary_key": list(table.primary_key), **table.details}


def build_catalog(name: str, family: str, connection: str, found: Iterable[TableInfo],
                  previous: Catalog | None = None) -> Catalog:
    """A new catalog stamped now: `found` over what `previous` already held."""
    tables = dict(previous.tables) if previous else {}
    for table in found:
        tables[table.name] = table_entry(table)
    return Catalog(name, family, connection, now_iso(), dict(sorted(tables.items())))

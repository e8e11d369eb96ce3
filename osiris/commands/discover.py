"""`osiris discover @family.alias [TABLE...]` / `discover @rest.alias /PATH...` / `discover
@graphql.alias [FIELD...]` / `discover FILE.csv` / `discover --list`.

Reads tables, columns, types and primary keys (for an API endpoint: where its records are, their
keys and JSON types, the paging; for a GraphQL API, each query field's, by introspection) into the
project's schema catalog (`.osiris/catalog/`), which validation (OML406) and the request prompt
use. docs/discover.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from osiris.catalog.store import Catalog, list_catalogs, write_catalog
from osiris.errors import ExitCode, UsageError

if TYPE_CHECKING:
    from osiris.settings.loader import EffectiveSettings



def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", nargs="?", metavar="@family.alias|FILE.csv",
                        help="a configured connection, e.g. @mysql.default, or a CSV file")
    parser.add_argument("tables", nargs="*", metavar="TABLE|/PATH|FIELD",
                        help="only these tables (default: all); for @rest connections, the endpoint paths to read; "
                             "for @graphql connections, the query fields (default: all)")
    parser.add_argument("--refresh", action="store_true", help="read tables already in the catalog again")
    parser.add_argument("--list", action="store_true", help="list the catalogs, their table counts and ages")
    parser.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def run(args: argparse.Namespace) -> int:
    from osiris.settings import load_settings

    effective = load_settings(config_path=args.config)
    root = effective.project_root
    if args.list:
        if args.target:
            raise UsageError("--list takes no connection or file")
        return _print_list(list_catalogs(root), effective.settings.catalog.max_age_days, args.json)
    if not args.target:
        raise UsageError("name a connection (@family.alias) or a CSV file, or use --list")
    if args.target.startswith("@"):
        catalog = _discover_connection(effective, args.target, args.tables, args.refresh)
    else:
        if args.tables:
            raise UsageError("a CSV file holds one table: name no tables after it")
        catalog = _discover_csv(root, Path(args.target), args.refresh)
    if catalog is None:
        return ExitCode.OK
    path = write_catalog(root, catalog)
    _print_result(catalog, path, root, args.json)
    return ExitCode.OK


def _discover_connection(effective: EffectiveSettings, reference: str, tables: list[str], refresh: bool) -> Catalog | None:
    from osiris.catalog.discovery import source_kind, update_connection_catalog

    update = update_connection_catalog(effective.settings.connections, effective.env, effective.project_root,
                                       reference, tables, refresh)
    if not update.fresh:
        _exists(update.catalog)
        return None
    for table in update.missing:
        print(f"osiris: warning: {source_kind(update.catalog.family)} '{table}' was not found on {reference}",
              file=sys.stderr)
    return update.catalog


def _discover_csv(root: Path, path: Path, refresh: bool) -> Catalog | None:
    from osiris.catalog.discovery import update_csv_catalog

    update = update_csv_catalog(root, path, refresh)
    if not update.fresh:
        _exists(update.catalog)
        return None
    return update.catalog


def _exists(catalog: Catalog) -> None:
    count = len(catalog.tables)
    print(f"osiris: the catalog {catalog.name} exists ({count} table{'s' if count != 1 else ''}, discovered "
          f"{catalog.age_text()} ago); use --refresh to read it again", file=sys.stderr)


def _print_result(catalog: Catalog, path: Path, root: Path, as_json: bool) -> None:
    shown = path.relative_to(root) if path.is_relative_to(root) else path
    if as_json:
        print(json.dumps({"catalog": catalog.name, "path": str(shown), **catalog.to_dict()}, indent=2))
        return
    from osiris.text_table import printable

    names = ", ".join(catalog.tables)  # a database's own names: escaped, never terminal commands
    from osiris.catalog.discovery import source_kind

    kind = source_kind(catalog.family)
    print(printable(f"{shown}: {len(catalog.tables)} {kind}{'s' if len(catalog.tables) != 1 else ''} ({names})"))


def _print_list(catalogs: list[Catalog], max_age_days: float, as_json: bool) -> int:
    from osiris.text_table import format_table

    rows = [(c.name, c.connection, len(c.tables), c.age_text(), c.age_days() > max_age_days) for c in catalogs]
    if as_json:
        print(json.dumps({"catalogs": [
            {"name": c.name, "connection": c.connection, "family": c.family, "discovered_at": c.discovered_at,
             "tables": n, "age_days": round(c.age_days(), 2), "stale": stale}
            for c, (_, _, n, _, stale) in zip(catalogs, rows)]}, indent=2))
        return ExitCode.OK
    if not catalogs:
        print("no catalogs yet: run osiris discover @family.alias or osiris discover FILE.csv", file=sys.stderr)
        return ExitCode.OK
    table = [(name, source, tables, age + (" (stale)" if stale else "")) for name, source, tables, age, stale in rows]
    for line in format_table(("CATALOG", "SOURCE", "TABLES", "AGE"), table):
        print(line)
    return ExitCode.OK

"""The tools on what the project knows: `components_list`, `components_show`, `connections_list`
and `discovery_request` (docs/mcp.md)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated

from mcp.server.mcpserver import Context
from mcp.types import ToolAnnotations
from pydantic import Field

from osiris.errors import UsageError

if TYPE_CHECKING:
    from mcp.server import MCPServer

    from osiris.catalog.discovery import CatalogUpdate
    from osiris.mcp.project import Project

DISCOVERY_TIMEOUT_SECONDS = 60


def register(app: MCPServer, project: Project) -> None:
    local = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

    @app.tool(annotations=local)
    def components_list() -> dict[str, object]:
        """Every component the project's registry knows (built-in and the project's own specs): its name,
        family, the OML modes it supports (read, write, transform) and a title. A step's component must
        be one of these names, in one of its modes. Use components_show for a component's fields."""
        from osiris.mcp.shapes import component_summary

        specs = [project.registry.components[name] for name in project.registry.names()]
        return {"components": [component_summary(spec) for spec in specs], "count": len(specs),
                "skipped_specs": [str(problem) for problem in project.registry.problems]}

    @app.tool(annotations=local)
    def components_show(name: Annotated[str, Field(description="a component name, e.g. postgres.extractor")]
                        ) -> dict[str, object]:
        """One component in full, as the validator checks it: each config field's type, default, whether
        it is required, secret, or supplied by the connection, its description and JSON Schema (enums,
        bounds, patterns); the connection reference it takes, its constraints, the field aliases it
        accepts, guidance for writing it, and example configs. Read it before writing a step that uses
        the component."""
        from osiris.mcp.shapes import component_detail
        from osiris.suggest import did_you_mean

        spec = project.registry.get(name)
        if spec is None:
            raise UsageError(f"unknown component '{name}'{did_you_mean(name, project.registry.names())}; "
                             "components_list gives every name")
        return component_detail(spec)

    @app.tool(annotations=local)
    def connections_list() -> dict[str, object]:
        """The connections configured in the project's .osiris.yaml, each with the reference a step
        writes (connection: "@family.alias"), its family and alias, and its fields. Secrets are shown as
        the ${VAR} reference the person configured, never resolved; a secret written into the settings
        file itself is shown as ***. A step may use only these connections, of its component's family."""
        return _connections(project)

    @app.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True,
                                          open_world_hint=True))
    async def discovery_request(
        ctx: Context,
        connection: Annotated[str | None, Field(description='a configured connection, e.g. "@postgres.default", '
                                                            '"@rest.helpdesk", "@graphql.github"')] = None,
        tables: Annotated[list[str] | None, Field(description=(
            "a database's tables to read (default: all); for a @rest connection the endpoint paths to read "
            '(required), e.g. ["/tickets"]; for a @graphql connection its query fields (default: all)'))] = None,
        file: Annotated[str | None, Field(description="instead of a connection: a CSV file in the project, "
                                                      "relative to its folder, e.g. data/customers.csv")] = None,
        refresh: Annotated[bool, Field(description="read what is in the catalog already again")] = False,
        timeout_seconds: Annotated[int, Field(ge=1, le=600, description="give up after this long")] = (
            DISCOVERY_TIMEOUT_SECONDS),
    ) -> dict[str, object]:
        """Read what a source holds into the project's schema catalog (names and types, never a value),
        which oml_validate then uses to check table and column names in SQL. A database connection: its
        tables' columns, types, nullability and primary keys. A @rest connection: name the endpoint
        paths in tables; one authenticated GET each records where the records are (data_path), each
        key with its JSON and DuckDB type, nested keys dotted, and the paging the answer suggests. A
        @graphql connection: its schema by introspection, each query field's data_path, keys with their
        types, arguments and pageInfo paging. Or a CSV file of the project (file): its columns with
        DuckDB's types. What the catalog holds already is returned from it unless refresh is true.
        Sends progress notifications while it waits, and gives up after timeout_seconds. Returns the
        catalog's entries (the ones named, or all), the names not found, and whether it was read now."""
        if (connection is None) == (file is None):
            raise UsageError("give one of connection (e.g. @postgres.default) or file (a CSV file in the project, "
                             "e.g. data/customers.csv)")
        if file is not None:
            return await _discover_file(project, ctx, file, refresh, timeout_seconds)
        return await _discover(project, ctx, str(connection), tables or [], refresh, timeout_seconds)


def _connections(project: Project) -> dict[str, object]:
    from osiris.mcp.shapes import connection_json

    found: list[dict[str, object]] = []
    for family, aliases in sorted((project.effective.settings.connections or {}).items()):
        secret_names = {field.lower() for spec in project.registry.components.values()
                        if spec.family == family for field in spec.secret_fields}
        found.extend(connection_json(family, alias, fields, secret_names) for alias, fields in sorted(aliases.items()))
    return {"connections": found, "count": len(found)}


async def _discover(project: Project, ctx: Context, connection: str, tables: list[str], refresh: bool,
                    timeout: int) -> dict[str, object]:
    from osiris.catalog.connection import parse_connection
    from osiris.catalog.discovery import source_kind, update_connection_catalog
    from osiris.mcp.waiting import in_thread

    family, alias = parse_connection(connection)
    reference = f"@{family}.{alias}"
    settings = project.effective
    with _told_as_known(project, reference, tables):
        update: CatalogUpdate = await in_thread(
            lambda: update_connection_catalog(settings.settings.connections, settings.env, project.root,
                                              reference, tables, refresh, paths_example='tables: ["/customers"]'),
            ctx, doing=f"reading the {source_kind(family)}s of {reference}", timeout=timeout,
            advice="name fewer tables, or give a longer timeout_seconds")
    return _result(project, update, tables)


async def _discover_file(project: Project, ctx: Context, file: str, refresh: bool, timeout: int) -> dict[str, object]:
    from osiris.catalog.discovery import update_csv_catalog
    from osiris.mcp.paths import project_csv, staged_csv
    from osiris.mcp.waiting import in_thread

    settings_file = project.effective.config_path
    path = project_csv(project.root, file, settings_file)

    def read() -> CatalogUpdate:
        with staged_csv(project.root, path, file, settings_file) as staged:
            return update_csv_catalog(project.root, path, refresh, staged=staged)

    with _told_as_known(project, file):
        update: CatalogUpdate = await in_thread(read, ctx, doing=f"reading the CSV file {file}", timeout=timeout,
                                                advice="give a longer timeout_seconds")
    return _result(project, update, [])


@contextmanager
def _told_as_known(project: Project, *asked: str | list[str]) -> Iterator[None]:
    """A failed discovery's text goes to the assistant with only known words (docs/security.md, "What
    an engine says"): a server's or a database's words may quote a value or carry control characters.
    Known: what was asked, the connection settings' words and the catalog's names."""
    from osiris.catalog.discovery import DiscoveryFailed
    from osiris.catalog.store import catalog_names
    from osiris.trust.engine_words import Known, filtered

    try:
        yield
    except DiscoveryFailed as failed:
        known = Known.of(project.effective.settings.connections or {}, catalog_names(project.root), *asked)
        raise DiscoveryFailed(filtered(str(failed), known)) from None


def _result(project: Project, update: CatalogUpdate, tables: list[str]) -> dict[str, object]:
    """What discovery_request answers: the catalog written (or kept), its entries, the names missing."""
    from osiris.catalog.store import write_catalog

    path = write_catalog(project.root, update.catalog) if update.fresh else None
    catalog = update.catalog
    shown = {name: catalog.tables[found] for name in tables if (found := catalog.table(name)) is not None} \
        if tables else catalog.tables
    return {"catalog": catalog.name, "connection": catalog.connection, "cached": not update.fresh,
            "discovered_at": catalog.discovered_at, "path": path.relative_to(project.root).as_posix() if path else None,
            "table_count": len(shown), "tables": shown, "missing": update.missing}

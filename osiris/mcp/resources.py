"""`osiris mcp`'s resources (docs/mcp.md, ADR 0191): what an assistant may attach without a tool call.

- `osiris://oml/schema`: the OML document's shape, as `oml_schema_get` gives it;
- `osiris://components/<name>`: one component spec, as `components_show` gives it, one resource each;
- `osiris://catalog`: the project's schema catalog, one line an entry; `osiris://catalog/<name>` an
  entry (`postgres.default`, `csv.customers`), as `discovery_request` wrote it.

Every resource is JSON, read when it is asked for (a catalog written after the server started is
there) and passed through the session's redactor first. A catalog holds names and types only, never
a connection's fields; the redactor is the second lock on that door.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from mcp.server.mcpserver.exceptions import ResourceError

if TYPE_CHECKING:
    from mcp.server import MCPServer

    from osiris.catalog.store import Catalog
    from osiris.mcp.project import Project

JSON = "application/json"
SCHEMA_URI = "osiris://oml/schema"
COMPONENT_URI = "osiris://components/{name}"
CATALOG_URI = "osiris://catalog"


def register(app: MCPServer, project: Project) -> None:
    def shown(value: object) -> str:
        return json.dumps(project.redactor.data(value), indent=2, ensure_ascii=False, default=str)

    @app.resource(SCHEMA_URI, name="oml-schema", title="OML pipeline schema", mime_type=JSON,
                  description="The shape of an OML v0.1.0 pipeline: its JSON Schema, the rules a schema cannot "
                              "say, and a complete example.")
    def oml_schema() -> str:
        from osiris.mcp.oml_shape import oml_shape

        return shown(oml_shape())

    for name in project.registry.names():
        _register_component(app, project, name, shown)

    @app.resource(CATALOG_URI, name="catalog", title="Schema catalog", mime_type=JSON,
                  description="The project's schema catalog (osiris discover, discovery_request): each entry's "
                              "name, connection, when it was read, its tables, and its resource URI.")
    def catalog_index() -> str:
        entries = [{"name": c.name, "uri": f"{CATALOG_URI}/{c.name}", "connection": c.connection,
                    "family": c.family, "discovered_at": c.discovered_at, "tables": sorted(c.tables)}
                   for c in _catalogs(project)]
        return shown({"entries": entries, "count": len(entries)})

    @app.resource(CATALOG_URI + "/{name}", name="catalog-entry", title="Schema catalog entry", mime_type=JSON,
                  description="One entry of the project's schema catalog: tables, columns and types, never values.")
    def catalog_entry(name: str) -> str:
        found = {c.name: c for c in _catalogs(project)}
        if name not in found:
            from osiris.suggest import did_you_mean

            raise ResourceError(f"no catalog entry '{name}'{did_you_mean(name, list(found))}; {CATALOG_URI} "
                                "lists them, and discovery_request adds one")
        return shown({"name": name, **found[name].to_dict()})


def _register_component(app: MCPServer, project: Project, name: str, shown: Callable[[object], str]) -> None:
    spec = project.registry.components[name]

    def component() -> str:
        from osiris.mcp.shapes import component_detail

        return shown(component_detail(spec))

    app.resource(COMPONENT_URI.format(name=name), name=f"component-{name}", title=f"{name}: {spec.title}",
                 mime_type=JSON, description=f"The {name} component spec: config fields, modes, connection, "
                                             "constraints, examples.")(component)


def _catalogs(project: Project) -> list[Catalog]:
    from osiris.catalog.store import list_catalogs

    return list_catalogs(project.root)

"""What a component family is, and where each one is declared: a bottom module that the trust
boundary, the catalog and the validator read as the runtime does (docs/architecture.md, "Layers").

A family is declared once, as `FAMILY` in its driver module `osiris.run.drivers.<name>` (with its
`DRIVER`). `family(name)` finds that module by name when asked, as a plugin is found: nothing here
imports the runtime, so the layers stay one-way while a new family is still only its driver file
and its specs. A module is imported only when its family is looked up, so `osiris run` pays for
psycopg or PyMySQL only when it uses them.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import pkgutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Protocol

DRIVERS = "osiris.run.drivers"  # the package whose modules declare FAMILY and DRIVER


@dataclass(frozen=True)
class Family:
    """What the rest of Osiris knows about a component family, declared once, as `FAMILY` in its
    driver module (osiris.run.drivers.<name>): a new family is its driver file and its specs."""

    name: str  # "postgres": the family of its components and of `@postgres.alias` connections
    title: str  # "PostgreSQL": how messages and prompts name it
    components: tuple[str, ...]  # the components its driver runs
    kind: str  # "database" (tables a failed step's facts can list), "api", "files" or "engine"
    discoverable: bool = False  # `osiris discover @<name>.alias` reads its tables (or endpoints)
    discovers: str = "tables"  # "endpoints": discover reads the API paths named (`@rest.api /customers`)
    dialect: str | None = None  # the sqlglot dialect of its SQL, for specs that do not mark `x-sql`
    words: tuple[str, ...] = ()  # what people call it in a request ("mariadb"), besides its name
    # The config fields its driver reads to pick where (and how safely) it connects: the run-time
    # check (osiris.trust.endpoints) covers them whether or not a spec names them.
    endpoints: tuple[str, ...] = ()


@dataclass
class ColumnInfo:
    name: str
    type: str  # the database's own type name, e.g. "varchar(255)"
    nullable: bool = True
    default: str | None = None  # the column's default as the database writes it, e.g. "'new'::text"
    values: list[str] | None = None  # an enum type's values, in their order


@dataclass
class TableInfo:
    """One table as `discover` finds it; the catalog (`.osiris/catalog/<family>.<alias>.json`)
    stores `{"tables": {name: {"columns": [{name, type, nullable}], "primary_key": [...]}}}`."""

    name: str
    columns: list[ColumnInfo]
    primary_key: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)  # more for the catalog entry (an API's data_path, paging)


class Discoverer(Protocol):
    """The part of a driver (osiris.run.driver.Driver) that `osiris discover` calls."""

    def discover(self, config: Mapping[str, object], tables: list[str] | None) -> list[TableInfo]: ...


def family(name: str) -> Family | None:
    """The facts of the family `name`, or None when no driver module declares it."""
    module = _module(name)
    found = getattr(module, "FAMILY", None) if module is not None else None
    return found if found is not None and found.name == name else None


@functools.cache
def families() -> dict[str, Family]:
    """Every family with a driver, by name (imports each driver module once)."""
    found = (family(info.name) for info in pkgutil.iter_modules(importlib.import_module(DRIVERS).__path__))
    return {f.name: f for f in sorted((f for f in found if f is not None), key=lambda f: f.name)}


def discovers_endpoints(name: str) -> bool:
    """A family `osiris discover` reads by endpoint path (`@rest.alias /customers`), not by table."""
    facts = family(name)
    return facts is not None and facts.discovers == "endpoints"


def family_discoverer(name: str) -> Discoverer:
    """The driver of a component family, for `osiris discover @family.alias`; KeyError when there is none."""
    if family(name) is None:
        raise KeyError(f"no runtime driver for the component family '{name}'")
    return _module(name).DRIVER  # type: ignore[union-attr, no-any-return]  # family() found the module


def _module(name: str) -> ModuleType | None:
    if not name.isidentifier() or importlib.util.find_spec(f"{DRIVERS}.{name}") is None:
        return None
    return importlib.import_module(f"{DRIVERS}.{name}")

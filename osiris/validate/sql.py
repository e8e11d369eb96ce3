"""Tier 4, SQL (ADR 0070): every SQL field is parsed with sqlglot in its component's dialect.

- OML405: the SQL does not parse; the issue points at the line and column inside the YAML file.
- OML406: a table or column that the connection's catalog (`osiris discover`) does not know, or a
  column that a duckdb.processor's input does not have; a warning when the catalog is stale.
- OML407: a duckdb.processor query reads a table that is none of its inputs (`df_<id>`, `input_df`).

sqlglot (~100 ms to import) is imported only when a pipeline has an SQL field.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from osiris.oml.step_graph import step_dependencies, step_id_of, table_name
from osiris.oml.values import Config, Value
from osiris.suggest import closest, listing
from osiris.trust.sql import offset_of, outside_reach
from osiris.validate.catalog_names import check_table_fields, new_table_hint
from osiris.validate.connections import parse_reference
from osiris.validate.findings import Findings
from osiris.validate.graph_hints import not_an_input_hint, reads_a_dependency
from osiris.validate.pointer import join
from osiris.validate.sql_names import Columns, UnknownName, output_names, read_tables, single_source
from osiris.validate.sql_scopes import unknown_names
from osiris.validate.sql_position import ValueLocator, sql_offset
from osiris.validate.step_config import component_name

if TYPE_CHECKING:
    from sqlglot import exp

    from osiris.catalog import Catalog, Catalogs
    from osiris.registry import ComponentSpec, Registry


def sql_fields(spec: ComponentSpec) -> dict[str, str]:
    """field -> dialect: the properties a spec marks `x-sql: <dialect>` (the meta-schema admits
    the dialects sqlglot reads); for specs written without the annotation, `query` in the dialect
    its family's driver declares (FAMILY.dialect)."""
    from osiris.families import family

    if any(isinstance(p, dict) and "x-sql" in p for p in spec.properties.values()):
        return {name: dialect for name, prop in spec.properties.items()
                if isinstance(prop, dict) and isinstance(dialect := prop.get("x-sql"), str)}
    facts = family(spec.family) if "query" in spec.properties else None
    return {"query": facts.dialect} if facts is not None and facts.dialect else {}


@dataclass
class SqlField:
    index: int  # the step's position
    step: Config
    spec: ComponentSpec
    name: str  # the config field, e.g. "query"
    dialect: str
    sql: str
    tree: exp.Expr | None = None  # the parsed statement, when it parses

    @property
    def path(self) -> str:
        return join("/steps", self.index, "config", self.name)

    @property
    def step_id(self) -> str:
        return step_label(self.step, self.index)


def step_label(step: Value, index: int) -> str:
    """The step's id; a step without one (OML208) is named by its position."""
    found = step.get("id") if isinstance(step, Mapping) else None
    return found if isinstance(found, str) else f"steps[{index}]"


@dataclass
class Known:
    """What is known of a table's columns, and why the knowledge may be old."""

    spelling: str
    columns: Columns
    stale: str = ""  # e.g. "the catalog of @mysql.default is 12 days old"
    refresh: str = ""  # the command that renews it
    origin: str = ""  # e.g. "the catalog of @mysql.default", "step 'extract'"
    connection: str = ""  # the catalog's connection, e.g. "@mysql.default"


def check_sql(steps: Sequence[Value], sound: list[int], registry: Registry, catalogs: Catalogs | None,
              findings: Findings, text: str | None) -> None:
    """Parse and check every SQL field of the sound steps; nothing is imported when there is none.
    Extractors that name a `table` instead are checked against the catalog too."""
    check_table_fields(steps, sound, registry, catalogs, findings)
    fields = [f for index in sound for f in _fields_of(index, steps[index], registry)]
    if not fields and not any(isinstance(s, dict) and ("checks" in s or "incremental" in (s.get("config") or {}))
                              for s in steps):
        return
    locator = ValueLocator(text or "", getattr(findings.positions, "line_offset", 0))
    _SqlChecks(steps, registry, catalogs, findings, locator).run(fields)


def _fields_of(index: int, step: Value, registry: Registry) -> list[SqlField]:
    if not isinstance(step, Mapping):  # never: a sound step is a mapping that names its component
        return []
    name = component_name(step)
    spec = registry.get(name) if isinstance(name, str) else None  # `sound` steps name theirs
    config = step.get("config")
    if spec is None or not isinstance(config, dict):
        return []
    return [SqlField(index, step, spec, name, dialect, sql)
            for name, dialect in sql_fields(spec).items()
            if isinstance(sql := config.get(name), str) and sql.strip()]


@dataclass
class _SqlChecks:
    steps: Sequence[Value]
    registry: Registry
    catalogs: Catalogs | None
    findings: Findings
    locator: ValueLocator
    by_index: dict[int, SqlField] = field(default_factory=dict)
    _columns: dict[int, Known | None] = field(default_factory=dict)

    def run(self, fields: list[SqlField]) -> None:
        from osiris.validate.sql_parse import parse_sql

        for item in fields:
            item.tree = parse_sql(item, self._add_at)
            self.by_index.setdefault(item.index, item)
        for item in fields:
            if item.tree is None:
                continue
            if _is_processor(item.spec):
                reaches = outside_reach(item.tree)  # OML408: files and network (osiris/trust/sql.py)
                for reach in reaches:
                    self._add_at("OML408", item, reach.where, reach.message, reach.hint)
                if not reaches:
                    self._check_processor(item, item.tree)
            else:
                self._check_against_catalog(item, item.tree)
        for index, step in enumerate(self.steps):
            if isinstance(step, dict):
                self._check_named_columns(index, step)

    def _check_named_columns(self, index: int, step: Config) -> None:
        """OML406 for a column a step's checks or incremental cursor name that its rows, as far as
        the pipeline or a catalog tells, do not have (docs/run-again.md)."""
        from osiris.oml.checks import read_checks
        from osiris.oml.incremental import incremental_of

        named = [(join("/steps", index, "checks", c.index, c.kind), column)
                 for c in read_checks(step.get("checks"))[0] for column in c.columns]
        config = step.get("config")
        following = incremental_of(config) if isinstance(config, dict) else None
        if following is not None:
            named.append((join("/steps", index, "config", "incremental", "cursor"), following.cursor))
        known = self._columns_of(index) if named else None
        if known is None or known.columns is None:
            return
        lower = {c.lower() for c in known.columns}
        for path, column in named:
            if column.lower() in lower:
                continue
            match = closest(column, known.columns)
            stale = f"; {known.stale}, so this may have changed" if known.stale else ""
            self.findings.add("OML406", path, f"column '{column}' is not a column of step '{step_label(step, index)}'"
                              f"{stale}", (f"did you mean '{match}'? " if match else "") + f"columns: "
                              f"{listing(known.columns)}", value=column, severity="warning" if known.stale else None)

    def _add_at(self, code: str, item: SqlField, offset: int, message: str, hint: str,
                severity: str | None = None) -> None:
        self.findings.add(code, item.path, message, hint, value=_short(item.sql), severity=severity,  # type: ignore[arg-type]
                          position=self.locator.position(item.path, offset))

    # --- extractors against their connection's catalog ---------------------------------------

    def _check_against_catalog(self, item: SqlField, tree: exp.Expr) -> None:
        catalog = self._catalog_of(item.step)
        if catalog is None:
            return
        lookup = self._catalog_lookup(catalog)
        for problem in unknown_names(tree, lookup, list(catalog.tables)):
            self._unknown(item, problem, self._known_from(catalog, problem.table or ""))

    def _catalog_of(self, step: Value) -> Catalog | None:
        config = (step.get("config") if isinstance(step, Mapping) else None) or {}
        reference = parse_reference(config.get("connection") if isinstance(config, Mapping) else None)
        if reference is None or self.catalogs is None:
            return None
        return self.catalogs.get(f"{reference[0].lower()}.{reference[1]}")

    def _known_from(self, catalog: Catalog, table: str) -> Known:
        stale = ""
        if self.catalogs is not None and self.catalogs.is_stale(catalog):
            stale = f"the catalog of {catalog.connection} is {catalog.age_text()} old"
        return Known(table, catalog.columns(table) if table else None, stale,
                     f"osiris discover {catalog.connection} --refresh", f"the catalog of {catalog.connection}",
                     catalog.connection)

    def _catalog_lookup(self, catalog: Catalog) -> Callable[[str], tuple[str, Columns] | None]:
        def lookup(name: str) -> tuple[str, Columns] | None:
            spelling = catalog.table(name) or _last_segment_match(catalog, name)
            return (spelling, catalog.columns(spelling)) if spelling else None
        return lookup

    # --- duckdb.processor: its inputs' tables and columns -------------------------------------

    def _check_processor(self, item: SqlField, tree: exp.Expr) -> None:
        allowed = self._allowed(item.index)
        names = [table_name(self._id_at(i)) for i in self._inputs(item.index)]
        names += ["input_df"] if "input_df" in allowed else []
        for table in read_tables(tree):
            if table.name.lower() not in allowed:
                self._not_an_input(item, table, names)
        lookup = self._input_lookup(allowed)
        for problem in unknown_names(tree, lambda n: _pair(lookup(n)), names):
            if problem.kind == "column":
                self._unknown(item, problem, (lookup(problem.table) if problem.table else None)
                              or self._common_known(allowed))

    def _allowed(self, index: int) -> dict[str, int]:
        """The tables a processor may read (lower case) -> the step whose rows they hold."""
        inputs = self._inputs(index)
        allowed = {table_name(self._id_at(i)).lower(): i for i in inputs}
        if len(inputs) == 1:
            allowed["input_df"] = inputs[0]
        return allowed

    def _input_lookup(self, allowed: dict[str, int]) -> Callable[[str], Known | None]:
        def lookup(name: str) -> Known | None:
            index = allowed.get(name.lower())
            if index is None:
                return None
            known = self._columns_of(index)
            return known or Known(name, None)
        return lookup

    def _common_known(self, allowed: dict[str, int]) -> Known:
        """For a column of no named table: the one input, or the first stale one."""
        known = [self._columns_of(i) or Known("", None) for i in sorted(set(allowed.values()))]
        stale = [k for k in known if k.stale]
        return known[0] if len(known) == 1 else (stale[0] if stale else Known("", None))

    def _not_an_input(self, item: SqlField, table: exp.Table, names: list[str]) -> None:
        step_id = item.step_id
        if reads_a_dependency(self.steps, item.index, table.name):
            return  # a later or unknown dependency: its OML401-OML403 says what to change
        meant = not_an_input_hint(self.steps, item.index, table.name)
        if meant is not None:
            hint = meant
        elif names:
            match = closest(table.name, names)
            shown = f"{names[0]} (or input_df)" if "input_df" in names else listing(names)
            hint = (f"read {'one of ' if len(names) > 1 and 'input_df' not in names else ''}{shown}"
                    + (f" (did you mean '{match}'?)" if match and len(names) > 2 else "")
                    + "; a duckdb.processor reads only the rows of the steps it needs")
        else:
            hint = "add needs: [<id of an earlier step>] and read its rows as df_<id> or input_df"
        self._add_at("OML407", item, offset_of(table) or 0,
                     f"step '{step_id}' reads table '{table.name}', which is not one of its inputs", hint)

    def _id_at(self, index: int) -> str:
        """The id of the step at `index`, one `_inputs` returned: it has one (`step_id_of`)."""
        step_id = step_id_of(self.steps[index])
        if step_id is None:
            raise ValueError(f"step {index} has no id")
        return step_id

    def _inputs(self, index: int) -> list[int]:
        """The earlier steps whose rows a step receives (osiris.oml.step_graph, the runtime's rule)."""
        earlier: dict[str, int] = {}
        for position, step in enumerate(self.steps[:index]):
            step_id = step_id_of(step)
            if step_id is not None:
                earlier.setdefault(step_id, position)
        return [earlier[name] for name in step_dependencies(self.steps, index) if name in earlier]

    def _columns_of(self, index: int) -> Known | None:
        """The columns a step's rows have, where the pipeline or a catalog tells."""
        if index not in self._columns:
            self._columns[index] = None  # a guard against loops while this one is worked out
            self._columns[index] = self._derive_columns(index)
        return self._columns[index]

    def _derive_columns(self, index: int) -> Known | None:
        step = self.steps[index]
        name = table_name(step_label(step, index))
        item = self.by_index.get(index)
        if item is None or item.tree is None:
            return self._columns_from_config(step, name, index) if isinstance(step, Mapping) else None
        if _is_processor(item.spec):
            lookup = self._input_lookup(self._allowed(index))
            resolve: Callable[[exp.Expr], Known | None] = lambda select: lookup(single_source(select) or "")
        else:
            catalog = self._catalog_of(step)

            def resolve(select: exp.Expr) -> Known | None:
                table = catalog.table(single_source(select) or "") if catalog else None
                return self._known_from(catalog, table) if catalog and table else None
        bases: list[Known] = []

        def star(select: exp.Expr) -> Columns:
            base = resolve(select)
            if base is None:
                return None
            bases.append(base)
            return base.columns
        columns = output_names(item.tree, star)
        stale = next((b for b in bases if b.stale), Known(name, None))
        return Known(name, columns, stale.stale, stale.refresh, f"step '{step_label(step, index)}'")

    def _columns_from_config(self, step: Config, name: str, index: int) -> Known | None:
        config = step.get("config")
        if not isinstance(config, Mapping):  # none: nothing tells its columns
            return None
        catalog, table = None, None
        if isinstance(named := config.get("table"), str):
            catalog, table = self._catalog_of(step), named
        elif component_name(step) == "filesystem.csv_extractor" and isinstance(path := config.get("path"), str):
            stem = re.sub(r"\.[^./]*$", "", path.rsplit("/", 1)[-1])
            catalog, table = (self.catalogs.get(f"csv.{stem}") if self.catalogs else None), stem
        if catalog is None or table is None or catalog.table(table) is None:
            return None
        known = self._known_from(catalog, catalog.table(table) or table)
        chosen = config.get("columns")
        if isinstance(chosen, list) and all(isinstance(c, str) for c in chosen):
            known.columns = list(chosen)
        known.spelling, known.origin = name, f"step '{step_label(step, index)}'"
        return known

    # --- reporting ----------------------------------------------------------------------------

    def _unknown(self, item: SqlField, problem: UnknownName, source: Known) -> None:
        known = list(problem.known)
        match = closest(problem.name, known)
        suggestion = f"did you mean '{match}'? " if match else ""
        where = f" ({source.origin})" if source.origin else ""
        if problem.kind == "table":
            message = f"table '{problem.name}' is not in {source.origin or 'the catalog'}"
            hint = f"{suggestion}tables: {listing(known)}"
            if source.connection and not source.stale:
                hint += new_table_hint(source.connection, problem.name)
        else:
            owner = f"of {problem.table}" if problem.table else "of the query's tables"
            message = f"column '{problem.name}' is not a column {owner}{where}"
            hint = f"{suggestion}columns: {listing(known)}"
        severity = None
        if source.stale:
            severity = "warning"
            message += f"; {source.stale}, so this may have changed"
            hint += f"; run {source.refresh}"
        self._add_at("OML406", item, problem.offset or 0, message, hint, severity)


def _pair(known: Known | None) -> tuple[str, Columns] | None:
    return (known.spelling, known.columns) if known else None


def _is_processor(spec: ComponentSpec) -> bool:
    return spec.family == "duckdb" and "transform" in spec.modes


def _last_segment_match(catalog: Catalog, name: str) -> str | None:
    """`shop.customers` in SQL vs `customers` in the catalog, or the other way round."""
    wanted = name.rsplit(".", 1)[-1].lower()
    for table in catalog.tables:
        if table.rsplit(".", 1)[-1].lower() == wanted:
            return table
    return None


def _short(sql: str) -> str:
    flat = " ".join(sql.split())
    return flat if len(flat) <= 120 else flat[:117] + "..."


__all__ = ["SqlField", "check_sql", "sql_fields", "sql_offset"]

"""SQL allowed by list (docs/security.md, "SQL allowed by list"; OML408 at validation, OML518 at run time).

A transform's SQL may read the tables its step sees (`df_<id>`, `input_df`), its own CTEs and
subqueries, and its engine's row generators (`osiris.trust.allowlist.ROW_GENERATORS`), and call only
the functions on its engine's allowlist (`osiris/trust/allowlists/<engine>.txt`). Everything else
is refused, however it is spelled (case, quotes, backquotes, nesting): any other table function, a
`LATERAL` call, a qualified name (`csv.df_x`, ``parquet.`x` ``, `main.df_x`: a file format, schema
or catalog, never an input), a table written as a file name or a URL, `PIVOT`/`UNPIVOT` (their
columns come from the data), and anything that is not one query.

`outside_reach` is the one check. Validation runs it on the DuckDB SQL as written (and, for the Spark
engine, on its Spark form); at run time `refuse_unlisted` runs it again on the exact text the engine
is about to run, with the step's input tables, and fails closed when that text cannot be read.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import TYPE_CHECKING

from osiris.trust.allowlist import ENGINE_NAMES, ROW_GENERATORS, allowed
from osiris.trust.breach import Breach

if TYPE_CHECKING:
    from sqlglot import exp

    from osiris.problems import RuntimeProblem

_FILE_READER = re.compile(r"^(read_|parquet_|iceberg_|delta_|sniff_csv$|glob$|csv_scan$|json_scan$)")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_FILE_NAME = re.compile(r"[/\\:]|\.[A-Za-z0-9]{1,8}$")
_CALL = re.compile(r"^`?([A-Za-z_][A-Za-z0-9_$]*)`?\s*\(")
READ_WITH_A_STEP = ("read the file with a filesystem.csv_extractor step (an API with rest.extractor), add "
                    "that step to needs, and read its rows as df_<id>; a transform reads only its inputs")
READ_INPUTS = "read the rows of the steps this one needs, as df_<id> (or input_df)"
NO_PIVOT = ("name each output column in the query instead: sum(CASE WHEN name = 'a' THEN amount END) AS a, "
            "... (a transform's columns come from its SQL, never from the data)")


def outside_reach(tree: exp.Expr | None, engine: str = "duckdb", tables: Collection[str] | None = None) -> list[Breach[int]]:
    """Every part of a parsed transform query that is not on `engine`'s lists. With `tables` (the
    step's input tables, at run time) a table that is none of them nor a CTE is refused too; at
    validation OML407 says that, with a better hint."""
    from sqlglot import exp

    found: list[Breach[int]] = []
    checked: set[int] = set()  # calls already reported as a table source or a LATERAL
    if not isinstance(tree, (exp.Query, exp.Pivot)):
        return [Breach(0, "the SQL is not one query", "write one SELECT ... or WITH ... SELECT ...")]
    known = None if tables is None else {t.lower() for t in tables} | _cte_names(tree)
    for node in tree.walk():
        if isinstance(node, exp.Table):
            found += _table(node, engine, known, checked, ", ".join(tables or ()) or "none")
        elif isinstance(node, exp.Lateral) and not isinstance(node.this, (exp.Subquery, exp.Query)) \
                and not node.args.get("view"):
            checked.add(id(node.this))
            found.append(Breach(_offset(node), f"the query calls {_name(node.this, engine) or 'a function'} through "
                                "LATERAL; a transform reads only its inputs and calls no table function", READ_INPUTS))
        elif isinstance(node, exp.Pivot):
            found.append(Breach(_offset(node), f"the query uses {'UNPIVOT' if node.args.get('unpivot') else 'PIVOT'}, "
                                "whose output columns come from the data", NO_PIVOT))
        elif isinstance(node, (exp.DML, exp.DDL, exp.Command, exp.Set, exp.Pragma, exp.Copy, exp.Use)):
            found.append(Breach(_offset(node), "the SQL holds a statement besides its query", "write one query"))
        elif isinstance(node, exp.Func) and id(node) not in checked:
            found += _call(node, engine)
    return found


def refuse_unlisted(query: str, engine: str, tables: Collection[str]) -> None:
    """OML518 when the SQL `engine` is about to run (`query`, in its dialect) is not on its lists,
    or cannot be read to be checked: the second lock, after validation."""
    import sqlglot

    from osiris.quiet_sqlglot import quiet_sqlglot

    quiet_sqlglot()
    try:
        trees = [t for t in sqlglot.parse(query.strip().rstrip(";"), read=engine) if t is not None]
    except Exception:  # sqlglot cannot read it, so nobody can say what it reaches: refused
        trees = []
    if len(trees) != 1:
        raise refused_by_list(engine, "it could not be read to be checked", "write one plain SELECT query on the "
                                                                            "step's inputs")
    reach = outside_reach(trees[0], engine, tables)
    if reach:
        raise refused_by_list(engine, reach[0].message, reach[0].hint)


def refused_by_list(engine: str, reason: str, hint: str = READ_INPUTS) -> RuntimeProblem:
    """OML518: the run-time check refused a transform's SQL before the engine saw it."""
    from osiris.problems import outside_inputs_problem

    return outside_inputs_problem(f"the {ENGINE_NAMES[engine]} engine's list", reason, hint)


def step_tables(inputs: Collection[str]) -> list[str]:
    """The tables a transform with these input tables sees: them, and `input_df` for a single one."""
    return [*inputs, "input_df"] if len(inputs) == 1 else list(inputs)


def _table(table: exp.Table, engine: str, known: set[str] | None, checked: set[int], sees: str) -> list[Breach[int]]:
    from sqlglot import exp

    source, offset = table.this, _offset(table)
    if isinstance(source, exp.Func):
        checked.add(id(source))
        name = _name(source, engine) or source.sql_name().lower()
        if name in ROW_GENERATORS[engine]:
            return _arguments(source, engine)
        if _FILE_READER.match(name):
            return [Breach(offset, f"the query calls {name}, which reads files", READ_WITH_A_STEP)]
        return [Breach(offset, f"the query calls the table function {name}; a transform reads only its inputs "
                               f"(df_<id>, input_df) and the row generators {_listing(ROW_GENERATORS[engine])}",
                       "read the rows of the steps this one needs, as df_<id>")]
    if table.args.get("db") or table.args.get("catalog"):
        return [Breach(offset, f"the query reads '{table.sql(dialect=engine)}', a qualified name (a file format, "
                               "schema or catalog), which is none of its inputs", READ_INPUTS)]
    if not isinstance(source, exp.Identifier):
        return [Breach(offset, "the query reads a table it names in a way the check cannot follow", READ_INPUTS)]
    if _URL.match(source.name):
        return [Breach(offset, f"the query reads '{source.name}' from the network", READ_WITH_A_STEP)]
    if _FILE_NAME.search(source.name):
        return [Breach(offset, f"the query reads the file '{source.name}'", READ_WITH_A_STEP)]
    if known is not None and source.name.lower() not in known:
        return [Breach(offset, f"the query reads table '{source.name}', which is none of its inputs",
                       f"read only the tables this step sees: {sees}")]
    return []


def _arguments(generator: exp.Expr, engine: str) -> list[Breach[int]]:
    """The calls inside a row generator's arguments: checked like any other."""
    from sqlglot import exp

    return [b for node in generator.walk() if node is not generator and isinstance(node, exp.Func)
            for b in _call(node, engine)]


def _call(node: exp.Expr, engine: str) -> list[Breach[int]]:
    name = _name(node, engine)
    if name is None or allowed(engine, name):
        return []  # SQL's own syntax (CASE, ::, IS NULL), or a listed function
    if _FILE_READER.match(name):
        return [Breach(_offset(node), f"the query calls {name}, which reads files", READ_WITH_A_STEP)]
    return [Breach(_offset(node), f"the query calls {name}, which is not on the {ENGINE_NAMES[engine]} engine's list "
                                  "of functions a transform may call",
                   f"use the functions listed in osiris/trust/allowlists/{engine}.txt (docs/security.md, \"SQL "
                   "allowed by list\"): a transform computes on its inputs and reaches no file, network, setting "
                   "or JVM class")]


def _name(node: exp.Expr, engine: str) -> str | None:
    """The name `engine` calls: as written for a function sqlglot does not know, else its name in
    the engine's SQL (None when that is syntax, not a call: CASE, x::T)."""
    from sqlglot import exp

    if isinstance(node, exp.Anonymous):
        return str(node.name).lower()
    found = _CALL.match(node.sql(dialect=engine))
    return found.group(1).lower() if found else None


def _cte_names(tree: exp.Expr) -> set[str]:
    from sqlglot import exp

    return {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}


def _offset(node: exp.Expr) -> int:
    return offset_of(node) or 0


def offset_of(node: exp.Expr) -> int | None:
    """Where `node` (a Column, Table or Identifier) starts in the SQL text, if sqlglot kept it."""
    for candidate in (node, getattr(node, "this", None)):
        start = (getattr(candidate, "meta", None) or {}).get("start")
        if isinstance(start, int):
            return start
    return None


def _listing(names: Collection[str]) -> str:
    ordered = sorted(names)
    return ", ".join(ordered[:-1]) + f" and {ordered[-1]}" if len(ordered) > 1 else "".join(ordered)

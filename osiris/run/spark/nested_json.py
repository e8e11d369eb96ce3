"""A list, map or object as the DuckDB engine writes it to a CSV file or a database: its JSON text,
with each JSON value inside it written as that JSON (docs/types.md).

An API's number too wide for a double, inside an object, is a JSON field of a STRUCT on the DuckDB
engine (`{"rank": 1234567890.123456789}` is `STRUCT(rank JSON)`). Spark holds that field as a
string, and its `to_json` would write it as a string of the JSON's text (`"\\"1\\""` for `1`). So
each such field is parsed into Spark's VARIANT first, which `to_json` writes as the JSON it holds.
Which fields are JSON is read from the DuckDB engine's column type (osiris.run.spark.engine_columns).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import Column


def json_text(value: Column, duckdb_type: str | None) -> Column:
    """The JSON text of `value`, a Spark list, map or struct whose DuckDB engine type is `duckdb_type`
    (None: not known, and Spark's own `to_json` stands)."""
    import duckdb  # the package, as on every Spark path (ADR 0206)
    from pyspark.sql import functions as F

    if duckdb_type is None:
        return F.to_json(value)
    try:
        kind = duckdb.type(duckdb_type)
    except duckdb.Error:
        return F.to_json(value)
    return F.to_json(_json_as_variant(value, kind))


def _children(kind: Any) -> list[Any]:
    """The DuckDB types nested in `kind` (a STRUCT's fields, a LIST's or ARRAY's item, a MAP's value)."""
    if kind.id == "struct":
        return [child for _, child in kind.children]
    if kind.id in ("list", "array"):
        return [kind.children[0][1]]
    if kind.id == "map":
        return [kind.children[1][1]]
    return []


def _holds_json(kind: Any) -> bool:
    return str(kind) == "JSON" or any(_holds_json(child) for child in _children(kind))


def _json_as_variant(value: Column, kind: Any) -> Column:
    """`value` with each string it holds where DuckDB holds JSON parsed into a VARIANT."""
    from pyspark.sql import functions as F

    if not _holds_json(kind):
        return value
    if str(kind) == "JSON":
        return F.try_parse_json(value)
    if kind.id == "struct":
        fields = [_json_as_variant(value.getField(name), child).alias(name) for name, child in kind.children]
        return F.when(value.isNotNull(), F.struct(*fields))
    (child,) = _children(kind)
    if kind.id == "map":
        return F.transform_values(value, lambda _, item: _json_as_variant(item, child))
    return F.transform(value, lambda item: _json_as_variant(item, child))

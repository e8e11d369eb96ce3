"""Column types between the engines: Spark's types named as DuckDB names them (what `osiris run`
shows and records on either engine), and DuckDB's as Spark's, for a CSV schema sniffed by DuckDB."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql.types import DataType, StructType

_SPARK_TO_DUCKDB = {
    "LongType": "BIGINT", "IntegerType": "INTEGER", "ShortType": "SMALLINT", "ByteType": "TINYINT",
    "DoubleType": "DOUBLE", "FloatType": "FLOAT", "StringType": "VARCHAR", "BooleanType": "BOOLEAN",
    "DateType": "DATE", "TimestampType": "TIMESTAMP WITH TIME ZONE", "TimestampNTZType": "TIMESTAMP",
    "BinaryType": "BLOB", "NullType": "INTEGER", "CharType": "VARCHAR", "VarcharType": "VARCHAR",
}
_DUCKDB_TO_SPARK = {
    "BIGINT": "bigint", "INTEGER": "int", "SMALLINT": "smallint", "TINYINT": "tinyint", "HUGEINT": "decimal(38,0)",
    "UBIGINT": "decimal(20,0)", "UINTEGER": "bigint", "USMALLINT": "int", "UTINYINT": "smallint",
    "DOUBLE": "double", "FLOAT": "float", "VARCHAR": "string", "BOOLEAN": "boolean", "DATE": "date",
    "TIMESTAMP": "timestamp_ntz", "TIMESTAMP WITH TIME ZONE": "timestamp", "BLOB": "binary",
}
_DECIMAL = re.compile(r"DECIMAL\((\d+),\s*(\d+)\)")


def duckdb_name(kind: DataType) -> str:
    """A Spark type as DuckDB would name it: LongType -> BIGINT, ArrayType(long) -> BIGINT[]."""
    name = type(kind).__name__
    if name == "DecimalType":
        return f"DECIMAL({kind.precision},{kind.scale})"  # type: ignore[attr-defined]  # DecimalType's fields
    if name == "ArrayType":
        return duckdb_name(kind.elementType) + "[]"  # type: ignore[attr-defined]  # ArrayType's field
    return _SPARK_TO_DUCKDB.get(name, "VARCHAR")


def duckdb_columns(schema: StructType) -> list[tuple[str, str]]:
    return [(field.name, duckdb_name(field.dataType)) for field in schema.fields]


def spark_ddl(columns: list[tuple[str, str]]) -> str:
    """A Spark schema in DDL form for DuckDB-typed columns: `id bigint, name string`."""
    return ", ".join(f"`{name.replace('`', '``')}` {spark_name(kind)}" for name, kind in columns)


def spark_name(duckdb_type: str) -> str:
    kind = duckdb_type.upper()
    decimal = _DECIMAL.fullmatch(kind)
    if decimal:
        return f"decimal({decimal.group(1)},{decimal.group(2)})"
    return _DUCKDB_TO_SPARK.get(kind, "string")

"""Propose the SQL function allowlists from what the engines offer (docs/security.md, "SQL allowed by list").

    .venv/bin/python bench/allowlists.py duckdb   # duckdb_functions(): scalar, aggregate, window, scalar macros
    .venv/bin/python bench/allowlists.py spark    # Spark's built-in function registry, by its groups

Prints a proposed list (one name a line, grouped, `# group` comments) with every name that matches
osiris/trust/allowlists/deny.txt, and every group below, left out. A person reads the proposal and
edits osiris/trust/allowlists/<engine>.txt: the list in the repository is the one that counts, and
tests/test_trust_allowlist.py checks it (each name exists in the engine; none matches the deny list).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

DENY = Path(__file__).resolve().parents[1] / "osiris" / "trust" / "allowlists" / "deny.txt"
DUCKDB_KINDS = ("scalar", "aggregate", "window", "macro")  # not table, table_macro or pragma
SPARK_GROUPS_LEFT_OUT = {  # groups that only reach outside, or that a transform does not need
    "avro_funcs", "protobuf_funcs", "xml_funcs", "url_funcs", "csv_funcs", "misc_funcs", "sketch_funcs",
    "st_funcs", "vector_funcs", "variant_funcs",
}
SPARK_MISC_KEPT = ("typeof", "uuid", "monotonically_increasing_id")


def denied(name: str) -> bool:
    patterns = [line.strip() for line in DENY.read_text(encoding="utf-8").splitlines()
                if line.strip() and not line.startswith("#")]
    return any(re.search(pattern, name.lower()) for pattern in patterns)


def duckdb_groups() -> dict[str, list[str]]:
    import duckdb

    rows = duckdb.connect().execute(
        "SELECT DISTINCT function_type, function_name FROM duckdb_functions() "
        "WHERE function_type IN ('scalar', 'aggregate', 'window', 'macro')").fetchall()
    groups: dict[str, list[str]] = {}
    for kind, name in rows:
        groups.setdefault(str(kind), []).append(str(name))
    return groups


def spark_groups() -> dict[str, list[str]]:
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
    registry = spark._jvm.org.apache.spark.sql.catalyst.analysis.FunctionRegistry  # type: ignore[union-attr]
    expressions = registry.expressions()
    names = expressions.keys().iterator()
    groups: dict[str, list[str]] = {}
    while names.hasNext():
        name = str(names.next())
        group = str(expressions.get(name).get()._1().getGroup() or "other")
        if group in SPARK_GROUPS_LEFT_OUT and name not in SPARK_MISC_KEPT:
            continue
        groups.setdefault(group, []).append(name)
    return groups


def main(engine: str) -> None:
    groups = duckdb_groups() if engine == "duckdb" else spark_groups()
    for group in sorted(groups):
        kept = sorted({n for n in groups[group] if not denied(n)})
        print(f"\n# {group}")
        print("\n".join(kept))
    left = sorted({n for names in groups.values() for n in names if denied(n)})
    print(f"\n# left out by deny.txt: {', '.join(left)}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "duckdb")

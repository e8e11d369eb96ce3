"""A transform reads only its inputs (docs/security.md, "The engine"; OML408).

`duckdb.processor` SQL may read the tables of the steps it needs (`df_<id>`, `input_df`), its own
CTEs and subqueries, and the row generators `range`, `generate_series` and `unnest`: an allow-list,
not a list of what is forbidden. Any other table function (`read_csv`, `read_text`, `glob`,
`read_blob`, `duckdb_settings`, ...) and any table written as a file name or a URL (`FROM 'x.csv'`,
`FROM 'https://...'`, which DuckDB would open) is refused at validation, with a hint to read the
file with an extractor step. Statements other than one query (COPY, ATTACH, INSTALL, LOAD, SET,
PRAGMA) are already refused as OML405. At run time the engine's sandbox refuses the same
(`osiris.trust.sandbox`), so this check is the friendly message, not the lock.
"""

from __future__ import annotations

import re
from typing import Any

from osiris.trust.breach import Breach

ROW_GENERATORS = frozenset({"range", "generate_series", "unnest"})
_FILE_READER = re.compile(r"^(read_|parquet_|iceberg_|delta_|sniff_csv$|glob$|csv_scan$|json_scan$)")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_FILE_NAME = re.compile(r"[/\\:]|\.[A-Za-z0-9]{1,8}$")
READ_WITH_A_STEP = ("read the file with a filesystem.csv_extractor step (an API with rest.extractor), add "
                    "that step to needs, and read its rows as df_<its id>; a transform reads only its inputs")


def outside_reach(tree: Any) -> list[Breach[int]]:
    """Every table source of a parsed transform query that is not an input, a CTE or a row generator."""
    from sqlglot import exp

    from osiris.validate.sql_names import offset_of

    found: list[Breach[int]] = []
    for table in tree.find_all(exp.Table):
        source = table.this
        offset = offset_of(table) or 0
        if isinstance(source, exp.Identifier):
            if _URL.match(source.name):
                found.append(Breach(offset, f"the query reads '{source.name}' from the network", READ_WITH_A_STEP))
            elif _FILE_NAME.search(source.name):
                found.append(Breach(offset, f"the query reads the file '{source.name}'", READ_WITH_A_STEP))
        elif isinstance(source, exp.Func):
            name = (source.name if isinstance(source, exp.Anonymous) else source.sql_name()).lower()
            if name in ROW_GENERATORS:  # sqlglot reads range(...) as GENERATE_SERIES
                continue
            if _FILE_READER.match(name):
                found.append(Breach(offset, f"the query calls {name}, which reads files", READ_WITH_A_STEP))
            else:
                found.append(Breach(
                    offset, f"the query calls the table function {name}; a transform reads only its inputs "
                            "(df_<id>, input_df) and the row generators range, generate_series and unnest",
                    "read the rows of the steps this one needs, as df_<id>"))
    return found

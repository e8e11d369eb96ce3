"""DuckDB's compiled engine, imported without the `duckdb` package's Python layer (ADR 0206).

DuckDB 2's `duckdb` package is its compiled module `_duckdb` (`duckdb.connect is _duckdb.connect`,
the same connection and exception classes), re-exported, plus a pure-Python relation API that
Osiris never calls. Importing the package costs a run about 110-150 ms of its fixed start (that
relation layer, and `importlib.metadata` to read the package's own version); `_duckdb` alone about
25-30 ms (docs/performance.md). Where `_duckdb` is not a module of its own (DuckDB 1.x), `duckdb`
here is the package itself. Every module of the DuckDB engine's run imports it from here:

    from osiris.duckdb_core import duckdb

The Spark engine's modules import the package: Spark hands rows to DuckDB as Arrow tables, and takes
them back as Arrow, which only the package's Python layer can scan and make.
"""

from __future__ import annotations

try:
    import _duckdb as duckdb  # DuckDB 2.x: the engine itself, with its own type stubs
except ImportError:  # DuckDB 1.x
    import duckdb  # type: ignore[no-redef]

__all__ = ["duckdb"]

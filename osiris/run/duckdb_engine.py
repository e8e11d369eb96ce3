"""The run's embedded DuckDB: in memory, on one thread, under a memory cap, spilling beyond it to
the run's scratch directory, and locked into that directory (ADR 0095, ADR 0170, docs/security.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from osiris.trust.sandbox import lock_down

ENGINE_THREADS = 1  # each DuckDB thread sorts and writes about 122,880 rows at a time: one keeps the cap flat
ENGINE_MEMORY_MB = 256  # DuckDB's cap; beyond it, tables, sorts and joins spill (ADR 0170, docs/performance.md)
SCRATCH_CAP_MB = 1024  # a sample run's spill cap (max_temp_directory_size); beyond it OML533 (docs/security.md)


class Engine:
    """The run's DuckDB, started on first use: in memory (no WAL to write), on one thread, capped at
    `ENGINE_MEMORY_MB`, spilling beyond it to the scratch directory (at most `scratch_cap_mb` of it,
    on a sample run), and locked into that directory before any step may use it. A run whose every
    step is a plain copy on a direct route (osiris.run.direct) never imports it."""

    def __init__(self, scratch: Path, scratch_cap_mb: int | None = None) -> None:
        self.scratch = scratch
        self.scratch_cap_mb = scratch_cap_mb
        self.con: Any = None

    def __getattr__(self, name: str) -> Any:
        if self.con is None:
            import duckdb

            self.con = duckdb.connect(":memory:")
            self.con.execute(f"SET temp_directory = '{self.scratch / 'spill'}'")
            self.con.execute(f"SET threads = {ENGINE_THREADS}")
            self.con.execute(f"SET memory_limit = '{ENGINE_MEMORY_MB}MB'")
            if self.scratch_cap_mb is not None:
                self.con.execute(f"SET max_temp_directory_size = '{self.scratch_cap_mb}MB'")
            lock_down(self.con, self.scratch)
        return getattr(self.con, name)

    def interrupt(self) -> None:
        """Interrupt the running query, if DuckDB has started (from the deadline's thread)."""
        if self.con is not None:
            self.con.interrupt()

    def close(self) -> None:
        if self.con is not None:
            from osiris.run.drivers.sql_common import stop_exports

            stop_exports()  # a writer stopped half-way (Ctrl-C) may have left DuckDB writing into a pipe
            self.con.close()


"""The run's embedded DuckDB: in memory, on `run.threads` threads, under `run.memory_limit`,
spilling beyond it to the run's scratch directory inside the project, and locked into that
directory (ADR 0200, docs/security.md)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from osiris.trust.sandbox import lock_down

SCRATCH_CAP_MB = 1024  # a sample run's spill cap (max_temp_directory_size); beyond it OML533 (docs/security.md)


_started_cap_mb: int | None = None  # the memory cap of the engine started last: what OML526 names


def started_cap_mb() -> int:
    """The memory cap, in MB, of the engine this process started last (the default before any)."""
    from osiris.settings.resources import default_memory_mb

    return _started_cap_mb if _started_cap_mb is not None else default_memory_mb()


class _Connecting(threading.Thread):
    """`duckdb.connect(":memory:")` under way in a thread of its own: DuckDB releases the GIL while it
    starts (about 50 ms), so the run's own modules load meanwhile. Not a daemon: a run that ends
    before the engine took the connection (a step failed first) waits for it at exit, since a
    thread cut off inside DuckDB's C++ aborts the process."""

    def __init__(self) -> None:
        super().__init__(name="osiris-duckdb-connect")
        self.con: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        from osiris.duckdb_core import duckdb

        try:
            self.con = duckdb.connect(":memory:")
        except BaseException as error:  # noqa: BLE001  (raised again where the engine is first used)
            self.error = error


_connecting: _Connecting | None = None


def start_connecting() -> None:
    """Start DuckDB's in-memory connection now, for the next Engine to take on its first use
    (`osiris run`, once it knows the run will use the engine: docs/performance.md)."""
    global _connecting
    from osiris.duckdb_core import duckdb  # noqa: F401  (imported before the thread: an import holds the GIL, a connect does not)

    _connecting = _Connecting()
    _connecting.start()


def _connect() -> Any:
    """The connection start_connecting began, once it is made; a new one when none was begun."""
    global _connecting
    from osiris.duckdb_core import duckdb

    started, _connecting = _connecting, None
    if started is None:
        return duckdb.connect(":memory:")
    started.join()
    if started.error is not None:
        raise started.error
    return started.con


class Engine:
    """The run's DuckDB, started on first use: in memory (no WAL to write), on `threads` threads,
    capped at `memory_mb`, spilling beyond it to the scratch directory (at most `scratch_cap_mb` of
    it, on a sample run), and locked into that directory before any step may use it. A run whose
    every step is a plain copy on a direct route (osiris.run.direct) never imports it. Unset, the
    threads and the memory are the machine's defaults (osiris.settings.resources)."""

    def __init__(self, scratch: Path, scratch_cap_mb: int | None = None, *, threads: int | None = None,
                 memory_mb: int | None = None, profiled: bool = False) -> None:
        from osiris.settings.resources import default_memory_mb, default_threads

        self.scratch = scratch
        self.scratch_cap_mb = scratch_cap_mb
        self.memory_mb = memory_mb if memory_mb is not None else default_memory_mb()
        self.threads = threads if threads is not None else default_threads(self.memory_mb)
        self.profiled = profiled  # each query's operator counts kept, unprinted: a fused read's rows (ADR 0202)
        self.con: Any = None

    def __getattr__(self, name: str) -> Any:
        if self.con is None:
            global _started_cap_mb
            _started_cap_mb = self.memory_mb
            self.con = _connect()
            self.con.execute(f"SET temp_directory = '{self.scratch / 'spill'}'")
            self.con.execute(f"SET threads = {int(self.threads)}")
            self.con.execute(f"SET memory_limit = '{int(self.memory_mb)}MB'")
            if self.scratch_cap_mb is not None:
                self.con.execute(f"SET max_temp_directory_size = '{self.scratch_cap_mb}MB'")
            if self.profiled:
                self.con.execute("SET enable_profiling = 'no_output'")
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


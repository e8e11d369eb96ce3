"""The signals that stop a run: Ctrl-C (SIGINT), SIGTERM (`kill`, a service manager, a container
stopping) and SIGHUP (the terminal closed) all stop it the same way (docs/run.md, "Stopping a run").

    stop = Interrupts()       # in the main thread, before the first step
    try: ...                  # each of the three raises KeyboardInterrupt where the run is
    finally: stop.restore()

The running writer rolls back, partial files and the spill directory are removed, and `run_end`
says `interrupted`. A SIGHUP that was ignored when the run began (under `nohup`) stays ignored.
SIGINT and SIGTERM always stop a run, even where the process inherited them ignored (a shell
starts a background job with SIGINT ignored; `kill -INT` still stops the run, as it always did).
Libraries turn a KeyboardInterrupt into their own errors (DuckDB's "Query interrupted", psycopg's
QueryCanceled), so `pressed` remembers that a signal came.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from types import FrameType

STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class Interrupts:
    """While a run is under way, each of STOP_SIGNALS raises KeyboardInterrupt, as Ctrl-C does."""

    def __init__(self) -> None:
        self.pressed = False
        self._previous: dict[int, Callable[[int, FrameType | None], object] | int | None] = {}
        if threading.current_thread() is not threading.main_thread():
            return  # only the main thread may handle signals (an MCP tool call runs in a worker)
        for number in STOP_SIGNALS:
            if number != getattr(signal, "SIGHUP", None) or signal.getsignal(number) is not signal.SIG_IGN:
                self._previous[number] = signal.signal(number, self._handle)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.pressed = True
        raise KeyboardInterrupt

    def restore(self) -> None:
        for number, previous in self._previous.items():
            signal.signal(number, signal.SIG_DFL if previous is None else previous)
        self._previous = {}

"""Every run the loop starts ends (docs/security.md, "Every run ends"): a run's deadline, and a way to
stop it from outside (an MCP call cancelled).

    limit = RunLimit(seconds=60, setting="validation.dry_run_timeout_seconds")
    limit.on_stop(con.interrupt)     # the engine: how to interrupt its running query
    limit.start()                    # the clock starts
    ...                              # at the deadline `limit.reason` is "deadline"; the query is interrupted
    limit.close()

At the deadline (or `stop("cancelled")`) every registered stopper is called, and called again every
`REPEAT_SECONDS` until the run closes the limit: a query that started after the first interrupt (the
next step's) is interrupted too, so nothing the run starts outlives it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from osiris.run.problems import deadline_problem

if TYPE_CHECKING:
    from osiris.run.duckdb_run import StepResult

REPEAT_SECONDS = 0.1


class RunLimit:
    """A run's deadline (`seconds`; None: none) and its stop button."""

    def __init__(self, seconds: float | None = None, setting: str = "run.timeout_seconds") -> None:
        self.seconds = seconds
        self.setting = setting  # the setting that gave the deadline, for the OML532 line
        self.reason: str | None = None  # "deadline" or "cancelled" once stopped
        self._stoppers: list[Callable[[], object]] = []
        self._closed = threading.Event()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def expired(self) -> bool:
        """The deadline passed (not a cancel)."""
        return self.reason == "deadline"

    def on_stop(self, stopper: Callable[[], object]) -> None:
        """Call `stopper` (an engine's interrupt) when the run is stopped; at once when it already is."""
        self._stoppers.append(stopper)
        if self.reason is not None:
            self._call(stopper)

    def start(self) -> None:
        """Start the clock (and the thread that interrupts the engine once stopped)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._watch, name="osiris-run-deadline", daemon=True)
            self._thread.start()

    def stop(self, reason: str = "cancelled") -> None:
        """Stop the run now (an MCP call cancelled); the first reason given stays."""
        if self.reason is None:
            self.reason = reason
        self._stopped.set()
        for stopper in list(self._stoppers):
            self._call(stopper)

    def close(self) -> None:
        """The run ended: no more interrupts."""
        self._closed.set()
        self._stopped.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()

    def _watch(self) -> None:
        if not self._stopped.wait(self.seconds) and not self._closed.is_set():
            self.stop("deadline")
        while not self._closed.wait(REPEAT_SECONDS):
            for stopper in list(self._stoppers):
                self._call(stopper)

    @staticmethod
    def _call(stopper: Callable[[], object]) -> None:
        with contextlib.suppress(Exception):  # an engine that has already closed: nothing left to interrupt
            stopper()


def not_started(result: StepResult, limit: RunLimit, results: Iterable[StepResult]) -> None:
    """A step not started when the run was stopped: cancelled, the run is interrupted
    (KeyboardInterrupt); at the deadline, the first such step carries the run's one OML532 line
    (unless a step already does) and the rest are skipped."""
    if limit.reason != "deadline":
        raise KeyboardInterrupt
    first = next((r for r in results if r.problem is not None and r.problem.code == "OML532"), None)
    if first is None:
        result.status, result.problem = "failed", deadline_problem(limit.seconds, limit.setting)
    else:
        result.status, result.skipped_because = "skipped", first.step_id

"""What `osiris run` shows while it runs: a live line per step on a terminal (rich, imported only
there), plain lines on a pipe or with NO_COLOR; then each step's sample rows as a small table."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, TextIO

from osiris.run.duckdb_run import StepResult
from osiris.text_table import NO_ROWS, ROLLED_BACK, cell, count_rows, format_table, printable

if TYPE_CHECKING:
    from rich.status import Status
    from rich.text import Text

    from osiris.run.results import RunListener


def step_line(step: StepResult, sample: bool = False) -> str:
    """`extract-customers  ok  1,204 rows  0.8 s` (and the reason for failed and skipped steps); on
    samples a writer's line says its rows were not kept: `load  ok  5 rows (rolled back, nothing kept)  0.1 s`.
    Control characters (in a step id from an untrusted pipeline) are escaped."""
    return printable(_step_text(step, sample))


def _step_text(step: StepResult, sample: bool) -> str:
    if step.status == "ok":
        warned = f"  {len(step.warnings)} warning(s)" if step.warnings else ""
        rows = f"{count_rows(step.rows_in)} ({ROLLED_BACK})" if sample and step.mode == "write" else count_rows(step.rows_out)
        return f"{step.step_id}  ok  {rows}  {step.duration_ms / 1000:.1f} s{warned}"
    if step.status == "skipped" and step.halted:
        return f"{step.step_id}  skipped (the run stopped at step '{step.skipped_because}')"
    if step.status == "skipped":
        return f"{step.step_id}  skipped (its input '{step.skipped_because}' did not complete)"
    if step.status == "interrupted":
        return f"{step.step_id}  interrupted after {step.duration_ms / 1000:.1f} s"
    code = step.problem.code if step.problem else ""
    return f"{step.step_id}  failed ({code})  {step.duration_ms / 1000:.1f} s"


def preview_lines(step: StepResult) -> list[str]:
    """A step's first sample rows as a small table under its line; values escaped and cut
    (osiris.text_table.cell), or one line saying the sample gave no rows."""
    if step.preview is None:
        return []
    headers, rows = step.preview
    if not rows:
        return [f"  {NO_ROWS}"]
    cells = [[cell(value) for value in row] for row in rows]
    return [f"  {line}" for line in format_table([printable(h) for h in headers], cells)]


class PlainDisplay:
    """One line when a step starts and one when it ends: for pipes, logs and NO_COLOR."""

    def __init__(self, out: TextIO = sys.stderr, sample: bool = False) -> None:
        self.out = out
        self.sample = sample  # a `--sample` run: writers' lines say nothing was kept

    def step_started(self, step: StepResult) -> None:
        print(printable(f"{step.step_id}  running ({step.component})"), file=self.out, flush=True)

    def step_progress(self, step: StepResult, rows: int) -> None:
        pass

    def step_finished(self, step: StepResult) -> None:
        print(step_line(step, self.sample), file=self.out, flush=True)
        for line in preview_lines(step):
            print(line, file=self.out)

    def close(self) -> None:
        pass


class LiveDisplay(PlainDisplay):
    """A rich status line for the running step: its rows so far and its time, counting while it runs."""

    def __init__(self, out: TextIO = sys.stderr, sample: bool = False) -> None:
        from rich.console import Console

        super().__init__(out, sample)
        self.console = Console(file=out, highlight=False)
        self._status: Status | None = None
        self._line: RunningLine | None = None

    def step_started(self, step: StepResult) -> None:
        self._line = RunningLine(step)
        self._status = self.console.status(self._line)
        self._status.start()

    def step_progress(self, step: StepResult, rows: int) -> None:
        if self._line is not None:
            self._line.rows = rows

    def step_finished(self, step: StepResult) -> None:
        self.close()
        style = {"ok": "green", "failed": "red"}.get(step.status, "yellow")
        self.console.print(step_line(step, self.sample), style=style, markup=False)
        for line in preview_lines(step):
            self.console.print(line, markup=False)

    def close(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None
            self._line = None


class RunningLine:
    """The live line's text, made afresh at each refresh of the status (12 a second), so that its
    time counts up even while a step reports no rows: `extract-customers  1,204 rows  3.2 s`."""

    def __init__(self, step: StepResult) -> None:
        self.step = step
        self.rows: int | None = None
        self.started = time.perf_counter()

    def __rich__(self) -> Text:
        from rich.text import Text

        done = count_rows(self.rows) if self.rows is not None else f"running ({self.step.component})"
        return Text(printable(f"{self.step.step_id}  {done}  {time.perf_counter() - self.started:.1f} s"))


class Listeners:
    """Fan each engine callback out to the trail and the display."""

    def __init__(self, *listeners: RunListener) -> None:
        self.listeners = listeners

    def step_started(self, step: StepResult) -> None:
        for listener in self.listeners:
            listener.step_started(step)

    def step_progress(self, step: StepResult, rows: int) -> None:
        for listener in self.listeners:
            listener.step_progress(step, rows)

    def step_finished(self, step: StepResult) -> None:
        for listener in self.listeners:
            listener.step_finished(step)

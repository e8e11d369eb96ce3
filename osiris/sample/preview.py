"""Each step's first sample rows, shown to the person before a tested pipeline is accepted:
a table per step (rich on a terminal, plain text on a pipe). The values are shown, never stored
(unless `sessions.save_samples: true`), the session's known secrets are masked in them, and their
control characters are escaped (osiris.text_table.cell)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from osiris.text_table import NO_ROWS, ROLLED_BACK, cell, count_rows, format_table, printable, value_text

if TYPE_CHECKING:
    from osiris.sample.sample_run import SampleRun


@dataclass
class StepPreview:
    title: str  # `extract-customers: 10 rows (first 5)`
    headers: list[str]
    rows: list[list[str]]


def step_previews(dry_run: SampleRun, redact: Callable[[str], str] = lambda text: text) -> Iterator[StepPreview]:
    """One preview per step that ran: its first rows, or for a writer what it proved."""
    for step in dry_run.steps:
        if step.status != "ok":
            continue
        if step.preview is None:
            what = f"wrote {count_rows(step.rows_in)} ({ROLLED_BACK})" if step.mode == "write" else count_rows(step.rows_out)
            yield StepPreview(printable(f"{step.step_id}: {what}"), [], [])
            continue
        headers, rows = step.preview
        if not rows:
            yield StepPreview(printable(f"{step.step_id}: {count_rows(0)} {NO_ROWS}"), [], [])
            continue
        shown = f" (first {len(rows)})" if len(rows) < step.rows_out else ""
        cells = [[cell(None if value is None else redact(value_text(value))) for value in row]
                 for row in rows]  # redact, then cut
        yield StepPreview(printable(f"{step.step_id}: {count_rows(step.rows_out)}{shown}"),
                          [printable(redact(h)) for h in headers], cells)


def preview_lines(dry_run: SampleRun, redact: Callable[[str], str] = lambda text: text) -> list[str]:
    """The previews as plain text, for `osiris generate`'s stderr."""
    lines = [f"sample run: {dry_run.rows} rows a source, nothing kept"]
    for preview in step_previews(dry_run, redact):
        lines.append(f"  {preview.title}")
        if preview.headers:
            lines += [f"    {line}" for line in format_table(preview.headers, preview.rows)]
    return lines

"""A plain copy on its direct route (osiris.run.direct), reported as its reader and writer steps."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from osiris.run.driver import RuntimeProblem
from osiris.run.results import RunListener, RunOptions, StepResult
from osiris.run.step_failure import clean, interrupted, since, unmapped
from osiris.run.step_run import step_context


def run_copy(reader_step: Mapping[str, Any], writer_step: Mapping[str, Any], reader: StepResult,
              writer: StepResult, options: RunOptions, listener: RunListener, scratch: Path) -> bool:
    """A plain copy on its direct route (osiris.run.direct), reported as its two steps; False when the
    route declined before anything was kept: the steps then run through the engine."""
    from osiris.run import direct

    try:
        reader_ctx, reader_secrets = step_context(reader_step, [], reader, None, options, listener, scratch)
        writer_ctx, writer_secrets = step_context(writer_step, [reader.step_id], writer, None, options, listener, scratch)
    except RuntimeProblem:
        return False  # the engine's route reports it
    listener.step_started(reader)
    started = time.perf_counter()
    failure: direct.Failed | None = None
    try:
        copied = direct.copy(reader_ctx, writer_ctx)
    except KeyboardInterrupt:
        interrupted(reader, started, listener)
        raise
    except direct.Failed as failed:
        copied, failure = None, failed
    except Exception as error:  # a library error the route did not map: the reader's
        copied, failure = None, direct.Failed(reader.step_id, unmapped(error, reader.component, reader_secrets))
    if copied is None and failure is None:
        return False
    reader.duration_ms = since(started)
    reader.route = writer.route = "direct"  # recorded in run.json (docs/run.md)
    if failure is not None and failure.step == reader.step_id:
        reader.status, reader.problem = "failed", clean(failure.problem, reader_secrets)
        listener.step_finished(reader)
        return True  # the writer is skipped: its input failed
    rows = copied.rows if copied else 0
    reader.status, reader.rows_in, reader.rows_out = "ok", rows, rows
    reader.columns = copied.columns if copied else []
    listener.step_finished(reader)
    listener.step_started(writer)
    if failure is not None:
        writer.status, writer.problem = "failed", clean(failure.problem, writer_secrets)
    else:
        writer.status, writer.rows_in, writer.rows_out = "ok", rows, rows
    listener.step_finished(writer)
    return True


"""The tools that run a pipeline: `run_sample` always, `run` only with `osiris mcp --allow-run`
(docs/mcp.md). Both go through `osiris.run.recorded.run_recorded`, as `osiris run` does, so a run
started by an assistant reaches exactly what `osiris run` may reach, and leaves the same trail."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Annotated

from mcp.server.mcpserver import Context
from mcp.types import ToolAnnotations
from pydantic import Field

from osiris.errors import UsageError

if TYPE_CHECKING:
    from mcp.server import MCPServer

    from osiris.mcp.project import Project
    from osiris.run.duckdb_run import StepResult

INLINE = "(oml from the assistant)"  # the run trail's name for a pipeline given as text
OmlOrNone = Annotated[str | None, Field(description="the pipeline's OML YAML text; or give path")]
PathOrNone = Annotated[str | None, Field(description="a pipeline file of the project, e.g. pipelines/orders.yaml; or give oml")]


def register(app: MCPServer, project: Project, *, allow_run: bool) -> None:
    @app.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True,
                                          open_world_hint=True))
    async def run_sample(
        ctx: Context, oml: OmlOrNone = None, path: PathOrNone = None,
        rows: Annotated[int | None, Field(ge=1, le=100_000, description="rows a source (default: the project's "
                                          "validation.sample_rows, 10 unless set)")] = None,
    ) -> dict[str, object]:
        """Test a pipeline on real data, as `osiris run --sample` does: it is validated first, then each
        extractor reads at most `rows` rows, every write is proven and then undone (rolled back, or
        written to a private folder), so no target changes. Give the pipeline as oml text or as the path
        of a project file. Sends a progress notification as each step starts and ends. Returns the status
        (succeeded, failed, or invalid with the validation issues), and per step its status, rows in and
        out, columns with their types, and any problem with its OML5xx code, message and hint (an unknown
        column, a wrong data_path, a connection refused); no row values unless the project keeps samples
        (sessions.save_samples). Use it before saving a pipeline that reads a database, a file or an API."""
        return await _run(project, ctx, oml, path, rows or project.effective.settings.validation.sample_rows)

    if not allow_run:
        return

    @app.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False,
                                          open_world_hint=True))
    async def run(ctx: Context, oml: OmlOrNone = None, path: PathOrNone = None) -> dict[str, object]:
        """Run a pipeline for real, as `osiris run` does: every row is read and every write is kept, so
        target tables and files change (a replace write empties a table first). Only offered because the
        person started the server with --allow-run; ask them before calling it, and test with run_sample
        first. Give the pipeline as oml text or as the path of a project file. Sends a progress
        notification as each step starts and ends. Returns the status and, per step, its rows,
        columns and any problem (OML5xx code, message, hint)."""
        return await _run(project, ctx, oml, path, None)


async def _run(project: Project, ctx: Context, oml: str | None, path: str | None, sample: int | None) -> dict[str, object]:
    from osiris.mcp.shapes import report_json, sample_rows
    from osiris.mcp.waiting import in_thread
    from osiris.run.recorded import run_as_json, run_limit, run_recorded
    from osiris.text_table import count_rows

    text, name = _pipeline_text(project, oml, path)
    report = project.validate(text)
    issues = report_json(report)["issues"]
    if not report.valid or report.pipeline is None:
        return {"pipeline": name, "status": "invalid", "sample": sample, "session": None, "steps": [],
                "problems": [], "issues": issues}
    pipeline = report.pipeline
    listener = StepProgress(ctx, len(pipeline["steps"]))
    limit = run_limit(project.effective, sample)  # its deadline; a cancelled call stops the run
    recorded = await in_thread(
        lambda: run_recorded(project.effective, project.registry, project.redactor, pipeline,
                             pipeline_path=name, pipeline_sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(), sample=sample,
                             listener=listener, step_configs=report.step_configs, params=report.params,
                             step_params=report.step_params, limit=limit),
        ctx, doing=f"running {name}" + (f" on {count_rows(sample)} a source" if sample else ""), heartbeat=False,
        on_cancel=limit.stop)
    shown = run_as_json(recorded, pipeline=name, sample=sample, redactor=project.redactor)
    if sample is not None and project.effective.settings.sessions.save_samples:
        steps = shown["steps"]
        for step, result in zip(steps if isinstance(steps, list) else [], recorded.result.steps):
            if isinstance(step, dict):
                step["sample_rows"] = sample_rows(result)
    return {**shown, "issues": issues}


def _pipeline_text(project: Project, oml: str | None, path: str | None) -> tuple[str, str]:
    """(the OML text, the name the trail gives it) from exactly one of `oml` and `path`."""
    from osiris.mcp.paths import project_pipeline, read_pipeline

    if (oml is None) == (path is None):
        raise UsageError("give the pipeline either as oml (its YAML text) or as path (a file of the project), "
                         "exactly one of them")
    if oml is not None:
        return oml, INLINE
    assert path is not None  # one of the two, as checked above
    target = project_pipeline(project.root, path, project.effective.config_path)
    return read_pipeline(target, path), target.relative_to(project.root).as_posix()


class StepProgress:
    """A run listener that sends a progress notification as each step starts and ends, from the
    run's worker thread: progress counts finished steps out of the pipeline's, and half a step
    more while one runs (MCP wants each notification's progress higher than the last)."""

    def __init__(self, ctx: Context, total: int) -> None:
        self.ctx, self.total, self.done = ctx, total, 0

    def step_started(self, step: StepResult) -> None:
        self._send(self.done + 0.5, f"step '{step.step_id}' running ({step.component})")

    def step_progress(self, step: StepResult, rows: int) -> None:
        pass  # a notification per step is enough; rows arrive in thousands

    def step_finished(self, step: StepResult) -> None:
        from osiris.run.display import step_line

        self.done += 1
        self._send(self.done, step_line(step))

    def _send(self, progress: float, message: str) -> None:
        import anyio.from_thread

        anyio.from_thread.run(self.ctx.report_progress, progress, self.total, message)

"""The tools on OML text: `oml_validate`, `oml_schema_get`, `oml_save` (docs/mcp.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mcp.types import ToolAnnotations
from pydantic import Field

from osiris.errors import PipelineInvalidError

if TYPE_CHECKING:
    from mcp.server import MCPServer

    from osiris.mcp.project import Project

OmlText = Annotated[str, Field(description="the pipeline's OML YAML text (a fenced ```yaml block is taken too)")]
ProjectPath = Annotated[str, Field(description="a .yaml file path relative to the project folder, e.g. pipelines/orders.yaml")]


def register(app: MCPServer, project: Project) -> None:
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

    @app.tool(annotations=read_only)
    def oml_validate(oml: OmlText) -> dict[str, object]:
        """Check an OML pipeline against the project's component specs, its configured connections, its
        schema catalog and its rules, without running anything or calling an LLM. Returns valid, the
        error and warning counts, every issue (a stable code such as OML303, severity, JSON-pointer path,
        line, column, message and a hint that says how to fix it, with the allowed values or the closest
        valid name), and the canonical pipeline: the same YAML with safe coercions written in (aliases
        renamed, "5" as 5). Call it after every change; fix all the errors it lists in one edit; warnings
        do not block."""
        from osiris.mcp.shapes import report_json

        return report_json(project.validate(oml))

    @app.tool(annotations=read_only)
    def oml_schema_get() -> dict[str, object]:
        """The shape of an OML v0.1.0 pipeline, the format Osiris runs: a JSON Schema of the document
        (oml_version, name, steps, each step's id, component, mode, config, needs), the rules a schema
        cannot say (modes, how a transform's SQL names the rows of earlier steps, connections instead of
        inline secrets), and a complete example. Read it once before writing a first pipeline; use
        components_list and components_show for what goes in each step's config."""
        from osiris.mcp.oml_shape import oml_shape

        return oml_shape()

    @app.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True,
                                          open_world_hint=False))
    def oml_save(oml: OmlText, path: ProjectPath) -> dict[str, object]:
        """Save a valid pipeline to a file of the project, in its canonical form (as oml_validate returns
        it). An invalid pipeline is refused with its issues and nothing is written. The path is relative
        to the project folder and ends in .yaml or .yml; it may not leave the project, pass through a
        symbolic link or a hidden folder (.osiris/, .git/), and an existing file is replaced only when it
        is an OML pipeline itself. Returns saved, the path, the pipeline's sha256 and its warnings."""
        return _save(project, oml, path)


def _save(project: Project, oml: str, given: str) -> dict[str, object]:
    import hashlib

    from osiris.explain import compact
    from osiris.mcp.paths import PathRefused, describe, project_pipeline, replace_problem
    from osiris.output_path import output_problem
    from osiris.trust.handles import LinkInTheWay, write_text

    target = project_pipeline(project.root, given, project.effective.config_path)
    report = project.validate(oml)
    if not report.valid or report.pipeline is None or report.oml_text is None:
        lines = "\n".join(compact(issue) for issue in report.issues)
        raise PipelineInvalidError(f"the pipeline is invalid; nothing was written to {given}. Fix these, "
                                   f"then save again:\n{lines}")
    problem = output_problem(target) or replace_problem(target)
    if problem:
        subject = "it " if problem.startswith(("is ", "exists ")) else ""
        raise PathRefused(f"cannot save to '{given}': {subject}{problem}")
    text = report.oml_text if report.oml_text.endswith("\n") else report.oml_text + "\n"
    try:
        write_text(project.root, target.relative_to(project.root).parts, text)
    except LinkInTheWay as link:
        raise PathRefused(f"cannot save to '{given}': {link} became a symbolic link; Osiris does not write "
                          "through links; nothing was written") from None
    except OSError as error:
        raise PathRefused(f"cannot save to '{given}': {describe(error)}; nothing was written") from None
    return {"saved": True, "path": target.relative_to(project.root).as_posix(),
            "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "warnings": [issue.to_dict() for issue in report.warnings]}

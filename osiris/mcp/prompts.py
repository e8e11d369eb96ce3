"""`osiris mcp`'s prompts (docs/mcp.md, ADR 0191): the two ways a person starts work with Osiris in an
assistant, rendered as one user message each.

- `build_pipeline(request)`: how to go from a plain-English request to a saved, tested pipeline with
  this server's tools and resources, and which connections the project has (references only);
- `fix_pipeline(oml)`: the pipeline quoted as data, with the errors the validator finds in it now,
  and "fix only these".

Every rendered text passes through the session's redactor: a secret the pipeline holds inline is
learnt by the validator and masked, as in every tool result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from pydantic import Field

if TYPE_CHECKING:
    from mcp.server import MCPServer

    from osiris.mcp.project import Project

BUILD_STEPS = """\
Work with the Osiris tools of this project, in this order:
1. Read the resource osiris://oml/schema (or call oml_schema_get) for the shape of a pipeline.
2. Call components_list, then components_show (or read osiris://components/<name>) for each component you use.
3. Read osiris://catalog for the tables and columns already discovered; call discovery_request for a source
   that is not there yet. Use only names the catalog shows.
4. Write the pipeline and check it with oml_validate; fix every error it reports at once.
5. Test it with run_sample (nothing is kept in any target) and look at each step's rows and columns.
6. Show me the pipeline, and save it with oml_save under pipelines/ once I agree."""


def register(app: MCPServer, project: Project) -> None:
    @app.prompt(name="build_pipeline", title="Build a pipeline",
                description="Build, test and save an OML pipeline for a request in plain English.")
    def build_pipeline(request: Annotated[str, Field(description="what the pipeline should do, e.g. copy the "
                                                                 "active customers from PostgreSQL to a CSV file")]
                       ) -> str:
        connections = [f"@{family}.{alias}" for family, aliases in sorted(project.effective.settings.connections.items())
                       for alias in sorted(aliases)]
        known = ", ".join(connections) if connections else "none yet (a CSV file of the project needs none)"
        return project.redactor.text(f"Build an OML pipeline for this request: {request.strip()}\n\n"
                                     f"The project's connections: {known}. Use only these; never write a secret "
                                     f"into the pipeline.\n\n{BUILD_STEPS}")

    @app.prompt(name="fix_pipeline", title="Fix this pipeline",
                description="Fix an OML pipeline: it is quoted with the errors Osiris finds in it now.")
    def fix_pipeline(oml: Annotated[str, Field(description="the pipeline's YAML text")]) -> str:
        return project.redactor.text(fix_text(project, oml))


def fix_text(project: Project, oml: str) -> str:
    """The pipeline as data and what is wrong with it, or that nothing is."""
    from osiris.explain import compact
    from osiris.prompt.fence import fenced_data

    report = project.validate(oml)  # learns a secret written inline, so that the redactor masks it
    quoted = fenced_data("pipeline", oml)
    if report.valid:
        return (f"This OML pipeline validates. Test it with run_sample and show me what each step reads and "
                f"writes; change nothing unless a step fails.\n\n{quoted}")
    errors = "\n".join(f"- {compact(issue)}" for issue in report.errors)
    return (f"This OML pipeline does not validate. Fix only these errors, all at once, and keep everything else "
            f"unchanged; then check it with oml_validate and test it with run_sample.\n\n"
            f"Errors ({len(report.errors)}):\n{errors}\n\n{quoted}")

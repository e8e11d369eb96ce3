"""The MCP server's wiring: an `MCPServer` of the official SDK over stdio, with Osiris's tools, one
place where every call is recorded in the session and every result and error is redacted and
worded for the assistant (docs/mcp.md, ADR 0150)."""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import ValidationError

from osiris import __version__
from osiris.errors import OsirisError, where_raised

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context
    from mcp.types import InputRequiredResult

    from osiris.mcp.project import Project
    from osiris.oml.values import Value
    from osiris.mcp.call_trail import CallTrail

INSTRUCTIONS = """\
Osiris checks, tests and saves OML data pipelines for this project. Start with oml_schema_get,
components_list and connections_list; read a component with components_show; read a database's
tables, an API's endpoints or GraphQL schema, or a CSV file with discovery_request. Check every
draft with oml_validate and fix all its errors at once; test it on sample rows with run_sample
(nothing is kept in any target); save it with oml_save."""


class OsirisMCP(MCPServer):
    """The SDK's server, with every tool call recorded, redacted and, when it fails, explained."""

    def __init__(self, project: Project, trail: CallTrail) -> None:
        super().__init__("osiris", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
        self.project = project
        self.trail = trail

    async def call_tool(self, name: str, arguments: dict[str, Value], context: Context[object, object] | None = None
                        ) -> CallToolResult | InputRequiredResult:
        started = time.perf_counter()
        try:
            result = await super().call_tool(name, arguments, context)
        except ToolError as error:
            message = self.project.redactor.text(await self._explain(name, error))
            self.trail.record(name, arguments, started, message=message)
            raise ToolError(message) from None
        if not isinstance(result, CallToolResult) or result.structured_content is None:
            self.trail.record(name, arguments, started)  # every tool here returns JSON; kept for any that will not
            return result
        shown = self.project.redactor.data(result.structured_content)
        self.trail.record(name, arguments, started, result=shown)
        text = json.dumps(shown, indent=2, ensure_ascii=False, default=str)
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=shown)

    async def _explain(self, name: str, error: ToolError) -> str:
        """One clear line (or a short report) for the assistant; never an exception's own text
        unless it is an Osiris message, which is written for people."""
        from osiris.suggest import did_you_mean

        cause = error.__cause__
        tools = {tool.name: tool for tool in await self.list_tools()}
        if name not in tools:
            return f"unknown tool '{name}'{did_you_mean(name, tools)}; the tools are {', '.join(tools)}"
        if isinstance(cause, ValidationError):
            return f"{name}: {argument_problems(cause)}; it takes {takes(tools[name].input_schema)}"
        if isinstance(cause, OsirisError):
            return f"{name}: {cause}"
        if cause is not None:
            return f"{name}: internal error: {where_raised(cause)} (a bug in Osiris; the server goes on)"
        return str(error)


def argument_problems(error: ValidationError) -> str:
    """'oml' is missing; 'rows': Input should be greater than or equal to 1."""
    found = []
    for problem in error.errors():
        where = ".".join(str(part) for part in problem["loc"])
        found.append(f"'{where}' is missing" if problem["type"] == "missing" else f"'{where}': {problem['msg']}")
    return "; ".join(found)


def takes(schema: Mapping[str, object]) -> str:
    """"oml (required), path" from a tool's input schema."""
    listed, properties = schema.get("required"), schema.get("properties")
    required = set(listed) if isinstance(listed, list) else set()
    fields = properties if isinstance(properties, dict) else {}
    names = [f"{key} (required)" if key in required else key for key in fields]
    return ", ".join(names) or "no arguments"


def build_server(project: Project, trail: CallTrail, *, allow_run: bool) -> OsirisMCP:
    from osiris.mcp import pipeline_tools, project_tools, prompts, resources, run_tools

    app = OsirisMCP(project, trail)
    pipeline_tools.register(app, project)
    project_tools.register(app, project)
    run_tools.register(app, project, allow_run=allow_run)
    resources.register(app, project)
    prompts.register(app, project)
    return app


def open_trail(project: Project) -> CallTrail:
    """The server's session (command `mcp`), in the project's `sessions.dir`."""
    from osiris.mcp.call_trail import CallTrail
    from osiris.session import Session

    settings = project.effective.settings
    session = Session.create(project.effective.resolve_path(settings.sessions.dir), provider="none", model="none",
                             redactor=project.redactor, settings=project.effective.to_dict(), command="mcp")
    return CallTrail(session, save_failed_oml=settings.sessions.save_failed_oml)


def serve(project: Project, *, allow_run: bool) -> None:
    """Serve over stdin and stdout until the client closes stdin; the session ends then."""
    logging.basicConfig(level=logging.WARNING, format="osiris mcp: %(message)s", stream=sys.stderr)
    trail = open_trail(project)
    print(f"osiris mcp: serving {project.root} over stdio; session {trail.session.path}", file=sys.stderr)
    if sys.stdin.isatty():
        print("osiris mcp: an AI assistant starts this server and talks to it over stdin (docs/mcp.md); "
              "Ctrl-D or Ctrl-C stops it", file=sys.stderr)
    try:
        build_server(project, trail, allow_run=allow_run).run("stdio")
    finally:
        trail.close()

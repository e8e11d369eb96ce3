"""Drive an `osiris mcp` server with the SDK's own client from synchronous tests.

`McpServer.start(root, env)` launches `python -m osiris mcp` as a real subprocess and talks to it
over stdio (`mcp.client.stdio.stdio_client`), its stderr kept in a file; `McpServer.inprocess(app)`
connects the same client to a server object in this process (for what a process adds nothing to,
and so that coverage sees the tools). An event loop runs in a background thread (anyio's blocking
portal) for as long as the server is open, so one server can serve a whole test module.
"""

from __future__ import annotations

import sys
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from anyio.from_thread import start_blocking_portal
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult

CALL_TIMEOUT_SECONDS = 120  # a loaded machine; a hung call fails the test instead of hanging it


@dataclass
class Call:
    """One tool call: the result as the client received it, and the progress notifications before it."""

    result: CallToolResult
    progress: list[tuple[float, float | None, str | None]] = field(default_factory=list)

    @property
    def error(self) -> bool:
        return bool(self.result.is_error)

    @property
    def text(self) -> str:
        return "".join(getattr(block, "text", "") for block in self.result.content)

    @property
    def data(self) -> dict[str, Any]:
        assert not self.result.is_error, self.text
        assert self.result.structured_content is not None
        return self.result.structured_content


class McpServer:
    def __init__(self, target: Any, stderr: Path | None = None) -> None:
        self._stack = ExitStack()
        self.stderr = stderr
        self._portal = self._stack.enter_context(start_blocking_portal())
        self.client: Client = self._stack.enter_context(
            self._portal.wrap_async_context_manager(Client(target, read_timeout_seconds=CALL_TIMEOUT_SECONDS)))

    @classmethod
    def start(cls, root: Path, env: dict[str, str], *args: str) -> McpServer:
        """`python -m osiris mcp ARGS` in `root` with `env` over the SDK's minimal default environment."""
        stderr_path = root.parent / f"mcp-stderr-{root.name}.txt"
        errlog = open(stderr_path, "w", encoding="utf-8")  # noqa: SIM115 - kept open while the server runs
        params = StdioServerParameters(command=sys.executable, args=["-m", "osiris", "mcp", *args], cwd=str(root),
                                       env={"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring", **env})
        try:
            server = cls(stdio_client(params, errlog=errlog), stderr_path)
        except BaseException:
            errlog.close()
            raise
        server._stack.callback(errlog.close)
        return server

    @classmethod
    def inprocess(cls, app: Any) -> McpServer:
        return cls(app)

    def tools(self) -> dict[str, Any]:
        listed = self._portal.call(self.client.list_tools)
        return {tool.name: tool for tool in listed.tools}

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> Call:
        progress: list[tuple[float, float | None, str | None]] = []

        async def noted(value: float, total: float | None, message: str | None) -> None:
            progress.append((value, total, message))

        async def call() -> CallToolResult:
            with anyio.fail_after(CALL_TIMEOUT_SECONDS):
                return await self.client.call_tool(name, arguments or {}, progress_callback=noted)

        return Call(self._portal.call(call), progress)

    def resources(self) -> dict[str, Any]:
        """Listed resources by URI, and resource templates by their URI template."""
        listed = self._portal.call(self.client.list_resources)
        templates = self._portal.call(self.client.list_resource_templates)
        return {**{str(r.uri): r for r in listed.resources}, **{t.uri_template: t for t in templates.resource_templates}}

    def read(self, uri: str) -> Any:
        """resources/read: the result as the client received it (an error raises the SDK's MCPError)."""
        return self._portal.call(self.client.read_resource, uri)

    def prompts(self) -> dict[str, Any]:
        return {prompt.name: prompt for prompt in self._portal.call(self.client.list_prompts).prompts}

    def prompt(self, name: str, arguments: dict[str, str]) -> Any:
        return self._portal.call(self.client.get_prompt, name, arguments)

    def close(self) -> str:
        """Close the connection (the server ends when its stdin closes); its stderr, for a process."""
        self._stack.close()
        return self.stderr.read_text(encoding="utf-8") if self.stderr else ""

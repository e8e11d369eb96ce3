"""`osiris mcp`: a Model Context Protocol server over stdio for AI assistants (docs/mcp.md).

One module per idea: `project` (the settings, validator and redactor the tools share),
`paths` (which files of the project a tool may read or write), `shapes` (results as JSON),
`trail` (each call in the session), the tools (`pipeline_tools`, `project_tools`, `run_tools`)
and `server` (the SDK's wiring). Nothing here is imported by other commands: the SDK loads
only when the server starts.
"""

__all__: list[str] = []  # a namespace: `osiris mcp` imports its modules (osiris.mcp.<module>)

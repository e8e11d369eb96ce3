"""`osiris mcp [--allow-run]`: a Model Context Protocol server over stdio for AI assistants (docs/mcp.md).

The settings are read before the server starts, so a bad `.osiris.yaml` stops with one line and
exit 2; the SDK is imported only here, never by the other commands.
"""

from __future__ import annotations

import argparse

from osiris.errors import ExitCode


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--allow-run", action="store_true",
                        help="also offer the 'run' tool, which runs pipelines for real (writes are kept)")


def run(args: argparse.Namespace) -> int:
    from osiris.mcp.project import Project
    from osiris.mcp.server import serve

    serve(Project.load(args.config), allow_run=args.allow_run)
    return ExitCode.OK

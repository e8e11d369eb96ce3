"""The `osiris` command line: a table of commands, each loaded only when it runs.

`osiris --help` must stay fast, so this module imports nothing heavy. Each command lives in
`osiris/commands/<name>.py` and exposes `add_arguments(parser)` and `run(args) -> int`.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import importlib
import os
import sys
from typing import NamedTuple, Protocol, cast

from osiris import __version__
from osiris.commands.options import add_config_option
from osiris.errors import ExitCode, OsirisError, where_raised

# When the process ends, Python's last garbage collections walk every object still alive: with the
# anthropic SDK's pydantic models loaded that took 0.3-0.7 s after `generate` had printed its
# answer. Freezing them first lets the process end at once; files, streams and atexit handlers are
# closed and run as before (docs/performance.md, "Generation start-up").
atexit.register(gc.freeze)


class Command(NamedTuple):
    name: str
    summary: str


COMMANDS: tuple[Command, ...] = (
    Command("chat", "interactive chat: describe a pipeline, get valid OML"),
    Command("generate", "one request, no questions asked; writes the valid OML"),
    Command("validate", "validate OML files without an LLM"),
    Command("run", "run a pipeline on an embedded DuckDB engine; --sample N"),
    Command("discover", "read tables, columns and types into the schema catalog: @family.alias or FILE.csv"),
    Command("mcp", "a Model Context Protocol server over stdio for AI assistants; --allow-run"),
    Command("components", "the component registry: list, show NAME, validate"),
    Command("sessions", "the audit trail: list, show ID, attempts ID, events ID"),
    Command("state", "incremental reads' state of a pipeline: show PIPELINE, reset PIPELINE"),
    Command("config", "effective settings with their sources: show"),
    Command("init", "write .osiris.yaml and the components/ layout where missing"),
    Command("auth", "an LLM API key in the system keyring: login, status, logout [--provider openai]"),
)


def _root_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="osiris",
        description="Turn plain-English data-pipeline requests into OML pipelines that validate.",
        epilog="Run 'osiris COMMAND --help' for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"osiris {__version__}")
    add_config_option(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        commands.add_parser(command.name, help=command.summary, add_help=False)
    return parser


class _Command(Protocol):
    """What every module in osiris/commands provides."""

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


def _command_parser(name: str) -> tuple[argparse.ArgumentParser, _Command]:
    module = cast(_Command, importlib.import_module(f"osiris.commands.{name}"))
    summary = next(c.summary for c in COMMANDS if c.name == name)
    parser = argparse.ArgumentParser(prog=f"osiris {name}", description=summary)
    add_config_option(parser)
    module.add_arguments(parser)
    return parser, module


def main(argv: list[str] | None = None) -> int:
    """Parse the command line, run the command, and map failures to exit codes."""
    argv = sys.argv[1:] if argv is None else list(argv)
    root = _root_parser()
    try:
        known, rest = root.parse_known_args(argv)
        if known.command is None:
            if rest:
                root.error(f"unrecognized arguments: {' '.join(rest)}")
            root.print_help(sys.stderr)
            return ExitCode.USAGE
        parser, module = _command_parser(known.command)
        args = parser.parse_args(rest)
        if "config" in known and "config" not in args:
            args.config = known.config
        args.config = getattr(args, "config", None)
        return int(module.run(args))
    except SystemExit as exit_:  # argparse: --help, --version and usage errors
        return _exit_status(exit_.code)
    except OsirisError as error:
        _error_line(f"osiris: error: {error}")
        return int(error.exit_code)
    except KeyboardInterrupt:  # on a terminal, start a new line after the echoed ^C
        print(("\n" if sys.stderr.isatty() else "") + "osiris: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return ExitCode.OK
    except OSError as error:
        _error_line(f"osiris: error: {_describe_os_error(error)}")
        return ExitCode.INTERNAL
    except Exception as error:  # an Osiris bug: say where in one line, never the text (it may quote a secret)
        if os.environ.get("OSIRIS_DEBUG"):
            raise
        print(
            f"osiris: internal error: {where_raised(error)} "
            "(a bug in Osiris; set OSIRIS_DEBUG=1 to see the traceback)",
            file=sys.stderr,
        )
        return ExitCode.INTERNAL


def _exit_status(code: object) -> int:
    if code is None:
        return ExitCode.OK
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return ExitCode.USAGE


def _error_line(text: str) -> None:
    """An error on stderr, its control characters escaped: it may quote a server, a file or data
    (a REST error body holding ESC]52 would otherwise write to the clipboard)."""
    from osiris.text_table import printable

    print(printable(text, keep="\n\t"), file=sys.stderr)


def _describe_os_error(error: OSError) -> str:
    where = f" ({error.filename})" if error.filename else ""
    return f"{error.strerror or error}{where}"


def _silence_stdout() -> None:
    """After a closed pipe (`osiris ... | head`), stop Python complaining at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass

"""`osiris generate "REQUEST"`: one request, no questions asked (docs/generate.md).

The valid pipeline goes to `-o FILE` or stdout; progress, friendly errors and the session
directory go to stderr. Exit 0 valid, 1 still invalid after retries, 2 usage, 3 key rejected,
4 service unavailable. `-o` and `sessions.dir` are checked before the LLM is called, and
`--json` prints one JSON object on stdout whatever happens (an `error` field when it failed).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from osiris.commands.options import (
    add_llm_options,
    cli_settings,
    require_output_path,
    require_sessions_dir,
)
from osiris.errors import ExitCode, FileWriteError, OsirisError, UsageError

if TYPE_CHECKING:
    from osiris.oml.values import Value
    from osiris.retry.generation_engine import GenerationEngine
    from osiris.retry.result import CycleResult
    from osiris.sample.sample_run import SampleRun
    from osiris.session import Session

STDIN = "-"
_WHY_INVALID = {"no_progress": "no progress between attempts", "strict": "strict mode: no retries",
                "dry_run_exhausted": "it still fails on sample rows and validation.retry.dry_run_attempts is used up"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("request", help="what the pipeline should do, in plain English; '-' reads standard input")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the valid OML here (default: stdout)")
    add_llm_options(parser)
    parser.add_argument("--json", action="store_true", help="print a JSON result on stdout")


def run(args: argparse.Namespace) -> int:
    from osiris.retry import open_engine
    from osiris.retry.plain_progress import ProgressPrinter
    from osiris.settings import load_settings

    try:
        request = read_request(args.request)
        output = require_output_path("-o", args.output) if args.output else None
        effective = load_settings(cli=cli_settings(args), config_path=args.config)
        require_sessions_dir(effective)
        printer = ProgressPrinter(sys.stderr)
        engine = open_engine(effective, command="generate", observer=printer)
        printer.redact = engine.session.redactor.text
    except OsirisError as error:
        _print_json_error(args, error, session=None)
        raise
    try:
        return _generate(args, engine, request, output)
    except OsirisError as error:
        _print_json_error(args, error, session=engine.session)
        raise


def _generate(args: argparse.Namespace, engine: GenerationEngine, request: str, output: Path | None) -> int:
    session = engine.session
    print(f"osiris: session {session.id}: {session.path}", file=sys.stderr)
    try:
        result = engine.run(request)
    except OsirisError as error:
        session.finish(getattr(error, "stop_reason", "llm_error"))  # "budget": a spending cap
        print(f"osiris: session saved in {session.path}", file=sys.stderr)
        raise
    except KeyboardInterrupt:
        session.finish("interrupted")
        raise
    except Exception:
        session.finish("internal_error")
        raise
    if not result.valid:
        session.finish("invalid")
        _print_json(args, result, session, None)
        tried = len(result.attempts)
        why = engine.budget_stop or _WHY_INVALID.get(result.stop_reason, "retries exhausted")
        print(
            f"osiris: the pipeline is still invalid after {tried} attempt{'s' if tried != 1 else ''} "
            f"({why}); see {session.path}",
            file=sys.stderr,
        )
        return ExitCode.INVALID
    oml = (result.oml_text or "").rstrip("\n") + "\n"
    _print_preview(result, session)
    if output is not None:
        _write_output(engine, result, output, oml)
    engine.accept(result, saved_to=str(args.output) if args.output else None)
    session.finish("valid")
    print(f"osiris: {_spending(result)}", file=sys.stderr)
    if args.json:
        _print_json(args, result, session, oml)
    elif not args.output:
        sys.stdout.write(oml)
    return ExitCode.OK


def _print_preview(result: CycleResult, session: Session) -> None:
    """A tested pipeline's sample rows, on stderr (stdout carries only the pipeline)."""
    if result.dry_run is None or result.dry_run.status != "passed":
        return
    from osiris.sample.preview import preview_lines

    for line in preview_lines(result.dry_run, session.redactor.text):
        print(line, file=sys.stderr)


def read_request(argument: str) -> str:
    """The request argument, or standard input for '-' (as `validate -` reads a file)."""
    request = sys.stdin.read() if argument == STDIN else argument
    if not request.strip():
        where = "standard input is empty" if argument == STDIN else "the request is empty"
        raise UsageError(f"{where}; describe the pipeline you want")
    return request


def _write_output(engine: GenerationEngine, result: CycleResult, output: Path, oml: str) -> None:
    """Write -o; when the disk says no after all, keep the pipeline in the session and end it."""
    from osiris.output_path import describe_os_error, write_output
    from osiris.retry.attempt_trail import cycle_dir

    try:
        write_output(output, oml)
    except OSError as error:
        session = engine.session
        engine.accept(result, saved_to=None)
        session.finish("output_failed")
        kept = session.path / cycle_dir(result.cycle) / "accepted.yaml"
        raise OutputWriteError(f"cannot write -o {output}: {describe_os_error(error)}; "
                               f"the valid pipeline is kept in {kept}") from None
    print(f"osiris: wrote {output}", file=sys.stderr)


class OutputWriteError(OsirisError):
    """-o passed its check but could not be written (disk full, a link planted meanwhile)."""

    exit_code = FileWriteError.exit_code


def _spending(result: CycleResult) -> str:
    """E.g. 'valid after 2 attempts; tokens: 2,270 in, 400 out, 1,600 cache read, 1,600 cache write'."""
    tried = len(result.attempts)
    tested = {"passed": f"; tested on {result.dry_run.rows} sample rows",
              "skipped": "; not tested on samples"}.get(result.dry_run.status, "") if result.dry_run else ""
    return f"valid after {tried} attempt{'s' if tried != 1 else ''}{tested}; tokens: {result.usage.describe()}"


def _print_json(args: argparse.Namespace, result: CycleResult, session: Session, oml: str | None) -> None:
    if not args.json:
        return
    from osiris.retry.attempt_trail import attempt_summary

    payload = {
        "valid": result.valid,
        "stop_reason": result.stop_reason,
        "session_id": session.id,
        "session_dir": str(session.path),
        "output": args.output,
        "oml": oml,
        "attempts": [attempt_summary(a) for a in result.attempts],
        "token_usage": result.usage.to_dict(),
        "issues": [issue.to_dict() for issue in result.report.issues],
        "dry_run": _dry_run_json(result.dry_run),
    }
    print(json.dumps(session.redactor.data(payload), indent=2))


def _dry_run_json(dry_run: SampleRun | None) -> dict[str, Value] | None:
    """The last attempt's sample run: verdict, why it was skipped, and each step's rows (no values)."""
    if dry_run is None:
        return None
    return {"status": dry_run.status, "sample_rows": dry_run.rows, "reason": dry_run.reason,
            "duration_ms": dry_run.duration_ms,
            "steps": [{"id": s.step_id, "status": s.status, "rows_out": s.rows_out} for s in dry_run.steps]}


def _print_json_error(args: argparse.Namespace, error: OsirisError, session: Session | None) -> None:
    """`--json` promises an object on stdout whether it worked or not: here, why not."""
    if not args.json:
        return
    message = session.redactor.text(str(error)) if session is not None else str(error)
    payload = {
        "valid": False,
        "error": message,
        "exit_code": int(error.exit_code),
        "session_id": session.id if session is not None else None,
        "session_dir": str(session.path) if session is not None else None,
        "output": args.output,
        "oml": None,
    }
    print(json.dumps(payload, indent=2))

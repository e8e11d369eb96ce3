"""`osiris generate "REQUEST"`: one request, no questions asked (SPEC §7).

The valid pipeline goes to `-o FILE` or stdout; progress, friendly errors and the session
directory go to stderr. Exit 0 valid, 1 still invalid after retries, 2 usage, 3 key rejected,
4 service unavailable.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from osiris.errors import ExitCode, OsirisError, UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("request", help="what the pipeline should do, in plain English")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the valid OML here (default: stdout)")
    add_llm_options(parser)
    parser.add_argument("--json", action="store_true", help="print a JSON result on stdout")


def add_llm_options(parser: argparse.ArgumentParser) -> None:
    """--retry-attempts, --model, --provider: the command-line layer of the settings."""
    parser.add_argument("--retry-attempts", metavar="N", help="retries after the first generation (0-5)")
    parser.add_argument("--model", help="LLM model (default from settings)")
    parser.add_argument("--provider", help="anthropic or demo (offline, scripted answers)")


def cli_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The flags given, as a settings layer; load_settings checks them and names `cli` on error."""
    layer: dict[str, Any] = {}
    if args.retry_attempts is not None:
        layer.setdefault("validation", {}).setdefault("retry", {})["max_attempts"] = args.retry_attempts
    if args.model is not None:
        layer.setdefault("llm", {})["model"] = args.model
    if args.provider is not None:
        layer.setdefault("llm", {})["provider"] = args.provider
    return layer


def run(args: argparse.Namespace) -> int:
    from osiris.retry import open_engine
    from osiris.retry.plain_progress import ProgressPrinter
    from osiris.settings import load_settings

    if not args.request.strip():
        raise UsageError("the request is empty; describe the pipeline you want")
    effective = load_settings(cli=cli_settings(args), config_path=args.config)
    engine = open_engine(effective, command="generate", observer=ProgressPrinter(sys.stderr))
    session = engine.session
    print(f"osiris: session {session.id}: {session.path}", file=sys.stderr)
    try:
        result = engine.run(args.request)
    except OsirisError:
        session.finish("llm_error")
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
        why = "no progress between attempts" if result.stop_reason == "no_progress" else "retries exhausted"
        print(
            f"osiris: the pipeline is still invalid after {tried} attempt{'s' if tried != 1 else ''} "
            f"({why}); see {session.path}",
            file=sys.stderr,
        )
        return ExitCode.INVALID
    oml = (result.oml_text or "").rstrip("\n") + "\n"
    if args.output:
        target = Path(args.output)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(oml, encoding="utf-8")
        print(f"osiris: wrote {target}", file=sys.stderr)
    engine.accept(result, saved_to=str(args.output) if args.output else None)
    session.finish("valid")
    print(f"osiris: {_spending(result)}", file=sys.stderr)
    if args.json:
        _print_json(args, result, session, oml)
    elif not args.output:
        sys.stdout.write(oml)
    return ExitCode.OK


def _spending(result: Any) -> str:
    """E.g. 'valid after 2 attempts; tokens: 2,270 in, 400 out, 1,600 cache read, 1,600 cache write'."""
    tried = len(result.attempts)
    return f"valid after {tried} attempt{'s' if tried != 1 else ''}; tokens: {result.usage.describe()}"


def _print_json(args: argparse.Namespace, result: Any, session: Any, oml: str | None) -> None:
    if not args.json:
        return
    from osiris.retry.trail import attempt_summary

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
    }
    print(json.dumps(session.redactor.data(payload), indent=2))

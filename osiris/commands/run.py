"""`osiris run PIPELINE [--sample N] [--json]`: validate, then run on the embedded DuckDB engine."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from osiris.errors import ExitCode, RunFailedError

if TYPE_CHECKING:
    from osiris.settings.loader import EffectiveSettings
    from osiris.run.driver import RuntimeProblem
    from osiris.run.engine import RunResult, StepResult
    from osiris.validate.issue import ValidationReport
    from osiris.validate.validator import Validator
    from osiris.secrets.redact import Redactor
    from osiris.session.store import Session


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("pipeline", metavar="PIPELINE", help="the OML file to run")
    parser.add_argument("--sample", type=_positive, metavar="N",
                        help="run on N rows a source and keep nothing: writes are proven, then undone")
    parser.add_argument("--json", action="store_true", help="print the run's result as JSON on stdout")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of rows, not '{text}'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1 row, not {value}")
    return value


def run(args: argparse.Namespace) -> int:
    from osiris.commands.validate import _read
    from osiris.explain import located
    from osiris.settings import load_settings
    from osiris.validate import load_validator

    effective = load_settings(config_path=args.config)
    validator = load_validator(effective)
    text = _read(args.pipeline).decode("utf-8-sig", errors="replace")
    report = validator.validate(text)
    if not report.valid or report.pipeline is None:
        for issue in report.issues:
            print(located(issue, args.pipeline), file=sys.stderr)
        print(f"{args.pipeline}: invalid: fix it before running (osiris validate {args.pipeline})", file=sys.stderr)
        if args.json:
            print(json.dumps(_invalid_as_json(args, report), indent=2, default=str))
        return ExitCode.INVALID
    return _run_valid(args, effective, validator, report)


def _run_valid(args: argparse.Namespace, effective: EffectiveSettings, validator: Validator,
               report: ValidationReport) -> int:
    from osiris.secrets.setup import build_redactor
    from osiris.run.display import Listeners
    from osiris.run.engine import RunOptions, run_pipeline
    from osiris.run.trail import RunTrail
    from osiris.session import Session

    registry = validator.registry
    pipeline: dict[str, Any] = report.pipeline or {}
    redactor = build_redactor(effective, None, registry)
    root = effective.resolve_path(effective.settings.sessions.dir)
    session = Session.create(root, provider="none", model="none", redactor=redactor,
                             settings=effective.to_dict(), command="run")
    trail = RunTrail(session, pipeline_path=args.pipeline, sample=args.sample,
                     save_samples=effective.settings.sessions.save_samples)
    display = _display(sys.stderr if args.json else sys.stdout)
    options = RunOptions(
        connections=effective.settings.connections, env=effective.env, base_dir=effective.project_root,
        sample=args.sample, work_dir=session.path / "artifacts" if args.sample else None,
        secret_fields=lambda component: {p.strip("/") for p in registry.secret_fields(component)},
        step_configs=report.step_configs)
    trail.start(len(pipeline["steps"]))
    try:
        result = run_pipeline(pipeline, options, Listeners(trail, display))
    finally:
        display.close()
    status = trail.finish(result)
    if args.json:
        print(json.dumps(_as_json(args, session, status, result, redactor), indent=2, default=str))
    _report_problems(args.pipeline, result, redactor)
    print(f"session: {session.path}", file=sys.stderr)
    if result.interrupted:
        raise KeyboardInterrupt
    if not result.ok:
        failed = [s.step_id for s in result.steps if s.status == "failed"]
        raise RunFailedError(f"the run failed at step {', '.join(repr(s) for s in failed)}")
    return ExitCode.OK


def _display(out: Any) -> Any:
    from osiris.run.display import LiveDisplay, PlainDisplay

    if out.isatty() and not os.environ.get("NO_COLOR"):
        return LiveDisplay(out)
    return PlainDisplay(out)


def _problems(result: RunResult) -> list[tuple[StepResult, RuntimeProblem, str]]:
    """Every warning and failure of the run, step by step, each with its severity: what stderr
    shows and what `--json` lists as `problems`, in the same order."""
    return [(step, problem, severity) for step in result.steps
            for problem, severity in [(w, "warning") for w in step.warnings] + (
                [(step.problem, "error")] if step.problem else [])]


def _report_problems(pipeline: str, result: RunResult, redactor: Redactor) -> None:
    for step, problem, severity in _problems(result):
        shown = "warning: " if severity == "warning" else ""
        print(redactor.text(f"{pipeline} {problem.code} {shown}step '{step.step_id}': {problem.message}"),
              file=sys.stderr)
        if problem.hint:
            print(f"    hint: {redactor.text(problem.hint)}", file=sys.stderr)


def _invalid_as_json(args: argparse.Namespace, report: ValidationReport) -> dict[str, Any]:
    """An invalid pipeline runs nothing: no session, no steps; its issues as `osiris validate --json` gives them."""
    from osiris.commands.validate import FileResult
    from osiris.commands.validate import _as_json as file_as_json

    return {"pipeline": args.pipeline, "status": "invalid", "sample": args.sample, "session": None,
            "steps": [], "problems": [], "issues": file_as_json(FileResult(args.pipeline, report))["issues"]}


def _as_json(args: argparse.Namespace, session: Session, status: str, result: RunResult,
             redactor: Redactor) -> dict[str, Any]:
    def issue(problem: Any) -> dict[str, Any]:
        return {"code": problem.code, "message": problem.message, "hint": problem.hint}

    shown: dict[str, Any] = redactor.data({
        "pipeline": args.pipeline, "status": status, "sample": args.sample, "session": str(session.path),
        "problems": [{"step": step.step_id, "severity": severity, **issue(problem)}
                     for step, problem, severity in _problems(result)],
        "steps": [{
            "id": s.step_id, "component": s.component, "status": s.status, "rows_in": s.rows_in,
            "rows_out": s.rows_out, "duration_ms": s.duration_ms,
            "columns": [{"name": n, "type": t} for n, t in s.columns],
            "problem": issue(s.problem) if s.problem else None,
            "warnings": [issue(w) for w in s.warnings],
            "skipped_because": s.skipped_because,
        } for s in result.steps],
    })
    return shown


__all__ = ["add_arguments", "run"]

"""`osiris run PIPELINE [--sample N] [--json] [--engine duckdb|spark]`: validate, then run on the
embedded DuckDB engine, or on Apache Spark (docs/spark.md)."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from osiris.commands.options import add_param_option, check_params_known, given_params
from osiris.errors import ExitCode, RunFailedError, RunInternalError

if TYPE_CHECKING:
    from osiris.oml.values import MutableConfig, Value
    from osiris.run.display import PlainDisplay
    from osiris.settings.loader import EffectiveSettings
    from osiris.run.duckdb_run import RunResult
    from osiris.validate.issue import ValidationReport
    from osiris.validate.validator import Validator
    from osiris.secrets.redact import Redactor


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("pipeline", metavar="PIPELINE", help="the OML file to run")
    parser.add_argument("--sample", type=_positive, metavar="N",
                        help="run on N rows a source and keep nothing: writes are proven, then undone")
    parser.add_argument("--json", action="store_true", help="print the run's result as JSON on stdout")
    add_param_option(parser)
    parser.add_argument("--full-refresh", action="store_true",
                        help="incremental reads read from their initial value again (every row without one); "
                             "the state then moves on as after any run")
    parser.add_argument("--wait", action="store_true",
                        help="if this pipeline is already running here, wait for that run to end (default: exit 7)")
    parser.add_argument("--engine", choices=["duckdb", "spark"],
                        help="where the steps run (run.engine; default duckdb): spark runs the same plan on "
                             "Apache Spark at run.spark.master")
    parser.add_argument("--threads", metavar="N",
                        help="the engine's threads (run.threads; default: the machine's cores)")
    parser.add_argument("--memory-limit", metavar="SIZE",
                        help="the engine's memory, e.g. 2GB or 512MB, beyond which it spills to the project's "
                             "scratch (run.memory_limit; default: a quarter of the machine's memory, at least 256MB)")


UNSET_PARAM = "OML318"


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of rows, not '{text}'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1 row, not {value}")
    return value


def _run_settings(args: argparse.Namespace) -> dict[str, MutableConfig] | None:
    """`--engine`, `--threads` and `--memory-limit` as the command-line settings layer, passed as
    typed so that a bad value is refused with source `cli` (osiris.settings.check)."""
    from osiris.settings.env import whole_number_or_text

    given = {"engine": args.engine, "memory_limit": args.memory_limit,
             "threads": None if args.threads is None else whole_number_or_text("run.threads", args.threads)}
    layer: MutableConfig = {key: value for key, value in given.items() if value is not None}
    return {"run": layer} if layer else None


def run(args: argparse.Namespace) -> int:
    from osiris.commands.validate import _read
    from osiris.explain import located
    from osiris.settings import load_settings
    from osiris.validate import load_validator

    effective = load_settings(cli=_run_settings(args), config_path=args.config)
    on_spark = effective.settings.run.engine == "spark"
    if on_spark:
        from osiris.run.spark.session import require_pyspark

        require_pyspark()
    validator = load_validator(effective)
    raw = _read(args.pipeline)
    text = raw.decode("utf-8-sig", errors="replace")
    given = given_params(args)
    report = validator.validate(text, params=given)
    if report.pipeline is not None:
        check_params_known(given, set(report.params))
    if on_spark and report.valid and report.pipeline is not None:
        from osiris.run.spark.transpile import spark_report

        report = spark_report(report)
    if not report.valid or report.pipeline is None:
        for issue in report.issues:
            print(located(issue, args.pipeline), file=sys.stderr)
        print(f"{args.pipeline}: invalid: fix it before running (osiris validate {args.pipeline})", file=sys.stderr)
        if args.json:
            print(json.dumps(_invalid_as_json(args, report), indent=2, default=str))
        if any(issue.code == UNSET_PARAM for issue in report.errors):
            return ExitCode.USAGE  # a parameter the command line must give (docs/run-again.md)
        return ExitCode.INVALID
    return _run_valid(args, effective, validator, report, hashlib.sha256(raw).hexdigest())


def _run_valid(args: argparse.Namespace, effective: EffectiveSettings, validator: Validator,
               report: ValidationReport, sha256: str) -> int:
    """Run a valid pipeline, each step with the effective config validation worked out; `sha256`
    is that of the file's bytes (what `sha256sum` prints)."""
    _start_the_engine_early(effective, report, args.sample)
    from osiris.explain import located
    from osiris.trust.redactor import build_redactor
    from osiris.run.recorded import run_as_json, run_recorded

    redactor = build_redactor(effective, None, validator.registry)
    for issue in report.warnings:  # as `osiris validate` prints them, redacted: a valid pipeline's warnings
        print(redactor.text(located(issue, args.pipeline)), file=sys.stderr)
    display = _display(sys.stderr if args.json else sys.stdout, sample=args.sample is not None)
    try:
        recorded = run_recorded(effective, validator.registry, redactor, report.pipeline or {},
                                pipeline_path=args.pipeline, pipeline_sha256=sha256, sample=args.sample,
                                listener=display, step_configs=report.step_configs,
                                engine=effective.settings.run.engine, params=report.params,
                                step_params=report.step_params, wait=args.wait,
                                full_refresh=args.full_refresh,
                                waiting=lambda line: print(f"osiris: {line}", file=sys.stderr, flush=True))
    finally:
        display.close()
    result = recorded.result
    if args.json:
        shown = run_as_json(recorded, pipeline=args.pipeline, sample=args.sample, redactor=redactor)
        shown["issues"] = redactor.data(_issues_as_json(args, report))  # a valid pipeline's warnings
        print(json.dumps(shown, indent=2, default=str))
    _report_problems(args.pipeline, result, redactor)
    if args.sample is not None:
        keep = effective.settings.sessions.save_samples
        _say_what_was_kept(result, recorded.session.path / "artifacts" / "sample-output" if keep else None)
    print(f"session: {recorded.session.path}", file=sys.stderr)
    if result.interrupted:
        raise KeyboardInterrupt
    if not result.ok:
        failed = [s.step_id for s in result.steps if s.status == "failed"]
        if any(s.problem is not None and s.problem.code == "OML105" for s in result.steps):
            raise RunInternalError(f"the run stopped at an internal error at step {', '.join(repr(s) for s in failed)}")
        raise RunFailedError(f"the run failed at step {', '.join(repr(s) for s in failed)}")
    return ExitCode.OK


def _start_the_engine_early(effective: EffectiveSettings, report: ValidationReport, sample: int | None) -> None:
    """A run that will use DuckDB starts its connection now, while the run's own modules load
    (docs/performance.md); a run of plain copies on direct routes never imports it (ADR 0165)."""
    from osiris.oml.narrow import steps_of
    from osiris.run.direct import engine_needed

    if effective.settings.run.engine == "duckdb" and engine_needed(steps_of(report.pipeline or {}), sample):
        from osiris.run.duckdb_engine import start_connecting

        start_connecting()


def _say_what_was_kept(result: RunResult, kept: Path | None) -> None:
    """After `run --sample`: where the CSV writers' sample files are, or that none was kept."""
    if not any(s.status == "ok" and s.mode == "write" and s.component.startswith("filesystem.") for s in result.steps):
        return
    if kept is not None and kept.is_dir():
        print(f"sample output: the files written are kept in {kept} (sessions.save_samples: true)", file=sys.stderr)
    else:
        print("sample output: the files written were not kept (sessions.save_samples: false)", file=sys.stderr)


def _display(out: TextIO, sample: bool) -> PlainDisplay:
    from osiris.run.display import LiveDisplay, PlainDisplay

    if out.isatty() and not os.environ.get("NO_COLOR"):
        return LiveDisplay(out, sample)
    return PlainDisplay(out, sample)


def _report_problems(pipeline: str, result: RunResult, redactor: Redactor) -> None:
    """Each problem on stderr, redacted, its control characters escaped (a server's error text
    may hold terminal escapes)."""
    from osiris.run.recorded import run_problems
    from osiris.text_table import printable

    for step, problem, severity in run_problems(result):
        shown = "warning: " if severity == "warning" else ""
        print(printable(redactor.text(f"{pipeline} {problem.code} {shown}step '{step.step_id}': {problem.message}")),
              file=sys.stderr)
        if problem.hint:
            print(f"    hint: {printable(redactor.text(problem.hint))}", file=sys.stderr)


def _invalid_as_json(args: argparse.Namespace, report: ValidationReport) -> dict[str, Value]:
    """An invalid pipeline runs nothing: no session, no steps; its issues as `osiris validate --json` gives them."""
    return {"pipeline": args.pipeline, "status": "invalid", "sample": args.sample, "session": None,
            "steps": [], "problems": [], "issues": _issues_as_json(args, report)}


def _issues_as_json(args: argparse.Namespace, report: ValidationReport) -> Value:
    """The validation issues as `osiris validate --json` gives them (a valid pipeline's: its warnings)."""
    from osiris.commands.validate import FileResult
    from osiris.commands.validate import _as_json as file_as_json

    return file_as_json(FileResult(args.pipeline, report))["issues"]


__all__ = ["add_arguments", "run"]

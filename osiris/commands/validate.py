"""`osiris validate FILE... | -`: validate OML files without an LLM (docs/validate.md)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from osiris.commands.file_words import for_a_file
from osiris.commands.options import add_param_option, check_params_known, given_params
from osiris.errors import ExitCode, UsageError
from osiris.explain import located
from osiris.extract import MAX_CHARS
from osiris.output_path import describe_os_error
from osiris.validate.findings import Findings
from osiris.validate.issue import ValidationReport

if TYPE_CHECKING:
    from osiris.oml.values import Value
    from osiris.validate.validator import Validator

STDIN = "-"


@dataclass
class FileResult:
    """One file's report; or, when it could not be read, `error` and an empty report."""

    name: str
    report: ValidationReport
    error: str | None = None
    text: str | None = None  # the file as read, when it was text
    bom: bool = False

    @property
    def exit_code(self) -> int:
        if self.error:
            return ExitCode.USAGE
        return ExitCode.OK if self.report.valid else ExitCode.INVALID


class UnreadableFile(UsageError):
    """A file that cannot be read: reported with its own error, the other files still run."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="OML files to validate; '-' reads standard input")
    parser.add_argument("--json", action="store_true", help="print the results as JSON on stdout")
    add_param_option(parser)
    rewrite = parser.add_mutually_exclusive_group()
    rewrite.add_argument("--fix", action="store_true",
                         help="write the canonical form back (aliases renamed, values typed, enum case fixed)")
    rewrite.add_argument("--diff", action="store_true", help="show the canonical form as a unified diff; write nothing")


def run(args: argparse.Namespace) -> int:
    from osiris.settings import load_settings
    from osiris.validate import load_validator

    from osiris.trust.redactor import build_redactor

    effective = load_settings(config_path=args.config)
    validator = load_validator(effective)
    redactor = build_redactor(effective, None, validator.registry, keyring=False)  # validate connects to nothing
    for problem in validator.registry.problems:
        print(f"osiris: warning: component spec skipped: {problem}", file=sys.stderr)
    if args.fix and STDIN in args.files:
        raise UsageError("--fix cannot write to standard input; use --diff to see the canonical form")
    given = given_params(args)
    results = [_result(validator, name, given) for name in args.files]
    if given and any(r.report.pipeline is not None for r in results):
        check_params_known(given, {name for r in results for name in r.report.params})
    if args.fix or args.diff:
        _rewrite(results, write=args.fix, out=sys.stderr if args.json else sys.stdout)  # JSON keeps stdout
    for result in results:  # a secret the file holds inline is masked wherever a message repeats it
        if result.report is not None and result.report.pipeline is not None:
            redactor.learn_from(result.report.pipeline, validator.registry.secret_paths(result.report.pipeline))
    if args.json:
        shown = redactor.data({"files": [_as_json(result) for result in results]})
        print(json.dumps(shown, indent=2, default=str))
    else:
        _print_text(results, redactor.text)
    return max(result.exit_code for result in results)  # the worst: 2 unreadable > 1 invalid > 0


def _result(validator: Validator, name: str, params: dict[str, str] | None = None) -> FileResult:
    try:
        result = _validate_file(validator, name, params or {})
    except UnreadableFile as error:
        return FileResult(_display_name(name), ValidationReport(), error=str(error))
    result.report.issues = [for_a_file(issue) for issue in result.report.issues]
    return result


def _display_name(name: str) -> str:
    return "<stdin>" if name == STDIN else name


def _validate_file(validator: Validator, name: str, params: dict[str, str]) -> FileResult:
    data = _read(name)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        return FileResult(_display_name(name), _single_issue(
            "OML101", f"the file is not UTF-8 text (byte {error.start})", "save the pipeline as UTF-8 YAML text"))
    return FileResult(_display_name(name), validator.validate(text, params=params), text=text,
                      bom=data.startswith(b"\xef\xbb\xbf"))


def _rewrite(results: list[FileResult], *, write: bool, out: TextIO) -> None:
    """--diff prints what --fix writes: each file with its canonical pipeline."""
    from osiris.validate.rewrite import fixed_text, unified_diff, write_back

    for result in results:
        if result.text is None:
            continue
        fixed = fixed_text(result.text, result.report)
        if fixed is None:
            continue
        if write:
            write_back(result.name, fixed, result.bom)
            count = len(result.report.coerced)
            print(f"{result.name}: fixed ({count} coercion{'s' if count != 1 else ''} written)", file=out)
        else:
            out.write(unified_diff(result.name, result.text, fixed))


def _read(name: str) -> bytes:
    """At most a little more than the validator's limit: a huge file is rejected without reading it all."""
    limit = MAX_CHARS * 4 + 1
    try:
        if name == STDIN:
            return sys.stdin.buffer.read(limit)
        with open(name, "rb") as handle:
            return handle.read(limit)
    except FileNotFoundError:
        raise UnreadableFile(f"cannot read {name}: no such file") from None
    except IsADirectoryError:
        raise UnreadableFile(f"cannot read {name}: it is a directory") from None
    except OSError as error:
        raise UnreadableFile(f"cannot read {name}: {describe_os_error(error)}") from None


def _single_issue(code: str, message: str, hint: str) -> ValidationReport:
    findings = Findings()
    findings.add(code, "", message, hint)
    return ValidationReport(issues=findings.issues)


def _print_text(results: list[FileResult], redact: Callable[[str], str]) -> None:
    for result in results:
        if result.error:
            print(f"osiris: error: {result.error}", file=sys.stderr)
            print(f"{result.name}: unreadable")
            continue
        for issue in result.report.issues:
            print(redact(located(issue, result.name)))
            if issue.tier == 1 and issue.line and result.report.oml_text:
                from osiris.excerpt import excerpt

                shown = excerpt(redact(result.report.oml_text), issue.line, issue.column)
                print("\n".join("    " + row for row in shown.splitlines()))
        errors, warnings = len(result.report.errors), len(result.report.warnings)
        status = "valid" if result.report.valid else "invalid"
        counts = ", ".join(part for part in (_count(errors, "error"), _count(warnings, "warning")) if part)
        print(f"{result.name}: {status}" + (f" ({counts})" if counts else ""))


def _count(number: int, word: str) -> str:
    return f"{number} {word}{'s' if number != 1 else ''}" if number else ""


def _as_json(result: FileResult) -> dict[str, Value]:
    """One file; `value` is the offending value (secrets already masked by the validator);
    `error` is set, and `valid` false, when the file could not be read."""
    keys = ("code", "severity", "tier", "path", "line", "column", "message", "hint", "value")
    return {
        "path": result.name,
        "valid": result.error is None and result.report.valid,
        "error": result.error,
        "issues": [{key: getattr(issue, key) for key in keys} for issue in result.report.issues],
    }

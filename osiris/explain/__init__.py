"""Render an Issue two ways: `friendly` for a person, `compact` (one path-addressed line) for the LLM.

Neither prints `Issue.value` beyond what the message already says, and the validator has masked
secret values before they ever reach an Issue.
"""

from __future__ import annotations

from osiris.text_table import printable
from osiris.validate.codes import CODES
from osiris.validate.issue import Issue
from osiris.validate.pointer import readable

__all__ = ["compact", "friendly", "located"]


def friendly(issue: Issue) -> str:
    """E.g.
    error OML307 in steps[3].config.write_mode (line 31, column 7): value not in enum
      write_mode is 'upset', which is not one of the allowed values
      how to fix: set write_mode to one of: 'append', 'replace', 'upsert' (did you mean 'upsert'?)
    """
    where = printable(readable(issue.path))
    position = f" (line {issue.line}, column {issue.column})" if issue.line else ""
    title = CODES[issue.code].title if issue.code in CODES else ""
    lines = [f"{issue.severity} {issue.code} in {where}{position}: {title}", f"  {issue.message}"]
    if issue.hint:
        lines.append(f"  how to fix: {issue.hint}")
    return "\n".join(lines)


def compact(issue: Issue) -> str:
    """`OML307 /steps/3/config/write_mode: message | fix: hint` on one line."""
    path = printable(issue.path) or "/"
    text = f"{issue.code} {path}: {_one_line(issue.message)}"
    if issue.severity == "warning":
        text = f"{issue.code} (warning) {path}: {_one_line(issue.message)}"
    return f"{text} | fix: {_one_line(issue.hint)}" if issue.hint else text


def located(issue: Issue, file_name: str) -> str:
    """The form of `osiris validate`: `file:line:col CODE message`, and the hint on the next line."""
    where = f"{file_name}:{issue.line}:{issue.column}" if issue.line else file_name
    severity = "" if issue.is_error else "warning: "
    text = f"{where} {issue.code} {severity}{_one_line(issue.message)}"
    return f"{text}\n    hint: {_one_line(issue.hint)}" if issue.hint else text


def _one_line(text: str) -> str:
    """One line, control characters (a key can be "\\n") shown as escapes."""
    return printable(" ".join(text.split()))


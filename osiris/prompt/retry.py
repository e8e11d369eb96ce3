"""The delta retry prompt (SPEC §5): what is wrong, the previous pipeline as data, fix only that.

The prompt never grows with the number of attempts: earlier attempts are one summary line each,
up to `history_limit`, and only the latest pipeline is included.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any

from osiris.prompt.fence import fenced_data

PREVIOUS = "previous_pipeline"
NO_PIPELINE = "OML102"
CUT_OFF = "OML106"
MAX_ISSUES = 25


class RetryKind(str, Enum):
    FIX_ERRORS = "fix_errors"
    NO_PIPELINE = "no_pipeline"  # prose only (OML102): ask for the pipeline only
    CUT_OFF = "cut_off"  # stopped at the token limit (OML106): ask for a complete, shorter one


def retry_kind(error_codes: Sequence[str]) -> RetryKind:
    if CUT_OFF in error_codes:
        return RetryKind.CUT_OFF
    if NO_PIPELINE in error_codes:
        return RetryKind.NO_PIPELINE
    return RetryKind.FIX_ERRORS


def build_retry_prompt(
    errors: Sequence[Any],
    previous_oml: str | None,
    earlier: Sequence[str],
    render: Callable[[Any], str],
) -> str:
    """`errors`: the issues of the last attempt; `previous_oml`: its YAML, already redacted;
    `earlier`: one summary line per earlier attempt; `render`: issue -> compact line."""
    kind = retry_kind([getattr(issue, "code", "") for issue in errors])
    if kind is RetryKind.NO_PIPELINE:
        body = [
            "Your previous answer contained no OML pipeline.",
            "Answer with the pipeline only: one ```yaml block holding the complete OML document, "
            "and no other text.",
        ]
    elif kind is RetryKind.CUT_OFF:
        body = [
            "Your previous answer was cut off at the output token limit, so the pipeline is incomplete.",
            "Answer again with the complete pipeline, shorter: no comments, no explanations, only "
            "one ```yaml block.",
        ]
    else:
        shown = list(errors)[:MAX_ISSUES]
        more = len(errors) - len(shown)
        lines = [f"- {render(issue)}" for issue in shown]
        if more > 0:
            lines.append(f"- ... and {more} more error(s) of the same kinds")
        body = [
            "Your previous pipeline did not validate. These are the errors (JSON-pointer path, code, "
            "message, hint):",
            "\n".join(lines),
        ]
        if previous_oml:
            body.append(fenced_data(PREVIOUS, previous_oml))
        body.append(
            "Fix only these errors; keep everything else unchanged. Answer with the complete "
            "corrected pipeline in one ```yaml block."
        )
    if earlier:
        body.append("Earlier attempts (do not repeat these mistakes): " + "; ".join(earlier))
    return "\n\n".join(body)


def summarise_attempt(index: int, error_codes: Sequence[str], error_count: int) -> str:
    """E.g. 'attempt 1: 2 errors (OML212, OML301)'."""
    codes = ", ".join(sorted(set(error_codes))) or "none"
    return f"attempt {index}: {error_count} error{'s' if error_count != 1 else ''} ({codes})"


def without_previous_pipeline(prompt: str) -> str:
    """The prompt with the quoted previous pipeline left out (for `sessions.save_failed_oml: false`)."""
    return re.sub(
        rf"<{PREVIOUS}>.*?</{PREVIOUS}>",
        f"<{PREVIOUS}> (not saved: sessions.save_failed_oml is false) </{PREVIOUS}>",
        prompt,
        flags=re.DOTALL,
    )

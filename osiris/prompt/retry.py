"""The delta retry prompt (docs/generate.md, ADR 0022): what is wrong, the previous pipeline as data, fix only that.

The prompt never grows with the number of attempts: earlier attempts are one summary line each,
up to `history_limit`, and only the latest pipeline is included.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from enum import Enum
from typing import TYPE_CHECKING

from osiris.prompt.fence import fenced_data
from osiris.excerpt import excerpt

if TYPE_CHECKING:
    from osiris.validate.issue import Issue

PREVIOUS = "previous_pipeline"
NO_PIPELINE = "OML102"
CUT_OFF = "OML106"
RUNTIME_BLOCK = "OML5"  # problems found by running the pipeline on samples
MAX_ISSUES = 25


class RetryKind(str, Enum):
    FIX_ERRORS = "fix_errors"
    FIX_SAMPLE = "fix_sample"  # valid OML that failed on sample rows (OML5xx only)
    NO_PIPELINE = "no_pipeline"  # prose only (OML102): ask for the pipeline only
    CUT_OFF = "cut_off"  # stopped at the token limit (OML106): ask for a complete, shorter one


def retry_kind(error_codes: Sequence[str]) -> RetryKind:
    if CUT_OFF in error_codes:
        return RetryKind.CUT_OFF
    if NO_PIPELINE in error_codes:
        return RetryKind.NO_PIPELINE
    if error_codes and all(code.startswith(RUNTIME_BLOCK) for code in error_codes):
        return RetryKind.FIX_SAMPLE
    return RetryKind.FIX_ERRORS


FIX_WORDING = (
    "Fix these errors and anything else that breaks the OML rules. Keep the valid content (queries, "
    "tables, paths, names) unchanged. Answer with the complete corrected pipeline in one ```yaml block "
    "and no other text (the one-sentence assumption belongs to a first answer, not to a fix)."
)


SAMPLE_FIX_WORDING = (
    "Change only what these runtime errors point at (a column, a table, a data_path, a key), using the real "
    "names the sample run showed; keep everything else unchanged. Answer with the complete corrected "
    "pipeline in one ```yaml block and no other text."
)


def build_retry_prompt(
    errors: Sequence[Issue],
    previous_oml: str | None,
    earlier: Sequence[str],
    render: Callable[[Issue], str],
    normalised: Sequence[str] = (),
    sample_facts: Sequence[str] = (),
    sample_rows: int | None = None,
    warnings: Sequence[Issue] = (),
) -> str:
    """`errors`: the issues of the last attempt; `previous_oml`: its canonical YAML, already redacted;
    `warnings`: warnings of the last attempt that a fix should correct too (a non-kebab name);
    `earlier`: one summary line per earlier attempt; `render`: issue -> compact line;
    `normalised`: one line per safe coercion already written into `previous_oml`;
    `sample_facts`: what a sample run of `previous_oml` showed (redacted), with `sample_rows` rows a source."""
    kind = retry_kind([getattr(issue, "code", "") for issue in errors])
    if kind is RetryKind.NO_PIPELINE:
        body = [
            "Your previous answer contained no OML pipeline.",
            "Answer with the pipeline only: one ```yaml block holding the complete OML document, "
            "and no other text. If no component in the catalogue can do what is asked, say that again "
            "in one sentence instead; never substitute another system.",
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
        lines = [f"- {_located(issue, render, previous_oml)}" for issue in shown]
        if more > 0:
            lines.append(f"- ... and {more} more error(s) of the same kinds")
        body = [_errors_heading(kind, sample_rows), "\n".join(lines)]
        if warnings and kind is RetryKind.FIX_ERRORS:
            body.append("Fix these warnings as well: the pipeline would run with them, but they stay wrong:\n"
                        + "\n".join(f"- {render(issue)}" for issue in list(warnings)[:MAX_ISSUES]))
        if sample_facts:
            body.append("What the sample run showed (names and types only; values withheld):\n"
                        + "\n".join(f"- {fact}" for fact in sample_facts))
        if normalised:
            body.append("Osiris already normalised these in the pipeline below; keep them as they are now:\n"
                        + "\n".join(f"- {line}" for line in normalised))
        if previous_oml:
            body.append(fenced_data(PREVIOUS, previous_oml))
        body.append(SAMPLE_FIX_WORDING if kind is RetryKind.FIX_SAMPLE else FIX_WORDING)
    if earlier:
        body.append("Earlier attempts (do not repeat these mistakes): " + "; ".join(earlier))
    return "\n\n".join(body)


def _errors_heading(kind: RetryKind, sample_rows: int | None) -> str:
    if kind is RetryKind.FIX_SAMPLE:
        rows = f"{sample_rows} rows" if sample_rows else "a few rows"
        return ("Your previous pipeline is valid OML, but it failed when Osiris ran it on sample data "
                f"({rows} a source; writes rolled back). These are the runtime errors (JSON-pointer path, "
                "code, message, hint):")
    return "Your previous pipeline did not validate. These are the errors (JSON-pointer path, code, message, hint):"


def _located(issue: Issue, render: Callable[[Issue], str], text: str | None) -> str:
    """The compact line; a YAML-level error (tier 1) also gets its line, column and an excerpt."""
    line, column = getattr(issue, "line", None), getattr(issue, "column", None)
    if getattr(issue, "tier", 0) != 1 or not line:
        return render(issue)
    shown = excerpt(text, line, column) if text else ""
    where = f" (line {line}" + (f", column {column})" if column else ")")
    return render(issue) + where + ("\n" + "\n".join("    " + row for row in shown.splitlines()) if shown else "")


def summarise_attempt(index: int, error_codes: Sequence[str], error_count: int) -> str:
    """E.g. 'attempt 1: 2 errors (OML212, OML301)'."""
    codes = ", ".join(sorted(set(error_codes))) or "none"
    return f"attempt {index}: {error_count} error{'s' if error_count != 1 else ''} ({codes})"


def without_previous_pipeline(prompt: str) -> str:
    """The prompt with the quoted previous pipeline left out (for `sessions.save_failed_oml: false`).

    The quoted pipeline cannot hold its own fence (see `fenced_data`), so its block ends at the
    first closing fence, whatever the pipeline says (`</previous_pipeline>` included). A block
    that does not look like that is cut to the end of the prompt: nothing of it is kept."""
    placeholder = f"<{PREVIOUS}> (not saved: sessions.save_failed_oml is false) </{PREVIOUS}>"
    block = re.compile(rf"<{PREVIOUS}>[^\n]*\n(`{{3,}})(?!`)[^\n]*\n.*?\n\1\n</{PREVIOUS}>", re.DOTALL)
    kept = block.sub(lambda _: placeholder, prompt)
    leftover = re.search(rf"<{PREVIOUS}>(?! \(not saved)", kept)
    return kept[: leftover.start()] + placeholder if leftover else kept

"""The retry prompt of a cycle's last attempt (docs/generate.md, ADR 0022): its errors, its pipeline
as data and what its sample run showed, with earlier attempts summarised; everything redacted."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from osiris.prompt.retry import build_retry_prompt, summarise_attempt
from osiris.retry.result import Attempt

if TYPE_CHECKING:
    from osiris.validate.issue import Issue

# Warnings a fix corrects with the errors, by list: each one's hint is an exact edit of what the model
# wrote (a name in kebab-case, an unknown top-level key removed). Others stay out: a stale catalogue's
# OML406 or a coercion already written (OML315) is nothing for the model to change.
FIXED_WITH_ERRORS = frozenset({"OML204", "OML211"})


def delta_prompt(attempts: Sequence[Attempt], history_limit: int, redact: Callable[[str], str],
                 render: Callable[[Issue], str]) -> str:
    """The retry prompt for `attempts[-1]`; up to `history_limit` earlier ones are one line each."""
    last = attempts[-1]
    earlier = [summarise_attempt(a.index, a.report.error_codes, len(a.report.errors))
               for a in attempts[:-1][-history_limit:]]
    previous = redact(last.oml_text) if last.oml_text else None
    normalised = [redact(render(issue)) for issue in last.report.coerced]
    sample = last.dry_run
    return build_retry_prompt(last.report.errors, previous, earlier, lambda issue: redact(render(issue)), normalised,
                              sample_facts=[redact(fact) for fact in sample.facts] if sample else (),
                              sample_rows=sample.rows if sample else None,
                              warnings=[issue for issue in last.report.warnings if issue.code in FIXED_WITH_ERRORS])

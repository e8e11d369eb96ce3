"""Per-attempt artifacts and the per-cycle retry_trail.json, written through the session."""

from __future__ import annotations

import difflib
import hashlib
from typing import TYPE_CHECKING

from osiris.prompt.retry import without_previous_pipeline
from osiris.retry.result import Attempt, CycleResult
from osiris.session import Session

if TYPE_CHECKING:
    from osiris.oml.values import Value
    from osiris.validate.issue import ValidationReport


def cycle_dir(cycle: int) -> str:
    return f"artifacts/cycle-{cycle}"


def attempt_dir(cycle: int, attempt: int) -> str:
    return f"{cycle_dir(cycle)}/attempt-{attempt}"


def write_attempt(
    session: Session, cycle: int, attempt: Attempt, previous: Attempt | None, save_failed_oml: bool
) -> None:
    """prompt.txt, answer.txt, pipeline.yaml, errors.json and diff.patch (all redacted by the session)."""
    where = attempt_dir(cycle, attempt.index)
    if attempt.prompt:
        prompt = attempt.prompt if save_failed_oml else without_previous_pipeline(attempt.prompt)
        session.write_text(f"{where}/prompt.txt", prompt)
    keep_oml = attempt.valid or save_failed_oml
    if keep_oml:
        session.write_text(f"{where}/answer.txt", attempt.answer)
        if attempt.oml_text:
            session.write_text(f"{where}/pipeline.yaml", attempt.oml_text)
            if previous is not None and previous.oml_text and save_failed_oml:  # a diff shows the old OML too
                session.write_text(f"{where}/diff.patch", unified_diff(previous, attempt, session))
    session.write_json(f"{where}/errors.json", issues_json(attempt.report))


def unified_diff(previous: Attempt, current: Attempt, session: Session) -> str:
    """The change from the previous attempt's pipeline to this one's (both redacted first)."""
    before = session.redactor.text(previous.oml_text or "").splitlines(keepends=True)
    after = session.redactor.text(current.oml_text or "").splitlines(keepends=True)
    lines = difflib.unified_diff(
        before, after, f"attempt-{previous.index}/pipeline.yaml", f"attempt-{current.index}/pipeline.yaml"
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def issues_json(report: ValidationReport) -> dict[str, Value]:
    return {
        "valid": bool(report.valid),
        "error_codes": list(report.error_codes),
        "issues": [issue.to_dict() for issue in report.issues],
    }


def attempt_summary(attempt: Attempt) -> dict[str, Value]:
    """One row of the trail, and of `osiris sessions attempts`."""
    return {
        "attempt_index": attempt.index,
        "kind": attempt.kind,
        "valid": attempt.valid,
        "error_count": len(attempt.report.errors),
        "warning_count": len(attempt.report.warnings),
        "error_codes": list(attempt.report.error_codes),
        "token_usage": attempt.usage.to_dict(),
        "llm_ms": round(attempt.llm_ms, 1),
        "validation_ms": round(attempt.validate_ms, 2),
        "llm_stop_reason": attempt.llm_stop_reason,
        "dry_run": attempt.dry_run.status if attempt.dry_run is not None else None,
        "dry_run_ms": attempt.dry_run.duration_ms if attempt.dry_run is not None else None,
    }


def tier_counts(result: CycleResult) -> dict[str, Value]:
    """How the cycle's attempts fared tier by tier: validation (tiers 1-4), then the sample run (tier 5, its issues' `tier`)."""
    ran = [a.dry_run for a in result.attempts if a.dry_run is not None]
    return {
        "validation": {"attempts": len(result.attempts),
                       "failed": sum(1 for a in result.attempts if not a.valid and not a.failed_on_samples)},
        "dry_run": {"runs": len(ran), **{status: sum(1 for d in ran if d.status == status)
                                         for status in ("passed", "failed", "skipped")},
                    "duration_ms": round(sum(d.duration_ms for d in ran), 1)},
    }


def write_trail(session: Session, result: CycleResult, status: str | None = None) -> str:
    """retry_trail.json: every attempt, the totals (each token once) and the final status."""
    final = result.oml_text if result.valid else None
    trail = {
        "cycle": result.cycle,
        "request": result.request,
        "hint": result.hint,
        "max_attempts": result.max_attempts,
        "status": status or ("valid" if result.valid else "invalid"),
        "stop_reason": result.stop_reason,
        "attempts": [attempt_summary(a) for a in result.attempts],
        "tiers": tier_counts(result),
        "totals": {
            "attempts": len(result.attempts),
            "token_usage": result.usage.to_dict(),
            "llm_ms": round(result.llm_ms, 1),
            "validation_ms": round(result.validate_ms, 2),
        },
        "final_pipeline_sha256": sha256(final) if final else None,
    }
    relative = f"{cycle_dir(result.cycle)}/retry_trail.json"
    session.write_json(relative, trail)
    return str(session.path / relative)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()

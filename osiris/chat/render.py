"""How results look: the pipeline with its warnings, errors in brief, attempt tables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from osiris.chat.display import Display

if TYPE_CHECKING:
    from osiris.oml.values import Config, Value
    from osiris.validate.issue import Issue, ValidationReport


def count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def pointer_to_dotted(pointer: str, depth: int = 3) -> str:
    """'/steps/1/config/port' -> 'steps[1].config' (the first `depth` parts); '' -> 'the document'."""
    from osiris.validate.pointer import join, readable, split

    return readable(join("", *split(pointer)[:depth]))


def describe_locations(issues: Sequence[Issue], limit: int = 2) -> str:
    """Where the errors are, e.g. 'steps[1].config and steps[2].config'."""
    places: list[str] = []
    for issue in issues:
        place = pointer_to_dotted(issue.path)
        if place not in places:
            places.append(place)
    if not places:
        return ""
    shown = places[:limit]
    more = len(places) - len(shown)
    text = " and ".join(shown) if len(shown) <= 2 else ", ".join(shown)
    return text + (f" (+{more} more)" if more else "")


def preamble(answer: str, max_lines: int = 3) -> str:
    """What the LLM said before its YAML block (e.g. an assumption it made), at most `max_lines`."""
    before = answer.split("```", 1)[0] if "```" in answer else ""
    lines = [line.strip() for line in before.strip().splitlines() if line.strip()]
    return "\n".join(lines[:max_lines])


def show_errors(display: Display, issues: Sequence[Issue], limit: int | None = None, text: str | None = None) -> None:
    """Each issue's friendly text, indented; at most `limit`, then '… and N more'. A YAML-level
    error also shows the lines of the pipeline `text` around it, with a caret."""
    from osiris.explain import friendly
    from osiris.excerpt import excerpt

    shown = list(issues if limit is None else issues[:limit])
    for issue in shown:
        around = excerpt(display.redact(text), issue.line, issue.column) if text and issue.tier == 1 and issue.line else ""
        lines = (friendly(issue).splitlines() or [issue.message]) + around.splitlines()
        display.error("  - " + lines[0])
        for line in lines[1:]:
            display.note("    " + line)
    if limit is not None and len(issues) > limit:
        display.note(f"  … and {len(issues) - limit} more")


def show_warnings(display: Display, issues: Sequence[Issue]) -> None:
    from osiris.explain import friendly

    if not issues:
        return
    display.warn(f"{count(len(issues), 'warning')}:")
    for issue in issues:
        lines = friendly(issue).splitlines() or [issue.message]
        display.warn("  - " + lines[0])
        for line in lines[1:]:
            display.note("    " + line)


def show_pipeline(display: Display, report: ValidationReport) -> None:
    """The pipeline's YAML (highlighted on a terminal) followed by its warnings."""
    display.yaml(report.oml_text or "")
    show_warnings(display, report.warnings)


def attempt_rows(summaries: Sequence[Config]) -> list[list[str]]:
    """Rows for an attempt table, from `osiris.retry.attempt_trail.attempt_summary` dicts (read back from a
    session's trail too)."""
    rows = []
    for s in summaries:
        tokens, codes = s["token_usage"], s["error_codes"]
        tokens = tokens if isinstance(tokens, Mapping) else {}
        rows.append([
            str(s["attempt_index"]),
            str(s["kind"]),
            "yes" if s["valid"] else "no",
            (", ".join(str(code) for code in codes) if isinstance(codes, list) else "") or "-",
            f"{tokens['input']}/{tokens['output']}",
            _figure(s["llm_ms"], 0),
            _figure(s["validation_ms"], 1),
        ])
    return rows


def _figure(value: Value, decimals: int) -> str:
    """A number with `decimals` places; anything else as it is."""
    return f"{value:.{decimals}f}" if isinstance(value, (int, float)) else str(value)


ATTEMPT_HEADERS = ("attempt", "kind", "valid", "errors", "tokens in/out", "LLM ms", "validate ms")


def show_attempts(display: Display, summaries: Sequence[Config], title: str = "") -> None:
    display.table(ATTEMPT_HEADERS, attempt_rows(summaries), title=title)

"""Tier 1: raw text -> one parsed document, or the OML1xx issues that explain why not."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from osiris.extract import MAX_CHARS, Loaded, Position, cut_yaml, load_document
from osiris.validate.findings import Findings


@dataclass
class Parsed:
    text: str | None = None  # the YAML cut out of the answer
    document: Any = None
    positions: Mapping[str, Position] = field(default_factory=dict)
    ok: bool = False


def parse_answer(answer: str, truncated: bool, findings: Findings) -> Parsed:
    """Cut and parse; add OML101-OML106 to `findings`. `truncated`: the LLM hit its token limit."""
    if len(answer) > MAX_CHARS:
        findings.add("OML105", "", f"the text is {len(answer):,} characters; the limit is {MAX_CHARS:,}",
                     "send one pipeline of a reasonable size; OML files are normally a few kilobytes")
        return Parsed()
    cut = cut_yaml(answer)
    if truncated or (cut is not None and cut.unclosed_fence):
        reason = "the LLM stopped at its token limit" if truncated else "the answer ends inside an open code block"
        findings.add("OML106", "", f"the answer was cut off: {reason}",
                     "send the complete pipeline again, shorter: drop comments and optional fields")
        return Parsed(text=cut.text if cut else None)
    if cut is None:
        findings.add("OML102", "", "the answer holds no YAML pipeline" if answer.strip() else "the answer is empty",
                     "answer with one OML pipeline in a ```yaml code block, starting with oml_version: \"0.1.0\"")
        return Parsed()
    if cut.pipelines > 1:
        findings.add("OML103", "", f"the answer holds {cut.pipelines} code blocks with a pipeline",
                     "send exactly one pipeline, in one ```yaml code block")
        return Parsed(text=cut.text)
    loaded: Loaded = load_document(cut.text)  # positions count from the pipeline as saved (issue 8)
    findings.positions = loaded.positions
    for problem in loaded.problems:
        findings.add(problem.code, "", problem.message, problem.hint, position=problem.position)
    if loaded.empty:
        findings.add("OML102", "", "the YAML is empty",
                     "answer with one OML pipeline, starting with oml_version: \"0.1.0\"")
    parsed = Parsed(text=cut.text, document=loaded.value, positions=loaded.positions)
    parsed.ok = not findings.issues and not loaded.empty
    return parsed

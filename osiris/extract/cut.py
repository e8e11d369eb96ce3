"""Cut the YAML out of a raw LLM answer: code fences, a preamble, trailing prose."""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([A-Za-z0-9_+-]*)[^\n]*$", re.MULTILINE)
# A line that can start a YAML pipeline: a lower-case key (maybe quoted, maybe in a list), a document
# marker, or the brace of a JSON object.
_YAML_START = re.compile(r"^(---\s*$|\{|(-[ \t]+)?(?P<q>['\"]?)[a-z_][a-z0-9_]*(?P=q)[ \t]*:(\s|$))")
# Lines that YAML can end with; trailing lines that are none of these are prose.
_YAML_LINE = re.compile(r"^(\s|-(\s|$)|#|---|\.\.\.|(?P<q>['\"]?)[a-z_][a-z0-9_]*(?P=q)[ \t]*:(\s|$)|[\]}])")
_OML_HINT = re.compile(r"^\s*(oml_version|steps)\s*:", re.MULTILINE)
_COMPLETE_KEYS = ("oml_version", "name", "steps")  # at the start of a line: a whole pipeline, not a sketch
_YAML_LANGUAGES = {"", "yaml", "yml", "oml"}


@dataclass(frozen=True)
class Cut:
    """The YAML part of an answer and where it starts (0-based line) in the original text."""

    text: str
    first_line: int
    unclosed_fence: bool = False  # the answer ended inside a code block: it was cut off
    pipelines: int = 1  # code blocks in the answer that hold a pipeline; more than one is ambiguous


def cut_yaml(answer: str) -> Cut | None:
    """The YAML in `answer`, or None when it holds no YAML at all (empty or prose only)."""
    if not answer.strip():
        return None
    fenced = _from_fences(answer)
    if fenced is not None:
        return fenced
    return _from_plain_text(answer)


def _from_fences(answer: str) -> Cut | None:
    blocks: list[tuple[Cut, str]] = []
    opening = None
    for match in _FENCE.finditer(answer):
        if opening is None:
            opening = match
            continue
        if match.group(1)[0] != opening.group(1)[0] or match.group(2):
            continue  # not a closing fence of this block
        blocks.append(_block(answer, opening, match.start()))
        opening = None
    if opening is not None:
        blocks.append(_block(answer, opening, len(answer), unclosed=True))
    wanted = [b for b, lang in blocks if lang in _YAML_LANGUAGES] if blocks else []
    if not wanted:
        return None
    with_oml = [block for block in wanted if _OML_HINT.search(block.text)]
    complete = [block for block in with_oml if is_complete(block.text)]
    if len(with_oml) > 1 and len(complete) == 1:
        return complete[0]  # a sketch or a fragment next to the pipeline: the pipeline is the answer
    if len(with_oml) > 1:
        first = (complete or with_oml)[0]
        return Cut(first.text, first.first_line, first.unclosed_fence, pipelines=len(with_oml))
    return (with_oml or wanted)[0]


def is_complete(text: str) -> bool:
    """True for YAML that has every top-level key of an OML pipeline (oml_version, name, steps)."""
    return all(re.search(rf"^{key}[ \t]*:", text, re.MULTILINE) for key in _COMPLETE_KEYS)


def _block(answer: str, opening: re.Match[str], end: int, unclosed: bool = False) -> tuple[Cut, str]:
    start = opening.end() + 1
    text = answer[start:end] if start <= end else ""
    first_line = answer.count("\n", 0, start)
    return Cut(text, first_line, unclosed), opening.group(2).lower()


def _from_plain_text(answer: str) -> Cut | None:
    lines = answer.split("\n")
    start = next((i for i, line in enumerate(lines) if _YAML_START.match(line)), None)
    if start is None:
        return None
    if all(not line.strip() or line.lstrip().startswith("#") for line in lines[:start]):
        start = 0  # only YAML comments before the pipeline: they belong to it (a file's header)
    end = len(lines)
    while end > start + 1 and (not lines[end - 1].strip() or not _YAML_LINE.match(lines[end - 1])):
        end -= 1
    return Cut("\n".join(lines[start:end]) + "\n", start)

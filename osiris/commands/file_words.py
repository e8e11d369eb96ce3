"""`osiris validate` talks to a person about a file, not to an LLM about its answer.

The validator words its whole-document findings (tier 1, path "") for an LLM answer: "the answer
is empty", "answer with one OML pipeline in a ```yaml block", "send ...". Retry prompts keep
those words; here they become file words. Findings about a place in the pipeline are unchanged.
"""

from __future__ import annotations

from dataclasses import replace

from osiris.validate.issue import Issue

START = 'start the file with oml_version: "0.1.0" and describe one pipeline'
_MESSAGES = {
    "the answer is empty": "the file is empty",
    "the YAML is empty": "the file holds no YAML values, only comments or blank lines",
    "the answer holds no YAML pipeline": "the file holds no YAML pipeline",
    "the answer was cut off: the answer ends inside an open code block":
        "the file ends inside an open ``` code block",
}
_HINTS = {
    "OML102": START,
    "OML103": "keep one pipeline per file",
    "OML106": "close the code block with a ``` line, or remove the fence lines",
}


def for_a_file(issue: Issue) -> Issue:
    """The same finding in file words, when it was worded for an LLM answer."""
    if issue.path or issue.tier != 1:
        return issue
    message = _MESSAGES.get(issue.message, issue.message.replace("the answer", "the file"))
    hint = _HINTS.get(issue.code, issue.hint)
    if hint.startswith("send "):
        hint = "keep " + hint.removeprefix("send ")
    return replace(issue, message=message, hint=hint)

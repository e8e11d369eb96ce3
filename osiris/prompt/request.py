"""The first message of a generation cycle: the request, any guidance, the current pipeline."""

from __future__ import annotations

from collections.abc import Sequence

from osiris.prompt.fence import fenced_data


IN_HISTORY = ("The current pipeline is the one in your last ```yaml answer above. Change it as the request "
              "asks; keep the rest.")


def pipeline_message(redacted_oml: str) -> str:
    """An accepted pipeline as the history keeps it: the assistant's answer, one fenced block."""
    return f"```yaml\n{redacted_oml}\n```"


def build_request_prompt(
    request: str, *, hint: str | None = None, current_oml: str | None = None, open_errors: Sequence[str] = (),
    schema: str = "", current_in_history: bool = False,
) -> str:
    """`request` and `hint` are already scrubbed; `current_oml` and `open_errors` (compact issue
    lines of the current pipeline, after a hand-off) are already redacted; `schema` is the catalog
    slice for this request (osiris/prompt/schema.py), "" when there is none. `current_in_history`:
    the current pipeline is already in the messages sent along, so it is pointed at, not repeated."""
    parts = [f"Request: {request.strip()}", *([schema] if schema else [])]
    if current_in_history:
        parts.append(IN_HISTORY)
    elif current_oml:
        parts.append(
            "The current pipeline follows. Change it as the request asks; keep the rest.\n"
            + fenced_data("current_pipeline", current_oml)
        )
    if open_errors:
        parts.append("Errors still open in the current pipeline:\n" + "\n".join(f"- {line}" for line in open_errors))
    if hint:
        parts.append(f"Guidance from the person: {hint.strip()}")
    parts.append("Answer with one ```yaml block holding the complete OML pipeline.")
    return "\n\n".join(parts)

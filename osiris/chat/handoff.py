"""The hand-off to the person when retries run out or stop early (docs/generate.md, "What happens when").

Shows the last attempts with their top errors and the tokens spent, then asks for one of
hint / edit / fresh / cancel. The chat loop carries out the choice; the engine records it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from osiris.chat.display import Display
from osiris.chat.reader import LineReader
from osiris.chat.render import count, show_attempts
from osiris.validate.pointer import readable

if TYPE_CHECKING:
    from osiris.oml.values import Config
    from osiris.retry.result import CycleResult

CHOICES = ("hint", "edit", "fresh", "cancel")
CHOICE_HELP = (
    "  hint   — add guidance for the LLM; the retry counter starts again\n"
    "  edit   — open the last pipeline in your editor, then validate it (no LLM)\n"
    "  fresh  — generate again from scratch; the retry counter starts again\n"
    "  cancel — leave it; the session goes on"
)
ERRORS_SHOWN = 3

def headline(result: CycleResult) -> str:
    """Why the person is asked, in words that match what happened."""
    tried = count(len(result.attempts), "attempt")
    if result.stop_reason == "edited_invalid":
        return "Your edited pipeline is still invalid (validated without the LLM)."
    if result.stop_reason == "strict":
        return "The pipeline is invalid, and strict mode allows no retries (/retry-attempts N allows some)."
    if result.stop_reason == "dry_run_exhausted":
        return (f"The pipeline validates but still fails on sample rows after {tried} "
                "(validation.retry.dry_run_attempts is used up).")
    if result.stop_reason == "budget":
        return (f"The pipeline is still invalid after {tried}, and the next retry would pass a spending cap "
                "(llm.max_cycle_tokens or llm.max_session_tokens).")
    if result.stop_reason == "no_progress":
        return f"The pipeline is still invalid after {tried} (the last attempt repeated the errors of the one before)."
    return f"The pipeline is still invalid after {tried} (the retries are used up)."


def present(display: Display, result: CycleResult, shown: Sequence[Config], usage_text: str) -> None:
    """What went wrong: why it stopped, the recent attempts, the last errors, the tokens spent."""
    display.warn(headline(result))
    show_attempts(display, shown, title=f"Last {count(len(shown), 'attempt')}:")
    errors = result.report.errors
    display.say(f"Top errors of the last attempt ({len(errors)} in all):")
    for issue in errors[:ERRORS_SHOWN]:
        display.error(f"  - {issue.code} {readable(issue.path)}: {issue.message}")
    display.note(f"Tokens spent: {usage_text}")
    display.say("What now?")
    display.say(CHOICE_HELP)


def parse_choice(answer: str) -> str | None:
    """'h', 'Hint', 'hint' -> 'hint'; an empty or unknown answer -> None."""
    word = answer.strip().lower()
    if not word:
        return None
    matches = [choice for choice in CHOICES if choice.startswith(word)]
    return matches[0] if len(matches) == 1 else None


def ask_choice(display: Display, reader: LineReader) -> str:
    """Ask until the answer is one of the choices; Ctrl-C means cancel. EOFError (end of input,
    Ctrl-D) is raised: nobody is there to choose, and the chat ends as `generate` would (exit 1)."""
    while True:
        try:
            answer = reader.ask("hint / edit / fresh / cancel> ")
        except KeyboardInterrupt:
            return "cancel"
        choice = parse_choice(answer)
        if choice:
            return choice
        display.warn("Please type hint, edit, fresh or cancel (the first letter is enough).")

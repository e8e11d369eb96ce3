"""`osiris chat` without an API key: say how to set one, and offer the offline demo provider."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO, TypeVar

from osiris.chat.terminal import is_interactive
from osiris.errors import LLMAuthError
from osiris.llm.credentials import no_key_message
from osiris.secrets.keyring_store import get_api_key, keyring_available

if TYPE_CHECKING:
    from osiris.settings.loader import EffectiveSettings

T = TypeVar("T")

EXPLANATION = """\
Osiris needs an Anthropic API key to talk to Claude, and found none.
  - set it for this shell:   export ANTHROPIC_API_KEY=sk-ant-...
{keyring}Or try the offline demo provider now: it replays scripted answers (one invalid, then a fix),
so you can see the whole chat without a key or network."""
WITH_KEYRING = "  - or keep it in the system keyring:   osiris auth login\n"
NO_KEYRING = "  (this machine has no usable system keyring, so `osiris auth login` cannot keep it)\n"


def needs_key(effective: EffectiveSettings) -> bool:
    return effective.settings.llm.provider == "anthropic" and not get_api_key(effective.env)[0]


def offer_demo(stdin: TextIO, stdout: TextIO, use_demo: Callable[[], T]) -> T:
    """Explain; on a terminal ask whether to use the demo provider. Returns `use_demo()`'s
    settings on yes; raises LLMAuthError (exit 3) on no or when nobody can answer."""
    if not (is_interactive(stdin) and is_interactive(stdout)):
        raise LLMAuthError(no_key_message())
    stdout.write(EXPLANATION.format(keyring=WITH_KEYRING if keyring_available() else NO_KEYRING) + "\n")
    stdout.write("Use the demo provider now? [y/N] ")
    stdout.flush()
    answer = stdin.readline()
    if answer.strip().lower() in {"y", "yes"}:
        return use_demo()
    raise LLMAuthError(no_key_message())

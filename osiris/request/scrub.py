"""Remove passwords from the person's own message before it is stored or sent.

People paste DSNs (`mysql://app:hunter2@db/shop`) into requests. The LLM needs the host and the
user, never the password: the pipeline gets it from a connection reference.
"""

from __future__ import annotations

from dataclasses import dataclass

from osiris.secrets.names import MASK
from osiris.secrets.redact import DSN_PASSWORD, Redactor


@dataclass(frozen=True)
class ScrubbedRequest:
    """The text to store and send, and what was removed (for telling the person)."""

    text: str
    original_changed: bool
    removed: tuple[str, ...] = ()

    def notice(self) -> str | None:
        """One line for the person, or None when nothing was removed."""
        if not self.original_changed:
            return None
        what = " and ".join(self.removed) or "a secret"
        return (
            f"removed {what} from your request before storing or sending it (shown as {MASK}); "
            "the pipeline will use a connection reference instead"
        )


def scrub_request(text: str, redactor: Redactor) -> ScrubbedRequest:
    """Mask DSN passwords, known secret values and key-like tokens in `text`."""
    removed = []
    if DSN_PASSWORD.search(text):
        removed.append("a password inside a connection URL")
    clean = redactor.text(text)
    if clean != text and not removed:
        removed.append("a secret value")
    return ScrubbedRequest(clean, clean != text, tuple(removed))

"""The redactor a command needs: the API key, the resolved connection secrets, the spec-marked fields."""

from __future__ import annotations

from typing import TYPE_CHECKING

from osiris.secrets.names import HEADER_MAPS
from osiris.secrets.redact import Redactor
from osiris.trust.references import connection_secrets

if TYPE_CHECKING:
    from osiris.registry import Registry
    from osiris.settings.loader import EffectiveSettings


def build_redactor(effective: EffectiveSettings, api_key: str | None, registry: Registry, *,
                   keyring: bool = True) -> Redactor:
    """Knows the API key, the resolved secret connection values, and the spec-marked secret fields.
    `keyring=False` (a command that never connects, like `osiris validate`) leaves the system keyring
    alone: no import of it, no unlock prompt; secrets in the environment are still known."""
    secret_fields = all_secret_fields(registry)
    known = connection_secrets(effective.settings.connections, effective.env, secret_fields, keyring=keyring)
    return Redactor(known_values=[v for v in (api_key, *known) if v], secret_fields=secret_fields)


def all_secret_fields(registry: Registry) -> set[str]:
    """The names of every config field that some component spec marks secret.

    The registry gives JSON pointers ("/password", "/headers/Authorization"); the redactor
    needs key names, so the last segment of each pointer is kept. `key` alone is too common a
    word to mask everywhere: Supabase keys are learnt from the pipeline by path, and have a JWT shape.
    A header map marked secret as a whole (`/headers`) is not a name to mask: the headers in it are
    masked by their own names (`osiris.secrets.names.is_secret_header`), as the validator judges them.
    """
    from osiris.extract.pointer import split

    fields: set[str] = set()
    for name in getattr(registry, "components", {}) or {}:
        fields |= {split(pointer)[-1] for pointer in registry.secret_fields(name) if pointer}
    return fields - {"", "key"} - HEADER_MAPS

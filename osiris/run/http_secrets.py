"""What an HTTP client masks in the messages it builds (osiris.run.http): the step's secrets, the
values of the fields a component spec marks secret, and the value of every header it sends that
carries a secret. Each rule is read from where it lives, never listed here: secret fields from the
specs (`ComponentSpec.secret_fields`), secret headers by `osiris.secrets.names.is_secret_header`,
the rule by which the validator refuses an inline secret header (OML310) and the session's
redactor masks one (docs/security.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from osiris.secrets.names import is_secret_header
from osiris.secrets.redact import MIN_KNOWN_SECRET_LENGTH

if TYPE_CHECKING:
    from osiris.registry import Registry


def known_secrets(secrets: Iterable[str], headers: Mapping[str, str]) -> list[str]:
    """The step's secrets plus the value of every secret header sent (and the token after
    "Bearer " / "Basic " in it), longest first."""
    sent = [v for k, v in headers.items() if is_secret_header(k)]
    parts = [v.split(" ", 1)[1] for v in sent if " " in v]
    values = {str(v) for v in (*secrets, *sent, *parts) if v and len(str(v)) >= MIN_KNOWN_SECRET_LENGTH}
    return sorted(values, key=len, reverse=True)


def spec_secrets(config: Mapping[str, Any]) -> tuple[str, ...]:
    """The values in `config` of the fields a component spec marks secret (`secrets:` in its
    spec.yaml; `ComponentSpec.secret_fields`, the validator's rule for OML310 too), so that a
    spec's new secret field is masked here with no change to this module. The client does not
    know which component it serves (discovery builds one from a connection's fields), so a field
    that any built-in spec marks secret counts: masking more in an error message costs nothing."""
    return tuple(str(config[name]) for name in sorted(spec_secret_fields()) if config.get(name))


@lru_cache(maxsize=1)
def spec_secret_fields() -> frozenset[str]:
    """Every top-level config field that a built-in component spec marks secret."""
    return frozenset(name for spec in builtin_registry().components.values() for name in spec.secret_fields)


def builtin_registry() -> Registry:
    """The built-in component specs (read once, on the first client a process builds)."""
    from osiris.registry import load_registry

    return load_registry()

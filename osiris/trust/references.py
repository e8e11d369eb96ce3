"""`${NAME}` is resolved in connections only, by this one resolver (docs/security.md, "References").

A connection in the person's `.osiris.yaml` may name a value as `${NAME}`, at any depth
(`password: "${PG_PASSWORD}"`, `headers: {X-Auth: "${API_TOKEN}"}`, `"Bearer ${TOKEN}"`): the value
comes from the environment, else from the system keyring (service "osiris", user NAME). `osiris run`,
`osiris discover` and the session redactor all call `resolve_connection`, so they agree on every value.

A pipeline may not name one: `${...}` in a step's config is OML316 at validation, and the runtime
never resolves it (`references_in` finds them for both).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from osiris.secrets.names import is_secret_key
from osiris.secrets.patterns import ENV_REFERENCE
from osiris.secrets.redact import secret_text
from osiris.trust.endpoints import ALLOW_OVERRIDE

if TYPE_CHECKING:
    from osiris.oml.values import Config, Value

REFERENCE = ENV_REFERENCE  # `${NAME}`: one pattern for the resolver and the redactor
ANY_REFERENCE = re.compile(r"\$\{[^{}]*\}")  # what a step may not hold, well-formed or not
KEYRING_SERVICE = "osiris"
CONNECTION_REFERENCE = re.compile(r"^@([a-z0-9_-]+)\.([a-z0-9_-]+)$", re.IGNORECASE)  # `@family.alias`
OSIRIS_KEYS = frozenset({ALLOW_OVERRIDE})  # connection settings for Osiris itself, never for a driver


class UnsetReference(Exception):
    """A connection names `${name}`, and neither the environment nor the keyring has it."""

    def __init__(self, name: str, where: str) -> None:
        super().__init__(f"{where} refers to ${{{name}}}, which is not set")
        self.name = name
        self.where = where


@dataclass(frozen=True)
class Resolved:
    """A connection's fields with every reference resolved, and the secret values among them."""

    fields: dict[str, Any]
    secrets: tuple[str, ...]


def step_references(config: Config) -> list[tuple[str, str]]:
    """(JSON pointer, text) of every `${...}` in a step's config, leaving out its connection reference
    and `x-*` extensions (ignored by every check, never resolved, never sent)."""
    return references_in({key: value for key, value in config.items()
                          if key != "connection" and not (isinstance(key, str) and key.startswith("x-"))})


def references_in(value: Value, pointer: str = "") -> list[tuple[str, str]]:
    """(JSON pointer, text) of every string holding `${...}` in a step's config, keys included."""
    found: list[tuple[str, str]] = []
    if isinstance(value, Mapping):
        for key, item in value.items():
            inner = f"{pointer}/{key}"
            if isinstance(key, str) and ANY_REFERENCE.search(key):
                found.append((inner, key))
            found += references_in(item, inner)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += references_in(item, f"{pointer}/{index}")
    elif isinstance(value, str) and ANY_REFERENCE.search(value):
        found.append((pointer, value))
    return found


def resolve_connection(fields: Config, env: Mapping[str, str], *, where: str,
                       secret_fields: Iterable[str] = (), strict: bool = True, keyring: bool = True) -> Resolved:
    """`fields` (one alias of `connections`) with `${NAME}` resolved at any depth.

    `where` names the alias for messages (`connections.postgres.default`). A value is secret when a
    key on its way is a secret's name (`password`, `headers.Authorization`, a field a spec marks
    secret) or when the variable's own name is (`${API_TOKEN}`). Raises UnsetReference for a
    variable that is not set, unless `strict` is False (the redactor: it keeps what it can).
    `keyring=False` reads the environment only (a command that connects to nothing)."""
    marked = {name.lower() for name in secret_fields}
    secrets: list[str] = []

    def secret_key(key: str) -> bool:
        return key.lower() in marked or is_secret_key(key)

    def resolve(value: Value, path: str, secret: bool) -> Value:
        if isinstance(value, Mapping):
            return {key: resolve(item, f"{path}.{key}", secret or secret_key(str(key))) for key, item in value.items()}
        if isinstance(value, list):
            return [resolve(item, path, secret) for item in value]
        if isinstance(value, str) and "${" in value:
            value = _substitute(value, env, path, secret, secrets, strict, keyring)
            if REFERENCE.search(value):
                return value  # left unresolved (not strict): it names a secret, it holds none
        text = secret_text(value) if secret else None
        if text:
            secrets.append(text)
        return value

    resolved = {key: resolve(value, f"{where}.{key}", secret_key(str(key)))
                for key, value in fields.items() if key not in OSIRIS_KEYS}
    return Resolved(resolved, tuple(dict.fromkeys(secrets)))


def _substitute(text: str, env: Mapping[str, str], path: str, secret: bool, secrets: list[str],
                strict: bool, keyring: bool = True) -> str:
    """Each `${NAME}` in `text` replaced by its value; a value that is one reference alone (blanks
    around it aside) becomes exactly the variable's value."""
    whole = REFERENCE.fullmatch(text.strip())
    if whole:
        text = whole.group(0)

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        found = lookup(name, env) if keyring else env.get(name)
        if found is None:
            if strict:
                raise UnsetReference(name, path)
            return match.group(0)
        if (secret or is_secret_key(name)) and found:
            secrets.append(found)
        return found

    return REFERENCE.sub(one, text)


def lookup(name: str, env: Mapping[str, str]) -> str | None:
    """The value of `${name}`: the environment first, then the system keyring; None when neither has it."""
    if name in env:
        return env[name]
    if not keyring_usable():
        return None
    import keyring
    import keyring.errors

    try:
        return keyring.get_password(KEYRING_SERVICE, name)
    except keyring.errors.KeyringError:
        return None


def keyring_usable() -> bool:
    """Whether this machine has a usable keyring backend (`osiris auth status` asks the same)."""
    from osiris.secrets.keyring_store import keyring_available

    return keyring_available()


def unset_hint(name: str) -> str:
    """How to set `${name}`: the environment always works; the keyring only where there is one."""
    if keyring_usable():
        return (f"set the environment variable {name} in the shell that runs osiris, or store it in the "
                f"system keyring: keyring set {KEYRING_SERVICE} {name} (its value is never written anywhere)")
    return (f"set the environment variable {name} in the shell that runs osiris (its value is never "
            "written anywhere); this machine has no usable system keyring to store it in")


def connection_secrets(
    connections: Mapping[str, Mapping[str, Config]],
    env: Mapping[str, str],
    secret_fields: Iterable[str] = (),
    keyring: bool = True,
) -> list[str]:
    """The resolved secret values of `connections` settings (a MySQL password, a numeric PIN, a
    header's token), as `osiris run` resolves them: environment, then keyring;
    `keyring=False`: the environment only."""
    fields = list(secret_fields)
    return [secret for family, aliases in connections.items() for alias, values in aliases.items()
            for secret in resolve_connection(values, env, where=f"connections.{family}.{alias}",
                                             secret_fields=fields, strict=False, keyring=keyring).secrets]


def parse_reference(value: object) -> tuple[str, str] | None:
    """"@mysql.default" -> ("mysql", "default"); None for anything that is not a connection reference."""
    match = CONNECTION_REFERENCE.match(value) if isinstance(value, str) else None
    return (match.group(1), match.group(2)) if match else None

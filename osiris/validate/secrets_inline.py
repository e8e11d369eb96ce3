"""Secrets written into a pipeline (docs/oml.md: secrets never appear inline; OML310).

One scan serves every place a secret can hide: a step's config (fields its spec marks secret, and
free-form maps such as `params`), the top-level `metadata`, and `x-*` extensions at the top level or
in a step. Extensions are otherwise ignored by the checks; a secret in one is still a secret.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from osiris.oml.values import Config, Value
from osiris.registry import ComponentSpec
from osiris.secrets.names import is_header_map, is_secret_header, is_secret_key
from osiris.secrets.patterns import DSN_PASSWORD, QUERY_PARAMETER, is_reference
from osiris.validate.findings import Findings
from osiris.validate.pointer import join
from osiris.validate.structure import is_extension, steps_key

# The fix for a secret in metadata or an extension: there is no step or connection it belongs to.
FREE_FORM_FIX = ("remove it; a pipeline names a secret, never holds it: use a connection reference "
                 "(connection: \"@family.alias\" in a step's config) or a \"${ENV_VAR}\" reference")


@dataclass(frozen=True)
class InlineSecret:
    """A secret written into the pipeline: where (a pointer from the mapping scanned), what it is, its value."""

    pointer: str
    what: str
    value: Any
    by_spec: bool  # marked secret by the component spec (its top-level field is then not checked further)


def report_inline_secret(findings: Findings, base: str, secret: InlineSecret, hint: str) -> None:
    """One OML310 issue at `base` + the secret's pointer, its value masked."""
    findings.add("OML310", base + secret.pointer,
                 f"secret field '{secret.what}' is written inline in the pipeline", hint,
                 value=secret.value, secret=True)


def inline_secrets(config: Config, spec: ComponentSpec) -> list[InlineSecret]:
    """Secrets in a step's `config`: fields the spec marks secret (header names in any letter case),
    keys that name secrets inside free-form maps (`params: {token: ...}`) and extensions, and secret
    query parameters or DSN passwords inside any text (`endpoint: /x?api_key=...`)."""
    found: dict[str, InlineSecret] = {}
    for pointer in sorted(spec.secret_pointers):
        located = _locate(config, pointer.strip("/").split("/"))
        if located is None or located[1] is None:
            continue
        where, value = located
        if is_header_map(pointer) and isinstance(value, Mapping):  # only the headers that carry secrets
            for name, header in value.items():
                if is_secret_header(str(name)) and _is_literal_secret(str(name), header):
                    inner = join(where, str(name))
                    found[inner] = InlineSecret(inner, _dotted(inner), header, True)
        else:
            found[where] = InlineSecret(where, _dotted(where), value, True)
    # The spec says which of the config's own fields are secret; below them, and in extensions, names do.
    fields = {k: v for k, v in config.items() if not is_extension(k)}
    extensions = {k: v for k, v in config.items() if is_extension(k)}
    for secret in free_form_secrets(fields, named_below=1) + free_form_secrets(extensions):
        if not any(secret.pointer == p or secret.pointer.startswith(p + "/") for p in found):
            found[secret.pointer] = secret
    return list(found.values())


def free_form_secrets(value: Value, *, named_below: int = 0) -> list[InlineSecret]:
    """Secrets in a free-form value: keys that name a secret and hold a literal value (not a
    `${ENV}` or `@family.alias` reference), from `named_below` levels down, and secret query
    parameters or DSN passwords inside any text."""
    found = []
    for pointer, key, leaf in _leaves(value, ""):
        named = pointer.count("/") > named_below
        if named and key is not None and _is_literal_secret(key, leaf):
            found.append(InlineSecret(pointer, _dotted(pointer), leaf, False))
        elif isinstance(leaf, str) and (name := _secret_in_text(leaf)):
            found.append(InlineSecret(pointer, name, leaf, False))
    return found


def check_free_form_secrets(document: object, findings: Findings) -> None:
    """OML310 for secrets in the top-level `metadata` and `x-*` maps, and in each step's `x-*` keys."""
    if not isinstance(document, dict):
        return
    free = {k: v for k, v in document.items() if k == "metadata" or is_extension(k)}
    for secret in free_form_secrets(free):
        report_inline_secret(findings, "", secret, FREE_FORM_FIX)
    key = steps_key(document)
    steps = document.get(key)
    for index, step in enumerate(steps if isinstance(steps, list) else []):
        if findings.full:
            break
        if isinstance(step, dict):
            for secret in free_form_secrets({k: v for k, v in step.items() if is_extension(k)}):
                report_inline_secret(findings, join("", key, index), secret, FREE_FORM_FIX)


def _dotted(pointer: str) -> str:
    return pointer.strip("/").replace("/", ".")


def _locate(config: Config, parts: list[str]) -> tuple[str, Value] | None:
    """The value at `parts`, matching each key without regard to letter case (header names)."""
    value: Value = config
    written: list[str] = []
    for part in parts:
        if not isinstance(value, Mapping):
            return None
        key = part if part in value else next((k for k in value if str(k).lower() == part.lower()), None)
        if key is None:
            return None
        written.append(str(key))
        value = value[key]
    return "/" + "/".join(written), value


def _leaves(value: Value, pointer: str, key: str | None = None) -> list[tuple[str, str | None, Value]]:
    """(pointer, key, value) for every scalar under `value`, with the key it sits under."""
    if isinstance(value, Mapping):
        return [leaf for k, v in value.items() for leaf in _leaves(v, join(pointer, str(k)), str(k))]
    if isinstance(value, list):
        return [leaf for i, item in enumerate(value) for leaf in _leaves(item, join(pointer, i), key)]
    return [(pointer, key, value)]


def _is_literal_secret(key: str, value: object) -> bool:
    """A secret-named key holding a value (not nothing, a mapping, or a ${ENV}/@ reference)."""
    if value is None or value == "" or isinstance(value, bool) or not is_secret_key(key):
        return False
    return not (isinstance(value, str) and is_reference(value))


def _secret_in_text(text: str) -> str | None:
    """'token' for '/customers?token=abc', 'password' for 'mysql://u:pw@h/db'; None otherwise."""
    if DSN_PASSWORD.search(text):
        return "password"
    for match in QUERY_PARAMETER.finditer(text):
        if is_secret_key(match["key"]) and not is_reference(match["value"]):
            return match["key"]
    return None

"""The system prompt: OML rules and a component catalogue within a token budget (stable, cached, the
same for chat and generate), then what may differ between sessions: whether the LLM may ask a
question, and the configured connection aliases (outside the cached part)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from osiris.prompt.component_slice import ComponentSlice
from osiris.registry import Registry

if TYPE_CHECKING:
    from osiris.oml.values import Config

DEFAULT_BUDGET_TOKENS = 3000

OML_RULES = """\
You write data pipelines in OML (Osiris Markup Language) v0.1.0, a YAML format.

Answer with exactly one ```yaml fenced block holding one complete OML document. No other YAML.

OML rules:
- Top-level keys: oml_version (the string "0.1.0"), name (lowercase kebab-case), steps (a
  non-empty list); optional: description, metadata, schedule. Nothing else: never version,
  tasks, connectors, outputs, extract, transform or load.
- schedule is a quoted 5-field cron expression: minute hour day-of-month month day-of-week,
  e.g. "0 2 * * *" (every day at 02:00). No seconds field, no @daily.
- Each step: id (unique, kebab-case), component (a name from the catalogue below), mode
  (read | write | transform; never extract or load), config (a mapping), and optionally
  needs (a list of ids of earlier steps only). No `type` key. A write or transform step without
  needs takes the step just before it; a read step without needs depends on nothing.
- Data between steps: in a duckdb.processor query, the rows of each step in needs are the table
  df_<that step's id with every character other than a-z, A-Z, 0-9 replaced by _> (needs:
  [extract-orders] -> df_extract_orders); when there is exactly one, input_df names it too.
- "no email may be empty" -> step key checks: [{not_null: [email]}]
- A component supports only the modes listed for it.
- config holds only the fields the component lists, with the right types, bounds and enum values.
- Connections: set `connection: "@family.alias"` (e.g. "@mysql.default"); the family must be the
  component's family and the alias a configured one. The connection supplies host, user,
  password and the other connection fields, so leave them out of the step.
- Never write a password, token or key inline. Secrets only ever come from a connection reference.
- If no component below can read or write the system the request names, do not substitute
  another system: say in one sentence that it is not supported, with no YAML.

Components (name [family] modes: fields as "name type"; * = required, = default, [..] = allowed
values, a..b = bounds, (conn) = optional, the connection supplies it, "not ..." = names not to use;
a component shown with its purpose only gets its field list in a message that needs it):
"""


GUESS = """\
If the request lacks something you need (which connection, which table), make the most
reasonable choice from the configured connections and say what you assumed in one sentence
before the block. That sentence is for a first answer only: when asked to fix errors, answer with
the block alone."""
ASK = """\
If the request lacks something you cannot reasonably choose yourself (which connection, which
table), do not guess: answer with one short question instead, with no YAML, ending with "?"."""


@dataclass(frozen=True)
class SystemPrompt:
    """`stable` is the same for every call of a project, chat or generate (cache it); `dynamic` may
    change between sessions (the may-ask wording, the connections). `components` says which
    components `stable` describes in full, for the messages that need the others."""

    stable: str
    dynamic: str
    components: ComponentSlice | None = field(default=None, compare=False)


def build_system_prompt(
    registry: Registry, connections: Mapping[str, Mapping[str, Config]], *, may_ask: bool = False,
    budget_tokens: int = DEFAULT_BUDGET_TOKENS,
) -> SystemPrompt:
    """From the validator's registry and the `connections` settings (names only, never values).
    `may_ask`: an interactive caller lets the LLM ask a question when something is missing.
    The catalogue stays within `budget_tokens` (`llm.catalog_budget_tokens`) at any registry size."""
    components = ComponentSlice.build(registry, budget_tokens, families=connections)
    dynamic = (ASK if may_ask else GUESS) + "\n\n" + describe_connections(connections)
    return SystemPrompt(OML_RULES + components.text, dynamic, components)


def describe_connections(connections: Mapping[str, Mapping[str, Config]]) -> str:
    """E.g. 'Configured connections: @mysql.default (provides database, host, password, user).'"""
    refs = []
    for family in sorted(connections):
        for alias in sorted(connections[family] or {}):
            fields = ", ".join(sorted((connections[family][alias] or {}).keys()))
            refs.append(f"@{family}.{alias}" + (f" (provides {fields})" if fields else ""))
    if not refs:
        return (
            "No connections are configured in this project. Components that need a connection "
            "still need `connection: \"@family.default\"`; tell the person to add it to "
            ".osiris.yaml under `connections`."
        )
    return "Configured connections: " + "; ".join(refs) + "."


"""Tier 4, paging that can advance (OML416): a paginated `graphql.extractor` query must use the
variable its cursor is sent in. A query that never reads `$after` asks for the first page again
and again; found before anything runs (docs/errors.md, OML416). The runtime's side of the same
rule, pages that repeat, is OML535 (osiris.run.paging)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from osiris.oml.config import StepConfig
from osiris.oml.values import Value
from osiris.validate.findings import Findings
from osiris.validate.pointer import join

_COMMENT = re.compile(r"#[^\n]*")
_STRING = re.compile(r'"""(?:.|\n)*?"""|"(?:\\.|[^"\\\n])*"')


def check_paging(steps: list[Value], configs: Mapping[str, StepConfig], findings: Findings, base: str) -> None:
    """One OML416 per paginated graphql.extractor step whose query never uses its cursor variable."""
    for index, step in enumerate(steps):
        if not isinstance(step, dict) or step.get("component") != "graphql.extractor":
            continue
        config = configs.get(str(step.get("id")))
        if config is None:
            continue
        effective = config.merged(config.config)
        query, variable = effective.get("query"), str(effective.get("pagination_variable_name") or "after")
        if effective.get("pagination_enabled") is not True or not isinstance(query, str):
            continue
        if not uses_variable(query, variable):
            findings.add("OML416", join(base, index, "config", "query"),
                         f"step '{step['id']}' pages with pagination_enabled, but its query never uses the cursor "
                         f"variable ${variable}, so every page would be the first one again",
                         f"declare it and pass it to the paged field, e.g. query($first: Int, ${variable}: String) "
                         f"{{ items(first: $first, {variable}: ${variable}) {{ nodes {{ id }} pageInfo {{ hasNextPage "
                         f"endCursor }} }} }}; or set pagination_variable_name to the variable the query reads",
                         value=variable)


def uses_variable(query: str, variable: str) -> bool:
    """Whether `$variable` is read in the query's selections (not only declared in its header)."""
    text = _COMMENT.sub("", _STRING.sub('""', query))
    body = text[text.find("{"):] if "{" in text else ""
    return re.search(r"\$" + re.escape(variable) + r"(?![_0-9A-Za-z])", body) is not None

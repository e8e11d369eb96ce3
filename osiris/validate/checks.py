"""A step's `checks:` (docs/run-again.md, "Checks on data"): their shape (OML217) and the SQL of an
`expression` check, parsed and held to the transforms' rules (OML405, OML408: osiris.trust.sql).
The runtime evaluates them (osiris.run.checks)."""

from __future__ import annotations

from dataclasses import dataclass

from osiris.oml.checks import check_query, read_checks
from osiris.oml.values import Value
from osiris.validate.findings import Findings
from osiris.validate.pointer import join


@dataclass
class _Expression:
    """What osiris.validate.sql_parse needs of a SQL field."""

    sql: str
    step_id: str
    dialect: str = "duckdb"


def check_step_checks(steps: list[Value], findings: Findings, base: str = "/steps") -> None:
    """OML217 for each check of the wrong shape; OML405 and OML408 for an expression's SQL."""
    for index, step in enumerate(steps):
        if not isinstance(step, dict) or "checks" not in step:
            continue
        path = join(base, index, "checks")
        step_id = step.get("id") if isinstance(step.get("id"), str) else f"steps[{index}]"
        if step.get("mode") == "write":
            findings.add("OML217", path, f"step '{step_id}' is a writer: checks are for the rows of a read or "
                         "transform step", "move the checks to the step this one writes from; they run before "
                         "any writer commits")
            continue
        checks, mistakes = read_checks(step["checks"])
        for mistake in mistakes:
            findings.add("OML217", path + mistake.pointer, mistake.message, mistake.hint)
        for check in checks:
            if check.kind == "expression":
                _check_expression(check.expression, str(step_id), join(path, check.index, "expression"), findings)


def _check_expression(expression: str, step_id: str, path: str, findings: Findings) -> None:
    from osiris.trust.sql import outside_reach
    from osiris.validate.sql_parse import parse_sql

    def report(code: str, item: object, offset: int, message: str, hint: str) -> None:
        findings.add(code, path, message.replace("SQL syntax error", "check expression error"),
                     "write one SQL condition over the step's columns, e.g. \"amount >= 0 AND email LIKE '%@%'\"",
                     value=expression)

    tree = parse_sql(_Expression(check_query("input_df", expression), step_id), report)  # type: ignore[arg-type]
    if tree is None:
        return
    for reach in outside_reach(tree):
        findings.add("OML408", path, f"the check expression of step '{step_id}': {reach.message}", reach.hint,
                     value=expression)

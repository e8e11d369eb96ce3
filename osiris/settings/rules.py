"""User rules (`validation.rules`, OML404): small, safe expressions over the pipeline.

    rules:
      - name: no-replace-in-mysql
        when: step.component == "mysql.writer"
        expr: step.config.mode != "replace"
        level: error
        message: Do not replace MySQL tables from Osiris pipelines

A rule whose `expr` or `when` mentions `step` is checked once per step (`step` is that step);
otherwise it is checked once for the whole pipeline. Names: `pipeline`, `steps`, `step`.
`a.b` reads key b of mapping a (missing keys are null). Allowed: literals, lists, `and or not`,
comparisons (`== != < <= > >= in not in is is not`), `+ -`, indexing, and the functions
len, lower, upper, startswith, endswith, matches (regular expression search).
Nothing else: no imports, no attribute access on Python objects, no calls of other functions.

Here the rules are compiled, when settings load (a bad rule is a settings error, exit 2);
`osiris.validate.rules` checks a pipeline against them (OML404).
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from osiris.errors import SettingsError
from osiris.registry.patterns import pattern_problem, search
from osiris.settings.model import Rule

FUNCTIONS: dict[str, Callable[..., Any]] = {
    "len": lambda value: len(value) if isinstance(value, (str, list, dict)) else 0,
    "lower": lambda value: value.lower() if isinstance(value, str) else value,
    "upper": lambda value: value.upper() if isinstance(value, str) else value,
    "startswith": lambda value, prefix: isinstance(value, str) and value.startswith(prefix),
    "endswith": lambda value, suffix: isinstance(value, str) and value.endswith(suffix),
    "matches": lambda value, pattern: isinstance(value, str) and isinstance(pattern, str) and search(pattern, value),
}
COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: lambda a, b: a is b,
            ast.IsNot: lambda a, b: a is not b, ast.In: lambda a, b: _contains(b, a),
            ast.NotIn: lambda a, b: not _contains(b, a)}
_ALLOWED_NODES = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub, ast.Compare,
                  ast.Name, ast.Load, ast.Attribute, ast.Subscript, ast.Constant, ast.List, ast.Tuple,
                  ast.Call, ast.BinOp, ast.Add, ast.Sub, *COMPARE)
NAMES = ("pipeline", "steps", "step")
MAX_RULE_DEPTH = 50  # levels of nesting in one expression; real rules need a handful


@dataclass(frozen=True)
class CompiledRule:
    name: str
    expr: ast.Expression
    when: ast.Expression | None
    level: Literal["error", "warning"]
    message: str
    per_step: bool
    source: str


def compile_rules(rules: Sequence[Rule]) -> list[CompiledRule]:
    """Check every rule's expressions now, so that a bad rule is a settings error (exit 2)."""
    return [compile_rule(rule) for rule in rules]


def compile_rule(rule: Rule) -> CompiledRule:
    expr = _parse(rule.name, "expr", rule.expr)
    when = _parse(rule.name, "when", rule.when) if rule.when else None
    mentions_step = any(isinstance(n, ast.Name) and n.id == "step"
                        for tree in (expr, when) if tree for n in ast.walk(tree))
    message = rule.message or f"rule '{rule.name}' failed: {rule.expr}"
    return CompiledRule(rule.name, expr, when, rule.level, message, mentions_step, rule.expr)


def _parse(name: str, field: str, text: str) -> ast.Expression:
    where = f"validation.rules '{name}' {field}"
    too_deep = f"{where}: the expression nests deeper than {MAX_RULE_DEPTH} levels; split it into simpler rules"
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as error:
        raise SettingsError(f"{where}: not a valid expression ({error.msg}): {_short(text)}") from None
    except (RecursionError, MemoryError):
        raise SettingsError(too_deep) from None
    if _depth(tree) > MAX_RULE_DEPTH:
        raise SettingsError(too_deep)
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_NODES):
            raise SettingsError(f"{where}: '{type(node).__name__}' is not allowed in rules: {_short(text)}")
        if isinstance(node, ast.Name) and node.id not in NAMES and node.id not in FUNCTIONS:
            raise SettingsError(f"{where}: unknown name '{node.id}'; use pipeline, steps or step: {_short(text)}")
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise SettingsError(f"{where}: '{node.attr}' is not allowed in rules: {_short(text)}")
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS):
            raise SettingsError(f"{where}: only {', '.join(FUNCTIONS)} can be called: {_short(text)}")
        problem = _literal_pattern_problem(node)
        if problem:
            raise SettingsError(f"{where}: {problem}: {_short(text)}")
    return tree


def _literal_pattern_problem(node: ast.AST) -> str | None:
    """A pattern written into the rule (`matches(x, "...")`) is checked now, not at every run."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "matches"):
        return None
    pattern = node.args[1] if len(node.args) == 2 else None
    if isinstance(pattern, ast.Constant):
        problem = pattern_problem(pattern.value)
        return f"matches() pattern {pattern.value!r} is {problem}" if problem else None
    return None


def _depth(tree: ast.AST) -> int:
    """The nesting depth of an expression, counted without recursion."""
    deepest = 0
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _contains(container: object, item: object) -> bool:
    if isinstance(container, str):
        return isinstance(item, str) and item in container
    return isinstance(container, (list, dict)) and item in container

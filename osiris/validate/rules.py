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
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from osiris.errors import SettingsError
from osiris.registry.patterns import pattern_problem, search
from osiris.validate.findings import Findings
from osiris.validate.pointer import join

_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "len": lambda value: len(value) if isinstance(value, (str, list, dict)) else 0,
    "lower": lambda value: value.lower() if isinstance(value, str) else value,
    "upper": lambda value: value.upper() if isinstance(value, str) else value,
    "startswith": lambda value, prefix: isinstance(value, str) and value.startswith(prefix),
    "endswith": lambda value, suffix: isinstance(value, str) and value.endswith(suffix),
    "matches": lambda value, pattern: isinstance(value, str) and isinstance(pattern, str) and search(pattern, value),
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: lambda a, b: a is b,
            ast.IsNot: lambda a, b: a is not b, ast.In: lambda a, b: _contains(b, a),
            ast.NotIn: lambda a, b: not _contains(b, a)}
_ALLOWED_NODES = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub, ast.Compare,
                  ast.Name, ast.Load, ast.Attribute, ast.Subscript, ast.Constant, ast.List, ast.Tuple,
                  ast.Call, ast.BinOp, ast.Add, ast.Sub, *_COMPARE)
NAMES = ("pipeline", "steps", "step")
MAX_RULE_DEPTH = 50  # levels of nesting in one expression; real rules need a handful


@dataclass(frozen=True)
class CompiledRule:
    name: str
    expr: ast.Expression
    when: ast.Expression | None
    level: str
    message: str
    per_step: bool
    source: str


def compile_rules(rules: list[Any]) -> list[CompiledRule]:
    """Check every rule's expressions now, so that a bad rule is a settings error (exit 2)."""
    return [compile_rule(rule) for rule in rules]


def compile_rule(rule: Any) -> CompiledRule:
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
        if isinstance(node, ast.Name) and node.id not in NAMES and node.id not in _FUNCTIONS:
            raise SettingsError(f"{where}: unknown name '{node.id}'; use pipeline, steps or step: {_short(text)}")
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise SettingsError(f"{where}: '{node.attr}' is not allowed in rules: {_short(text)}")
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS):
            raise SettingsError(f"{where}: only {', '.join(_FUNCTIONS)} can be called: {_short(text)}")
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


def check_rules(rules: list[CompiledRule], pipeline: dict[str, Any], findings: Findings) -> None:
    found = pipeline.get("steps")
    steps: list[Any] = found if isinstance(found, list) else []
    for rule in rules:
        if not rule.per_step:
            _check(rule, {"pipeline": pipeline, "steps": steps, "step": None}, "", findings)
            continue
        for index, step in enumerate(steps):
            _check(rule, {"pipeline": pipeline, "steps": steps, "step": step}, join("/steps", index), findings)


def _check(rule: CompiledRule, names: dict[str, Any], path: str, findings: Findings) -> None:
    if rule.when is not None and not _truthy(_evaluate(rule.when.body, names)):
        return
    if _truthy(_evaluate(rule.expr.body, names)):
        return
    findings.add("OML404", path, f"{rule.message} (rule '{rule.name}')",
                 f"change the pipeline so that this holds: {rule.source}", severity=rule.level)  # type: ignore[arg-type]


class _Failed(Exception):
    pass


def _truthy(value: Any) -> bool:
    return bool(value) and value is not _FAILED


_FAILED = object()


def _evaluate(node: ast.AST, names: dict[str, Any]) -> Any:
    try:
        return _eval(node, names)
    except (_Failed, TypeError, ValueError, RecursionError):  # PatternError is a ValueError
        return _FAILED


def _eval(node: ast.AST, names: dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _eval(node.value, names)
        return base.get(node.attr) if isinstance(base, dict) else None
    if isinstance(node, ast.Subscript):
        base, key = _eval(node.value, names), _eval(node.slice, names)
        if isinstance(base, dict):
            return base.get(key)
        if isinstance(base, list) and isinstance(key, int) and -len(base) <= key < len(base):
            return base[key]
        return None
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_eval(item, names) for item in node.elts]
    if isinstance(node, ast.BoolOp):
        values = (_eval(v, names) for v in node.values)
        return all(map(_truthy, values)) if isinstance(node.op, ast.And) else any(map(_truthy, values))
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, names)
        if isinstance(node.op, ast.Not):
            return not _truthy(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return -value
        raise _Failed
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left, names), _eval(node.right, names)
        return left + right if isinstance(node.op, ast.Add) else left - right
    if isinstance(node, ast.Compare):
        left = _eval(node.left, names)
        for op, comparator in zip(node.ops, node.comparators):
            right = _eval(comparator, names)
            if not _compare(op, left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name):  # compile_rule allows only calls of _FUNCTIONS by name
            raise _Failed
        args = [_eval(arg, names) for arg in node.args]
        return _FUNCTIONS[node.func.id](*args)
    raise _Failed


def _compare(op: ast.cmpop, left: Any, right: Any) -> bool:
    if type(op) in (ast.Lt, ast.LtE, ast.Gt, ast.GtE) and (left is None or right is None):
        return False
    return bool(_COMPARE[type(op)](left, right))


def _contains(container: Any, item: Any) -> bool:
    if isinstance(container, str):
        return isinstance(item, str) and item in container
    return isinstance(container, (list, dict)) and item in container

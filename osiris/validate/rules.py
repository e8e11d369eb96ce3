"""User rules (`validation.rules`, OML404): a pipeline checked against the rules that
`osiris.settings.rules` compiled when settings loaded (the language is described there).
"""

from __future__ import annotations

import ast
import operator

from osiris.oml.values import MutableConfig, Value
from osiris.settings.rules import COMPARE, FUNCTIONS, CompiledRule, compile_rules
from osiris.validate.findings import Findings
from osiris.validate.pointer import join

__all__ = ["CompiledRule", "check_rules", "compile_rules"]


def check_rules(rules: list[CompiledRule], pipeline: MutableConfig, findings: Findings) -> None:
    found = pipeline.get("steps")
    steps: list[Value] = found if isinstance(found, list) else []
    for rule in rules:
        if not rule.per_step:
            _check(rule, {"pipeline": pipeline, "steps": steps, "step": None}, "", findings)
            continue
        for index, step in enumerate(steps):
            _check(rule, {"pipeline": pipeline, "steps": steps, "step": step}, join("/steps", index), findings)


def _check(rule: CompiledRule, names: MutableConfig, path: str, findings: Findings) -> None:
    if rule.when is not None and not _truthy(_evaluate(rule.when.body, names)):
        return
    if _truthy(_evaluate(rule.expr.body, names)):
        return
    findings.add("OML404", path, f"{rule.message} (rule '{rule.name}')",
                 f"change the pipeline so that this holds: {rule.source}", severity=rule.level)


class _Failed(Exception):
    pass


def _truthy(value: object) -> bool:
    return bool(value) and value is not _FAILED


_FAILED = object()


def _evaluate(node: ast.AST, names: MutableConfig) -> object:
    try:
        return _eval(node, names)
    except (_Failed, TypeError, ValueError, RecursionError):  # PatternError is a ValueError
        return _FAILED


def _eval(node: ast.AST, names: MutableConfig) -> object:
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
        return operator.add(left, right) if isinstance(node.op, ast.Add) else operator.sub(left, right)  # TypeError: _FAILED
    if isinstance(node, ast.Compare):
        left = _eval(node.left, names)
        for op, comparator in zip(node.ops, node.comparators):
            right = _eval(comparator, names)
            if not _compare(op, left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name):  # compile_rule allows only calls of FUNCTIONS by name
            raise _Failed
        args = [_eval(arg, names) for arg in node.args]
        return FUNCTIONS[node.func.id](*args)
    raise _Failed


def _compare(op: ast.cmpop, left: object, right: object) -> bool:
    if type(op) in (ast.Lt, ast.LtE, ast.Gt, ast.GtE) and (left is None or right is None):
        return False
    return bool(COMPARE[type(op)](left, right))

"""How much of a source tree's typing says `Any` (issue 15, ADR 0115; the honest count of issue 37).

    .venv/bin/python bench/any_share.py osiris [OTHER_TREE ...]

The figure to watch is the first: function signatures (every `def`, methods included) with any
annotation, of a parameter or of the return, that names `Any` anywhere in it (`Any`,
`Mapping[str, Any]`, `list[dict[str, Any]]`, a string annotation alike). Also printed: how many of
those mention `Mapping[str, Any]`, and the older, narrower figure (parameters, except `self` and
`cls`, annotated exactly `Any` or `Any | None`), which understates it; unannotated parameters apart.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path


def annotation_is_any(node: ast.expr | None) -> bool:
    """The annotation is `Any` itself (or `Any | None`)."""
    if node is None:
        return False
    text = ast.unparse(node).replace(" ", "")
    return text in {"Any", "Any|None", "None|Any", "Optional[Any]", "typing.Any"}


def names_any(node: ast.expr | None) -> bool:
    """`Any` appears anywhere in the annotation (a string annotation is parsed first)."""
    if node is None:
        return False
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return False
    return any((isinstance(n, ast.Name) and n.id == "Any") or (isinstance(n, ast.Attribute) and n.attr == "Any")
               for n in ast.walk(node))


def functions(tree: Path) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for path in sorted(tree.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield node


def annotations(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.expr]:
    arguments = function.args
    params = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    params += [p for p in (arguments.vararg, arguments.kwarg) if p is not None]
    found = [p.annotation for p in params if p.annotation is not None]
    return found + ([function.returns] if function.returns is not None else [])


def signatures(tree: Path) -> tuple[int, int, int]:
    """(signatures, naming Any, mentioning Mapping[str, Any]) under `tree`."""
    total = any_count = mapping = 0
    for function in functions(tree):
        total += 1
        found = annotations(function)
        any_count += any(names_any(a) for a in found)
        mapping += any("Mapping[str,Any]" in ast.unparse(a).replace(" ", "") for a in found)
    return total, any_count, mapping


def count(tree: Path) -> tuple[int, int, int]:
    """(parameters, annotated exactly Any, unannotated) under `tree`."""
    total = any_count = bare = 0
    for function in functions(tree):
        arguments = function.args
        params = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        params += [p for p in (arguments.vararg, arguments.kwarg) if p is not None]
        for param in params:
            if param.arg in ("self", "cls"):
                continue
            total += 1
            any_count += annotation_is_any(param.annotation)
            bare += param.annotation is None
    return total, any_count, bare


def main() -> None:
    for name in sys.argv[1:] or ["osiris"]:
        signed, with_any, mapping = signatures(Path(name))
        total, any_count, bare = count(Path(name))
        print(f"{name}: {signed} signatures, {with_any} name Any ({with_any / max(signed, 1):.1%}), "
              f"{mapping} of them Mapping[str, Any]")
        print(f"{name}: {total} parameters, {any_count} annotated exactly Any ({any_count / max(total, 1):.1%}), "
              f"{bare} unannotated ({bare / max(total, 1):.1%})")


if __name__ == "__main__":
    main()

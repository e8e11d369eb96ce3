"""How many function parameters of a source tree are annotated `Any` (issue 15; ADR 0115).

    .venv/bin/python bench/any_share.py osiris [OTHER_TREE ...]

Counts every parameter of every function and method except `self` and `cls`, and those whose
annotation is `Any` or `Any | None` (`Optional[Any]`). Unannotated parameters are counted apart.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def annotation_is_any(node: ast.expr | None) -> bool:
    if node is None:
        return False
    text = ast.unparse(node).replace(" ", "")
    return text in {"Any", "Any|None", "None|Any", "Optional[Any]", "typing.Any"}


def count(tree: Path) -> tuple[int, int, int]:
    """(parameters, annotated Any, unannotated) under `tree`."""
    total = any_count = bare = 0
    for path in sorted(tree.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            arguments = node.args
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
        total, any_count, bare = count(Path(name))
        print(f"{name}: {total} parameters, {any_count} Any ({any_count / max(total, 1):.1%}), "
              f"{bare} unannotated ({bare / max(total, 1):.1%})")


if __name__ == "__main__":
    main()

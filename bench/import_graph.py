"""The import graph of osiris's packages: which package imports which, the circles among them, and the
arrows that point against the generation flow (docs/architecture.md, "Layers").

    .venv/bin/python bench/import_graph.py [--all] [--root DIR/osiris]

Every `import osiris.x` and `from osiris.x import ...` counts: at module level, inside functions and
under TYPE_CHECKING (a type-only import is still a dependency a reader must follow). Prints:

- circles: groups of packages that import each other, directly or through others (each with the
  imports that close it, `module -> module`);
- back-arrows: imports from an earlier package of the flow request -> prompt -> llm -> extract ->
  validate -> explain -> retry to a later one (the flow's later stages use the earlier ones, never
  the reverse);
- writes onto another package's object: `<name>.<attr> = ...` (or `<name>.<a>.<b> = ...`) where
  `<name>` is a parameter typed with a class of another package;
- the layer picture: each package at the height of its longest chain of imports down to a package
  that imports none of Osiris's (a circle counts as one node and is shown in braces);
- how many imports of Osiris's own modules sit inside functions;
- with --all, every package edge with its number of imports.
"""

from __future__ import annotations

import argparse
import ast
import collections
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "osiris"
FLOW = ["request", "prompt", "llm", "extract", "validate", "explain", "retry"]


def package_of(module: str) -> str:
    """"osiris.retry.generation_engine" -> "retry"; "osiris.cli" -> "cli"."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "osiris"


def module_name(path: Path) -> str:
    relative = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(relative.parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> list[str]:
    """The osiris modules a file imports, anywhere in it (`from osiris import suggest` imports
    `osiris.suggest`; a relative import is resolved against the file's package)."""
    return [target for target, _ in located_imports(path)]


def located_imports(path: Path) -> list[tuple[str, int]]:
    """(imported osiris module, line) for every import of the file, at module level, in functions or
    under TYPE_CHECKING."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names if _is_osiris(alias.name)]
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(path, node)
            if module == "osiris":
                found += [(f"osiris.{alias.name}" if _is_module(alias.name) else "osiris", node.lineno)
                          for alias in node.names]
            elif _is_osiris(module):
                found.append((module, node.lineno))
    return found


def _is_osiris(module: str) -> bool:
    return module == "osiris" or module.startswith("osiris.")


def _is_module(name: str) -> bool:
    return (ROOT / f"{name}.py").is_file() or (ROOT / name / "__init__.py").is_file()


def _absolute(path: Path, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


def imports_in_functions(path: Path) -> int:
    """How many imports of osiris modules sit inside a function of the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inner = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
             for n in ast.walk(f) if n is not f}
    return sum(1 for n in ast.walk(tree) if id(n) in inner and (
        (isinstance(n, ast.Import) and any(_is_osiris(a.name) for a in n.names))
        or (isinstance(n, ast.ImportFrom) and _is_osiris(_absolute(path, n)))))


def writes_onto_others(path: Path, classes: dict[str, str]) -> list[str]:
    """`param.attr = ...` lines where `param` is annotated with a class defined in another package."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = package_of(module_name(path))
    found = []
    for function in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        typed = {a.arg: ast.unparse(a.annotation).strip("'\"") for a in function.args.args + function.args.kwonlyargs
                 if a.annotation is not None}
        foreign = {name for name, kind in typed.items() if classes.get(kind, own) != own}
        for node in ast.walk(function):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, (ast.AnnAssign, ast.AugAssign)) else []
            for target in targets:
                root = _root_name(target) if isinstance(target, ast.Attribute) else None
                if root in foreign:
                    found.append(f"{path.relative_to(ROOT.parent)}:{node.lineno} {ast.unparse(target)} "
                                 f"({typed[root]} of osiris.{classes[typed[root]]})")
    return found


def _root_name(node: ast.expr) -> str | None:
    """`engine` for `engine.sample_tier.policy.ask`."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of two or more packages (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def package_imports(files: list[Path]) -> dict[tuple[str, str], list[str]]:
    """(importing package, imported package) -> the `module -> module` imports behind that edge."""
    found: dict[tuple[str, str], list[str]] = collections.defaultdict(list)
    for path in files:
        source = module_name(path)
        for target in imports(path):
            if package_of(source) != package_of(target):
                found[(package_of(source), package_of(target))].append(f"{source} -> {target}")
    return found


def package_edges(by_package: dict[tuple[str, str], list[str]]) -> dict[str, set[str]]:
    """package -> the packages it imports."""
    edges: dict[str, set[str]] = collections.defaultdict(set)
    for source, target in by_package:
        edges[source].add(target)
    return edges


def print_circles(by_package: dict[tuple[str, str], list[str]]) -> None:
    edges = package_edges(by_package)
    found = circles(edges)
    print(f"circles: {len(found)}")
    for group in found:
        print("  " + " <-> ".join(group))
        for (source, target), lines in sorted(by_package.items()):
            if source in group and target in group:
                shown = sorted(set(lines))
                print(f"    {source} -> {target}: " + "; ".join(shown[:4]) + (f" (+{len(shown) - 4})" if len(shown) > 4 else ""))


def layers(edges: dict[str, set[str]]) -> list[list[str]]:
    """Packages by height, bottom first: a package sits one above the highest package it imports;
    a circle's packages share one height (shown as `{a b c}`)."""
    nodes = sorted(set(edges) | {t for targets in edges.values() for t in targets})
    group_of = {node: node for node in nodes}
    for group in circles(edges):
        for member in group:
            group_of[member] = "{" + " ".join(group) + "}"
    below: dict[str, set[str]] = collections.defaultdict(set)
    for source, targets in edges.items():
        below[group_of[source]] |= {group_of[t] for t in targets if group_of[t] != group_of[source]}
    height: dict[str, int] = {}

    def measure(group: str) -> int:
        if group not in height:
            height[group] = 1 + max((measure(lower) for lower in below[group]), default=-1)
        return height[group]

    for group in set(group_of.values()):
        measure(group)
    found: list[list[str]] = [[] for _ in range(max(height.values(), default=-1) + 1)]
    for group, level in height.items():
        found[level].append(group)
    return [sorted(level) for level in found]


def print_layers(by_package: dict[tuple[str, str], list[str]]) -> None:
    edges = package_edges(by_package)
    found = layers(edges)
    print(f"layers (bottom first): {len(found)}")
    for level, groups in enumerate(found):
        print(f"  {level}: {' '.join(groups)}")


def print_back_arrows(by_package: dict[tuple[str, str], list[str]]) -> None:
    back = [(s, t, lines) for (s, t), lines in sorted(by_package.items())
            if s in FLOW and t in FLOW and FLOW.index(s) < FLOW.index(t)]
    print(f"back-arrows against {' -> '.join(FLOW)}: {len(back)}")
    for source, target, lines in back:
        print(f"  {source} -> {target}: " + "; ".join(sorted(set(lines))))


def main() -> int:
    global ROOT
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true", help="print every package edge")
    parser.add_argument("--root", type=Path, default=ROOT, help="the osiris package to read (another checkout's)")
    args = parser.parse_args()
    ROOT = args.root.resolve()
    files = sorted(ROOT.rglob("*.py"))
    classes: dict[str, str] = {}
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                classes.setdefault(node.name, package_of(module_name(path)))
    by_package = package_imports(files)
    print(f"packages: {len({p for pair in by_package for p in pair})}; package edges: {len(by_package)}")
    print_circles(by_package)
    print_layers(by_package)
    print(f"imports of osiris modules inside functions: {sum(imports_in_functions(path) for path in files)}")
    print_back_arrows(by_package)
    writes = [line for path in files for line in writes_onto_others(path, classes)]
    print(f"writes onto another package's object: {len(writes)}")
    for line in writes:
        print(f"  {line}")
    if args.all:
        for (source, target), lines in sorted(by_package.items()):
            print(f"{source} -> {target}: {len(lines)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

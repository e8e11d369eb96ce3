"""Count the test files and tests that start the `osiris` CLI as a process (issue 37), by reading the
test sources: `python bench/suite_processes.py [--tests] [TESTS_DIR]`.

A test starts the CLI when its body, a helper it calls or a fixture it takes (through any number of
helpers, in its module or imported from another file of tests/) makes a call that starts a process
(`subprocess.run`/`Popen`/`check_output`, `pexpect.spawn`, the MCP SDK's `StdioServerParameters`)
whose arguments name `osiris` (`python -m osiris`, the entry point) or `make` (`make chat`). A helper
with a `process` parameter (`RunProject.run`, `chat(..., process=True)`) starts one only where it is
called with `process=True`. Tests are counted as functions (a parametrised test once), before pytest
expands them. A static count: a helper reached through a variable holding a function is missed.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

STARTERS = {"run", "Popen", "check_output", "check_call", "call", "spawn", "StdioServerParameters"}
PROCESS_MODULES = {"subprocess", "pexpect"}


@dataclass
class Function:
    """One function or method of a test file, and what it reaches."""

    module: str
    name: str  # "f", or "Class.f" for a method
    node: ast.FunctionDef | ast.AsyncFunctionDef
    is_fixture: bool = False
    conditional: bool = False  # has a `process` parameter: starts a process only with process=True
    direct: bool = False
    calls: set[str] = field(default_factory=set)  # keys "module:name" it may reach
    fixtures: list[str] = field(default_factory=list)  # the fixtures its parameters name, as keys


def _names_cli(node: ast.Call) -> bool:
    """Whether a call's arguments name the CLI: `-m osiris` side by side in a list, a list that starts
    with `osiris` (the entry point), or `make` with its `chat` target."""
    words: list[str] = []
    for argument in [*node.args, *(k.value for k in node.keywords)]:
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
            words.append(argument.value)
        for inner in ast.walk(argument):
            if isinstance(inner, ast.List | ast.Tuple):
                items = [e.value if isinstance(e, ast.Constant) else None for e in inner.elts]
                if any(items[i:i + 2] == ["-m", "osiris"] for i in range(len(items))):
                    return True
                if items[:1] == ["osiris"]:
                    return True
                words.extend(i for i in items if isinstance(i, str))
    return "make" in words and "chat" in words


def _starts_process(node: ast.Call, imported: dict[str, str]) -> bool:
    func = node.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        owner = imported.get(func.value.id, func.value.id)
        is_starter = owner in PROCESS_MODULES and func.attr in STARTERS
    elif isinstance(func, ast.Name):
        origin = imported.get(func.id, "")
        is_starter = origin.split(":")[0] in PROCESS_MODULES | {"mcp"} and func.id in STARTERS
        is_starter = is_starter or func.id == "StdioServerParameters"
    else:
        is_starter = False
    return is_starter and _names_cli(node)


def _module_name(path: Path, root: Path) -> str:
    return ".".join(("tests", *path.relative_to(root).with_suffix("").parts))


def _imports(tree: ast.Module) -> dict[str, str]:
    """Local name -> "module:name" for `from M import n`, or "module" for `import M` / `from P import M`."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names[(alias.asname or alias.name).split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}:{alias.name}"
    return names


def _is_fixture(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute) and target.attr == "fixture":
            return True
        if isinstance(target, ast.Name) and target.id == "fixture":
            return True
    return False


def _functions(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for inner in node.body:
                if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef):
                    yield f"{node.name}.{inner.name}", inner


def _resolve(expr: ast.expr, module: str, local: set[str], imported: dict[str, str],
             classes: set[str], modules: set[str]) -> str | None:
    """The "module:name" an expression names (a function, a class's __init__, Class.method), if known."""
    if isinstance(expr, ast.Name):
        if expr.id in local:
            return f"{module}:{expr.id}.__init__" if expr.id in classes else f"{module}:{expr.id}"
        origin = imported.get(expr.id)
        return origin if origin and ":" in origin else None
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        owner = expr.value.id
        if owner in local:  # Class.method
            return f"{module}:{owner}.{expr.attr}"
        origin = imported.get(owner)
        if origin and origin.replace(":", ".") in modules:  # `from tests import support`
            origin = origin.replace(":", ".")
        if origin and ":" not in origin:  # module.function
            return f"{origin}:{expr.attr}"
        if origin:  # an imported class's method
            return f"{origin}.{expr.attr}"
    return None


def _instances(node: ast.AST, module: str, local: set[str], imported: dict[str, str], classes: set[str],
               modules: set[str]) -> dict[str, str]:
    """Variables a function assigns from a call, and the "module:Name" called (a class, if it is one)."""
    kinds: dict[str, str] = {}
    for inner in ast.walk(node):
        if (isinstance(inner, ast.Assign) and len(inner.targets) == 1 and isinstance(inner.targets[0], ast.Name)
                and isinstance(inner.value, ast.Call)):
            target = _resolve(inner.value.func, module, local, imported, classes, modules)
            if target:
                kinds[inner.targets[0].id] = target.removesuffix(".__init__")
    return kinds


def _fixture(argument: str, module: str, local: set[str], imported: dict[str, str]) -> str:
    """The key of the fixture a parameter names, as pytest finds it: the module's own, one it imports,
    or tests/conftest.py's."""
    if argument in local:
        return f"{module}:{argument}"
    origin = imported.get(argument, "")
    return origin if ":" in origin else f"tests.conftest:{argument}"


def read_functions(root: Path) -> dict[str, Function]:
    """Every function of every file under `root`, keyed "module:name", with what it calls."""
    found: dict[str, Function] = {}
    paths = sorted(root.rglob("*.py"))
    modules = {_module_name(path, root) for path in paths}
    for path in paths:
        module = _module_name(path, root)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        imported = _imports(tree)
        classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
        local = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
        for name, node in _functions(tree):
            arguments = [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)]
            function = Function(module, name, node, is_fixture=_is_fixture(node),
                                conditional="process" in arguments,
                                fixtures=[_fixture(a, module, local, imported) for a in arguments])
            owner = name.split(".")[0] if "." in name else None
            kinds = _instances(node, module, local, imported, classes, modules)
            for inner in ast.walk(node):
                if isinstance(inner, ast.Call):
                    function.direct |= _starts_process(inner, imported)
                    target = _resolve(inner.func, module, local, imported, classes, modules)
                    if (isinstance(inner.func, ast.Attribute) and isinstance(inner.func.value, ast.Name)
                            and inner.func.value.id == "self" and owner):
                        target = f"{module}:{owner}.{inner.func.attr}"
                    with_process = any(k.arg == "process" and isinstance(k.value, ast.Constant) and k.value.value
                                       for k in inner.keywords)
                    if with_process:
                        function.calls.add("process=True")
                    elif target:
                        function.calls.add(target)
                    elif (isinstance(inner.func, ast.Attribute) and isinstance(inner.func.value, ast.Name)
                          and inner.func.value.id in kinds):  # proj = SampleProject(...); proj.osiris(...)
                        function.calls.add(f"{kinds[inner.func.value.id]}.{inner.func.attr}")
                    elif isinstance(inner.func, ast.Attribute):  # obj.method(): any class's method of that name
                        function.calls.add(f"*.{inner.func.attr}")
                elif isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Load) and inner.id != name:
                    target = _resolve(inner, module, local, imported, classes, modules)
                    if target:
                        function.calls.add(target)
            found[f"{module}:{name}"] = function
    return found


def starters(functions: dict[str, Function]) -> set[str]:
    """The keys of every function that starts the CLI, directly or through what it calls (to a fixpoint).
    A function with a `process` parameter counts only through its calls made with process=True."""
    methods: dict[str, list[str]] = {}
    for key, function in functions.items():
        if "." in function.name:
            methods.setdefault(f"*.{function.name.split('.')[-1]}", []).append(key)
    # obj.method() of an object of unknown class: where every class of tests/ with a method of that name
    # starts a process, and only once they are known
    def every(call: str) -> bool:
        return call in methods and all(key in started for key in methods[call])
    started = {key for key, f in functions.items() if f.direct and not f.conditional}
    started |= {key for key, f in functions.items() if "process=True" in f.calls}
    changed = True
    while changed:
        changed = False
        for key, function in functions.items():
            if key in started or function.conditional:
                continue
            reached = {call for call in function.calls
                       if call in started or f"{call}.__init__" in started or every(call)}
            uses_fixture = any(key in started and functions[key].is_fixture for key in function.fixtures)
            if reached or uses_fixture:
                started.add(key)
                changed = True
    return started


def tests_of(functions: dict[str, Function]) -> dict[str, list[str]]:
    """Test file module -> its test functions' keys."""
    tests: dict[str, list[str]] = {}
    for key, function in functions.items():
        leaf = function.name.split(".")[-1]
        owner = function.name.split(".")[0] if "." in function.name else ""
        if (function.module.split(".")[-1].startswith("test_") and leaf.startswith("test_")
                and (not owner or owner.startswith("Test"))):
            tests.setdefault(function.module, []).append(key)
    return tests


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", default="tests", type=Path)
    parser.add_argument("--tests", action="store_true", help="list every test that starts a process")
    parser.add_argument("--ids", action="store_true", help="print only their pytest node ids, one a line")
    options = parser.parse_args(argv)
    functions = read_functions(options.root)
    started = starters(functions)
    tests = tests_of(functions)
    files = {module: [t for t in keys if t in started] for module, keys in tests.items()}
    files = {module: keys for module, keys in files.items() if keys}
    if options.ids:
        for module, keys in sorted(files.items()):
            path = options.root / Path(*module.split(".")[1:]).with_suffix(".py")
            for key in keys:
                print(f"{path}::{key.split(':')[1].replace('.', '::')}")
        return 0
    for module, keys in sorted(files.items(), key=lambda item: (-len(item[1]), item[0])):
        print(f"{len(keys):4d} of {len(tests[module]):3d}  tests/{module.split('.', 1)[1].replace('.', '/')}.py")
        if options.tests:
            for key in keys:
                print(f"            {key.split(':')[1]}")
    total = sum(len(keys) for keys in tests.values())
    print(f"{len(files)} of {len(tests)} test files, {sum(len(k) for k in files.values())} of {total} tests "
          "start the osiris CLI as a process")
    return 0


if __name__ == "__main__":
    sys.exit(main())

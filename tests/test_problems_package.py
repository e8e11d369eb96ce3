"""`osiris.problems` is a package of one module per family of codes, and callers import from the
package: `from osiris.problems import X` must find every constructor of every module, including one
added later, and the package's docstring must name each module (it is the map a newcomer reads)."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import osiris.problems as package

MODULES = sorted(info.name for info in pkgutil.iter_modules(package.__path__))


def defined(module: str) -> list[str]:
    """The public names a module of the package defines at its top level (functions, classes, constants)."""
    tree = ast.parse((Path(package.__path__[0]) / f"{module}.py").read_text(encoding="utf-8"))
    names = [node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.ClassDef)]
    names += [target.id for node in tree.body if isinstance(node, ast.Assign) for target in node.targets
              if isinstance(target, ast.Name)]
    return [name for name in names if not name.startswith("_")]


def test_the_package_exports_each_name_of_each_module_and_nothing_else() -> None:
    missing, exported = [], []
    for module_name in MODULES:
        module = importlib.import_module(f"osiris.problems.{module_name}")
        for name in defined(module_name):
            exported.append(name)
            if name not in package.__all__ or getattr(package, name, None) is not getattr(module, name):
                missing.append(f"{module_name}.{name}")
    assert missing == []
    assert sorted(package.__all__) == sorted(exported)
    assert len(exported) > 70


def test_the_docstring_names_each_module() -> None:
    assert package.__doc__ is not None
    assert [name for name in MODULES if f"- `{name}`: " not in package.__doc__] == []
    assert len(MODULES) > 5

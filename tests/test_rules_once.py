"""Rules written once (docs/architecture.md, "Where each rule lives"), pinned by reading the source.

- Runtime problems are built in the package `osiris/problems/` (one module per family of codes):
  `RuntimeProblem(...)` anywhere else is a second copy of a code's message and hint.
- Drivers (and the rest of the runtime, osiris/run/) read defaults from the spec:
  `config.get("delimiter", ",")` or `config.get("delimiter") or ","` on a field a component spec
  gives a `default` repeats the spec in code, and the two drift.

Neither rule has a site left (issue 37 removed the last of each): the two tables below are empty,
and a new site fails here. Read a field through `osiris.run.fields` from the merged config instead.
A `.get` on an OML step itself (`step.get("mode")`: its own keys, not its config) is not a config read.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
OSIRIS = REPO / "osiris"
PROBLEMS = "osiris/problems/"

# RuntimeProblem(...) built outside osiris/problems/: none left; keep it so.
PROBLEMS_LEFT: dict[str, int] = {}

# Fallbacks in code for a field some spec gives a default: none left (issue 37); keep it so.
DEFAULTS_LEFT: dict[str, int] = {}


def problems_built(source: str) -> int:
    """How many `RuntimeProblem(...)` calls the source makes."""
    return sum(1 for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call) and (
        (isinstance(node.func, ast.Name) and node.func.id == "RuntimeProblem")
        or (isinstance(node.func, ast.Attribute) and node.func.attr == "RuntimeProblem")))


def spec_defaults() -> set[str]:
    """The config fields some built-in component spec gives a `default`."""
    fields: set[str] = set()
    for spec in (OSIRIS / "_components").glob("*/spec.yaml"):
        properties = (yaml.safe_load(spec.read_text(encoding="utf-8")).get("configSchema") or {}).get("properties")
        fields |= {name for name, schema in (properties or {}).items() if isinstance(schema, dict) and "default" in schema}
    return fields


STEPS = {"step"}  # `step.get("mode", "")` reads an OML step's own key (id, component, mode), not its config


def _reads(node: ast.AST, fields: set[str]) -> bool:
    """`x.get("<field>", ...)` on a field with a spec default, `x` not an OML step."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
            and not (isinstance(node.func.value, ast.Name) and node.func.value.id in STEPS)
            and bool(node.args) and isinstance(node.args[0], ast.Constant) and node.args[0].value in fields)


FIELD_READERS = {"integer", "text"}  # osiris.run.fields: `integer(config, "f", default)` falls back the same way
EMPTY_READERS = {"mapping", "texts"}  # and `mapping(config, "f")` falls back to {} (`texts`: to [])


def default_fallbacks(source: str, fields: set[str]) -> list[int]:
    """Lines of `x.get("f", <not None>)`, `x.get("f") or <anything>`, `integer(config, "f", <not None>)`
    (or `text(...)`) and `mapping(config, "f")` (or `texts(...)`) for a field `f` in `fields`."""
    return [node.lineno for node in ast.walk(ast.parse(source)) if _falls_back(node, fields)]


def _falls_back(node: ast.AST, fields: set[str]) -> bool:
    if isinstance(node, ast.Call) and _reads(node, fields) and len(node.args) > 1:
        fallback = node.args[1]
        return not (isinstance(fallback, ast.Constant) and fallback.value is None)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in EMPTY_READERS:
        return len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and node.args[1].value in fields
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FIELD_READERS:
        name, fallback = (node.args[1], node.args[2]) if len(node.args) > 2 else (None, None)
        return (isinstance(name, ast.Constant) and name.value in fields
                and not (isinstance(fallback, ast.Constant) and fallback.value is None))
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        first = node.values[0]
        return isinstance(first, ast.Call) and _reads(first, fields) and len(first.args) == 1
    return False


def _per_file(count: object, root: Path = OSIRIS) -> Counter[str]:
    found: Counter[str] = Counter()
    for path in sorted(root.rglob("*.py")):
        name = str(path.relative_to(REPO))
        found[name] = count(path.read_text(encoding="utf-8"))
    return +found


def problems_by_place(root: Path = OSIRIS) -> tuple[int, dict[str, int]]:
    """How many `RuntimeProblem(...)` the modules of the problems package under `root` build, and the
    files elsewhere that build more than PROBLEMS_LEFT allows (named from `root`'s parent)."""
    inside, outside = 0, {}
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(root.parent).as_posix()
        built = problems_built(path.read_text(encoding="utf-8"))
        if name.startswith(PROBLEMS):
            inside += built
        elif built > PROBLEMS_LEFT.get(name, 0):
            outside[name] = built
    return inside, outside


def test_runtime_problems_are_built_in_osiris_problems_only() -> None:
    inside, outside = problems_by_place()
    assert inside > 20
    assert outside == {}, "build these problems with a constructor of osiris/problems/"


def test_the_problems_scan_accepts_the_package_only(tmp_path: Path) -> None:
    """A problem built anywhere but in a module of osiris/problems/ is found: next to the package, in
    the runtime's door to it (run/problems.py), or in a file whose name only starts like it."""
    built = "from osiris.problems.base import RuntimeProblem\nX = RuntimeProblem('OML501', 'm', 'h')\n"
    for name in ("problems/base.py", "problems/writes.py", "problems/__init__.py", "problems.py",
                 "problems_extra.py", "run/problems.py", "run/drivers/rest.py"):
        (tmp_path / "osiris" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "osiris" / name).write_text(built, encoding="utf-8")
    (tmp_path / "osiris" / "run" / "fields.py").write_text("from osiris.problems import RuntimeProblem\n", encoding="utf-8")
    assert problems_by_place(tmp_path / "osiris") == (3, {
        "osiris/problems.py": 1, "osiris/problems_extra.py": 1, "osiris/run/problems.py": 1,
        "osiris/run/drivers/rest.py": 1})


def test_no_spec_default_is_repeated_in_code() -> None:
    fields = spec_defaults()
    assert {"delimiter", "batch_size", "header"} <= fields
    found = _per_file(lambda source: len(default_fallbacks(source, fields)), OSIRIS / "run")
    grown = {name: n for name, n in found.items() if n > DEFAULTS_LEFT.get(name, 0)}
    assert grown == {}, "read the default from ctx.config: the validator merged the spec's defaults into it"


def test_the_tables_of_sites_left_only_name_sites_that_exist() -> None:
    """A count above what is there hides a new site: lower it when you remove one."""
    problems = _per_file(problems_built)
    fields = spec_defaults()
    defaults = _per_file(lambda source: len(default_fallbacks(source, fields)), OSIRIS / "run")
    assert {n: c for n, c in PROBLEMS_LEFT.items() if problems[n] < c} == {}
    assert {n: c for n, c in DEFAULTS_LEFT.items() if defaults[n] < c} == {}


def test_the_scans_see_each_form() -> None:
    fields = {"delimiter", "batch_size"}
    source = ("from osiris import problems\n"
              "def read(config, ctx):\n"
              "    a = config.get('delimiter', ',')\n"
              "    b = ctx.config.get('batch_size') or 1000\n"
              "    c = config.get('delimiter')\n"
              "    d = config.get('other', 1)\n"
              "    e = config.get('batch_size', None)\n"
              "    raise problems.RuntimeProblem('OML501', 'm', 'h')\n"
              "def f(config):\n"
              "    g = integer(config, 'batch_size', 1000) + integer(config, 'other', 1) + integer(config, 'limit')\n"
              "    h = mapping(config, 'delimiter'), mapping(config, 'other')\n"
              "    return RuntimeProblem('OML502', 'm', 'h')\n"
              "def g(step, config):\n"
              "    i = step.get('mode', '')\n"
              "    j = step.config.get('delimiter', ',') + step['config'].get('mode', 'append')\n"
              "    k = config.get('mode', 'append')\n"
              "    m = steps.get('mode') or 'x'\n")
    assert sorted(default_fallbacks(source, {*fields, "limit", "mode"})) == [3, 4, 10, 11, 15, 15, 16, 17]
    assert problems_built(source) == 2

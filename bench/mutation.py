"""Mutation testing for one module: how many small deliberate bugs do the tests catch?

    .venv/bin/python bench/mutation.py osiris/validate/dependencies.py [tests/test_a.py ...]
        [--max N] [--only N,N,...] [--sample K] [--then TESTS] [--timeout S] [--json]

Each mutant changes one thing in the module (a comparison flipped, `and`/`or` swapped, `not`
dropped, a constant changed, a `return` value replaced by None, a `break`/`continue` swapped). It is
written to disk in a private copy of the work tree (tracked and untracked files, not ignored ones),
and the given tests run there (`pytest -x`) with PYTHONPATH pointing at the copy, so that subprocess
and pexpect tests (`python -m osiris`) run the mutant too. The work tree itself is never touched, so
you can keep editing while it runs, and several runs can go at once. A mutant is *caught* when the tests
fail and *survives* when they pass; a mutant whose tests run past `--timeout` counts as caught
(an endless loop is a failure a user would see).

Prints caught, survived and the score, then one line per survivor (line, what changed), so that a
survivor can be turned into a test or argued to be equivalent. Mutants are numbered (the same
module text gives the same numbers); `--only` reruns some of them, e.g. the survivors of an
earlier run against a wider set of tests; `--sample K` runs every K-th mutant (1, 1+K, ...), for a
quick figure on a big module. `--then "tests/a.py tests/b.py"` reruns each survivor against more
tests (the wider suite, or new tests) and prints both scores: the module's own tests, and with more.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

COMPARISON_SWAPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt,
    ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.In: ast.NotIn, ast.NotIn: ast.In,
    ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}
OPERATOR_SWAPS: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult,
}


@dataclass
class Mutant:
    number: int
    line: int
    change: str
    source: str = ""
    outcome: str = ""  # caught | survived | timeout | error
    then: str = ""  # the outcome with the --then tests, for a survivor


def mutants_of(source: str) -> Iterator[Mutant]:
    """Every single-point mutant of `source`, each as the whole mutated module's text."""
    tree = ast.parse(source)
    count = sum(1 for _ in _sites(tree))
    number = 0
    for index in range(count):
        fresh = ast.parse(source)
        site = list(_sites(fresh))[index]
        change = site.apply()
        if change is None:
            continue
        try:
            text = ast.unparse(fresh)
        except Exception:  # an unparsable mutant is no mutant
            continue
        number += 1
        yield Mutant(number=number, line=site.line, change=change, source=text)


class _Site:
    def __init__(self, node: ast.AST, kind: str, extra: object = None) -> None:
        self.node, self.kind, self.extra = node, kind, extra
        self.line = getattr(node, "lineno", 0)

    def apply(self) -> str | None:
        node = self.node
        if self.kind == "compare":
            assert isinstance(node, ast.Compare) and isinstance(self.extra, int)
            old = node.ops[self.extra]
            new = COMPARISON_SWAPS[type(old)]()
            node.ops[self.extra] = new
            return f"{type(old).__name__} -> {type(new).__name__}"
        if self.kind == "boolop":
            assert isinstance(node, ast.BoolOp)
            old_name = type(node.op).__name__
            node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
            return f"{old_name} -> {type(node.op).__name__}"
        if self.kind == "binop":
            assert isinstance(node, ast.BinOp)
            old_op = node.op
            node.op = OPERATOR_SWAPS[type(old_op)]()
            return f"{type(old_op).__name__} -> {type(node.op).__name__}"
        if self.kind == "not":
            assert isinstance(node, ast.UnaryOp)
            replacement = node.operand
            _replace(self.extra, node, replacement)
            return "drop `not`"
        if self.kind == "constant":
            assert isinstance(node, ast.Constant)
            old_value = node.value
            if isinstance(old_value, bool):
                node.value = not old_value
            elif isinstance(old_value, int):
                node.value = old_value + 1
            else:
                return None
            return f"{old_value!r} -> {node.value!r}"
        if self.kind == "return":
            assert isinstance(node, ast.Return)
            node.value = ast.Constant(value=None)
            return "return None"
        if self.kind == "loopjump":
            assert isinstance(node, (ast.Break, ast.Continue))
            new: ast.stmt = ast.Continue() if isinstance(node, ast.Break) else ast.Break()
            _replace(self.extra, node, new)
            return f"{type(node).__name__.lower()} -> {type(new).__name__.lower()}"
        return None


def _sites(tree: ast.AST) -> Iterator[_Site]:
    for parent in ast.walk(tree):
        for node in ast.iter_child_nodes(parent):
            yield from _sites_at(node, parent)


def _sites_at(node: ast.AST, parent: ast.AST) -> Iterator[_Site]:
    """The mutation sites of one node (`parent` is where a replacement goes)."""
    if isinstance(node, ast.Compare):
        for position, op in enumerate(node.ops):
            if type(op) in COMPARISON_SWAPS:
                yield _Site(node, "compare", position)
    elif isinstance(node, ast.BoolOp):
        yield _Site(node, "boolop")
    elif isinstance(node, ast.BinOp) and type(node.op) in OPERATOR_SWAPS and not _is_string_op(node):
        yield _Site(node, "binop")
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield _Site(node, "not", parent)
    elif isinstance(node, ast.Constant) and isinstance(node.value, (bool, int)):
        if not isinstance(parent, (ast.AnnAssign, ast.arg)):
            yield _Site(node, "constant")
    elif isinstance(node, ast.Return) and node.value is not None and not _returns_none(node):
        yield _Site(node, "return")
    elif isinstance(node, (ast.Break, ast.Continue)):
        yield _Site(node, "loopjump", parent)


def _returns_none(node: ast.Return) -> bool:
    return isinstance(node.value, ast.Constant) and node.value.value is None


def _is_string_op(node: ast.BinOp) -> bool:
    return any(isinstance(side, ast.Constant) and isinstance(side.value, str)
               for side in (node.left, node.right)) or isinstance(node.left, ast.JoinedStr)


def _replace(parent: object, old: ast.AST, new: ast.AST) -> None:
    """Put `new` where `old` was among `parent`'s fields."""
    for field, value in ast.iter_fields(parent):  # type: ignore[arg-type]
        if value is old:
            setattr(parent, field, new)
            return
        if isinstance(value, list):
            for position, item in enumerate(value):
                if item is old:
                    value[position] = new
                    return


def private_copy(repo: Path, into: Path) -> Path:
    """Copy the work tree's tracked and untracked (not ignored) files under `into`; links stay links."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=repo, capture_output=True, check=True).stdout.decode().split("\0")
    copy = into / "tree"
    for name in filter(None, listed):
        source, target = repo / name, copy / name
        if not os.path.lexists(source):
            continue  # deleted in the work tree, not yet in git
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            os.symlink(os.readlink(source), target)
        elif source.is_file():
            shutil.copy2(source, target)
    return copy


def run_tests(tests: list[str], timeout: float, tree: Path) -> str:
    """Run the tests once: "survived" when they pass, else caught / timeout / error."""
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
               "--no-header", *tests]
    # No bytecode written: a mutant of the same size written within the same second as another
    # would otherwise be served from the other's stale .pyc (its check is mtime + size).
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(tree)}
    try:
        result = subprocess.run(command, cwd=tree, capture_output=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return "timeout"
    if result.returncode == 0:
        return "survived"
    if result.returncode in (1,):
        return "caught"
    return "error"  # collection errors, usage: the mutant broke import; counts as caught


def _drop_bytecode(module: Path) -> None:
    """Remove the module's cached bytecode, so that no run can pick up a stale compiled copy."""
    for cached in module.parent.joinpath("__pycache__").glob(f"{module.stem}.*.pyc"):
        cached.unlink(missing_ok=True)


def run_mutants(module: Path, original: str, tests: list[str], timeout: float, tree: Path,
                limit: int, only: set[int], sample: int, then: list[str]) -> list[Mutant]:
    """Write each mutant over `module` (inside the copy), run the tests, record the outcome."""
    results: list[Mutant] = []
    for mutant in mutants_of(original):
        if limit and len(results) >= limit:
            break
        if (only and mutant.number not in only) or (mutant.number - 1) % sample:
            continue
        module.write_text(mutant.source, encoding="utf-8")
        _drop_bytecode(module)
        mutant.outcome = run_tests(tests, timeout, tree)
        if mutant.outcome == "survived" and then:
            mutant.then = run_tests(then, timeout, tree)
        results.append(mutant)
        print(f"  {mutant.number:4d} line {mutant.line:4d} {mutant.change:28s} {mutant.outcome} {mutant.then}",
              file=sys.stderr, flush=True)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("module", type=Path)
    parser.add_argument("tests", nargs="*")
    parser.add_argument("--max", type=int, default=0, help="stop after N mutants (0: all)")
    parser.add_argument("--only", default="", help="run only these mutant numbers (comma-separated)")
    parser.add_argument("--sample", type=int, default=1, help="run every K-th mutant only")
    parser.add_argument("--then", default="", help="more tests (space-separated) to rerun survivors with")
    parser.add_argument("--timeout", type=float, default=0.0,
                        help="seconds per test run (default: 3x the unmutated run, at least 30)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    relative = (REPO / args.module).resolve().relative_to(REPO)
    tests = args.tests or ["tests"]
    with tempfile.TemporaryDirectory(prefix="osiris-mutation-") as scratch:
        tree = private_copy(REPO, Path(scratch))
        module = tree / relative
        original = module.read_text(encoding="utf-8")
        timed = time.perf_counter()
        baseline = run_tests(tests, args.timeout or 600.0, tree)
        if baseline != "survived":
            print(f"the tests fail before any mutation ({baseline}); fix them first", file=sys.stderr)
            return 2
        timeout = args.timeout or max(30.0, 3 * (time.perf_counter() - timed))
        module.write_text('raise ImportError("mutation canary")\n' + original, encoding="utf-8")
        if run_tests(tests, timeout, tree) == "survived":
            print(f"the tests pass with {relative} broken: they never import it from the copy",
                  file=sys.stderr)
            return 2
        started = time.perf_counter()
        only = {int(n) for n in args.only.split(",") if n.strip()}
        then = args.then.split()
        results = run_mutants(module, original, tests, timeout * (2 if then else 1), tree, args.max, only,
                              max(1, args.sample), then)
    survivors = [m for m in results if m.outcome == "survived"]
    caught = len(results) - len(survivors)
    score = 100.0 * caught / len(results) if results else 100.0
    if args.then:
        survivors = [m for m in survivors if m.then == "survived"]
    if args.json:
        print(json.dumps({"module": str(args.module), "mutants": len(results), "caught": caught,
                          "survived": len(survivors), "score": round(score, 1),
                          "survivors": [{k: v for k, v in asdict(m).items() if k != "source"}
                                        for m in survivors]}, indent=2))
        return 0
    minutes = (time.perf_counter() - started) / 60
    print(f"{args.module}: {len(results)} mutants, {caught} caught, {len(results) - caught} survived "
          f"({score:.0f}%) in {minutes:.1f} min with {' '.join(tests)}"
          + (f" (every {args.sample}th mutant)" if args.sample > 1 else ""))
    if args.then:
        caught_then = len(results) - len(survivors)
        print(f"  with {args.then} too: {caught_then} caught, {len(survivors)} survived "
              f"({100.0 * caught_then / len(results) if results else 100.0:.0f}%)")
    lines = original.splitlines()
    for mutant in survivors:
        code = lines[mutant.line - 1].strip() if 0 < mutant.line <= len(lines) else ""
        print(f"  survived: #{mutant.number} line {mutant.line}: {mutant.change:24s} | {code}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

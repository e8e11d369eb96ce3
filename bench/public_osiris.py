"""Public Osiris compatibility (issue 8): run public Osiris's own pipelines and component specs
through this validator, and compare with public Osiris's verdicts. Prints one line per file and
the counts; asserts nothing. Nothing of public Osiris is copied into this repository.

    # a bare or normal clone of github.com/keboola/osiris (e.g. the `fetch` tool's mirror)
    .venv/bin/python bench/public_osiris.py --repo /work/.mirror/keboola+osiris/repo

Pipelines: every YAML file with a top-level `oml_version` or `steps`, every ```yaml block holding `oml_version:` in
its docs (archives included), and every pipeline its tests and scripts hold (a string of OML YAML, or a dict
literal with an `oml_version` key): 139 at e6d55ed, the corpus issue 36 counts. Each `@family.alias` a
pipeline names is configured (empty), as public Osiris reads connections from its own osiris_connections.yaml. Public's verdict comes from
its `osiris.core.oml_validator.OMLValidator`, run from a temporary export of its sources (its
package __init__ replaced by an empty one, which imports database drivers).
Specs: every components/*/spec.yaml, loaded as a `components.paths` entry and checked as
`osiris components validate` does; public's verdict is its own meta-schema.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

import yaml

from osiris.registry import load_registry
from osiris.validate import Validator
from osiris.validate.connections import parse_reference
from osiris.validate.examples import example_problems, example_warnings

_BLOCK = re.compile(r"^```ya?ml\n(.*?)^```", re.MULTILINE | re.DOTALL)
_REFERENCE = re.compile(r"[\"']?(@[a-z0-9_-]+\.[a-z0-9_-]+)[\"']?", re.IGNORECASE)
_PUBLIC_VALIDATE = """
import json, sys, yaml
from osiris.core.oml_validator import OMLValidator
validator = OMLValidator()
verdicts = []
for text in json.load(sys.stdin):
    try:
        document = yaml.safe_load(text)
        ok, errors, _ = validator.validate(document)
        verdicts.append([bool(ok), [e.get("type", "") for e in errors]])
    except Exception as error:  # public's validator on a document it cannot take
        verdicts.append([False, [type(error).__name__]])
print(json.dumps(verdicts))
"""


def git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", repo, *args], capture_output=True, text=True, check=True).stdout


def pipelines(repo: str) -> list[tuple[str, str]]:
    found = []
    for path in git(repo, "ls-tree", "-r", "--name-only", "HEAD").splitlines():
        if path.endswith(".py") and path.startswith(("tests/", "scripts/")):
            found += python_pipelines(path, git(repo, "show", f"HEAD:{path}"))
            continue
        if not path.endswith((".yaml", ".yml", ".md")):
            continue
        if path.startswith(("components/", ".github/")):
            continue
        text = git(repo, "show", f"HEAD:{path}")
        if path.endswith(".md"):
            blocks = [b for b in _BLOCK.findall(text) if re.search(r"^oml_version:", b, re.MULTILINE)]
            found += [(f"{path} block {n}", block) for n, block in enumerate(blocks, start=1)]
        elif re.search(r"^(oml_version|steps):", text, re.MULTILINE) and not path.startswith("tests/golden/"):  # compiled
            found.append((path, text))
    return found


def python_pipelines(path: str, source: str) -> list[tuple[str, str]]:
    """The pipelines public's tests and scripts hold: each string that is OML YAML (`oml_version:`
    at a line's start, and `steps`), and each dict literal with an `oml_version` key, as YAML."""
    import ast

    if "oml_version" not in source:
        return []
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str) and "steps" in node.value
                and re.search(r"^\s*oml_version:", node.value, re.MULTILINE)):
            found.append((f"{path} string at line {node.lineno}", node.value))
        elif isinstance(node, ast.Dict) and any(isinstance(k, ast.Constant) and k.value == "oml_version" for k in node.keys):
            try:
                document = ast.literal_eval(node)
            except (ValueError, SyntaxError, TypeError):
                continue  # built from variables: not a pipeline as written
            found.append((f"{path} dict at line {node.lineno}", yaml.safe_dump(document, sort_keys=False)))
    return found


def connections_for(text: str) -> dict:
    configured: dict = {}
    for reference in _REFERENCE.findall(text):
        parsed = parse_reference(reference)
        if parsed:
            configured.setdefault(parsed[0].lower(), {})[parsed[1]] = {}
    return configured


def public_verdicts(repo: str, texts: list[str]) -> list[tuple[bool, list[str]]]:
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "--git-dir", repo, "archive", "HEAD", "osiris", "components"], capture_output=True,
                                 check=True).stdout
        tarfile.open(fileobj=BytesIO(archive)).extractall(tmp, filter="data")
        (Path(tmp) / "osiris" / "__init__.py").write_text("")
        done = subprocess.run([sys.executable, "-c", _PUBLIC_VALIDATE], input=json.dumps(texts), cwd=tmp,
                              capture_output=True, text=True, check=True)
    return [(ok, errors) for ok, errors in json.loads(done.stdout)]


# Codes where rejecting what public Osiris accepts is intended (docs/oml.md, "Public Osiris"): a
# person reading the pipeline sides with Osiris (it cannot run, or it leaves the trust boundary).
STRICTER_ON_PURPOSE = {
    "OML206": "oml_version other than 0.1.0 (public's roadmap drafts of 0.2.0)",
    "OML209": "a step key of public's future drafts (depends_on, outputs, ...)",
    "OML213": "a schedule that is not a 5-field cron expression",
    "OML301": "a component that does not exist (public only warns)",
    "OML303": "a required config field missing (public does not check a step without config)",
    "OML309": "a rule of the component's spec (neither table nor query; replace without primary_key)",
    "OML314": "a step changing where its connection connects (host, port, endpoint)",
    "OML316": "a ${NAME} environment reference in a step",
    "OML317": "a path outside the project (/tmp/output.csv)",
    "OML307": "a value outside the field's allowed values",
    "OML401": "a needs or inputs that names no earlier step",
    "OML409": "a writer with no input (the first step)",
}


def check_pipelines(repo: str) -> tuple[int, int, int]:
    found = pipelines(repo)
    registry = load_registry()
    theirs = public_verdicts(repo, [text for _, text in found])
    same = better = 0
    for (name, text), (public_ok, public_errors) in zip(found, theirs):
        report = Validator(registry, connections_for(text)).validate(text)
        agree = report.valid == public_ok
        stricter = public_ok and not report.valid and set(report.error_codes) <= set(STRICTER_ON_PURPOSE)
        same += agree
        better += stricter
        ours = ",".join(report.error_codes) or "valid"
        verdict = "same" if agree else "stricter on purpose" if stricter else "DIFF"
        print(f"{verdict}  {name}: ours {ours}; public {'valid' if public_ok else ','.join(sorted(set(public_errors)))}")
    return same, better, len(found)


def check_specs(repo: str) -> tuple[int, int]:
    from jsonschema import Draft202012Validator

    meta = Draft202012Validator(json.loads(git(repo, "show", "HEAD:components/spec.schema.json")))
    paths = [p for p in git(repo, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
             if p.endswith("/spec.yaml") and "archive" not in p]
    same = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            text = git(repo, "show", f"HEAD:{path}")
            folder = Path(tmp) / path.replace("/", "_")
            (folder / "spec").mkdir(parents=True)
            (folder / "spec" / "spec.yaml").write_text(text)
            registry = load_registry([folder])
            public_ok = not list(meta.iter_errors(yaml.safe_load(text)))
            problems = [str(p) for p in registry.problems] + example_problems(registry)
            ours_ok = not problems
            same += ours_ok == public_ok
            print(f"{'same' if ours_ok == public_ok else 'DIFF'}  {path}: ours "
                  f"{'valid' if ours_ok else problems[0][:100]}; public {'valid' if public_ok else 'meta-schema error'}"
                  f"; {len(example_warnings(registry))} example warning(s)")
    return same, len(paths)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", required=True, help="the git directory of a keboola/osiris clone")
    repo = parser.parse_args().repo
    same_pipelines, better, pipelines_total = check_pipelines(repo)
    same_specs, specs_total = check_specs(repo)
    print(f"pipelines: {same_pipelines}/{pipelines_total} with public Osiris's verdict, "
          f"{better} more rejected on purpose ({', '.join(sorted(STRICTER_ON_PURPOSE))})")
    print(f"specs: {same_specs}/{specs_total} with public Osiris's verdict")


if __name__ == "__main__":
    main()

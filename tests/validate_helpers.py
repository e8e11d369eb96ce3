"""Shared helpers for the validation tests: a real registry, a validator, OML builders, the CLI."""

from __future__ import annotations

import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from osiris.registry import Registry, load_registry
from osiris.validate import Validator
from osiris.validate.rules import compile_rules
from tests.inprocess import run_inprocess
from tests.support import REPO, clean_env, run_osiris  # noqa: F401 (REPO is re-exported)

CONNECTIONS: dict[str, Any] = {
    "mysql": {"default": {"host": "db.internal", "database": "shop", "user": "reader",
                          "password": "${MYSQL_PASSWORD}"}},
    "postgres": {"default": {"host": "pg.internal", "database": "dw", "user": "etl"}},
    "supabase": {"default": {"url": "https://acme.supabase.co"}},
    "graphql": {"github": {"endpoint": "https://api.github.com/graphql", "auth_type": "bearer"}},
    "rest": {"crm": {"base_url": "https://crm.example.com/api"}},
}

# Two PostgreSQL reads with known columns (audit_id, actor; last_id), independent of each other: the
# start of the SQL name-check pipelines (tests/test_sql_scopes.py, tests/test_sql_valid_corpus.py),
# which add their transform steps after it.
AUDIT_READS = """\
oml_version: "0.1.0"
name: audit
steps:
  - id: audit
    component: postgres.extractor
    mode: read
    config:
      connection: "@postgres.default"
      query: "SELECT audit_id, actor FROM audit_log"
  - id: last
    component: postgres.extractor
    mode: read
    needs: []
    config:
      connection: "@postgres.default"
      query: "SELECT last_id FROM checkpoints"
"""


@lru_cache(maxsize=1)
def registry() -> Registry:
    return load_registry()


def validator(rules: list[Any] = ()) -> Validator:  # type: ignore[assignment]
    return Validator(registry(), CONNECTIONS, compile_rules(list(rules)))


def step(step_id: str, component: str, mode: str, config: dict[str, Any] | None = None,
         needs: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    result: dict[str, Any] = {"id": step_id, "component": component, "mode": mode}
    if needs is not None:
        result["needs"] = needs
    result["config"] = config if config is not None else {}
    result.update(extra)
    return result


def extract_step(**config: Any) -> dict[str, Any]:
    return step("extract-customers", "mysql.extractor", "read",
                {"connection": "@mysql.default", "table": "customers", **config})


def csv_step(needs: list[str] | None = None, **config: Any) -> dict[str, Any]:
    return step("write-csv", "filesystem.csv_writer", "write", {"path": "out/customers.csv", **config},
                needs=needs if needs is not None else ["extract-customers"])


def oml(*steps: dict[str, Any], **top: Any) -> str:
    """An OML document; `top` overrides or adds top-level keys (None removes one)."""
    document: dict[str, Any] = {"oml_version": "0.1.0", "name": "customers-to-csv",
                                "steps": list(steps) or [extract_step(), csv_step()]}
    for key, value in top.items():
        if value is None:
            document.pop(key, None)
        else:
            document[key] = value
    return yaml.safe_dump(document, sort_keys=False)


def codes(text: str, **kwargs: Any) -> list[str]:
    return [issue.code for issue in validator(kwargs.pop("rules", ())).validate(text, **kwargs).issues]


def run_cli(*args: str, stdin: str | None = None, cwd: Path | None = None,
            env: dict[str, str] | None = None, process: bool = False) -> subprocess.CompletedProcess[str]:
    """`osiris ARGS` in a clean environment (no ANTHROPIC_* variables): in this process
    (tests/inprocess.py: the same arguments, environment, directory and stdin) unless `process=True`
    asks for a real `python -m osiris` child, where only a process shows what is tested (what a C
    library writes to file descriptor 2, for one)."""
    runner = run_osiris if process else run_inprocess
    return runner(*args, cwd=cwd or Path.cwd(), env=clean_env(**(env or {})), input=stdin)


GOOD_TEXT = oml()


def example_specs_ok() -> list[str]:
    from osiris.validate.examples import example_problems

    return example_problems(registry())

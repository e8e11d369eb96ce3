"""A project for `osiris run` tests: settings with real database connections whose passwords come
from `${ENV}` references, pipelines written from step lists, and a scan for planted secrets."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import yaml

from tests.support import clean_env
from tests.inprocess import run_inprocess
from tests.support import run_osiris as _run_osiris

PG_ENV, MARIA_ENV = "PG_PASSWORD", "MARIA_PASSWORD"
ENGINES = {"duckdb": {"engine": "duckdb"}, "spark": {"engine": "spark", "spark": {"master": "local[1]"}}}


def on_engine(project: RunProject, engine: str) -> RunProject:
    """The project's settings with `run:` for `engine` (ENGINES: Spark on one local core)."""
    settings_file = project.root / ".osiris.yaml"
    settings = yaml.safe_load(settings_file.read_text(encoding="utf-8")) or {}
    settings_file.write_text(yaml.safe_dump({**settings, "run": ENGINES[engine]}), encoding="utf-8")
    return project


def after(step: dict[str, Any], *inputs: str) -> dict[str, Any]:
    """`step` needing the steps `inputs`."""
    return {**step, "needs": list(inputs)}


class RunProject:
    def __init__(self, root: Path, postgres: Any = None, mariadb: Any = None) -> None:
        self.root = root
        self.env: dict[str, str] = {}
        self.secrets: list[str] = []
        connections: dict[str, Any] = {}
        for family, server, variable in (("postgres", postgres, PG_ENV), ("mysql", mariadb, MARIA_ENV)):
            if server is not None:
                fields = dict(server.connection())
                self.env[variable] = str(fields.pop("password"))
                self.secrets.append(self.env[variable])
                connections[family] = {"default": {**fields, "password": f"${{{variable}}}"}}
        root.mkdir(parents=True, exist_ok=True)
        (root / ".osiris.yaml").write_text(yaml.safe_dump({"connections": connections}), encoding="utf-8")

    def pipeline(self, steps: list[dict[str, Any]], name: str = "test-run") -> Path:
        path = self.root / f"{name}.yaml"
        path.write_text(yaml.safe_dump({"oml_version": "0.1.0", "name": name, "steps": steps}, sort_keys=False),
                        encoding="utf-8")
        return path

    def run(self, *args: str, env: dict[str, str] | None = None, process: bool = False
            ) -> subprocess.CompletedProcess[str]:
        """`osiris run ARGS` in the project: in-process (tests/inprocess.py) unless `process` asks for
        a real child (what only a process shows: its exit status from the entry point)."""
        runner = _run_osiris if process else run_inprocess
        result = runner("run", *args, cwd=self.root, env=clean_env(**{**self.env, **(env or {})}), timeout=120)
        self.assert_no_secrets(result.stdout + result.stderr)
        return result

    def planted(self, variable: str, secret: str) -> None:
        """`${variable}` is `secret` in every command's environment, and `secret` is looked for everywhere."""
        self.env[variable] = secret
        self.secrets.append(secret)

    def assert_no_secrets(self, text: str = "") -> None:
        """No planted password in `text` or in any file of any session."""
        files = [p for p in (self.root / ".osiris").rglob("*") if p.is_file()] if (self.root / ".osiris").exists() else []
        for secret in self.secrets:
            assert secret not in text
            for path in files:
                assert secret not in path.read_text(encoding="utf-8", errors="replace"), path

    def last_session(self) -> Path:
        """The newest session; ids sort by second only, so two runs in one second need started_at."""
        sessions = (self.root / ".osiris" / "sessions").iterdir()
        return max(sessions, key=lambda p: json.loads((p / "session.json").read_text())["started_at"])

    def step_columns(self, step_id: str) -> list[tuple[str, str]]:
        """The (name, DuckDB type) columns the last run recorded for one step."""
        run = json.loads((self.last_session() / "artifacts" / "run.json").read_text(encoding="utf-8"))
        [step] = [s for s in run["steps"] if s["id"] == step_id]
        return [(c["name"], c["type"]) for c in step["columns"]]

    def run_failing(self, steps: list[dict[str, Any]], name: str = "failing") -> tuple[Path, str]:
        """Run a pipeline that must fail at run time (exit 6) without a traceback: its path and stderr."""
        path = self.pipeline(steps, name=name)
        result = self.run(str(path))
        assert result.returncode == 6, result.stdout + result.stderr
        assert "Traceback" not in result.stderr
        return path, result.stderr

    def csv_rows(self, text: str) -> dict[str, Any]:
        """A step `read` of rows.csv, written with `text`."""
        (self.root / "rows.csv").write_text(text, encoding="utf-8")
        return {"id": "read", "component": "filesystem.csv_extractor", "mode": "read", "config": {"path": "rows.csv"}}

    def events(self) -> list[dict[str, Any]]:
        lines = (self.last_session() / "events.jsonl").read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines]


def pg_step(step_id: str, oml_mode: str, **config: Any) -> dict[str, Any]:
    component = "postgres.extractor" if oml_mode == "read" else "postgres.writer"
    return {"id": step_id, "component": component, "mode": oml_mode,
            "config": {"connection": "@postgres.default", **config}}


def mysql_step(step_id: str, oml_mode: str, **config: Any) -> dict[str, Any]:
    component = "mysql.extractor" if oml_mode == "read" else "mysql.writer"
    return {"id": step_id, "component": component, "mode": oml_mode,
            "config": {"connection": "@mysql.default", **config}}


def csv_step(step_id: str, oml_mode: str, path: str, **config: Any) -> dict[str, Any]:
    component = "filesystem.csv_extractor" if oml_mode == "read" else "filesystem.csv_writer"
    return {"id": step_id, "component": component, "mode": oml_mode, "config": {"path": path, **config}}


def sql_step(step_id: str, query: str, **extra: Any) -> dict[str, Any]:
    return {"id": step_id, "component": "duckdb.processor", "mode": "transform", "config": {"query": query}, **extra}


def set_connection(root: Path, family: str, alias: str, fields: dict[str, Any],
                   extra: dict[str, Any] | None = None) -> None:
    """`.osiris.yaml` in `root` with this one connection, and the `extra` settings over what it held."""
    path = root / ".osiris.yaml"
    config = (yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else None) or {}
    config.update(extra or {})
    config["connections"] = {family: {alias: fields}}
    root.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config), encoding="utf-8")

"""Hostile pipelines for `osiris run --sample` (issue 22): the fuzz test and bench/fuzz.py --hostile.

`pipelines(seed, arena)` yields an endless, reproducible stream of pipelines that try to get out of
the trust boundary (docs/security.md) in many small variations: paths that go up, start at `/` or
`~`, follow a link out or name Osiris's own files; step ids that are paths; SQL that reads files,
globs folders or fetches URLs, in any letter case and nesting; steps that move a connection to a
server the arena listens on; `${VAR}` references anywhere; and rows whose values a failing cast
would quote. Issue 42's families too: JVM reflection (`reflect`, `java_method`, `try_reflect`),
file-format relation names (`csv.df_x`), hidden files inside the project (`.env`, `.git/config`),
LATERAL table functions, engine errors that would carry a cell (`error(name)`, a regex built from a
cell, PIVOT), and a query that would never end. Each is mixed with harmless steps, so that both
validation and the runtime meet it.

An `Arena` is one project beside a folder of planted files, with an HTTP server and a TCP port
that no pipeline may reach. `Arena.attempt(pipeline)` runs it as `osiris run --sample 3` does (the
real CLI, in process) and as a pipeline that skipped validation would reach the engine, and returns
what went wrong: an escape (a planted file changed, a file appeared outside the session, the
servers heard something, the project changed) or a leak (a planted secret or file content in the
output, the session files or a runtime problem), or a crash (exit 5, a traceback, an exception).
"""

from __future__ import annotations

import random
import shutil
from collections import Counter
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import TEST_API_KEY
from tests.inprocess import run_inprocess
from tests.servers.http_apis import TOKEN, start_api
from tests.support import clean_env

OTHER = "fz-other-Planted-31c7e"  # an environment variable no connection names
PASSWORD = "fz-password-Planted-8a04d2c9e1"  # a database connection's password
CONTENT = "fz-file-Contents-Planted-6b2f"  # in every file outside the project
CELL = "fz-cell-Planted-0d93"  # a value of the project's own data: the preview may show it, nothing else
DOTENV = "fz-dotenv-Planted-5e1a"  # in the project's own .env: never read, never shown
SECRETS = (TOKEN, OTHER, PASSWORD, CONTENT, DOTENV)
DEADLINE_SECONDS = 1.0  # the arena's sample runs end by then, so a query that never ends cannot hang the fuzz
PIPELINE = "hostile.yaml"


class Arena:
    """A project, a folder of planted files beside it, and servers that must never be reached."""

    def __init__(self, root: Path) -> None:
        self.root, self.project, self.outside = root, root / "project", root / "outside"
        self.legit, self.hostile = start_api(), start_api()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.05)
        self.knocks = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._listen, daemon=True)
        self._thread.start()
        self.port = self.listener.getsockname()[1]
        for folder in (self.project / "data", self.outside / ".ssh", self.outside / "data"):
            folder.mkdir(parents=True)
        for name in ("environ", "victim.csv", ".ssh/authorized_keys", "data/people.csv", ".osiris.yaml"):
            (self.outside / name).write_text(f"id,name\n1,{CONTENT}\n")
        (self.project / "data" / "people.csv").write_text(f"id,name,amount\n1,Ann,10\n2,{CELL},x7\n")
        (self.project / "link").symlink_to(self.outside)
        (self.project / "data" / "leak.csv").symlink_to(self.outside / "victim.csv")
        (self.project / "components").mkdir()
        (self.project / ".env").write_text(f"AWS_SECRET_ACCESS_KEY={DOTENV}\n")
        (self.project / ".git").mkdir()
        (self.project / ".git" / "config").write_text("[core]\n\tbare = false\n")
        (self.project / ".osiris.yaml").write_text(yaml.safe_dump({
            "validation": {"dry_run_timeout_seconds": DEADLINE_SECONDS}, "connections": {
            "rest": {"api": {"base_url": self.legit.url, "auth_type": "bearer", "auth_token": "${API_TOKEN}"}},
            "postgres": {"default": {"host": "127.0.0.1", "port": 9, "database": "d", "user": "u",
                                     "password": "${PG_PW}"}},
            "graphql": {"gh": {"endpoint": f"{self.legit.url}/graphql", "auth_type": "bearer",
                               "auth_token": "${API_TOKEN}"}},
        }}))
        self.exits: Counter[int] = Counter()  # `run --sample` exit codes: 1 refused by validation, 6 at run time
        self.codes: Counter[str] = Counter()  # the engine's problems when validation is skipped
        self.env = clean_env(ANTHROPIC_API_KEY=TEST_API_KEY, API_TOKEN=TOKEN, OTHER_SECRET=OTHER, PG_PW=PASSWORD,
                             HOME=str(self.outside))
        self.outside_files = _snapshot(self.outside)
        self.project_files = self._project_snapshot()

    def _listen(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.listener.accept()
            except (TimeoutError, OSError):
                continue
            self.knocks += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.listener.close()
        self.legit.stop()
        self.hostile.stop()

    def _project_snapshot(self) -> dict[str, bytes]:
        return {k: v for k, v in _snapshot(self.project).items() if not k.startswith(".osiris/") and k != PIPELINE}

    def attempt(self, pipeline: dict[str, Any], number: int) -> tuple[list[str], list[str], list[str]]:
        """(escapes, leaks, crashes) of one hostile pipeline: through `run --sample` and the engine."""
        from osiris.run.display import Listeners
        from osiris.run.duckdb_run import RunOptions, run_pipeline

        path = self.project / PIPELINE
        written = yaml.safe_dump(pipeline, sort_keys=False, allow_unicode=True).encode()
        path.write_bytes(written)
        crashes: list[str] = []
        done = run_inprocess("run", str(path), "--sample", "3", cwd=self.project, env=self.env)
        self.exits[done.returncode] += 1
        if done.returncode not in (0, 1, 6) or "Traceback" in done.stderr:
            crashes.append(f"exit {done.returncode}: {done.stderr[-300:]}")
        texts = [done.stdout, done.stderr]
        problems: list[str] = []  # where not even the project's own cells may appear
        settings = yaml.safe_load((self.project / ".osiris.yaml").read_text())
        try:
            from osiris.run.deadline import RunLimit

            options = RunOptions(connections=settings["connections"], env=self.env, base_dir=self.project, sample=3,
                                 limit=RunLimit(DEADLINE_SECONDS, "validation.dry_run_timeout_seconds"))
            result = run_pipeline(pipeline, options, Listeners())
            self.codes.update(s.problem.code for s in result.steps if s.problem)
            problems += [f"{p.message} {p.hint} {p.value}" for s in result.steps for p in [s.problem, *s.warnings] if p]
            problems += [repr(s.columns) for s in result.steps]
            texts += problems + [repr(s.preview) for s in result.steps if s.preview]
        except Exception as error:  # the engine must turn everything into a step's problem
            crashes.append(f"engine raised {type(error).__name__}: {str(error)[:200]}")
        escapes = self._escapes() + ([] if path.read_bytes() == written else ["the pipeline file was overwritten"])
        path.unlink()
        leaks = self._leaks(texts) + [f"{CELL} in a problem or a column name" for text in problems if CELL in text][:1]
        return escapes, leaks, crashes

    def _escapes(self) -> list[str]:
        found = []
        if _snapshot(self.outside) != self.outside_files:
            found.append("a file outside the project was written")
        if self._project_snapshot() != self.project_files:
            found.append("the project changed outside .osiris/ (a sample run keeps nothing)")
        if self.hostile.requests:
            found.append(f"the hostile server heard {len(self.hostile.requests)} requests")
            self.hostile.reset()
        if self.knocks:
            found.append(f"the listener heard {self.knocks} connections")
            self.knocks = 0
        scratch = self.project / ".osiris" / "tmp"
        if scratch.is_dir() and any(scratch.iterdir()):
            found.append("a scratch directory outlived its run")
        return found

    def _leaks(self, texts: list[str]) -> list[str]:
        sessions = self.project / ".osiris" / "sessions"
        files = [p for p in sessions.rglob("*") if p.is_file()] if sessions.is_dir() else []
        found = []
        for secret in SECRETS:
            if any(secret in text for text in texts):
                found.append(f"{secret} in the output or a problem")
        for path in files:
            text = path.read_text(errors="replace")
            for secret in (*SECRETS, CELL):
                if secret in text:
                    found.append(f"{secret} in {path.name}")
        shutil.rmtree(sessions, ignore_errors=True)
        return found


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.is_symlink()}


# --- the stream ------------------------------------------------------------------------------------

def pipelines(seed: int, arena: Arena) -> Iterator[dict[str, Any]]:
    """Endless hostile pipelines: a harmless skeleton with one to three attacks mixed in."""
    rng = random.Random(seed)
    attacks = _attacks(arena)
    while True:
        steps = [_read("read-people", "data/people.csv")]
        for attack in rng.sample(attacks, rng.randint(1, 3)):
            attack(rng, steps)
        yield {"oml_version": "0.1.0", "name": "hostile", "steps": steps}


def _attacks(arena: Arena) -> list[Callable[[random.Random, list[dict[str, Any]]], None]]:
    outside = str(arena.outside)
    paths = ["../outside/victim.csv", f"{outside}/victim.csv", "~/victim.csv", "~root/x.csv", ".osiris.yaml",
             "./.osiris.yaml", ".osiris/sessions/x.csv", ".osiris/tmp/x.csv", "link/victim.csv", "link/new.csv",
             "data/../../outside/victim.csv", "data/leak.csv", "components/x.csv", "hostile.yaml",
             "..\\outside\\victim.csv", "link/.ssh/authorized_keys", "data/%2e%2e/x.csv", "a\u202e/../../x.csv",
             ".env", ".git/config", "./.git/config", ".github/workflows/ci.yml", "data/.hidden.csv", "data/./.env"]
    tables = ["read_csv", "READ_CSV_AUTO", "read_text", "read_blob", "read_json", "read_parquet", "glob",
              "sniff_csv", "parquet_metadata", "duckdb_settings", "read_ndjson_objects"]
    wheres = [f"{outside}/environ", f"{outside}/victim.csv", f"{outside}/*", "link/victim.csv",
              f"{arena.hostile.url}/all.csv", "/proc/self/environ", "data/leak.csv", f"{outside}/.osiris.yaml"]
    ids = [f"{outside}/.ssh", "../../outside", "..", "/", "link", ".osiris", "x/../../y"]
    references = ["${OTHER_SECRET}", "${API_TOKEN}", "${PG_PW}", "x${HOME}y", "${ }", "$${OTHER_SECRET}"]

    def write_to(rng: random.Random, steps: list[dict[str, Any]]) -> None:
        steps.append(_write(f"write-{len(steps)}", rng.choice(paths), steps[-1]["id"]))

    def read_from(rng: random.Random, steps: list[dict[str, Any]]) -> None:
        steps.append(_read(f"read-{len(steps)}", rng.choice(paths)))

    def sql(rng: random.Random, steps: list[dict[str, Any]]) -> None:
        where = rng.choice(wheres)
        source = rng.choice([f"{rng.choice(tables)}('{where}')", f"'{where}'", f'"{where}"'])
        query = rng.choice([f"SELECT * FROM {source}", f"SELECT id FROM input_df UNION ALL SELECT 1 FROM {source}",
                            f"WITH x AS (SELECT * FROM {source}) SELECT * FROM x",
                            f"SELECT (SELECT count(*) FROM {source}) AS n FROM input_df",
                            f"SELECT CAST(content AS INTEGER) AS n FROM {source}",
                            f"COPY (SELECT * FROM input_df) TO '{where}'", f"ATTACH '{where}' AS x",
                            "INSTALL httpfs", "LOAD httpfs", "SET enable_external_access = true",
                            f"SELECT 1; SELECT * FROM {source}"])
        steps.append(_transform(f"shape-{len(steps)}", query, steps[0]["id"]))

    def cast(rng: random.Random, steps: list[dict[str, Any]]) -> None:
        column = rng.choice(["name", "amount"])
        steps.append(_transform(f"cast-{len(steps)}", f"SELECT CAST({column} AS {rng.choice(['INTEGER', 'DATE'])}) "
                                                      "AS v FROM input_df", steps[0]["id"]))

    def hostile_id(rng: random.Random, steps: list[dict[str, Any]]) -> None:
        steps.append(_write(rng.choice(ids), rng.choice(["authorized_keys", "x.csv", "..", "../x.csv"]), steps[0]["id"]))

    def move_connection(rng: random.Random, steps: list[dict[str, Any]]) -> None:
        steps.append(rng.choice([
            {"id": f"fetch-{len(steps)}", "component": "rest.extractor", "mode": "read",
             "config": {"connection": "@rest.api", "endpoint": "/bearer", "data_path": "items",
                        rng.choice(["base_url", "validate_ssl"]): rng.choice([arena.hostile.url, False])}},
            {"id": f"gql-{len(steps)}", "component": "graphql.extractor", "mode": "read",
             "config": {"connection": "@graphql.gh", "query": "{ items { nodes } }",
                        "endpoint": f"{arena.hostile.url}/graphql"}},
            {"id": f"pg-{len(steps)}", "component": "postgres.extractor", "mode": "read",
             "config": {"connection": "@postgres.default", "table": "t",
                        **rng.choice([{"port": arena.port}, {"host": "127.0.0.1", "port": arena.port},
                                      {"sslmode": "disable", "port": arena.port}])}}]))

    def reference(rng: random.Random, steps: list[dict[str, Any]]) -> None:
        step = _victim(rng, steps)
        field = rng.choice(["path", "endpoint", "query", "params", "headers", "delimiter"])
        value = rng.choice(references)
        step["config"][field] = {"X-Leak": value} if field in ("params", "headers") else value

    def base_dir(rng: random.Random, steps: list[dict[str, Any]]) -> None:
        step = _victim(rng, steps, "filesystem.")
        step["config"]["base_dir"] = rng.choice([outside, "..", "~", "link", "/", "data/../.."])

    return [write_to, read_from, sql, sql, cast, hostile_id, move_connection, reference, base_dir,  # SQL twice
            *_issue_42_attacks(outside)]


def _issue_42_attacks(outside: str) -> list[Callable[[random.Random, list[dict[str, Any]]], None]]:
    """The payload families issue 42 found: JVM reflection, file-format relations, LATERAL table
    functions, engine errors that would carry a cell, and a query that never ends."""

    def jvm(rng: random.Random, steps: list[dict[str, Any]]) -> None:
        call = rng.choice(["reflect", "ReFlEcT", "java_method", "try_reflect", '"reflect"'])
        target = rng.choice(["'java.lang.System', 'getenv', 'OTHER_SECRET'",
                             f"'org.apache.spark.util.Utils', 'getPropertiesFromFile', '{outside}/environ'"])
        expression = rng.choice([f"{call}({target})", f"reverse({call}({target}))",
                                 f"CASE WHEN id > 0 THEN {call}({target}) END"])
        query = rng.choice([f"SELECT {expression} AS f FROM input_df",
                            f"WITH x AS (SELECT {expression} AS f FROM input_df) SELECT * FROM x"])
        steps.append(_transform(f"jvm-{len(steps)}", query, steps[0]["id"]))

    def relation(rng: random.Random, steps: list[dict[str, Any]]) -> None:
        fmt = rng.choice(["csv", "CSV", "text", "parquet", "json", '"csv"'])
        name = rng.choice(["df_read_people", "input_df", "environ", '"df_read_people"'])
        steps.append(_transform(f"rel-{len(steps)}", rng.choice([f"SELECT * FROM {fmt}.{name}",
                                                                 f"SELECT * FROM (SELECT * FROM {fmt}.{name}) t"]),
                                steps[0]["id"]))

    def lateral(rng: random.Random, steps: list[dict[str, Any]]) -> None:
        call = rng.choice([f"read_text('{outside}/environ')", f"glob('{outside}/*')", f"read_csv('{outside}/victim.csv')",
                           "query('SELECT 42 AS q')", "QuErY_TaBlE('df_read_people')", "read_text('.env')"])
        steps.append(_transform(f"lat-{len(steps)}", f"SELECT * FROM input_df, LATERAL {call}", steps[0]["id"]))

    def engine_words(rng: random.Random, steps: list[dict[str, Any]]) -> None:
        query = rng.choice(["SELECT error(name) AS e FROM input_df",
                            "SELECT regexp_matches('x', name || '(') AS m FROM input_df",
                            "PIVOT input_df ON name USING count(*)",
                            "SELECT * FROM (PIVOT input_df ON name USING sum(id))",
                            "SELECT CAST(name AS INTEGER) + CAST(amount AS INTEGER) AS n FROM input_df"])
        steps.append(_transform(f"words-{len(steps)}", query, steps[0]["id"]))

    def never_ends(rng: random.Random, steps: list[dict[str, Any]]) -> None:
        steps.append(_transform(f"long-{len(steps)}", "SELECT sum(i) AS s FROM range(10000000000000) t(i)",
                                steps[0]["id"]))

    return [jvm, relation, lateral, engine_words, engine_words, never_ends]


def _victim(rng: random.Random, steps: list[dict[str, Any]], family: str = "") -> dict[str, Any]:
    """A step to spoil, never the first read (the others need its rows): a new read when none fits."""
    fits = [s for s in steps[1:] if s["component"].startswith(family)]
    if not fits:
        steps.append(_read(f"read-{len(steps)}", "data/people.csv"))
        return steps[-1]
    return rng.choice(fits)


def _read(step_id: str, path: str) -> dict[str, Any]:
    return {"id": step_id, "component": "filesystem.csv_extractor", "mode": "read", "config": {"path": path}}


def _write(step_id: str, path: str, after: str) -> dict[str, Any]:
    return {"id": step_id, "component": "filesystem.csv_writer", "mode": "write", "needs": [after],
            "config": {"path": path}}


def _transform(step_id: str, query: str, after: str) -> dict[str, Any]:
    return {"id": step_id, "component": "duckdb.processor", "mode": "transform", "needs": [after],
            "config": {"query": query}}


def campaign(seed: int, count: int, root: Path, report: Callable[[int, list[str], list[str], list[str]], None]
             ) -> Arena:
    """Run `count` hostile pipelines in one arena under `root`, reporting each input's findings; the
    arena, closed, with its tallies."""
    arena = Arena(root)
    try:
        for number, pipeline in enumerate(pipelines(seed, arena)):
            if number >= count:
                break
            report(number, *arena.attempt(pipeline, number))
    finally:
        arena.close()
    return arena


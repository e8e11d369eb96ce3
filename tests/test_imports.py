"""Every module of osiris can be imported first, on its own: no import cycle hides behind the order
in which the commands happen to import things (osiris.sample.tier had one)."""

from __future__ import annotations

import subprocess
import sys

from tests.support import clean_env

PROBE = """
import importlib, pkgutil, sys
import osiris
names = sorted(m.name for m in pkgutil.walk_packages(osiris.__path__, "osiris.") if not m.name.endswith("__main__"))
broken = []
for name in names:
    for loaded in [m for m in sys.modules if m == "osiris" or m.startswith("osiris.")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception as error:
        broken.append(f"{name}: {type(error).__name__}: {error}")
print(len(names))
print("\\n".join(broken))
"""


def test_every_module_imports_first_on_its_own() -> None:
    # Imports every module afresh, one after another: minutes on a loaded machine (120 s ran out at a
    # load of 17); the timeout only stops a hang.
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=clean_env(), timeout=900)
    assert done.returncode == 0, done.stderr
    count, *broken = done.stdout.strip().splitlines()
    assert int(count) > 150
    assert broken == []


def test_only_the_mcp_server_imports_the_mcp_sdk(tmp_path) -> None:
    """`osiris --help`, `osiris validate` and `osiris mcp --help` load nothing of the SDK (nor
    starlette, which it brings); only the server itself does."""
    (tmp_path / "p.yaml").write_text('oml_version: "0.1.0"\nname: p\nsteps: []\n')
    probe = ("import sys; from osiris.cli import main; main(sys.argv[1:]); "
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types', 'starlette')))")
    for args in (["--help"], ["validate", "p.yaml"], ["mcp", "--help"]):
        done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, cwd=tmp_path,
                              env=clean_env(), timeout=120)
        assert done.stdout.strip().splitlines()[-1] == "[]", (args, done.stdout, done.stderr)
    loaded = subprocess.run([sys.executable, "-c", "import sys, osiris.mcp.server; print('mcp' in sys.modules)"],
                            capture_output=True, text=True, env=clean_env(), timeout=120)
    assert loaded.stdout.strip() == "True"  # the probe above would see the SDK if a command loaded it


def test_validate_leaves_the_keyring_alone_and_still_masks_a_secret_from_the_environment(tmp_path) -> None:
    """`osiris validate` connects to nothing, so it never asks the system keyring (no import of it, no
    unlock prompt); a connection secret set in the environment is still masked where the file repeats it."""
    (tmp_path / ".osiris.yaml").write_text(
        "connections:\n  mysql:\n    default:\n      host: db.internal\n      database: shop\n      user: osiris\n"
        "      password: ${SHOP_PASSWORD}\n      other: ${UNSET_ELSEWHERE}\n")
    (tmp_path / "p.yaml").write_text(
        'oml_version: "0.1.0"\nname: p\nsteps:\n  - id: read\n    component: mysql.extractor\n    mode: read\n'
        '    config:\n      connection: "@mysql.default"\n      query: SELECT 1 AS one\n      surprise: planted-secret-84121\n')
    probe = "import sys; from osiris.cli import main; main(sys.argv[1:]); print('keyring' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe, "validate", "p.yaml"], capture_output=True, text=True,
                          cwd=tmp_path, env=clean_env(SHOP_PASSWORD="planted-secret-84121"), timeout=120)
    assert done.stdout.strip().splitlines()[-1] == "False", done.stdout + done.stderr
    assert "surprise" in done.stdout + done.stderr  # the unknown field is reported...
    assert "planted-secret-84121" not in done.stdout + done.stderr  # ...without the secret it holds


def test_only_the_openai_provider_imports_the_openai_sdk(tmp_path) -> None:
    """`osiris --help`, `validate`, `generate --provider demo` and building the Anthropic provider
    load nothing of the openai SDK; building the OpenAI provider's client does (ADR 0190)."""
    (tmp_path / "p.yaml").write_text('oml_version: "0.1.0"\nname: p\nsteps: []\n')
    probe = ("import sys; from osiris.cli import main; main(sys.argv[1:]); "
             "print(sorted(m for m in sys.modules if m.split('.')[0] == 'openai'))")
    for args in (["--help"], ["validate", "p.yaml"], ["generate", "--provider", "demo", "customers to a CSV"]):
        done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, cwd=tmp_path,
                              env=clean_env(), timeout=120)
        assert done.stdout.strip().splitlines()[-1] == "[]", (args, done.stdout, done.stderr)
    built = ("import sys; from osiris.llm.anthropic_provider import AnthropicProvider as A; "
             "A(api_key='k', model='m').prepare(); print('openai' in sys.modules); "
             "from osiris.llm.openai_provider import OpenAIProvider as O; print('openai' in sys.modules); "
             "O(api_key='k', model='m').prepare(); print('openai' in sys.modules)")
    loaded = subprocess.run([sys.executable, "-c", built], capture_output=True, text=True, env=clean_env(), timeout=120)
    assert loaded.stdout.split() == ["False", "False", "True"], loaded.stderr


def test_a_csv_only_run_imports_no_database_driver_nor_the_keyring(tmp_path) -> None:
    """The fixed start of a run is a budget (docs/performance.md): a CSV -> CSV run in a project that
    configures PostgreSQL and MySQL connections imports neither driver, nor the keyring (their
    secrets are in the environment), nor sqlglot (no SQL field), httpx or rich (no terminal), nor
    the `duckdb` package's Python layer: it runs on DuckDB's compiled engine, `_duckdb` (ADR 0206)."""
    (tmp_path / ".osiris.yaml").write_text(
        "connections:\n  postgres:\n    default:\n      host: 127.0.0.1\n      database: shop\n      user: osiris\n"
        "      password: ${PG_PASSWORD}\n  mysql:\n    default:\n      host: 127.0.0.1\n      database: shop\n"
        "      user: osiris\n      password: ${MYSQL_PASSWORD}\n")
    (tmp_path / "in.csv").write_text("id,name\n1,a\n2,b\n")
    (tmp_path / "p.yaml").write_text(
        'oml_version: "0.1.0"\nname: p\nsteps:\n  - id: read\n    component: filesystem.csv_extractor\n'
        "    mode: read\n    config:\n      path: in.csv\n  - id: write\n    component: filesystem.csv_writer\n"
        "    mode: write\n    needs: [read]\n    config:\n      path: out.csv\n")
    heavy = ("psycopg", "pymysql", "keyring", "secretstorage", "sqlglot", "httpx", "rich", "prompt_toolkit",
             "anthropic", "openai", "pydantic", "jsonschema", "pyspark", "duckdb")
    probe = ("import sys; from osiris.cli import main; print('exit', main(sys.argv[1:])); "
             f"print(sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r})); "
             "print('_duckdb' in sys.modules)")  # the engine did run
    done = subprocess.run([sys.executable, "-c", probe, "run", "p.yaml"], capture_output=True, text=True,
                          cwd=tmp_path, env=clean_env(PG_PASSWORD="pg-secret", MYSQL_PASSWORD="my-secret"),
                          timeout=120)
    assert done.stdout.splitlines()[-3:] == ["exit 0", "[]", "True"], done.stdout + done.stderr
    assert (tmp_path / "out.csv").read_text() == "id,name\n1,a\n2,b\n"


def test_validate_imports_nothing_only_a_wrong_name_or_a_run_needs(tmp_path) -> None:
    """The fixed start is a budget (docs/performance.md): a valid pipeline's `osiris validate` imports
    neither difflib (hints for a wrong name), importlib.resources nor importlib.metadata (the specs
    and the engine words are found beside the modules), nor uuid and platform (scratch names)."""
    (tmp_path / "p.yaml").write_text(
        'oml_version: "0.1.0"\nname: p\nsteps:\n  - id: read\n    component: filesystem.csv_extractor\n'
        "    mode: read\n    config:\n      path: in.csv\n  - id: write\n    component: filesystem.csv_writer\n"
        "    mode: write\n    needs: [read]\n    config:\n      path: out.csv\n")
    cut = ("difflib", "importlib.resources", "importlib.metadata", "zipfile", "uuid", "platform")
    probe = ("import sys; from osiris.cli import main; print('exit', main(sys.argv[1:])); "
             f"print(sorted(m for m in sys.modules if m in {cut!r}))")
    done = subprocess.run([sys.executable, "-c", probe, "validate", "p.yaml"], capture_output=True, text=True,
                          cwd=tmp_path, env=clean_env(), timeout=120)
    assert done.stdout.splitlines()[-2:] == ["exit 0", "[]"], done.stdout + done.stderr


def test_a_run_never_lists_the_engine_s_catalog(tmp_path) -> None:
    """Listing `duckdb_tables()`, or `duckdb_columns()` of every schema, costs tens of milliseconds the
    first time in a process: a run asks for its tables by name and for column notes in its own schema."""
    (tmp_path / "in.csv").write_text("id,name\n1,a\n2,b\n")
    (tmp_path / "p.yaml").write_text(
        'oml_version: "0.1.0"\nname: p\nsteps:\n  - id: read\n    component: filesystem.csv_extractor\n'
        "    mode: read\n    config:\n      path: in.csv\n  - id: write\n    component: filesystem.csv_writer\n"
        "    mode: write\n    needs: [read]\n    config:\n      path: out.csv\n")
    probe = """
import sys
from osiris.duckdb_core import duckdb  # the engine module the run connects with
seen = []
class Watched:
    def __init__(self, con): self.con = con
    def execute(self, sql, *args):
        seen.append(sql)
        return self.con.execute(sql, *args)
    def __getattr__(self, name): return getattr(self.con, name)
real = duckdb.connect
duckdb.connect = lambda *a, **k: Watched(real(*a, **k))
from osiris.cli import main
print('exit', main(sys.argv[1:]))
print([s for s in seen if 'duckdb_tables()' in s or ('duckdb_columns()' in s and 'current_schema()' not in s)])
"""
    done = subprocess.run([sys.executable, "-c", probe, "run", "p.yaml"], capture_output=True, text=True,
                          cwd=tmp_path, env=clean_env(), timeout=120)
    assert done.stdout.splitlines()[-2:] == ["exit 0", "[]"], done.stdout + done.stderr
    assert (tmp_path / "out.csv").read_text() == "id,name\n1,a\n2,b\n"


def test_a_run_never_asks_the_engine_for_a_table_that_is_not_there(tmp_path) -> None:
    """DuckDB's first lookup of a missing table searches its whole catalog for a "Did you mean"
    (10-15 ms once per process, docs/performance.md): a writer leaves no table, so the run does not
    look for one, on a plain copy nor around a fused read."""
    (tmp_path / "in.csv").write_text("id,amount\n1,1.5\n2,2.5\n")
    steps = ('oml_version: "0.1.0"\nname: p\nsteps:\n  - id: read\n    component: filesystem.csv_extractor\n'
             "    mode: read\n    config:\n      path: in.csv\n{middle}  - id: write\n    component: filesystem.csv_writer\n"
             "    mode: write\n    needs: [{last}]\n    config:\n      path: out.csv\n")
    (tmp_path / "copy.yaml").write_text(steps.format(middle="", last="read"))
    (tmp_path / "fused.yaml").write_text(steps.format(
        middle="  - id: total\n    component: duckdb.processor\n    mode: transform\n    needs: [read]\n"
               "    config:\n      query: SELECT sum(amount) AS amount FROM input_df\n", last="total"))
    probe = """
import sys
from osiris.duckdb_core import duckdb  # the engine module the run connects with
missing = []
class Watched:
    def __init__(self, con): self.con = con
    def execute(self, sql, *args):
        try:
            return self.con.execute(sql, *args)
        except duckdb.CatalogException:
            missing.append(sql)
            raise
    def __getattr__(self, name): return getattr(self.con, name)
real = duckdb.connect
duckdb.connect = lambda *a, **k: Watched(real(*a, **k))
from osiris.cli import main
print('exit', main(sys.argv[1:]))
print(missing)
"""
    for pipeline, written in (("copy.yaml", "id,amount\n1,1.5\n2,2.5\n"), ("fused.yaml", "amount\n4.0\n")):
        done = subprocess.run([sys.executable, "-c", probe, "run", pipeline], capture_output=True, text=True,
                              cwd=tmp_path, env=clean_env(), timeout=120)
        assert done.stdout.splitlines()[-2:] == ["exit 0", "[]"], done.stdout + done.stderr
        assert (tmp_path / "out.csv").read_text() == written

"""Build osiris/trust/engine_words.txt: the fixed vocabulary an engine's error text may keep
(docs/security.md, "What an engine says").

    .venv/bin/python bench/engine_words.py [--check]

The words are those of the engines' own message templates and keywords, never of data: DuckDB's
keywords and the words of its error templates (the strings of its library that hold a `%s` or
`{}`), PostgreSQL's templates (the `postgres` binary, when installed), MariaDB's message file
(`errmsg.sys`, when installed), Spark's error conditions (pyspark's `error-conditions.json` and the
JVM's in `spark-common-utils*.jar`), and Osiris's own runtime messages (the string literals of
osiris/run, osiris/trust and osiris/sample). Only lowercase words of two characters or more that start with a letter (digits only in type
names such as int32), and the single letters `a` and `s`.
A word enters by rebuilding the list and reviewing the diff (`--check` fails when it would change).
"""

from __future__ import annotations

import argparse
import ast
import glob
import json
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterable
from pathlib import Path

from osiris.trust.disclosure import DUCKDB_TYPES

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "osiris" / "trust" / "engine_words.txt"
WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]{2,}(?![a-z])")
TEMPLATE = re.compile(r"%[sdlu]|\{\}|\{\d\}|<[a-zA-Z]+>")
MARIADB_MESSAGES = ("/usr/share/mysql/english/errmsg.sys", "/usr/share/mariadb/english/errmsg.sys")


def words(texts: Iterable[str]) -> set[str]:
    return {w.lower() for text in texts for w in WORD.findall(text) if len(w) >= 2}


def binary_templates(path: str) -> list[str]:
    """The message templates among a binary's strings: printable texts with a space and a placeholder."""
    out = subprocess.run(["strings", "-n", "8", path], capture_output=True, text=True, check=False).stdout
    return [line for line in out.splitlines() if " " in line and TEMPLATE.search(line)]


def duckdb_words() -> set[str]:
    import duckdb

    found = {str(row[0]).lower() for row in duckdb.sql("SELECT keyword_name FROM duckdb_keywords()").fetchall()}
    found |= {str(row[0]).lower() for row in duckdb.sql("SELECT DISTINCT type_name FROM duckdb_types()").fetchall()}
    found |= {name.lower() for name in DUCKDB_TYPES}  # the physical types its messages name (INT32)
    for library in glob.glob(str(Path(duckdb.__file__).parent / "*.so")) + glob.glob(
            str(Path(duckdb.__file__).parent.parent / "_duckdb*.so")):
        found |= words(binary_templates(library))
    return found


def postgres_words() -> set[str]:
    import shutil

    binary = shutil.which("postgres")
    suffixes = {"pkey", "key", "fkey", "excl", "check", "idx", "seq"}  # its default constraint names: <table>_pkey
    return suffixes | (words(binary_templates(binary)) if binary else set())


def mariadb_words() -> set[str]:
    for path in MARIADB_MESSAGES:
        if Path(path).is_file():
            text = Path(path).read_bytes().decode("utf-8", "replace")
            return words(re.findall(r"[ -~]{8,}", text))
    return set()


def spark_words() -> set[str]:
    try:
        import pyspark
    except ImportError:
        return set()
    home = Path(pyspark.__file__).parent
    texts: list[str] = []
    conditions = home / "errors" / "error-conditions.json"
    if conditions.is_file():
        texts.extend(_condition_texts(json.loads(conditions.read_text(encoding="utf-8"))))
    for jar in glob.glob(str(home / "jars" / "spark-common-utils_*.jar")):
        with zipfile.ZipFile(jar) as archive:
            for name in archive.namelist():
                if name.endswith("error-conditions.json"):
                    texts.extend(_condition_texts(json.loads(archive.read(name))))
    return words(texts) | {t.lower() for t in texts if re.fullmatch(r"[A-Z_]+", t)}


def _condition_texts(conditions: dict[str, object]) -> list[str]:
    texts: list[str] = []
    for name, body in conditions.items():
        texts.append(name)
        texts.extend(name.split("_"))
        if isinstance(body, dict):
            texts.extend(str(line) for line in body.get("message") or [])
            texts.extend(_condition_texts(body.get("sub_class") or {}))
    return texts


def osiris_words() -> set[str]:
    texts: list[str] = []
    for folder in ("run", "trust", "sample"):
        for source in sorted((ROOT / "osiris" / folder).rglob("*.py")):
            tree = ast.parse(source.read_text(encoding="utf-8"))
            docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and " " in node.value \
                        and id(node) not in docstrings:
                    texts.append(node.value)
    return words(texts)


def build() -> list[str]:
    found = duckdb_words() | postgres_words() | mariadb_words() | spark_words() | osiris_words()
    letters = {"a", "s"}  # the article, and the plural of "privilege(s)" and "table's": no other single letter
    return sorted(letters | {w for w in found if re.fullmatch(r"[a-z][a-z0-9]+", w)})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when the list would change")
    args = parser.parse_args()
    built = "\n".join(build()) + "\n"
    if args.check:
        same = TARGET.is_file() and TARGET.read_text(encoding="utf-8") == built
        print("engine_words.txt is up to date" if same else "engine_words.txt would change: rebuild it")
        return 0 if same else 1
    TARGET.write_text(built, encoding="utf-8")
    print(f"{TARGET.relative_to(ROOT)}: {built.count(chr(10))} words")
    return 0


if __name__ == "__main__":
    sys.exit(main())

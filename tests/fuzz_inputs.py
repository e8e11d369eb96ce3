"""Hostile LLM answers for the fuzz test and bench/fuzz.py: seeded mutations of valid pipelines.

`answers(seed)` yields an endless, reproducible stream: each answer is a valid sample pipeline with
one to four mutations (bytes, lines, YAML tags, numbers, unicode, deep nesting, fences, aliases,
hostile patterns and SQL), and `check(report)` asserts what every report must hold. For the
redactor and the session writers, `planted` adds secrets to an answer, and `check_redactor` and
`check_writers` assert that none survives and that every file stays strict JSON.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

from osiris.explain import compact, friendly
from osiris.secrets.redact import Redactor
from osiris.session import Session
from osiris.validate import CODES, Validator
from osiris.validate.issue import ValidationReport
from tests.engine_samples import VALID, fenced
from tests.validate_helpers import GOOD_TEXT, validator

RICH = """\
oml_version: "0.1.0"
name: orders-report
description: Orders joined to customers, written to Postgres
schedule: "0 2 * * *"
steps:
  - id: read-orders
    component: mysql.extractor
    mode: read
    config:
      connection: "@mysql.default"
      query: "SELECT id, customer_id, total FROM orders WHERE total > 10"
      batch_size: 500
  - id: read-api
    component: rest.extractor
    mode: read
    description: "^[a-z-]+$"
    config:
      base_url: https://crm.example.com/api
      endpoint: /customers
      pagination: page
  - id: join
    component: duckdb.processor
    mode: transform
    needs: [read-orders, read-api]
    config:
      query: "SELECT * FROM df_read_orders o JOIN df_read_api c ON o.customer_id = c.id"
  - id: write-report
    component: postgres.writer
    mode: write
    needs: [join]
    config:
      connection: "@postgres.default"
      table: orders_report
      write_mode: upsert
      primary_key: [id]
"""
SEEDS = [VALID, GOOD_TEXT, RICH]

TAGS = ["!!bool", "!!int", "!!float", "!!timestamp", "!!binary", "!!str", "!!null", "!!set", "!!omap", "!!pairs",
        "!!seq", "!!map", "!!merge", "!!value", "!", "!local", "!!python/object/apply:os.system",
        "!!python/name:os.system", "!<tag:yaml.org,2002:int>", "!!python/object/new:dict"]
NUMBERS = [".nan", ".NaN", ".inf", "-.Inf", "+.inf", "1e999", "-1e999", "1.0e+400", "0x" + "f" * 4000,
           "9" * 5000, "-" + "9" * 30, "'" + "9" * 5000 + "'", '"1e999"', "0o777", "0b101", "1_000_000",
           "190:20:30", "1:" * 200 + "1", "0x", "-0", "0.", "18446744073709551616", "9223372036854775808",
           "2001-12-14t21:59:43.10-05:00", "2002-13-45", "~", "null", "yes", "No", "on", "=", "<<"]
UNICODE = ["\ud800", "\udfff", "\x00", "\x85", "\u2028", "\u202e", "\u200b", "\ufeff", "\U0001f600", "e\u0301",
           "\t", "\r", "\r\n", "\x1b[31m", "\\ud800", '"\\ud800"', '"\\x00"', "\uffff", "\x7f"]
HOSTILE = ["^(a+)+$", "(a|a)*$", "a" * 10_000 + "!", "(?=a)", "(a)\\1", "[" * 500, "SELECT " + "(" * 2000,
           "SELECT * FROM " + ", ".join(f"t{n}" for n in range(500)), "```", "```yaml", "---", "...",
           "&a [*a]", "*nothing", "&x " + "[*x, " * 5, "? [a]\n: b", "{{{{", "}}}}", "- - - - -", "%YAML 1.1"]
KEYS = ["oml_version", "name", "steps", "id", "component", "mode", "config", "needs", "inputs", "tasks", "type",
        "version", "connectors", "password", "token", "headers", "x-ext", "<<", "=", "? x", "1", "true", "~"]
RULES = [
    SimpleNamespace(name="id-shape", expr="matches(step.id, step.description)", when="step.description",
                    level="warning", message=None),
    SimpleNamespace(name="few-steps", expr="len(steps) < 20", when=None, level="error", message=None),
    SimpleNamespace(name="no-replace", expr='step.config.write_mode != "replace"', when=None, level="error",
                    message=None),
]


def fuzz_validator() -> Validator:
    """The validator the fuzzing feeds: the built-in registry, connections and three user rules."""
    return validator(RULES)


def answers(seed: int) -> Iterator[tuple[str, bool]]:
    """(answer, truncated) pairs, endless and reproducible for a seed."""
    rng = random.Random(seed)
    while True:
        text = rng.choice(SEEDS)
        for _ in range(rng.randint(1, 4)):
            text = rng.choice(MUTATIONS)(rng, text)
        yield text, rng.random() < 0.03


def check(report: ValidationReport) -> None:
    """What every report must hold, whatever the answer: known codes, strict JSON, renderable issues."""
    for issue in report.issues:
        assert issue.code in CODES, issue.code
        assert issue.path == "" or issue.path.startswith("/"), issue.path
        assert "\n" not in compact(issue)
        friendly(issue)
    json.dumps({"issues": [issue.to_dict() for issue in report.issues], "pipeline": report.pipeline,
                "oml": report.oml_text, "codes": report.error_codes}, allow_nan=False)
    assert report.valid == (not report.errors)


def _at(rng: random.Random, text: str) -> int:
    return rng.randint(0, len(text))


def _replace_char(rng: random.Random, text: str) -> str:
    at = _at(rng, text)
    return text[:at] + rng.choice(UNICODE + list(":-[]{}#&*!|>'\"%@` \n")) + text[at + 1:]


def _delete_span(rng: random.Random, text: str) -> str:
    at = _at(rng, text)
    return text[:at] + text[at + rng.randint(1, 40):]


def _truncate(rng: random.Random, text: str) -> str:
    return text[:_at(rng, text)]


def _lines(rng: random.Random, text: str, change: Callable[[list[str], int], None]) -> str:
    lines = text.split("\n")
    change(lines, rng.randrange(len(lines)))
    return "\n".join(lines)


def _duplicate_line(rng: random.Random, text: str) -> str:
    return _lines(rng, text, lambda lines, i: lines.insert(i, lines[i]))


def _swap_lines(rng: random.Random, text: str) -> str:
    def swap(lines: list[str], i: int) -> None:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    return _lines(rng, text, swap)


def _reindent(rng: random.Random, text: str) -> str:
    shift = rng.choice([" ", "  ", "\t", "    "])
    return _lines(rng, text, lambda lines, i: lines.__setitem__(i, rng.choice([shift + lines[i], lines[i].lstrip()])))


def _value_of_line(rng: random.Random, text: str, values: list[str]) -> str:
    def change(lines: list[str], i: int) -> None:
        key, colon, _ = lines[i].partition(": ")
        lines[i] = f"{key}{colon or ': '}{rng.choice(values)}"
    return _lines(rng, text, change)


def _number(rng: random.Random, text: str) -> str:
    return _value_of_line(rng, text, NUMBERS)


def _hostile_value(rng: random.Random, text: str) -> str:
    return _value_of_line(rng, text, [json.dumps(h) for h in HOSTILE] + HOSTILE)


def _tag(rng: random.Random, text: str) -> str:
    def change(lines: list[str], i: int) -> None:
        key, colon, value = lines[i].partition(": ")
        stripped = key.lstrip(" -")
        where = rng.random()
        if colon and where < 0.5:
            lines[i] = f"{key}: {rng.choice(TAGS)} {value}"
        elif where < 0.8:
            lines[i] = key[:len(key) - len(stripped)] + f"{rng.choice(TAGS)} {stripped}{colon}{value}"
        else:
            lines.insert(i + 1, " " * (len(key) - len(stripped) + 2) + rng.choice(TAGS))
    return _lines(rng, text, change)


def _key(rng: random.Random, text: str) -> str:
    def change(lines: list[str], i: int) -> None:
        key, colon, value = lines[i].partition(":")
        indent = key[:len(key) - len(key.lstrip(" -"))]
        lines[i] = f"{indent}{rng.choice(KEYS)}:{value if colon else ' x'}"
    return _lines(rng, text, change)


def _unicode(rng: random.Random, text: str) -> str:
    at = _at(rng, text)
    return text[:at] + "".join(rng.choice(UNICODE) for _ in range(rng.randint(1, 5))) + text[at:]


def _deep(rng: random.Random, text: str) -> str:
    depth = rng.choice([10, 63, 64, 65, 200, 1_000, 5_000, 30_000])
    nested = rng.choice([
        "[" * depth + "]" * depth, "{a: " * depth + "1" + "}" * depth, "- " * depth + "x",
        "".join(" " * level + f"k{level}:\n" for level in range(min(depth, 3_000))),
    ])
    return _value_of_line(rng, text, [nested])


def _aliases(rng: random.Random, text: str) -> str:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{n}: &{n} [{', '.join(['*' + p] * 10)}]\n" for p, n in zip("abcdefgh", "bcdefghi"))
    return rng.choice([bomb + text, text + "x-alias: *missing\n", text.replace("mode: read", "mode: &m read", 1)
                       + "x-again: *m\n", text + "base: &b {x: 1}\nother: {<<: *b}\n"])


def _fences(rng: random.Random, text: str) -> str:
    return rng.choice([fenced(text), "```yaml\n" + text, fenced(text) + fenced(text), "Sure!\n" + text + "\nDone.",
                       "```json\n" + text + "```\n", "~~~\n" + text + "~~~\n", text + "\n---\n" + text,
                       "```yaml\n```\n" + text, "```" * 2_000 + text])


def _repeat(rng: random.Random, text: str) -> str:
    return text + "\n".join(f"  x-{n}: {rng.choice(NUMBERS[:5])}" for n in range(rng.choice([10, 300, 3_000])))


MUTATIONS: list[Callable[[random.Random, str], str]] = [
    _replace_char, _delete_span, _truncate, _duplicate_line, _swap_lines, _reindent, _number, _hostile_value,
    _tag, _key, _unicode, _deep, _aliases, _fences, _repeat,
]


# Secrets planted in each answer for the redaction fuzz: a known value (the API key or a resolved
# connection password) anywhere, a known numeric password as a plain number, and values under
# secret names in the shapes an answer writes them (YAML, quoted JSON keys, URLs, prose).
KNOWN_SECRET = "PgPw-7x!Qz_93kd"
KNOWN_NUMBER = 98765432
# The longest answer an LLM can send: llm.max_tokens is at most 128,000 tokens, about 4 characters
# each. Longer inputs (the 4.5 MB deep-nesting ones) are cut here before the redactor sees them.
LLM_ANSWER_LIMIT = 512_000


def fuzz_redactor() -> Redactor:
    """The redactor the fuzzing feeds: it knows one text secret and one numeric password."""
    return Redactor(known_values=[KNOWN_SECRET, KNOWN_NUMBER])


def planted(rng: random.Random, text: str) -> tuple[str, list[str]]:
    """An LLM-sized `text` with secrets planted in it, and the secrets that must not survive."""
    typed = f"Pw{rng.randrange(10**9)}zQ"
    shapes = [f"password: {typed}", f'"token": "{typed}"', f"'api_key': '{typed}'", f'{{"secret":"{typed}"}}',
              f"endpoint: /x?token={typed}&page=1", f"the password is {typed}", f"password: |\n  {typed}",
              f"dsn: mysql://app:{typed}@db/shop", f"Authorization: Bearer {typed}", f"password: [{typed}, x]"]
    text = text[:LLM_ANSWER_LIMIT]
    at = _at(rng, text)
    text = text[:at] + KNOWN_SECRET + text[at:]
    return f"{text}\n{rng.choice(shapes)}\nbatch_size: {KNOWN_NUMBER}\n", [typed, KNOWN_SECRET, str(KNOWN_NUMBER)]


def strict_json(text: str) -> Any:
    """`json.loads` that refuses NaN and Infinity, as no file of a session may hold them."""
    def refuse(constant: str) -> Any:
        raise ValueError(f"not strict JSON: {constant}")
    return json.loads(text, parse_constant=refuse)


def check_redactor(redactor: Redactor, text: str, pipeline: Any, secrets: list[str]) -> None:
    """`Redactor.text` on an answer and `Redactor.data` on its pipeline: strict JSON, no secret left."""
    shown = redactor.text(text)
    data = json.dumps(redactor.data({"pipeline": pipeline, "batch_size": KNOWN_NUMBER, "answer": text}),
                      allow_nan=False)
    left = [secret for secret in secrets if secret in shown or secret in data]
    assert not left, f"left unmasked: {left}"


def check_writers(session: Session, number: int, text: str, pipeline: Any, secrets: list[str]) -> None:
    """The session writers on an answer and its pipeline, as generate writes an attempt: each file and
    line written is valid UTF-8, each JSON strict, and no planted secret is in any."""
    logs = [session.path / "events.jsonl", session.path / "conversation.jsonl"]
    sizes = [log.stat().st_size if log.exists() else 0 for log in logs]
    where = f"artifacts/cycle-1/attempt-{number}"
    # The whole answer, never a cut of it: `mysql://app:pw` cut before its `@host` is no DSN any more.
    fields = {"attempt": number, "pipeline": pipeline, "batch_size": KNOWN_NUMBER}
    answer = session.write_text(f"{where}/answer.txt", text)
    errors = session.write_json(f"{where}/errors.json", fields)
    session.write_event("validation_retry", fields)
    session.append_conversation("assistant", text, attempt=number)
    written = [answer.read_bytes().decode("utf-8"), errors.read_bytes().decode("utf-8")]
    strict_json(written[1])
    for log, size in zip(logs, sizes):
        with log.open("rb") as appended:
            appended.seek(size)
            lines = appended.read().decode("utf-8").splitlines()
        assert len(lines) == 1, f"{log.name}: {len(lines)} lines for one write"
        strict_json(lines[0])
        written += lines
    left = [secret for secret in secrets if any(secret in piece for piece in written)]
    assert not left, f"left unmasked in the session: {left}"

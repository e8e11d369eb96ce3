"""How long the redactor takes on hostile text, at growing sizes: the time must grow linearly.

    .venv/bin/python bench/redact.py

Prints, for each hostile shape, the milliseconds for 25,000 / 50,000 / 100,000 / 200,000
characters and the ratio of the last to the first (linear: about 8; quadratic: about 64).
"""

from __future__ import annotations

import time
from pathlib import Path

from osiris.secrets.redact import Redactor

SHAPES = {
    "key: key: ...": "a: ",
    "password is ...": "password is ",
    "?token=...": "?token=",
    "quotes": "'",
    "backslash quotes": '"\\',
    "IDENTIFIED BY": "IDENTIFIED BY ",
    "fences": "```\n",
    "block headers": "password: |\n",
    "base64-ish": "QUJDRA",
    "header lines": "Cookie: a=b; ",
    "yaml flow": "{a: [",
    "dsn": "a://b:",
    "yaml block nesting": "- ",
    "yaml deep keys": "a:\n ",
}
SIZES = (25_000, 50_000, 100_000, 200_000)
PIPELINE = Path("tests/engine_samples.py").read_text().split('VALID = """\\\n', 1)[1].split('"""', 1)[0]


def measure(redactor: Redactor, text: str) -> float:
    started = time.perf_counter()
    redactor.text(text)
    return (time.perf_counter() - started) * 1000


def main() -> None:
    redactor = Redactor(known_values=["PgPw-s3cr3t-42", "98765432", "sk-ant-test-key-1234"])
    print(f"{'shape':<18}" + "".join(f"{size:>10,}" for size in SIZES) + "   ratio")
    for name, unit in SHAPES.items():
        times = [measure(redactor, (unit * (size // len(unit) + 1))[:size]) for size in SIZES]
        print(f"{name:<18}" + "".join(f"{t:>8.1f}ms" for t in times) + f"   {times[-1] / max(times[0], 0.01):.1f}")
    runs = 200
    started = time.perf_counter()
    for _ in range(runs):
        redactor.text(PIPELINE)
    print(f"a {len(PIPELINE)}-character pipeline: {(time.perf_counter() - started) * 1000 / runs:.2f} ms per redaction")


if __name__ == "__main__":
    main()

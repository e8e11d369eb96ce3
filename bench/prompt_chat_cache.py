"""Cache-read share of the input tokens over a chat of 5 turns or more (one turn with a retry),
computed from the request bodies the fake Messages API receives. Prints figures; asserts nothing.

    .venv/bin/python bench/prompt_chat_cache.py [--turns 5] [--source DIR ...]

The model of Anthropic's prompt cache applied to the bodies (tokens estimated at 4 characters): each
`cache_control` mark writes the prefix that ends there (tools, system, messages, in that order); a
later request reads the longest written prefix that it starts with, at a block boundary; what the
request marks beyond that is a cache write; the rest is fresh input. The 1,024-token minimum and the
5-minute lifetime are left out. `--source DIR` measures the tree in DIR (holding `osiris/`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHILD = """
import json, sys, tempfile
from pathlib import Path
sys.path.append(sys.argv[1])  # tests/ of this checkout, after the measured tree
from osiris.retry import open_engine
from osiris.settings import load_settings
from tests.engine_samples import BAD_MODE, VALID, fenced
from tests.fake_anthropic import FakeAnthropic, Reply
turns = ["copy data/customers.csv to output/active_customers.csv",
         "write it to output/active.parquet instead", "name the pipeline customers-export",
         "read data/clients.csv instead", "add a description: nightly export"]
answers = [VALID, VALID.replace(".csv\\n", ".parquet\\n", 1),
           VALID.replace("active-customers-to-csv", "customers-export"),
           VALID.replace("data/customers.csv", "data/clients.csv"),
           VALID.replace("steps:", "description: nightly export\\nsteps:")]
script = [Reply(fenced(answers[0])), Reply(fenced(answers[1])), Reply(fenced(BAD_MODE)), Reply(fenced(answers[2])),
          Reply(fenced(answers[3])), Reply(fenced(answers[4]))]
for n in range(int(sys.argv[2]) - 5):  # turns beyond the first five: renames
    turns.append(f"name the pipeline customers-export-{n}")
    script.append(Reply(fenced(VALID.replace("active-customers-to-csv", f"customers-export-{n}"))))
with tempfile.TemporaryDirectory() as directory, FakeAnthropic(script) as server:
    effective = load_settings(cli={"llm": {"base_url": server.url}}, cwd=Path(directory),
                              env={"ANTHROPIC_API_KEY": "sk-ant-bench-0000"})
    engine = open_engine(effective, command="bench", sleep=lambda s: None, may_ask=True)
    for turn in turns:
        engine.run(turn)
    print(json.dumps([r.body for r in server.requests]))
"""


def blocks(body: dict) -> list[tuple[str, str, bool]]:
    """(where, text, marked) for each block in the order the cache sees them."""
    found = [("system", b.get("text", ""), "cache_control" in b) for b in body.get("system", [])]
    for message in body.get("messages", []):
        content = message["content"]
        parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
        found += [(message["role"], p.get("text", ""), "cache_control" in p) for p in parts]
    return found


def usage(bodies: list[dict]) -> list[tuple[int, int, int]]:
    """(fresh input, cache write, cache read) tokens of each request under the model above."""
    written: set[tuple] = set()
    figures = []
    for body in bodies:
        seen = blocks(body)
        content = [(where, text) for where, text, _ in seen]  # the cache keys on content, not on the marks
        sizes = [len(text) // 4 for _, text, _ in seen]
        marks = [n for n, (_, _, marked) in enumerate(seen) if marked]
        read_upto = max((n + 1 for n in range(len(seen)) if tuple(content[: n + 1]) in written), default=0)
        write_upto = max([m + 1 for m in marks] + [read_upto])
        for m in marks:
            written.add(tuple(content[: m + 1]))
        read, write = sum(sizes[:read_upto]), sum(sizes[read_upto:write_upto])
        figures.append((sum(sizes) - read - write, write, read))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", action="append", default=[])
    parser.add_argument("--turns", type=int, default=5, help="turns in the chat (at least 5)")
    args = parser.parse_args()
    for source in [str(Path(s).resolve()) for s in args.source] or [None]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OSIRIS_"))}
        if source:
            env["PYTHONPATH"] = source
        out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), str(max(args.turns, 5))], env=env, cwd=source or ROOT,
                             capture_output=True, text=True, check=True).stdout
        figures = usage(json.loads(out))
        print(f"{source or 'this checkout'}: {len(figures)} requests ({max(args.turns, 5)} turns, one retry)")
        for n, (fresh, write, read) in enumerate(figures, 1):
            total = fresh + write + read
            print(f"  request {n}: input {total:,} tokens: {read / total:4.0%} cache read, "
                  f"{write:,} written, {fresh:,} fresh")
        fresh, write, read = (sum(column) for column in zip(*figures))
        print(f"  whole chat: {read / (fresh + write + read):.0%} of {fresh + write + read:,} input tokens read "
              f"from the cache; {fresh:,} fresh, {write:,} written")


if __name__ == "__main__":
    main()

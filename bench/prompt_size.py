"""The system prompt's size with 11, 200 and 1,000 components (built-ins plus specs made from them
under new family names), and the size of a first request message. Tokens are estimated at 4
characters a token, as the fake server counts. Prints figures; asserts nothing.

    .venv/bin/python bench/prompt_size.py [--components 11 200 1000] [--source DIR ...]

`--source DIR` measures the tree in DIR (holding `osiris/`, e.g. an older commit unpacked with
`git archive REV osiris components | tar -x -C DIR`).
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
import json, sys, time
from osiris.prompt import build_request_prompt, build_system_prompt
from osiris.registry import Registry, load_registry
from osiris.registry.spec import spec_from_dict
count = int(sys.argv[1])
builtins = load_registry()
specs = list(builtins.components.values())
for n in range(count - len(specs)):
    data = dict(specs[n % len(builtins.components)].raw)
    data["name"] = f"user{n}.{data['name'].split('.', 1)[1]}"
    specs.append(spec_from_dict(data, None))
registry = Registry(specs)
start = time.perf_counter()
prompt = build_system_prompt(registry, {"mysql": {"default": {"host": "db"}}})
built = (time.perf_counter() - start) * 1000
request = "copy the active customers from our MySQL into a CSV file"
components = getattr(prompt, "components", None)
if components is not None:
    from osiris.prompt.component_slice import request_details
    message = build_request_prompt(request, schema=request_details(components, request, None))
else:
    message = build_request_prompt(request)
print(json.dumps({"stable": len(prompt.stable), "dynamic": len(prompt.dynamic), "request": len(message),
                  "ms": built}))
"""


def measure(source: str | None, count: int) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OSIRIS_"))}
    if source:
        env["PYTHONPATH"] = source
    out = subprocess.run([sys.executable, "-c", CHILD, str(count)], env=env, cwd=source or ROOT,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--components", type=int, nargs="+", default=[11, 200, 1000])
    parser.add_argument("--source", action="append", default=[])
    args = parser.parse_args()
    sources = [str(Path(s).resolve()) for s in args.source] or [None]
    for count in args.components:
        for source in sources:
            figures = measure(source, count)
            system = (figures["stable"] + figures["dynamic"]) // 4
            print(f"{count:>5} components, {source or 'this checkout'}: system prompt ~{system:,} tokens "
                  f"(stable {figures['stable'] // 4:,}), first request message ~{figures['request'] // 4:,} tokens, "
                  f"built in {figures['ms']:.0f} ms")


if __name__ == "__main__":
    main()

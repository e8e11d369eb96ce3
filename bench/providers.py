"""Try the set-ups of docs/providers.md against a local stand-in: for each provider, an OpenAI-compatible
fake (tests/fake_openai.py) answers `osiris generate` run as the page says, on the loopback address
(Ollama on its own port, 11434, when free). Each set-up's first answer is invalid and the retry valid.

    .venv/bin/python bench/providers.py

Prints, for each set-up: the settings and environment, the exit code, osiris's last line, and what the
stand-in received (path, Authorization header with the key masked, model, the body's keys).
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import yaml

from tests.engine_samples import BAD_COMPONENT, VALID, fenced
from tests.fake_openai import FakeOpenAI, Reply
from tests.support import clean_env

REQUEST = "copy the customers CSV to output/active_customers.csv"


def free(port: int) -> int:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return 0
    return port


# name, port, URL path the real service has, settings (base_url filled in), the key's variable value
SETUPS = [
    ("OpenAI", 0, "/v1", {"provider": "openai", "model": "gpt-4.1-mini"}, "sk-proj-example-key-0001", True),
    ("Ollama", free(11434), "/v1", {"provider": "openai", "model": "llama3.1"}, None, False),
    ("vLLM", free(8000), "/v1", {"provider": "openai", "model": "Qwen/Qwen2.5-Coder-7B-Instruct"}, "token-abc123", False),
    ("OpenRouter", 0, "/api/v1", {"provider": "openai", "model": "openai/gpt-4.1-mini"}, "sk-or-v1-example-0002", False),
]


def main() -> None:
    for name, port, path, llm, key, via_env in SETUPS:
        with FakeOpenAI([Reply(fenced(BAD_COMPONENT), input_tokens=1800, output_tokens=310),
                         Reply(fenced(VALID), input_tokens=260, output_tokens=290, cache_read=1536)],
                        port=port) as fake, tempfile.TemporaryDirectory() as folder:
            base_url = fake.url.removesuffix("/v1") + path
            root = Path(folder)
            env = clean_env(**({"OPENAI_API_KEY": key} if key else {}))
            settings = dict(llm)
            if via_env:  # OpenAI itself: no base_url; the stand-in through the SDK's own OPENAI_BASE_URL
                env["OPENAI_BASE_URL"] = base_url
            else:
                settings["base_url"] = base_url
            (root / ".osiris.yaml").write_text(yaml.safe_dump({"llm": settings}, sort_keys=False))
            done = subprocess.run([sys.executable, "-m", "osiris", "generate", REQUEST, "-o", "pipelines/p.yaml"],
                                  cwd=root, env=env, capture_output=True, text=True, timeout=180)
            print(f"== {name}: llm = {json.dumps(settings)}" + (f"; OPENAI_BASE_URL={base_url}" if via_env else "")
                  + (f"; OPENAI_API_KEY={key[:6]}..." if key else "; no key"))
            print(f"   exit {done.returncode}: {done.stderr.strip().splitlines()[-1]}")
            for request in fake.requests:
                auth = request.headers.get("authorization", "")
                shown = auth if auth.endswith(" none") or not key else auth.replace(key, key[:6] + "...")
                print(f"   POST {request.path}  Authorization: {shown}  model={request.body.get('model')}  "
                      f"keys={sorted(request.body)}")
            assert done.returncode == 0, done.stderr
            assert not any(key and key in body for body in fake.bodies)


if __name__ == "__main__":
    main()

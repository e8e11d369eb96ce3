"""One rule names the headers that carry a secret: `osiris.secrets.names.is_secret_header`. The
validator refuses such a header inline (OML310), the session's redactor masks it, and the HTTP
client masks its value in every message it builds (osiris.run.http_secrets.known_secrets); no
second list of header words. End to end, a secret header's value that a failing API echoes back
reaches none of an API step's outputs: the terminal, the step's error text, the session's trail.
Against the local API of tests/servers/http_apis.py; nothing mocked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from osiris.run.http_secrets import known_secrets
from osiris.secrets.names import is_secret_header
from tests.api_fixtures import api, api_server  # noqa: F401  (fixtures)
from tests.run_helpers import RunProject
from tests.servers.http_apis import ApiServer

SECRET_HEADERS = ["Authorization", "Proxy-Authorization", "X-API-Key", "apikey", "Cookie", "Private-Token",
                  "X-Client-Secret", "X-Password"]
PLAIN_HEADERS = ["X-Custom", "Accept-Profile", "X-Request-Id", "X-Monkey", "X-Tokenizer-Version"]


@pytest.mark.parametrize("name", SECRET_HEADERS + PLAIN_HEADERS)
def test_the_client_masks_exactly_the_headers_the_rule_names(name: str) -> None:
    masked = known_secrets((), {name: "value-of-the-header"})
    assert masked == (["value-of-the-header"] if is_secret_header(name) else [])
    assert is_secret_header(name) is (name in SECRET_HEADERS)


def test_the_token_after_the_scheme_is_masked_too() -> None:
    assert known_secrets((), {"Authorization": "Bearer tok-123456"}) == ["Bearer tok-123456", "tok-123456"]


@pytest.mark.parametrize("name", SECRET_HEADERS)
def test_a_secret_header_echoed_by_a_failing_api_reaches_no_output(tmp_path: Path, api: ApiServer,  # noqa: F811
                                                                    name: str) -> None:
    secret = f"hdr{len(name)}-Z9q-planted-value"
    proj = RunProject(tmp_path / "project")
    proj.planted("HEADER_SECRET", secret)
    connection = {"base_url": api.url, "headers": {name: "${HEADER_SECRET}"}}
    (proj.root / ".osiris.yaml").write_text(yaml.safe_dump({"connections": {"rest": {"api": connection}}}),
                                            encoding="utf-8")
    step = {"id": "get", "component": "rest.extractor", "mode": "read",
            "config": {"connection": "@rest.api", "endpoint": "/echo-header", "params": {"name": name},
                       "data_path": "items"}}

    result = proj.run(str(proj.pipeline([step])))  # asserts the secret is in no output and no session file

    [seen] = api.hits("/echo-header")
    assert seen.headers[name.lower()] == secret  # it was sent, and the server's error repeated it
    assert result.returncode == 6, result.stdout + result.stderr
    trail = "".join(p.read_text(encoding="utf-8") for p in proj.last_session().rglob("*") if p.is_file())
    answered = f'It answered: {{"error": "bad request with {name}: ***"}}'  # masked, not withheld or cut
    assert "OML508 step 'get': HTTP 400 Bad Request from GET" in result.stderr
    assert answered in result.stderr  # the error text on the terminal
    assert json.dumps(answered)[1:-1] in trail  # and in the session's trail (as JSON text)

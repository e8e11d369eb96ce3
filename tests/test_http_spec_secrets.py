"""The HTTP client masks the values of the fields the component specs mark secret, read from the
specs (osiris.run.http_secrets.spec_secrets), not from a list in the code: a spec's new secret field is
masked with no change to Osiris's code."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from osiris.problems import RuntimeProblem
from osiris.registry import builtin_components_dir, load_registry
from osiris.run import http, http_secrets
from osiris.run.drivers import rest
from osiris.secrets.names import is_secret_key
from tests.api_fixtures import api, api_server  # noqa: F401  (fixtures)
from tests.effective_config import effective
from tests.servers.http_apis import ApiServer

PASSCODE = "Passcode-Value-5120-kq"  # a field no name rule calls secret: only the spec does


@pytest.fixture
def fresh_fields() -> Iterator[None]:
    """The fields are read once a process; each test here reads them from its own registry."""
    http_secrets.spec_secret_fields.cache_clear()
    yield
    http_secrets.spec_secret_fields.cache_clear()


def with_passcode_spec(root: Path) -> Path:
    """A copy of the built-in rest.extractor spec, renamed, whose `secrets:` also lists /passcode."""
    spec = yaml.safe_load((builtin_components_dir() / "rest.extractor" / "spec.yaml").read_text(encoding="utf-8"))
    spec["name"] = "acme.extractor"
    spec["configSchema"]["properties"]["passcode"] = {"type": "string", "description": "the API's passcode"}
    spec["secrets"] = [*spec["secrets"], "/passcode"]
    folder = root / "components" / "acme.extractor"
    folder.mkdir(parents=True)
    (folder / "spec.yaml").write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return root / "components"


def echoed(api: ApiServer, config: dict[str, str]) -> RuntimeProblem:  # noqa: F811
    """The problem of a 400 whose body repeats the request's query, which carries the passcode."""
    with http.client_for(effective("rest.extractor", config), (), {}, rest.CLIENT_SETTINGS) as client, \
            pytest.raises(RuntimeProblem) as caught:
        client.send("GET", f"{api.url}/echo-token", params={"code": PASSCODE})
    return caught.value


def test_the_fields_are_the_specs_secret_fields(fresh_fields: None) -> None:
    registry = load_registry()
    marked = {name for spec in registry.components.values() for name in spec.secret_fields}
    assert http_secrets.spec_secret_fields() == marked
    assert {"auth_token", "api_key", "key", "password"} <= marked  # rest and graphql, posthog, supabase, the databases


def test_a_new_secret_field_in_a_spec_is_masked_without_a_code_change(
        tmp_path: Path, api: ApiServer, monkeypatch: pytest.MonkeyPatch, fresh_fields: None) -> None:  # noqa: F811
    assert not is_secret_key("passcode")
    config = {"base_url": api.url, "passcode": PASSCODE}
    unmasked = echoed(api, config)  # the built-in specs know no passcode
    assert PASSCODE in unmasked.hint

    components = with_passcode_spec(tmp_path)
    monkeypatch.setattr(http_secrets, "builtin_registry", lambda: load_registry([components]))
    http_secrets.spec_secret_fields.cache_clear()
    problem = echoed(api, config)

    assert "passcode" in http_secrets.spec_secret_fields()
    assert problem.code == "OML508"
    assert PASSCODE not in problem.message + problem.hint
    assert problem.hint == unmasked.hint.replace(PASSCODE, "***")

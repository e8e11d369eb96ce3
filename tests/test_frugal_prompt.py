"""A bounded system prompt (issue 14): the catalogue stays under `llm.catalog_budget_tokens` at any
registry size; messages carry the full field lists of the components they need."""

from __future__ import annotations

from pathlib import Path

import yaml

from osiris.prompt import build_system_prompt
from osiris.prompt.catalog import describe_component, short_line
from osiris.prompt.component_slice import estimate_tokens, request_details
from osiris.registry import Registry, load_registry
from osiris.registry.spec import spec_from_dict
from tests.conftest import write_settings
from tests.engine_harness import make_engine
from tests.engine_samples import VALID, fenced
from tests.fake_anthropic import Reply

FIELDS = {f"option_{n}": {"type": "string", "enum": [f"choice-{n}-{k}" for k in range(6)]} for n in range(10)}
ZETA = {"name": "zeta.loader", "version": "1.0.0", "title": "Zeta Loader", "description": "Load rows into Zeta.",
        "modes": ["write"], "capabilities": {},
        "configSchema": {"type": "object", "required": ["bucket"],
                         "properties": {"bucket": {"type": "string"}, **FIELDS}, "additionalProperties": False}}


def big_registry(count: int) -> Registry:
    """The built-ins plus `count` specs made from them under new family names (user0.extractor, ...)."""
    builtins = load_registry()
    specs = list(builtins.components.values())
    for n in range(count - len(specs)):
        data = dict(specs[n % len(builtins.components)].raw)
        data["name"] = f"user{n}.{data['name'].split('.', 1)[1]}"
        specs.append(spec_from_dict(data, None))
    return Registry(specs)


def test_the_catalogue_stays_under_the_budget_at_1000_components():
    registry = big_registry(1000)
    prompt = build_system_prompt(registry, {"mysql": {"default": {}}}, budget_tokens=3000)
    catalogue = prompt.components.text
    assert estimate_tokens(catalogue) <= 3000
    assert describe_component(registry.get("mysql.extractor")) in catalogue  # a configured family: in full
    assert "more components are not listed here:" in catalogue
    details = request_details(prompt.components, "copy the users from user700 into a CSV file", None)
    assert describe_component(registry.get("user700.extractor")) in details
    assert estimate_tokens(details) <= 3000


def test_at_11_components_every_component_is_in_full_and_the_budget_holds():
    registry = load_registry()
    prompt = build_system_prompt(registry, {}, budget_tokens=3000)
    assert prompt.components.in_full == set(registry.components)
    assert estimate_tokens(prompt.components.text) <= 3000
    assert request_details(prompt.components, "copy mysql orders to a csv", None) == ""  # nothing to add


def test_chat_and_generate_share_one_stable_block():
    registry = load_registry()
    chat = build_system_prompt(registry, {"mysql": {"default": {}}}, may_ask=True)
    generate = build_system_prompt(registry, {"mysql": {"default": {}}}, may_ask=False)
    assert chat.stable == generate.stable
    assert "answer with one short question instead" in chat.dynamic
    assert "make the most\nreasonable choice" in generate.dynamic


def _zeta_project(project: Path, fake_api) -> None:
    write_settings(project, {"llm": {"base_url": fake_api.url, "timeout_seconds": 5, "catalog_budget_tokens": 500},
                             "components": {"paths": ["components"]}})
    (project / "components" / "zeta.loader").mkdir(parents=True)
    (project / "components" / "zeta.loader" / "spec.yaml").write_text(yaml.safe_dump(ZETA, sort_keys=False))


def test_a_retry_carries_the_full_field_list_of_the_component_its_error_names(project, fake_api):
    _zeta_project(project, fake_api)
    missing_bucket = VALID.replace("component: filesystem.csv_writer", "component: zeta.loader").replace(
        "path: output/active_customers.csv", "option_1: choice-1-1")
    fake_api.add(Reply(fenced(missing_bucket)), Reply(fenced(missing_bucket.replace("option_1:", "bucket: b\n      option_1:"))))
    h = make_engine(project)
    spec = h.engine.validator.registry.get("zeta.loader")

    result = h.engine.run("copy the customers CSV file to our warehouse")

    assert result.valid and len(fake_api.requests) == 2
    system = fake_api.requests[0].body["system"][0]["text"]
    assert short_line(spec) in system and describe_component(spec) not in system
    assert describe_component(spec) not in fake_api.requests[0].body["messages"][-1]["content"]
    retry = fake_api.requests[1].body["messages"][-1]["content"]
    assert "OML303" in retry
    assert ("Full field lists of the components these errors name (notation as in the catalogue):\n"
            + describe_component(spec)) in retry


def test_a_request_that_names_a_component_carries_its_full_field_list(project, fake_api):
    _zeta_project(project, fake_api)
    fake_api.add(Reply(fenced(VALID)))
    h = make_engine(project)
    spec = h.engine.validator.registry.get("zeta.loader")

    h.engine.run("load the customers CSV into zeta")

    first = fake_api.requests[0].body["messages"][-1]["content"]
    assert ("Full field lists of components this request likely needs (notation as in the catalogue):\n"
            + describe_component(spec)) in first

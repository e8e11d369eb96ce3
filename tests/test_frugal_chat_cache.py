"""Chat caching done right (issue 14): read from the request bodies the fake Messages API receives."""

from __future__ import annotations

import json

from osiris.prompt.request import IN_HISTORY
from tests.engine_harness import make_engine
from tests.engine_samples import VALID, fenced
from tests.fake_anthropic import Reply
from tests.test_chat_pipe import REQUEST, chat

EPHEMERAL = {"type": "ephemeral"}
PARQUET = VALID.replace("active_customers.csv", "active_customers.parquet")
JSONL = VALID.replace("active_customers.csv", "active_customers.jsonl")


def _breakpoints(body: dict) -> list[str]:
    """Where the request's cache_control marks are: 'system/0', 'messages/1', ..."""
    found = [f"system/{n}" for n, block in enumerate(body["system"]) if block.get("cache_control") == EPHEMERAL]
    for n, message in enumerate(body["messages"]):
        content = message["content"]
        if isinstance(content, list) and any(block.get("cache_control") == EPHEMERAL for block in content):
            found.append(f"messages/{n}")
    return found


def test_each_turn_marks_the_end_of_its_history_and_sends_the_pipeline_once(project, fake_api):
    fake_api.add(Reply(fenced(VALID)), Reply(fenced(PARQUET)), Reply(fenced(JSONL)))
    done = chat(project, REQUEST, "n", "now write it to output/active_customers.parquet", "n",
                "and now as output/active_customers.jsonl", "n")
    assert done.returncode == 0, done.stderr
    bodies = [r.body for r in fake_api.requests]
    assert [_breakpoints(b) for b in bodies] == [["system/0"], ["system/0", "messages/1"], ["system/0", "messages/3"]]
    assert all("cache_control" not in block for b in bodies for block in b["system"][1:])
    second = bodies[1]["messages"]
    assert second[1]["content"][0]["text"] == f"```yaml\n{VALID}\n```"  # the history keeps the pipeline
    assert json.dumps(second).count("id: read-customers") == 1  # ... and only there
    assert IN_HISTORY in second[2]["content"] and "<current_pipeline>" not in second[2]["content"]
    third = bodies[2]["messages"]
    assert json.dumps(third).count("id: read-customers") == 2  # the two accepted pipelines, once each


def test_chat_and_generate_send_the_same_cached_system_block(project, fake_api):
    fake_api.add(Reply(fenced(VALID)))
    make_engine(project, may_ask=True).engine.run(REQUEST)
    make_engine(project, may_ask=False).engine.run(REQUEST)
    chat_system, generate_system = (r.body["system"] for r in fake_api.requests)
    assert chat_system[0] == generate_system[0]
    assert "answer with one short question instead" in chat_system[1]["text"]
    assert "answer with one short question instead" not in generate_system[1]["text"]

"""The offline demo provider: scripted answers shipped in the package."""

from osiris.llm.demo import DemoProvider, load_script
from osiris.llm.types import LLMRequest, Message


def test_demo_script_ships_an_invalid_then_a_valid_answer():
    answers = load_script()
    assert len(answers) >= 2 and all("```yaml" in a["text"] for a in answers)


def test_demo_replays_in_order_and_repeats_the_last():
    provider = DemoProvider()
    request = LLMRequest("s", "", [Message("user", "hi")], 100)
    texts = [provider.complete(request).text for _ in range(4)]
    script = [a["text"] for a in load_script()]
    assert texts[: len(script)] == script[:4] and texts[-1] == script[-1]


def test_demo_script_is_invalid_first_and_valid_last_for_the_real_validator():
    from osiris.settings import load_settings
    from osiris.validate import load_validator

    validator = load_validator(load_settings(env={}, cwd="/"))
    answers = load_script()
    assert not validator.validate(answers[0]["text"]).valid
    assert validator.validate(answers[-1]["text"]).valid

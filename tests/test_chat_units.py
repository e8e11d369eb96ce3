"""The chat's small parts: slash parsing and completion, hand-off answers, paths, editor choice,
cost estimates, and when output may be fancy."""

from __future__ import annotations

import io

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from osiris.chat.completion import SlashCompleter
from osiris.chat.cost import estimate_usd
from osiris.chat.display import PlainDisplay, make_display
from osiris.chat.editor import EditorError, editor_command
from osiris.chat.handoff import parse_choice
from osiris.chat.loop import ChatLoop
from osiris.chat.progress import ChatProgress
from osiris.chat.questions import OpenQuestion
from osiris.chat.reader import PlainReader
from osiris.chat.render import attempt_rows, describe_locations, pointer_to_dotted
from osiris.chat.save import default_path, save_pipeline, target_path
from osiris.chat.slash import BY_NAME, SlashInput, closest, parse_slash
from osiris.chat.terminal import wants_fancy_output
from osiris.llm.types import TokenUsage
from osiris.validate.issue import Issue
from tests.engine_harness import make_engine


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def completions(text: str) -> list[str]:
    found = SlashCompleter().get_completions(Document(text, len(text)), CompleteEvent(completion_requested=True))
    return [c.text for c in found]


def test_parse_slash():
    assert parse_slash("/save out/x.yaml ") == SlashInput("save", "out/x.yaml")
    assert parse_slash("  /EXIT") == SlashInput("exit", "")
    assert parse_slash("copy the table") is None
    assert parse_slash("//not a command") is None


def test_closest_command_for_typos():
    assert closest("sav") == "save"
    assert closest("histroy") == "history"
    assert closest("zzz") is None


def test_tab_completes_command_names_and_save_paths(tmp_path, monkeypatch):
    assert completions("/s") == ["/show", "/save", "/session"]
    assert completions("/re") == ["/retry-attempts"]
    assert completions("plain text") == []
    (tmp_path / "pipelines").mkdir()
    monkeypatch.chdir(tmp_path)
    assert completions("/save pip") == ["elines"]  # the rest of the folder name


def test_every_slash_command_has_a_handler(project, fake_api):
    # Real parts, not None: tests/test_chat_inprocess.py drives this loop through whole turns.
    display = PlainDisplay(io.StringIO())
    reader = PlainReader(io.StringIO(), io.StringIO())
    loop = ChatLoop(make_engine(project).engine, display, reader, ChatProgress(display),
                    project_root=project, cwd=project, env={})
    assert set(loop._handlers) == set(BY_NAME)


@pytest.mark.parametrize("answer, choice", [
    ("h", "hint"), ("Hint", "hint"), (" edit ", "edit"), ("f", "fresh"), ("c", "cancel"),
    ("", None), ("x", None), ("help me", None),
])
def test_hand_off_answers(answer, choice):
    assert parse_choice(answer) == choice


def test_error_locations_are_readable():
    assert pointer_to_dotted("/steps/1/config/port") == "steps[1].config"
    assert pointer_to_dotted("") == "the document"
    issues = [Issue("OML305", 3, "error", p, "m") for p in ("/steps/1/config/port", "/steps/1/config/host", "/name", "/x")]
    assert describe_locations(issues) == "steps[1].config and name (+1 more)"


def test_default_save_path_is_pipelines_name_yaml(tmp_path):
    assert default_path({"name": "active-customers"}, tmp_path) == tmp_path / "pipelines" / "active-customers.yaml"
    assert default_path({"name": "../../etc/passwd"}, tmp_path) == tmp_path / "pipelines" / "etc-passwd.yaml"
    assert default_path(None, tmp_path).name == "pipeline.yaml"
    assert target_path("out.yaml", None, tmp_path, tmp_path / "sub") == tmp_path / "sub" / "out.yaml"


def test_save_never_overwrites_without_a_yes(tmp_path):
    target = tmp_path / "p.yaml"
    target.write_text("old\n")
    assert save_pipeline("new", target, lambda _path: False) is False
    assert target.read_text() == "old\n"
    assert save_pipeline("new", target, lambda _path: True) is True
    assert target.read_text() == "new\n"


def test_editor_is_visual_then_editor_then_a_default(tmp_path, monkeypatch):
    assert editor_command({"VISUAL": "code --wait", "EDITOR": "vim"}) == ["code", "--wait"]
    assert editor_command({"EDITOR": "nano -w", "VISUAL": "  "}) == ["nano", "-w"]
    # The fallback is the first of nano, vi found on PATH: a PATH made for the test decides it.
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "vi").write_text("#!/bin/sh\n")
    (tools / "vi").chmod(0o755)
    monkeypatch.setenv("PATH", str(tools))
    assert editor_command({}) == ["vi"]
    (tools / "nano").write_text("#!/bin/sh\n")
    (tools / "nano").chmod(0o755)
    assert editor_command({}) == ["nano"]


def test_no_editor_at_all_says_how_to_set_one(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(EditorError) as raised:
        editor_command({})
    assert str(raised.value) == "no editor found: set VISUAL or EDITOR, e.g. export EDITOR=nano"


def test_cost_estimate_uses_the_model_family_and_nothing_for_demo():
    usage = TokenUsage(input=1_000_000, output=1_000_000, cache_write=0, cache_read=1_000_000)
    assert estimate_usd(usage, "claude-sonnet-4-5") == pytest.approx(3 + 15 + 0.3)
    assert estimate_usd(usage, "demo") is None


def test_fancy_output_only_on_a_terminal_without_no_color():
    assert wants_fancy_output(FakeTerminal(), {"TERM": "xterm"})
    assert not wants_fancy_output(FakeTerminal(), {"TERM": "xterm", "NO_COLOR": "1"})
    assert not wants_fancy_output(FakeTerminal(), {"TERM": "dumb"})
    assert not wants_fancy_output(io.StringIO(), {})
    assert isinstance(make_display(io.StringIO(), {}), PlainDisplay)


def test_an_answer_goes_back_with_the_request_and_the_question():
    text = OpenQuestion("copy customers", "Which table?").with_answer(" clients ")
    assert text == "copy customers\n\nYou asked: Which table?\nMy answer: clients"


def test_attempt_rows_read_the_engine_attempt_summary():
    from osiris.retry.result import Attempt
    from osiris.retry.attempt_trail import attempt_summary
    from osiris.validate.issue import ValidationReport

    report = ValidationReport(issues=[Issue("OML212", 2, "error", "/steps/0/mode", "bad mode")])
    attempt = Attempt(1, "generate", "p", "a", report, TokenUsage(input=120, output=40), llm_ms=812.4, validate_ms=1.46)
    assert attempt_rows([attempt_summary(attempt)]) == [["1", "generate", "no", "OML212", "120/40", "812", "1.5"]]


def test_the_chat_status_line_names_the_sample_tier_and_what_broke_last_time():
    from osiris.retry.progress import TestingSamples

    out = io.StringIO()
    progress = ChatProgress(PlainDisplay(out))
    with progress.working("Working…"):
        progress(TestingSamples(cycle=1, attempt=1, total=3, rows=10))
        progress(TestingSamples(cycle=1, attempt=2, total=3, rows=10,
                                last_time="unknown column 'active' in customers"))
    assert out.getvalue().splitlines() == [
        "Working…",
        "Testing on samples (attempt 1/3): 10 rows a source…",
        "Testing on samples (attempt 2/3), last time: unknown column 'active' in customers…",
    ]

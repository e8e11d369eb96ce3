"""Issue 9 items 8, 9 and 3 (session part): the session writers under planted faults.

Real files, real symbolic links, a real second process holding the lock, a real partial write
(RLIMIT_FSIZE makes the kernel stop a write part-way, as a full disk does; no tmpfs without root).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap

import pytest

from osiris.errors import ExitCode, FileWriteError, UsageError
from osiris.secrets.redact import Redactor
from osiris.session import Session
from osiris.session.reader import find_session, list_sessions, read_events

LINK_REFUSED = "is a symbolic link; Osiris does not write through links (remove it, or choose another path)"


def new_session(tmp_path):
    return Session.create(tmp_path / "sessions", provider="demo", model="demo", redactor=Redactor())


def resume(path):
    return Session.resume(path, provider="demo", model="demo", redactor=Redactor())


def strict_lines(path):
    """Every line parsed by a strict reader: NaN, Infinity and lone surrogates are refused."""
    def refuse(constant):
        raise ValueError(f"not strict JSON: {constant}")

    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line, parse_constant=refuse) for line in lines]


# --- item 8: links in a session directory -------------------------------------------------

@pytest.mark.parametrize("name", ["events.jsonl", "conversation.jsonl"])
def test_a_resumed_session_never_appends_through_a_planted_link(tmp_path, name):
    session = new_session(tmp_path)
    session.append_conversation("user", "hello")
    session.finish("valid")
    victim = tmp_path / "victim.txt"
    victim.write_text("mine\n")
    (session.path / name).unlink()
    (session.path / name).symlink_to(victim)

    with pytest.raises(FileWriteError) as refused:
        again = resume(session.path)
        again.append_conversation("user", "more")

    assert str(refused.value) == f"cannot write {session.path / name}: {LINK_REFUSED}"
    assert refused.value.exit_code == ExitCode.USAGE
    assert victim.read_text() == "mine\n"


def test_a_dangling_link_is_refused_and_its_target_never_created(tmp_path):
    session = new_session(tmp_path)
    session.finish("valid")
    (session.path / "events.jsonl").unlink()
    (session.path / "events.jsonl").symlink_to(tmp_path / "created-elsewhere")

    with pytest.raises(FileWriteError):
        resume(session.path)

    assert not (tmp_path / "created-elsewhere").exists()


def test_an_artifacts_folder_that_is_a_link_is_refused(tmp_path):
    session = new_session(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (session.path / "artifacts").symlink_to(elsewhere)

    with pytest.raises(FileWriteError, match="artifacts is a symbolic link"):
        session.write_text("artifacts/cycle-1/attempt-1/answer.txt", "text")

    assert list(elsewhere.iterdir()) == []


def test_an_artifact_file_that_is_a_link_is_refused_and_its_target_untouched(tmp_path):
    session = new_session(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("mine\n")
    (session.path / "artifacts" / "cycle-1").mkdir(parents=True)
    (session.path / "artifacts" / "cycle-1" / "retry_trail.json").symlink_to(victim)

    with pytest.raises(FileWriteError, match="retry_trail.json is a symbolic link"):
        session.write_json("artifacts/cycle-1/retry_trail.json", {"cycle": 1})

    assert victim.read_text() == "mine\n"


# --- item 9: one writer, torn lines, interrupted, unreadable --------------------------------

HOLD_LOCK = textwrap.dedent("""
    import sys, pathlib
    from osiris.session.lock import SessionLock
    lock = SessionLock.acquire(pathlib.Path(sys.argv[1]), "x")
    print("held", flush=True)
    sys.stdin.read()
""")


def test_a_second_writer_is_refused_while_another_process_holds_the_session(tmp_path):
    session = new_session(tmp_path)
    session.finish("valid")
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(session.path)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        before = (session.path / "events.jsonl").read_bytes()
        with pytest.raises(UsageError) as refused:
            resume(session.path)
        assert str(refused.value) == (
            f"session {session.path.name} is open in another osiris process (pid {holder.pid}); "
            "end that one first, or start a new session")
        assert refused.value.exit_code == ExitCode.USAGE
        assert (session.path / "events.jsonl").read_bytes() == before
        assert list_sessions(session.path.parent)[0].status == "valid"
    finally:
        holder.communicate("")
    again = resume(session.path)  # the holder is gone: the lock is free
    again.finish("valid")


def test_a_running_session_nobody_holds_is_shown_as_interrupted(tmp_path):
    session = new_session(tmp_path)  # this process holds it: running
    [record] = list_sessions(session.path.parent)
    assert (record.meta["status"], record.status) == ("running", "running")

    session._lock.release()  # as the OS does when the process is killed

    [record] = list_sessions(session.path.parent)
    assert (record.meta["status"], record.status) == ("running", "interrupted")


def test_a_torn_last_line_is_ended_before_the_next_event(tmp_path):
    session = new_session(tmp_path)
    session.write_event("user_message", dict(text="first"))
    session.finish("valid")
    events = session.path / "events.jsonl"
    whole = events.read_bytes()
    events.write_bytes(whole[:-25])  # the last line cut off, as a full disk leaves it

    again = resume(session.path)
    again.finish("valid")

    lines = events.read_text().splitlines()
    torn = lines[2]
    assert whole.splitlines()[2].startswith(torn.encode()) and torn != whole.splitlines()[2].decode()
    resumed = [json.loads(line) for line in lines[3:]]
    assert [e["event_type"] for e in resumed] == ["session_resumed", "session_end"]
    assert [e["seq"] for e in resumed] == [3, 4]  # the torn event's seq is not reused: 2 was the last whole one


PARTIAL_WRITE = textwrap.dedent("""
    import json, resource, signal, sys, pathlib
    from osiris.errors import FileWriteError
    from osiris.secrets.redact import Redactor
    from osiris.session import Session
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    session = Session.create(pathlib.Path(sys.argv[1]), provider="demo", model="demo", redactor=Redactor())
    events = session.path / "events.jsonl"
    limit = events.stat().st_size + 40
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        session.write_event("user_message", dict(text="x" * 200))
    except FileWriteError as error:
        print(error)
    resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    session.write_event("user_message", dict(text="after the disk was freed"))
    session.finish("valid")
    print(session.path)
""")


def test_after_a_write_stopped_part_way_the_next_event_starts_a_new_line(tmp_path):
    done = subprocess.run([sys.executable, "-c", PARTIAL_WRITE, str(tmp_path / "sessions")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    failure, path = done.stdout.splitlines()
    assert failure.startswith("cannot write ") and failure.endswith("events.jsonl: File too large")

    lines = (tmp_path / "sessions" / path.rsplit("/", 1)[1] / "events.jsonl").read_text().splitlines()
    assert len(lines) == 4  # session_start, the torn line, and two whole events after it
    with pytest.raises(ValueError):
        json.loads(lines[1])
    assert [json.loads(line)["text"] for line in lines[2:3]] == ["after the disk was freed"]
    assert json.loads(lines[3])["event_type"] == "session_end"


@pytest.mark.parametrize("content", ['{"id": ', '[1, 2]', '{"id": 7}', '{"totals": []}',
                                     '{"started_at": 5}', '{"totals": {"llm_ms": "slow"}}', "\udcff"])
def test_one_damaged_session_json_is_listed_as_unreadable_and_the_others_still_are(tmp_path, content):
    good = new_session(tmp_path)
    good.finish("valid")
    damaged = tmp_path / "sessions" / "20200101-000000-badbad"
    damaged.mkdir()
    (damaged / "session.json").write_bytes(content.encode("utf-8", "surrogateescape"))

    records = list_sessions(tmp_path / "sessions")

    assert [(r.id, r.status) for r in records] == [(good.id, "valid"), (damaged.name, "unreadable")]
    assert records[1].problem.startswith("session.json: ")


def test_an_empty_session_id_is_a_usage_error(tmp_path):
    new_session(tmp_path).finish("valid")

    for empty in ("", "  "):
        with pytest.raises(UsageError) as refused:
            find_session(tmp_path / "sessions", empty)
        assert refused.value.exit_code == ExitCode.USAGE
        assert str(refused.value) == "a session ID must not be empty (see 'osiris sessions list')"


# --- strict JSON and odd text ---------------------------------------------------------------

def test_non_finite_numbers_are_written_as_strings_and_every_line_is_strict_json(tmp_path):
    session = new_session(tmp_path)
    session.write_event("api_error", dict(delay_s=math.inf, retry_after=float("inf"), ratio=-math.inf, value=math.nan,
                                          nested={"x": [math.nan]}))
    session.write_json("artifacts/cycle-1/attempt-1/errors.json", {"value": math.nan})
    session.finish("valid")

    event = strict_lines(session.path / "events.jsonl")[1]
    assert (event["delay_s"], event["ratio"], event["value"], event["nested"]) == (
        "Infinity", "-Infinity", "NaN", {"x": ["NaN"]})
    errors = session.path / "artifacts" / "cycle-1" / "attempt-1" / "errors.json"
    assert json.loads(errors.read_text(), parse_constant=lambda c: pytest.fail(c)) == {"value": "NaN"}


def test_a_lone_surrogate_is_written_escaped_and_the_session_stays_valid(tmp_path):
    session = new_session(tmp_path)
    answer = "name: a\ud800b"
    session.write_event("llm_response", dict(text=answer))
    session.append_conversation("assistant", answer, note="\udcff")
    written = session.write_text("artifacts/cycle-1/attempt-1/answer.txt", answer)
    session.write_json("artifacts/cycle-1/attempt-1/errors.json", {answer: answer})
    session.finish("valid")

    assert strict_lines(session.path / "events.jsonl")[1]["text"] == "name: a\\ud800b"
    [turn] = strict_lines(session.path / "conversation.jsonl")
    assert (turn["content"], turn["note"]) == ("name: a\\ud800b", "\\udcff")
    assert written.read_bytes() == b"name: a\\ud800b"
    errors = (session.path / "artifacts" / "cycle-1" / "attempt-1" / "errors.json").read_text()
    assert json.loads(errors) == {"name: a\\ud800b": "name: a\\ud800b"}
    assert list_sessions(session.path.parent)[0].status == "valid"


def test_unicode_line_separators_never_cut_an_event_in_two(tmp_path):
    session = new_session(tmp_path)
    session.write_event("user_message", dict(text="one\u2028two\u2029three\x85four"))
    session.finish("valid")

    read = read_events(find_session(session.path.parent, session.id))

    assert [e["event_type"] for e in read] == ["session_start", "user_message", "session_end"]
    assert read[1]["text"] == "one\u2028two\u2029three\x85four"
    assert b"\\u2028" in (session.path / "events.jsonl").read_bytes()

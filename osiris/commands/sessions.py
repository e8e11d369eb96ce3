"""`osiris sessions list | show ID | attempts ID | events ID [--json]`: the audit trail (docs/sessions.md).

ID may be a unique prefix of a session id, or `last` for the newest session.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from osiris.commands.options import add_action, add_actions
from osiris.errors import ExitCode
from osiris.session import strict_json
from osiris.text_table import printable
from osiris.oml.narrow import items_of, object_of, objects_in

if TYPE_CHECKING:
    from osiris.llm.types import TokenUsage
    from osiris.oml.values import Config, Value
    from osiris.session.reader import SessionRecord


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = add_actions(parser)
    listing = add_action(actions, "list", "sessions, newest first")
    listing.add_argument("--json", action="store_true", help="JSON on stdout")
    for name, summary in (
        ("show", "one session: status, provider, model, totals, cycles"),
        ("attempts", "the attempt table of every cycle"),
        ("events", "the events, one a line"),
    ):
        sub = add_action(actions, name, summary)
        sub.add_argument("session_id", metavar="ID", help="session id, a unique prefix, or 'last'")
        sub.add_argument("--json", action="store_true", help="JSON on stdout")


def run(args: argparse.Namespace) -> int:
    from osiris.session import reader
    from osiris.settings import load_settings

    effective = load_settings(config_path=args.config)
    root = effective.resolve_path(effective.settings.sessions.dir)
    if args.action == "list":
        return _list(reader.list_sessions(root), args.json, root)
    record = reader.find_session(root, args.session_id)
    run = reader.read_run(record)
    if args.action == "show":
        return _show(record, reader.read_trails(record), run, args.json)
    if args.action == "attempts":
        return _run_steps(run, args.json) if run is not None else _attempts(reader.read_trails(record), args.json)
    return _events(reader.read_events(record), args.json)


# One definition of token figures everywhere (TokenUsage): "in" is fresh input only; cache reads
# and writes are counted apart, as Anthropic bills them. The same four labels in every table.
TOKEN_KEYS = ("tokens_in", "tokens_out", "tokens_cache_read", "tokens_cache_write")
TOKEN_HEADERS = ["TOK IN", "TOK OUT", "CACHE READ", "CACHE WRITE"]


def _usage(tokens: Config) -> TokenUsage:
    from osiris.llm.types import TokenUsage

    return TokenUsage(**{key: _whole(tokens.get(key, 0)) for key in ("input", "output", "cache_write", "cache_read")})


def _whole(value: Value) -> int:
    """A count as session.json holds it (`meta_problem` checked it: a whole number), 0 when absent."""
    return int(value) if isinstance(value, (int, float, str)) and value else 0


def _list(records: list[SessionRecord], as_json: bool, root: Path) -> int:
    if as_json:
        _print_json([_summary(r) for r in records])
        return ExitCode.OK
    if not records:
        print(f"no sessions in {root}", file=sys.stderr)
        return ExitCode.OK
    rows = [
        [
            str(s["id"]), str(s["started_at"] or ""), str(s["command"] or ""), str(s["status"] or ""),
            str(s["model"] or ""),
            str(s["attempts"]), *(str(s[key]) for key in TOKEN_KEYS),
        ]
        for s in map(_summary, records)
    ]
    _print_table(["ID", "STARTED", "COMMAND", "STATUS", "MODEL", "ATTEMPTS", *TOKEN_HEADERS], rows)
    return ExitCode.OK


def _summary(record: SessionRecord) -> dict[str, Value]:
    meta = record.meta
    totals = object_of(meta.get("totals"))
    tokens = object_of(totals.get("tokens"))
    return {
        "id": record.id,
        "path": str(record.path),
        "started_at": meta.get("started_at"),
        "ended_at": meta.get("ended_at"),
        "command": meta.get("command"),
        "status": record.status,
        "problem": record.problem,
        "provider": meta.get("provider"),
        "model": meta.get("model"),
        "cycles": totals.get("cycles", 0),
        "attempts": totals.get("attempts", 0),
        "tokens_in": tokens.get("input", 0),
        "tokens_out": tokens.get("output", 0),
        "tokens_cache_read": tokens.get("cache_read", 0),
        "tokens_cache_write": tokens.get("cache_write", 0),
        "totals": totals,
    }


def _show(record: SessionRecord, trails: list[dict[str, Value]], run: dict[str, Value] | None, as_json: bool) -> int:
    meta = record.meta
    if as_json:
        _print_json({"session": meta, "status": record.status, "problem": record.problem,
                     "path": str(record.path), "cycles": trails, "run": run})
        return ExitCode.OK
    totals = object_of(meta.get("totals"))
    tokens = object_of(totals.get("tokens"))
    print(f"session   {record.id}")
    print(f"path      {record.path}")
    if record.problem:
        print(f"status    {record.status} ({record.problem})")
        return ExitCode.OK
    print(f"command   {meta.get('command')}")
    print(f"status    {record.status}")
    if run is None:
        print(f"provider  {meta.get('provider')} ({meta.get('model')})")
    print(f"started   {meta.get('started_at')}")
    print(f"ended     {meta.get('ended_at') or '-'}")
    if run is not None:
        print("\n".join(_run_lines(run)))
        return ExitCode.OK
    print(
        f"totals    {totals.get('cycles', 0)} cycle(s), {totals.get('attempts', 0)} attempt(s); "
        f"tokens: {_usage(tokens).describe()}; "
        f"LLM {totals.get('llm_ms', 0):.0f} ms, validation {totals.get('validation_ms', 0):.0f} ms"
    )
    for trail in trails:
        request = " ".join(str(trail.get("request") or "").split())
        status, reason = trail.get("status"), trail.get("stop_reason")
        why = f" ({reason})" if reason and reason != status else ""
        print(printable(f"cycle {trail.get('cycle')}: {status}{why}, "
                        f"{len(objects_in(trail.get('attempts')))} attempt(s): {request[:70]}"))
    return ExitCode.OK


def _run_lines(run: Config) -> list[str]:
    """What an `osiris run` session ran and wrote: the pipeline, then a line per step."""
    lines = [printable(f"pipeline  {run.get('pipeline_name') or '-'} ({run.get('pipeline')}), "
                       f"sha256 {run.get('pipeline_sha256') or '-'}")]
    if run.get("sample") is not None:
        lines.append(f"sample    {run['sample']} rows a source; writes rolled back, nothing kept")
    return lines + _step_table(objects_in(run.get("steps")))


def _step_table(steps: list[Config]) -> list[str]:
    from osiris.run.targets import describe_target
    from osiris.text_table import format_table

    rows = [[
        str(step.get("id")), str(step.get("component")), str(step.get("status")),
        f"{step.get('rows_in', 0):,}", f"{step.get('rows_out', 0):,}",
        f"{_seconds(step.get('duration_ms'))} s",
        describe_target(object_of(step.get("target"))) if step.get("target") else "-",
    ] for step in steps]
    return format_table(["STEP", "COMPONENT", "STATUS", "ROWS IN", "ROWS OUT", "TIME", "WROTE"], rows) + [
        f"{step.get('id')}: read by the query of {step['fused_into']!r} (fused); its rows are DuckDB's count of "
        "that query's file scan" for step in steps if step.get("fused_into")]


def _seconds(milliseconds: Value) -> str:
    """`1.5` for 1500 ms; a value that is no number as it is."""
    if isinstance(milliseconds, (int, float)):
        return f"{milliseconds / 1000:.1f}"
    return str(milliseconds) if milliseconds else "0.0"


def _run_steps(run: dict[str, Value], as_json: bool) -> int:
    """`sessions attempts` of a run session: it made no LLM attempts; its steps are what it did."""
    if as_json:
        _print_json(run.get("steps") or [])
        return ExitCode.OK
    print("\n".join(_run_lines(run)))
    return ExitCode.OK


def _attempts(trails: list[dict[str, Value]], as_json: bool) -> int:
    rows: list[dict[str, Value]] = []
    for trail in trails:
        for attempt in objects_in(trail.get("attempts")):
            usage = attempt.get("token_usage") or {}
            rows.append({"cycle": trail.get("cycle"), **attempt, "token_usage": usage})
    if as_json:
        _print_json(rows)
        return ExitCode.OK
    table = [
        [
            str(r["cycle"]), str(r.get("attempt_index")), str(r.get("kind") or ""), "yes" if r.get("valid") else "no",
            ",".join(str(code) for code in items_of(r.get("error_codes"))) or "-",
            *(str(object_of(r["token_usage"]).get(kind, 0)) for kind in ("input", "output", "cache_read", "cache_write")),
            f"{r.get('llm_ms', 0):.0f}", f"{r.get('validation_ms', 0):.1f}",
        ]
        for r in rows
    ]
    _print_table(
        ["CYCLE", "ATTEMPT", "KIND", "VALID", "ERROR CODES", *TOKEN_HEADERS, "LLM MS", "VALIDATE MS"],
        table,
    )
    return ExitCode.OK


def _events(events: list[dict[str, Value]], as_json: bool) -> int:
    if as_json:
        _print_json(events)
        return ExitCode.OK
    for event in events:
        extra = {k: v for k, v in event.items() if k not in ("ts", "seq", "session_id", "event_type")}
        details = " ".join(f"{k}={_detail(k, v)}" for k, v in extra.items())
        print(f"{event.get('seq'):>4} {event.get('ts')} {event.get('event_type'):<28} {details}")
    return ExitCode.OK


def _detail(key: str, value: Value, limit: int = 120) -> str:
    """A field of an event as JSON, cut at `limit` characters; a writer's target (`step_complete`,
    `run_end`) in words, whole: what was written where is the point of a run's trail."""
    from osiris.run.targets import describe_target

    if key == "target" and isinstance(value, dict):
        return strict_json.dumps(describe_target(value))
    if key == "targets" and isinstance(value, list):
        return strict_json.dumps([describe_target(t) for t in value if isinstance(t, dict)])
    text = strict_json.dumps(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _print_table(headers: list[str], rows: list[list[str]]) -> None:
    from osiris.text_table import format_table

    print("\n".join(format_table(headers, rows)))


def _print_json(data: object) -> None:
    print(strict_json.dumps(data, indent=2))

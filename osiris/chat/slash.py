"""The slash commands: one table that drives parsing, `/help` and tab completion."""

from __future__ import annotations

from dataclasses import dataclass

from osiris import suggest
from osiris.settings.allowed import MAX_ATTEMPTS, int_bounds


@dataclass(frozen=True)
class SlashCommand:
    name: str  # without the slash
    usage: str  # e.g. "/save [FILE]"
    summary: str


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("help", "/help", "show these commands"),
    SlashCommand("show", "/show", "show the current pipeline"),
    SlashCommand("save", "/save [FILE]",
                 "save the current pipeline (default pipelines/<name>.yaml); /save --draft keeps an invalid one"),
    SlashCommand("validate", "/validate", "validate the current pipeline again"),
    SlashCommand("edit", "/edit", "open the current pipeline in $VISUAL / $EDITOR, then validate it"),
    SlashCommand("history", "/history", "the attempts of each generation cycle of the session"),
    SlashCommand("cost", "/cost", "tokens and estimated cost: last turn and whole session"),
    SlashCommand("session", "/session", "this session's id and directory"),
    SlashCommand("retry-attempts", "/retry-attempts N", "retries after the first generation, {}..{}".format(
        *int_bounds(MAX_ATTEMPTS))),
    SlashCommand("exit", "/exit", "end the session (Ctrl-D does the same)"),
)
BY_NAME = {command.name: command for command in COMMANDS}


@dataclass(frozen=True)
class SlashInput:
    """A parsed `/name argument` line."""

    name: str
    argument: str


def parse_slash(line: str) -> SlashInput | None:
    """`/save out.yaml` -> SlashInput("save", "out.yaml"); None when the line is not a command."""
    text = line.strip()
    if not text.startswith("/") or text.startswith("//"):
        return None
    name, _, argument = text[1:].partition(" ")
    return SlashInput(name.lower(), argument.strip())


def closest(name: str) -> str | None:
    """The command a mistyped name most likely meant, for 'unknown command' messages."""
    match = suggest.closest(name, BY_NAME, cutoff=0.5)
    prefixed = [command for command in BY_NAME if command.startswith(name)] if name else []
    return match or (prefixed[0] if len(prefixed) == 1 else None)


def help_rows() -> list[tuple[str, str]]:
    return [(command.usage, command.summary) for command in COMMANDS]

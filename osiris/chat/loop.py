"""The chat loop: read a message or a slash command, run it through the engine, show the result.

One `ChatLoop` per session. It owns no generation logic: the engine generates, validates,
retries and records; the loop shows progress, asks the person, and carries out their choices.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from osiris.chat import handoff
from osiris.chat.cost import describe_usage
from osiris.chat.discover_offer import DiscoveryOffer
from osiris.chat.display import Display
from osiris.chat.editor import EditorError, edit_text
from osiris.chat.progress import ChatProgress
from osiris.chat.questions import OpenQuestion
from osiris.chat.reader import LineReader
from osiris.chat.sample import show_sample_result
from osiris.chat.render import (
    count,
    preamble,
    show_attempts,
    show_errors,
    show_pipeline,
    show_warnings,
)
from osiris.chat.save import draft_path, draft_text, target_path
from osiris.chat.save_dialog import SaveDialog
from osiris.chat.slash import closest, help_rows, parse_slash
from osiris.errors import ExitCode, LLMAuthError, LLMUnavailableError
from osiris.llm.types import TokenUsage
from osiris.retry.budget import SpendingCapReached
from osiris.retry.generation_engine import GenerationEngine
from osiris.session.events import LlmCallCancelled
from osiris.oml.narrow import objects_in

if TYPE_CHECKING:
    from osiris.oml.values import Config, Value
    from osiris.retry.result import CycleResult
    from osiris.validate.issue import ValidationReport

MAX_RETRY_ATTEMPTS = 5
HISTORY_CYCLES = 10  # cycles /history shows, the latest


class ChatLoop:
    """Runs one interactive session until /exit or Ctrl-D."""

    def __init__(
        self,
        engine: GenerationEngine,
        display: Display,
        reader: LineReader,
        progress: ChatProgress,
        *,
        project_root: Path,
        cwd: Path,
        env: Mapping[str, str],
    ) -> None:
        self.engine = engine
        self.display = display
        self.reader = reader
        self.progress = progress
        self.project_root = project_root
        self.cwd = cwd
        self.env = env
        self.turn_usage = TokenUsage()
        self.open_question: OpenQuestion | None = None
        self.discovery = DiscoveryOffer(engine, project_root, env, display, reader)  # offers `osiris discover`
        self.saving = SaveDialog(display, reader, project_root, cwd)  # where to save, and overwriting
        self._handlers: dict[str, Callable[[str], bool]] = {
            "help": self._help,
            "show": self._show,
            "save": self._save,
            "validate": self._validate,
            "edit": self._edit,
            "history": self._history,
            "cost": self._cost,
            "session": self._session,
            "retry-attempts": self._retry_attempts,
            "exit": lambda _argument: False,
        }

    # --- the loop ------------------------------------------------------------------------

    def run(self) -> int:
        """Until /exit or Ctrl-D; `session_end` is written either way. Returns the exit code: 0, or
        1 when the input ended while the person was asked what to do with an invalid pipeline."""
        status = "ended"
        try:
            while True:
                try:
                    line = self.reader.read()
                except KeyboardInterrupt:  # Ctrl-C at the prompt clears the line
                    continue
                except EOFError:
                    break
                try:
                    if not self.handle(line):
                        break
                except EOFError:  # end of input at the hand-off: nobody can answer, as in generate
                    status = "invalid"
                    break
        except BaseException:
            status = "interrupted"
            raise
        finally:
            self.engine.session.finish(status)
            self.display.note(f"Session saved in {self.engine.session.path}")
        if status == "invalid":
            print(f"osiris: the pipeline is still invalid and the input ended at the hand-off; "
                  f"see {self.engine.session.path}", file=sys.stderr)
            return ExitCode.INVALID
        return ExitCode.OK

    def handle(self, line: str) -> bool:
        """One input; False ends the session."""
        if not line.strip():
            return True
        command = parse_slash(line)
        if command is None:
            self._request(line)
            return True
        handler = self._handlers.get(command.name)
        if handler is None:
            guess = closest(command.name)
            hint = f" Did you mean /{guess}?" if guess else ""
            self.display.warn(f"Unknown command /{command.name}.{hint} Type /help for the list.")
            return True
        return handler(command.argument)

    # --- engine calls ----------------------------------------------------------------------

    def _engine_call(self, call: Callable[[], CycleResult], status: str = "Working…") -> CycleResult | None:
        """Run one engine call under the status line. Ctrl-C cancels it; service errors are shown.
        Returns the cycle result, or None when there is none."""
        booked = self._session_usage()
        try:
            with self.progress.working(status):
                result = call()
        except KeyboardInterrupt:  # an answer that had arrived is billed: the turn counts it too
            self.turn_usage = self.turn_usage + (self._session_usage() - booked)
            self.engine.session.emit(LlmCallCancelled(reason="ctrl-c"))
            self.display.warn("Cancelled. The session goes on: type a new request, or /exit.")
            return None
        except (LLMAuthError, LLMUnavailableError) as error:
            self.display.error(f"LLM service: {error}")
            return None
        except SpendingCapReached as error:  # no call made: the session goes on (/edit still works)
            self.display.error(f"Not sent: {error}.")
            return None
        if result is not None:
            self.turn_usage = self.turn_usage + result.usage
        return result

    def _request(self, line: str) -> None:
        """A new request, a follow-up, or the answer to the assistant's question."""
        self.turn_usage = TokenUsage()
        request = self.open_question.with_answer(line) if self.open_question else line
        self.open_question = None
        self.discovery.offer(request)
        self._conclude(self._engine_call(lambda: self.engine.run(request), "Generating…"))

    def _conclude(self, result: CycleResult | None) -> None:
        """A valid result is shown and offered for saving; a question is shown; an invalid
        result goes to the person."""
        if result is not None and result.stop_reason == "question":
            self.open_question = OpenQuestion.from_result(result)
            self.display.say(f"? {self.open_question.question}")
            self.display.note("Answer it, and the pipeline follows.")
            return
        while result is not None and not result.valid:
            result = self._hand_off(result)
        if result is not None:
            self._accept(result)

    def _accept(self, result: CycleResult) -> None:
        attempts = len(result.attempts)
        how = "" if attempts == 1 else f" after {count(attempts, 'attempt')}"
        self.display.success(f"✓ Valid pipeline{how}.")
        remark = preamble(result.last.answer)
        if remark:
            self.display.say(remark)
        show_pipeline(self.display, result.report)
        show_sample_result(self.display, result, self.engine.session.redactor.text)
        if self.turn_usage == TokenUsage():
            self.display.note("No tokens this turn (validated without the LLM).")
        else:
            self.display.note(f"Tokens this turn: {describe_usage(self.turn_usage, self._priced_model())}")
        path, message = self.saving.ask_path(result.report.pipeline)
        saved = path is not None and self.saving.write(result.oml_text or "", path)
        self.engine.accept(result, saved_to=str(path) if saved else None)
        if message:
            self.display.note("Not saved: that is not a file name, so it is taken as your next message "
                              "(/save saves the pipeline later).")
            self._request(message)

    def _hand_off(self, result: CycleResult) -> CycleResult | None:
        """Show the history and carry out the person's choice. Returns the next result, if any."""
        shown = self.engine.escalate(result)
        handoff.present(self.display, result, shown, describe_usage(result.usage, self._priced_model()))
        choice = handoff.ask_choice(self.display, self.reader)
        if choice == "hint":
            try:
                hint = self.reader.ask("Your hint: ").strip()
            except (EOFError, KeyboardInterrupt):
                hint = ""
            if not hint:
                self.engine.record_choice("cancel", reason="empty hint")
                self.display.note("No hint given; left as it is. /edit or a new message carries on.")
                return None
            self.engine.record_choice("hint")
            return self._engine_call(lambda: self.engine.retry_with_hint(hint), "Generating…")
        if choice == "edit":
            self.engine.record_choice("edit")
            return self._edit_and_revalidate(result.oml_text or result.last.answer)
        if choice == "fresh":
            self.engine.record_choice("fresh")
            return self._engine_call(self.engine.fresh, "Generating…")
        self.engine.record_choice("cancel")
        self.display.note("Left as it is. /show, /edit or a new message carry on.")
        return None

    def _edit_and_revalidate(self, text: str) -> CycleResult | None:
        try:
            edited = edit_text(text, self.env)
        except EditorError as error:
            self.display.error(str(error))
            return None
        except KeyboardInterrupt:
            self.display.warn("Edit cancelled.")
            return None
        return self._engine_call(lambda: self.engine.revalidate(edited), "Validating…")

    def _priced_model(self) -> str:
        """The model to price tokens by; the demo provider's tokens are scripted, so unpriced."""
        provider = self.engine.provider
        return "demo" if provider.name == "demo" else provider.model

    # --- the current pipeline ----------------------------------------------------------------

    def _current(self) -> tuple[str | None, CycleResult | None]:
        """The latest pipeline text (valid or not) and the result it came from."""
        last = self.engine.last
        if last is not None and last.oml_text:
            return last.oml_text, last
        return self.engine.current_oml, None

    def _require_current(self) -> str | None:
        text, _ = self._current()
        if not text:
            self._no_pipeline()
        return text

    def _no_pipeline(self) -> bool:
        """What every command that needs a pipeline says before there is one."""
        self.display.note("No pipeline yet. Describe the one you want first.")
        return True

    # --- slash commands (each returns False to end the session) ------------------------------

    def _help(self, _argument: str) -> bool:
        self.display.table(("command", "does"), help_rows(), title="Commands:")
        self.display.note("Enter sends, Alt-Enter (or Esc then Enter) adds a new line, Tab completes "
                          "commands, Ctrl-C cancels a running request, Ctrl-D ends the session.")
        return True

    def _show(self, _argument: str) -> bool:
        text, result = self._current()
        if not text:
            return self._no_pipeline()
        if result is not None and not result.valid:
            self.display.warn("The current pipeline is not valid yet:")
        self.display.yaml(text)
        return True

    def _save(self, argument: str) -> bool:
        text, result = self._current()
        if not text:
            return self._no_pipeline()
        draft = argument == "--draft" or argument.startswith("--draft ")
        argument = argument.removeprefix("--draft").strip() if draft else argument
        report = self.engine.validator.validate(text)
        if not report.valid and draft:
            self._save_draft(text, report, argument)
            return True
        if not report.valid:
            self.display.warn("Not saved: the current pipeline is invalid. /edit fixes it by hand; "
                              "/save --draft [FILE] keeps it as a draft.")
            return True
        path = target_path(argument, report.pipeline, self.project_root, self.cwd)
        if self.saving.write(text, path) and result is not None:
            self.engine.accept(result, saved_to=str(path))
        return True

    def _save_draft(self, text: str, report: ValidationReport, argument: str) -> None:
        """An invalid pipeline kept on request: pipelines/<name>.draft.yaml (or FILE), marked as a
        draft, secrets masked; it is not an accepted pipeline."""
        path = (target_path(argument, report.pipeline, self.project_root, self.cwd) if argument
                else draft_path(report.pipeline, self.project_root))
        masked = self.engine.session.redactor.text(text)  # an invalid draft may hold an inline secret
        self.saving.write(draft_text(masked, len(report.errors)), path)

    def _validate(self, _argument: str) -> bool:
        text = self._require_current()
        if text:
            report = self.engine.validator.validate(text)
            if report.valid:
                self.display.success("✓ The current pipeline is valid.")
                show_warnings(self.display, report.warnings)
            else:
                self.display.error(f"✗ {count(len(report.errors), 'error')}:")
                show_errors(self.display, report.errors, text=report.oml_text)
        return True

    def _edit(self, _argument: str) -> bool:
        text = self._require_current()
        if text:
            self.turn_usage = TokenUsage()  # a new turn: the edit spends no tokens
            self._conclude(self._edit_and_revalidate(text))
        return True

    def _history(self, _argument: str) -> bool:
        """Every cycle of the session, from its retry trails: a resumed chat shows the cycles before it."""
        from osiris.retry.attempt_trail import attempt_summary
        from osiris.session.reader import SessionRecord, read_trails

        cycles: list[tuple[Value, Value, list[Config]]] = [
            (t.get("cycle"), t.get("stop_reason"), objects_in(t.get("attempts")))
            for t in read_trails(SessionRecord(self.engine.session.path, {}))]
        last = self.engine.last
        if last is not None and last.cycle not in {cycle for cycle, _, _ in cycles}:
            cycles.append((last.cycle, last.stop_reason, [attempt_summary(a) for a in last.attempts]))
        if not cycles:
            self.display.note("No generation yet.")
            return True
        if len(cycles) > HISTORY_CYCLES:
            self.display.note(f"{len(cycles) - HISTORY_CYCLES} earlier cycles not shown "
                              "(osiris sessions attempts lists them all).")
        for cycle, stop_reason, attempts in cycles[-HISTORY_CYCLES:]:
            show_attempts(self.display, attempts, title=f"Cycle {cycle} ({stop_reason}):")
        return True

    def _session_usage(self) -> TokenUsage:
        return TokenUsage(**self.engine.session.totals.tokens)

    def _cost(self, _argument: str) -> bool:
        model = self._priced_model()
        self.display.say(f"This turn: {describe_usage(self.turn_usage, model)}")
        self.display.say(f"Session:   {describe_usage(self._session_usage(), model)}")
        self.display.note("Estimated from list prices; your bill is the reference.")
        return True

    def _session(self, _argument: str) -> bool:
        session = self.engine.session
        self.display.say(f"Session {session.id}")
        self.display.say(f"Directory: {session.path}")
        return True

    def _retry_attempts(self, argument: str) -> bool:
        config = self.engine.config
        if not argument:
            self.display.say(f"Retry attempts: {config.max_attempts} (0..{MAX_RETRY_ATTEMPTS}; 0 is strict mode)")
            return True
        try:
            value = int(argument)
        except ValueError:
            value = -1
        if not 0 <= value <= MAX_RETRY_ATTEMPTS:
            self.display.warn(f"/retry-attempts takes a whole number from 0 to {MAX_RETRY_ATTEMPTS}, not {argument!r}.")
            return True
        self.engine.set_max_attempts(value)
        self.display.say(f"Retry attempts set to {value}{' (strict mode)' if value == 0 else ''}.")
        return True

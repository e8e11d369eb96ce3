"""The bounded delta-retry engine (docs/generate.md). It never prompts anyone; callers decide what to show.

    from osiris.retry import open_engine
    engine = open_engine(effective, command="chat", observer=on_progress, may_ask=True)
    # resume: open_engine(effective, command="chat", resume="last")  (same directory, turns restored)
    result = engine.run("copy active customers from MySQL to a CSV")    # one cycle
    if result.question: ...                      # chat only: show it; the reply is engine.run(reply)
    while not result.valid:
        shown = engine.escalate(result)          # hitl_escalation; the last history_limit attempts
        engine.record_choice("hint")             # hitl_response: hint | edit | fresh | cancel
        result = engine.retry_with_hint("the table is called clients")   # counter reset
        # or: result = engine.revalidate(edited_text)   (no LLM)
        # or: result = engine.fresh()                   (same request, counter reset)
    engine.accept(result, saved_to="pipelines/x.yaml")  # pipeline_accepted with sha256
    engine.session.finish("valid")

Progress events (for the observer) are in `osiris.retry.progress`; results in `osiris.retry.result`.
With `validation.dry_run` on, `open_engine` gives the engine a sample tier (osiris.sample): a valid
attempt is then run on samples, and a failure there is retried like any other (docs/sample-run.md).
The engine gets every collaborator in its constructor; nothing is set on it afterwards.
"""

from osiris.retry.engine_config import EngineConfig
from osiris.retry.generation_engine import GenerationEngine
from osiris.retry.result import Attempt, CycleResult
from osiris.retry.setup import open_engine

__all__ = ["Attempt", "CycleResult", "EngineConfig", "GenerationEngine", "open_engine"]

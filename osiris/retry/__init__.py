"""The bounded delta-retry engine (SPEC §5).

    from osiris.retry import open_engine
    engine = open_engine(effective, command="chat", observer=on_progress)
    result = engine.run("copy active customers from MySQL to a CSV")
    if not result.valid:
        engine.escalate(result)                  # hitl_escalation
        engine.record_choice("hint")             # hitl_response
        result = engine.retry_with_hint("the table is called clients")

Progress events are in `osiris.retry.progress`; results in `osiris.retry.result`.
"""

from osiris.retry.engine import EngineConfig, GenerationEngine
from osiris.retry.result import Attempt, CycleResult
from osiris.retry.setup import open_engine

__all__ = ["Attempt", "CycleResult", "EngineConfig", "GenerationEngine", "open_engine"]

"""Assemble an engine from the settings: key, validator, redactor, session, system prompt.

    engine = open_engine(effective, command="generate", observer=print_progress)
    result = engine.run("copy active customers from MySQL to a CSV")
    engine.session.finish("valid" if result.valid else "invalid")
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from osiris.explain import compact
from osiris.llm import Provider, make_provider
from osiris.llm.credentials import require_api_key
from osiris.prompt import build_system_prompt
from osiris.prompt.component_slice import MessageDetails
from osiris.prompt.schema import schema_for_project
from osiris.retry.budget import SpendingCap
from osiris.retry.engine_config import EngineConfig
from osiris.retry.generation_engine import GenerationEngine
from osiris.retry.progress import Observer, ignore
from osiris.trust.redactor import build_redactor
from osiris.session import Session
from osiris.session.reader import find_session, read_conversation
from osiris.validate import load_validator

if TYPE_CHECKING:
    from osiris.sample.policy import Ask
    from osiris.settings.loader import EffectiveSettings


def open_engine(
    effective: EffectiveSettings,
    *,
    command: str,
    observer: Observer = ignore,
    provider: Provider | None = None,
    sleep: Callable[[float], None] = time.sleep,
    may_ask: bool = False,
    resume: str | None = None,
    ask_before_sample: Ask | None = None,
) -> GenerationEngine:
    """A ready engine with a new session under `sessions.dir`. Raises LLMAuthError (no key)
    before anything is written. `may_ask=True` (chat) lets the LLM ask a question when the
    request lacks something; `osiris generate` never asks. `resume` (a session id, a unique prefix
    or `last`) continues that session: same directory, its conversation restored.
    `ask_before_sample`: how to ask the person before the first sample run (`validation.dry_run: ask`);
    without it, `ask` means no sample runs."""
    llm = effective.settings.llm
    api_key = None
    if provider is None and llm.provider == "anthropic":
        api_key, _source = require_api_key(effective.env)
    elif provider is None and llm.provider == "openai":
        from osiris.llm import openai_base_url, openai_model
        from osiris.llm.credentials import openai_api_key

        openai_model(effective)  # a usage error before anything is written
        api_key = openai_api_key(effective.env, openai_base_url(effective))
    validator = load_validator(effective)
    redactor = build_redactor(effective, api_key, validator.registry)
    provider = provider or make_provider(effective, api_key=api_key)
    root = effective.resolve_path(effective.settings.sessions.dir)
    record = find_session(root, resume) if resume else None
    if record is not None:
        session = Session.resume(record.path, provider=provider.name, model=provider.model, redactor=redactor)
    else:
        session = Session.create(
            root, provider=provider.name, model=provider.model, redactor=redactor,
            settings=effective.to_dict(), command=command,
        )
    from osiris.sample.tier import build_tier  # here: only engines that may run samples pay for the runtime

    system_prompt = build_system_prompt(validator.registry, effective.settings.connections, may_ask=may_ask,
                                        budget_tokens=llm.catalog_budget_tokens)
    engine = GenerationEngine(
        provider=provider,
        validator=validator,
        session=session,
        system_prompt=system_prompt,
        config=EngineConfig.from_settings(effective.settings, may_ask=may_ask),
        render=compact,
        observer=observer,
        sleep=sleep,
        details=MessageDetails(system_prompt.components, schema_for_project(effective)),
        sample_tier=build_tier(effective, session, validator.registry, ask=ask_before_sample),
        spending_cap=SpendingCap.from_settings(effective.settings),
    )
    if record is not None:
        engine.restore(read_conversation(record))
    return engine

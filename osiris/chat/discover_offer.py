"""The chat offers to discover a connection that a request mentions when its catalog is missing,
so that the LLM sees real table and column names (issue 13), or for an API where its records are
and what they hold (issue 26: it asks for a REST endpoint's path; a GraphQL connection's schema is
read whole). Each connection is offered once."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from osiris.catalog.store import catalog_path
from osiris.chat.save import is_yes
from osiris.errors import OsirisError

if TYPE_CHECKING:
    from osiris.chat.display import Display
    from osiris.chat.reader import LineReader
    from osiris.oml.values import Config
    from osiris.retry.generation_engine import GenerationEngine

_REFERENCE = re.compile(r"@([a-z0-9_-]+)\.([a-z0-9_-]+)", re.IGNORECASE)


def mentioned_connections(request: str, connections: Mapping[str, Mapping[str, Config]]) -> list[str]:
    """Configured connections a request names: `@family.alias`, or a family's name ("our MySQL"),
    which means its `default` alias (or its only one)."""
    from osiris.run.drivers import families

    found = {(family.lower(), alias) for family, alias in _REFERENCE.findall(request)}
    words = set(re.findall(r"[a-z0-9]+", _REFERENCE.sub(" ", request).lower()))
    for family, facts in families().items():
        aliases = list(connections.get(family) or {})
        if facts.discovers in ("endpoints", "fields"):  # an API is named by its alias ("the helpdesk tickets")
            found |= {(family, alias) for alias in aliases if alias.lower() in words}
        elif facts.kind == "database" and words & {family, *facts.words} and aliases:
            alias = "default" if "default" in aliases else (aliases[0] if len(aliases) == 1 else None)
            if alias:
                found.add((family, alias))
    return [f"@{family}.{alias}" for family, alias in sorted(found) if alias in (connections.get(family) or {})]


class DiscoveryOffer:
    """Asks, before a request is sent, whether to discover the connections it needs."""

    def __init__(self, engine: GenerationEngine, root: Path, env: Mapping[str, str], display: Display, reader: LineReader) -> None:
        self.engine, self.root, self.env = engine, root, env  # the engine's validator knows the settings
        self.display, self.reader = display, reader
        self.offered: set[str] = set()

    @property
    def connections(self) -> Mapping[str, Mapping[str, Config]]:
        return self.engine.validator.connections

    def offer(self, request: str) -> None:
        from osiris.run.drivers import discovers_endpoints

        for reference in mentioned_connections(request, self.connections):
            name = reference[1:]
            spec = self.engine.validator.registry.get(f"{name.split('.', 1)[0]}.extractor")
            if reference in self.offered or spec is None or "discover" not in spec.modes:
                continue
            if catalog_path(self.root, name).exists():
                continue
            self.offered.add(reference)
            family = name.split(".", 1)[0]
            endpoint = discovers_endpoints(family)
            paths = self._ask_path(reference) if endpoint else ([] if self._ask(reference, family) else None)
            if paths is not None:
                self._discover(reference, paths or None)
            else:
                self.display.note(f"Not discovered; `osiris discover {reference}{' /PATH' if endpoint else ''}` "
                                  "does it later.")

    def _ask(self, reference: str, family: str) -> bool:
        from osiris.catalog.discovery import source_kind

        kind = source_kind(family)
        what = "query fields (its schema)" if kind == "query field" else f"{kind}s"
        try:
            answer = self.reader.ask(f"No schema catalog for {reference} yet. Read its {what} now, so that "
                                     "the pipeline uses real names? [y/N] ")
        except (EOFError, KeyboardInterrupt):
            return False
        return is_yes(answer)

    def _ask_path(self, reference: str) -> list[str] | None:
        """The endpoint path to read (one page), or None to skip."""
        try:
            answer = self.reader.ask(f"No catalog for {reference} yet. Read one page of an endpoint now, so that "
                                     "the pipeline knows where its records are? Its path (e.g. /tickets), or Enter "
                                     "to skip: ")
        except (EOFError, KeyboardInterrupt):
            return None
        path = answer.strip()
        return [path if path.startswith("/") else f"/{path}"] if path else None

    def _discover(self, reference: str, paths: list[str] | None) -> None:
        from osiris.catalog.discovery import build_catalog, discover_connection, source_kind
        from osiris.catalog.store import write_catalog

        try:
            found = discover_connection(self.connections, self.env, reference, paths)
        except OsirisError as error:
            self.display.warn(f"Discovery failed: {error}")
            return
        family, alias = reference[1:].split(".", 1)
        catalog = build_catalog(f"{family}.{alias}", family, reference, found)
        path = write_catalog(self.root, catalog)
        count, kind = len(catalog.tables), source_kind(family)
        self.display.note(f"Read {count} {kind}{'s' if count != 1 else ''} of {reference} into "
                          f"{path.relative_to(self.root)}.")


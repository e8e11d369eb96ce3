"""The component catalogue within a token budget, whatever the size of the registry.

The system prompt (cached, the same for every call of a session) lists as many components as fit
`llm.catalog_budget_tokens`: first the families of the configured connections, then the rest by
name; each with its full field list while that fits, else as one short line. Components it leaves
short or out get their full field lists in the messages that need them: the request message for
the components the request points at (osiris.prompt.relevance) and those of the current pipeline,
the retry prompt for the components its errors name. Validation always uses the whole registry.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from osiris.prompt.catalog import describe_component, short_line
from osiris.prompt.relevance import ranked
from osiris.registry import Registry
from osiris.suggest import listing

if TYPE_CHECKING:
    from osiris.oml.values import Config
    from osiris.validate.issue import Issue

CHARS_PER_TOKEN = 4  # the usual estimate for English and YAML; the fake server counts the same way
TRAILER_RESERVE = 400  # characters kept free for the line that says how many are not listed
MAX_DETAILED = 8  # full field lists in one message at most
_NAME = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)+")
_STEP = re.compile(r"^/steps/(\d+)(?:/|$)")


def estimate_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


@dataclass(frozen=True)
class ComponentSlice:
    """`text` is the catalogue for the system prompt; `in_full` the components it describes in full."""

    registry: Registry
    budget_tokens: int
    text: str
    in_full: frozenset[str]

    @classmethod
    def build(cls, registry: Registry, budget_tokens: int, families: Iterable[str] = ()) -> ComponentSlice:
        wanted = set(families)
        specs = sorted(registry.components.values(), key=lambda spec: (spec.family not in wanted, spec.name))
        room = budget_tokens * CHARS_PER_TOKEN - TRAILER_RESERVE
        lines: dict[str, str] = {}
        in_full: set[str] = set()
        used = 0
        for spec in (spec for spec in specs if spec.family in wanted):  # configured families in full, in half
            full = describe_component(spec)
            if used + len(full) + 1 <= room // 2:
                lines[spec.name] = full
                in_full.add(spec.name)
                used += len(full) + 1
        for spec in specs:  # then a short line for as many others as fit
            line = short_line(spec)
            if spec.name in lines:
                continue
            if used + len(line) + 1 > room:
                break
            lines[spec.name] = line
            used += len(line) + 1
        for name in [name for name in lines if name not in in_full]:  # the full list where it still fits
            full = describe_component(registry.components[name])
            if used + len(full) - len(lines[name]) <= room:
                used += len(full) - len(lines[name])
                lines[name] = full
                in_full.add(name)
        text = "\n".join(lines[name] for name in sorted(lines))
        left_out = sorted(set(registry.components) - set(lines))
        if left_out:
            text += (f"\n({len(left_out):,} more components are not listed here: {listing(left_out, limit=12)}. "
                     "A message that needs one of them gives its full field list.)")
        return cls(registry, budget_tokens, text + "\n", frozenset(in_full))

    def details(self, text: str, *, first: Sequence[str] = (), skip: Iterable[str] = ()) -> list[str]:
        """Names of the components to describe in full for `text` (those in `first` lead), within the
        budget; never one the system prompt already describes in full, nor one in `skip`."""
        left_out = self.in_full | set(skip)
        candidates = [spec for spec in self.registry.components.values() if spec.name not in left_out]
        named = [name for name in first if name in self.registry.components and name not in left_out]
        chosen, used = [], 0
        for name in ranked(candidates, text, first=named)[:MAX_DETAILED]:
            size = len(describe_component(self.registry.components[name])) + 1
            if used + size > self.budget_tokens * CHARS_PER_TOKEN:
                continue
            chosen.append(name)
            used += size
        return chosen

    def section(self, names: Sequence[str], heading: str) -> str:
        """The full field lists of `names` under `heading`; "" when there are none."""
        if not names:
            return ""
        return heading + "\n" + "\n".join(describe_component(self.registry.components[name]) for name in names)


FACTS_HEADING = "What these components do (said by their drivers; rely on it):"
REQUEST_HEADING = "Full field lists of components this request likely needs (notation as in the catalogue):"
ERRORS_HEADING = "Full field lists of the components these errors name (notation as in the catalogue):"
_COMPONENT_LINE = re.compile(r"^[\s-]*component:\s*[\"']?([A-Za-z0-9_.-]+)", re.MULTILINE)


def request_details(components: ComponentSlice | None, request: str, current_oml: str | None) -> str:
    """For the request message: the components the request points at and those of the current
    pipeline, in full, unless the system prompt has them already."""
    if components is None:
        return ""
    in_pipeline = _COMPONENT_LINE.findall(current_oml or "")
    return components.section(components.details(request, first=in_pipeline), REQUEST_HEADING)


def request_facts(components: ComponentSlice | None, request: str, current_oml: str | None) -> str:
    """For the request message: the facts (`x-request-facts`, and the page size `x-page-size` bounds)
    of the components the request points at and those of the current pipeline, whether or not the
    system prompt lists them in full."""
    if components is None:
        return ""
    specs = components.registry.components
    first = [name for name in _COMPONENT_LINE.findall(current_oml or "") if name in specs]
    said = {name: [*specs[name].request_facts, *filter(None, [specs[name].page_size_fact])]
            for name in ranked(specs.values(), request, first=first)[:MAX_DETAILED]}
    lines = [f"- {name}: {'; '.join(facts)}" for name, facts in said.items() if facts]
    return FACTS_HEADING + "\n" + "\n".join(lines) if lines else ""


def retry_details(components: ComponentSlice | None, request: str, current_oml: str | None,
                  errors: Iterable[Issue], pipeline: Config | None) -> str:
    """For a retry prompt: the components its `errors` name (in `pipeline`, the attempt's), in full,
    unless the system prompt or the request message (which the retry repeats) has them already."""
    if components is None:
        return ""
    already = components.details(request, first=_COMPONENT_LINE.findall(current_oml or ""))
    named = components_named(errors, pipeline)
    chosen = [name for name in components.details("", first=named, skip=already)]
    return components.section(chosen, ERRORS_HEADING)


def components_named(issues: Iterable[Issue], pipeline: Config | None) -> list[str]:
    """The components that issues name: the component of the step an issue points into, and any
    component name written in its message or hint ("use component: mysql.extractor")."""
    steps = pipeline.get("steps") if isinstance(pipeline, dict) else None
    found: list[str] = []
    for issue in issues:
        match = _STEP.match(getattr(issue, "path", "") or "")
        if match and isinstance(steps, list) and int(match.group(1)) < len(steps):
            step = steps[int(match.group(1))]
            component = step.get("component") if isinstance(step, dict) else None
            if isinstance(component, str):
                found.append(component)
        found += _NAME.findall(f"{getattr(issue, 'message', '')} {getattr(issue, 'hint', '')}")
    return list(dict.fromkeys(found))


@dataclass(frozen=True)
class MessageDetails:
    """What the messages of a cycle carry besides the request: the full field lists of the components
    they need (those the system prompt leaves short) and the catalogs' schema slice. Given to the
    generation engine when it is built; without it, messages carry neither."""

    components: ComponentSlice | None = None
    schema_for: Callable[[str], str] = field(default=lambda request: "")  # request -> the schema section

    def for_request(self, request: str, current_oml: str | None) -> str:
        """The request message's extra sections: component field lists, then the schema slice."""
        parts = (request_details(self.components, request, current_oml),
                 request_facts(self.components, request, current_oml), self.schema_for(request))
        return "\n\n".join(part for part in parts if part)

    def for_errors(self, request: str, current_oml: str | None, errors: Sequence[Issue], pipeline: Config | None) -> str:
        """A retry prompt's extra section: the field lists of the components its errors name."""
        return retry_details(self.components, request, current_oml, errors, pipeline)

"""How much of the machine a run's DuckDB may use: `run.threads` and `run.memory_limit`.

    threads, memory_mb = engine_resources(settings.run)

Unset, a run uses a quarter of the machine's memory, never less than `MIN_DEFAULT_MEMORY_MB`, and
the machine's cores, as many as the memory limit gives `MB_PER_DEFAULT_THREAD` each (each DuckDB
thread sorts and writes about a row group at a time: 1 GB of 1,000-character rows fails to sort
on two threads under 256 MB and sorts on one; docs/configuration.md, docs/performance.md). The memory limit is text
such as `512MB` or `2GB` (whole numbers; 1 GB is 1,000 MB, as DuckDB counts); beyond it DuckDB
spills to the run's scratch directory inside the project.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from osiris.settings.model import RunSettings

MIN_DEFAULT_MEMORY_MB = 256  # the default's floor: a quarter of a small machine is still this much
MB_PER_DEFAULT_THREAD = 256  # unset run.threads: at most one thread per this much of the memory limit
MIN_MEMORY_MB = 16  # the least `run.memory_limit` accepts: DuckDB cannot read a wide CSV under it
MEMORY_LIMIT_EXAMPLE = "'2GB' or '512MB'"
_SIZE = re.compile(r"\s*([0-9]{1,9})\s*([MG])B\s*", re.IGNORECASE)
_CGROUP_LIMIT = Path("/sys/fs/cgroup/memory.max")


def memory_limit_mb(text: str) -> int | None:
    """`512MB` -> 512, `2GB` -> 2000; None when the text is not such a size."""
    match = _SIZE.fullmatch(text)
    if match is None:
        return None
    number, unit = int(match.group(1)), match.group(2).upper()
    return number * 1000 if unit == "G" else number


def machine_threads() -> int:
    """The cores this process may run on (its CPU affinity, which a container narrows)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def machine_memory_mb() -> int:
    """The machine's memory in MB, or the container's limit when that is lower (cgroup v2)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        total = 0
    try:
        limit = _CGROUP_LIMIT.read_text(encoding="ascii").strip()
    except OSError:
        limit = "max"
    if limit.isdigit() and (not total or int(limit) < total):
        total = int(limit)
    return total // 1_000_000


def default_memory_mb() -> int:
    """A quarter of the machine's memory, at least MIN_DEFAULT_MEMORY_MB."""
    return max(MIN_DEFAULT_MEMORY_MB, machine_memory_mb() // 4)


def default_threads(memory_mb: int) -> int:
    """The machine's cores, at most one per MB_PER_DEFAULT_THREAD of `memory_mb`, at least one."""
    return max(1, min(machine_threads(), memory_mb // MB_PER_DEFAULT_THREAD))


def engine_resources(run: RunSettings) -> tuple[int, int]:
    """(threads, memory limit in MB) for a run: the settings', or the defaults. The settings were
    checked when they were loaded (osiris.settings.check)."""
    given = memory_limit_mb(run.memory_limit) if run.memory_limit is not None else None
    memory = given if given is not None else default_memory_mb()
    return (run.threads if run.threads is not None else default_threads(memory)), memory

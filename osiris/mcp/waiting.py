"""Blocking work (a database, a run) in a worker thread, with progress notifications while the
assistant waits and, where asked, a deadline after which it is told the work took too long."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from osiris.errors import OsirisError

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context

T = TypeVar("T")
HEARTBEAT_SECONDS = 2.0


class TookTooLong(OsirisError):
    """The work did not finish within its deadline; the assistant is told so and may try again."""


async def in_thread(work: Callable[[], T], ctx: Context, *, doing: str, timeout: float | None = None,
                    heartbeat: bool = True, advice: str = "", on_cancel: Callable[[], object] | None = None) -> T:
    """`work()` in a worker thread. A progress notification says what is being done when it starts and
    (with `heartbeat`) every few seconds until it ends. With `timeout`, after that many seconds
    TookTooLong is raised, ending with `advice`, and the thread's result, whenever it comes, is
    dropped (a read may be left behind; it writes nothing). Without one, the work always finishes,
    even when the call is cancelled or the server is stopping: a run ends its steps in order, its
    writes kept or rolled back, never cut off halfway. `on_cancel` is called when the call is
    cancelled while the work runs (a run's stop button): the work then ends sooner, and is still
    waited for."""
    import anyio

    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as error:  # handed to the event loop's side below
            box["error"] = error

    started = time.perf_counter()
    await ctx.report_progress(0, None, doing)
    async with anyio.create_task_group() as group:
        if heartbeat:
            group.start_soon(_heartbeat, ctx, doing, started)
        if on_cancel is not None:
            group.start_soon(_on_cancel, on_cancel, box)
        with anyio.move_on_after(timeout if timeout is not None else float("inf")):
            await anyio.to_thread.run_sync(run, abandon_on_cancel=timeout is not None)
        group.cancel_scope.cancel()
    if "error" in box:
        raise box["error"]  # type: ignore[misc]  # an exception, as `run` stored it
    if "value" not in box:
        raise TookTooLong(f"{doing} took longer than {timeout:g} s" + (f"; {advice}" if advice else ""))
    return box["value"]  # type: ignore[return-value]  # what `work` returned


async def _heartbeat(ctx: Context, doing: str, started: float) -> None:
    import anyio

    while True:
        await anyio.sleep(HEARTBEAT_SECONDS)
        elapsed = time.perf_counter() - started
        await ctx.report_progress(round(elapsed, 1), None, f"{doing} ({elapsed:.0f} s)")


async def _on_cancel(stop: Callable[[], object], box: dict[str, object]) -> None:
    """Wait; if cancelled while the work still runs (the call was cancelled), call `stop`."""
    import anyio

    try:
        await anyio.sleep_forever()
    except anyio.get_cancelled_exc_class():
        if "value" not in box and "error" not in box:
            stop()
        raise

"""A count that takes more than a few seconds says what it is doing, then becomes its
result.

Counting a busy campaign's week of call records can take a minute.  Rather than leave
the person with nothing, ``shown_in_thread`` posts, after ``FIRST_WORD`` seconds, a note
in the thread ("Counting 480,000 call records…") with a Stop button, rewrites it with how
far the count got every ``EVERY`` seconds, and finally rewrites it into the result.  A
count that finishes sooner is answered as usual, with no note.

Stop works in the process running the count (counts are kept here, by a random token
the button carries); a click that lands on another replica is told so.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable

from slack_sdk.models.blocks import ActionsBlock, ButtonElement

from commands.kernel.context import CommandContext, Messenger
from commands.kernel.formats import number, percent
from commands.kernel.i18n import _, ngettext
from commands.kernel.interactions import Click
from commands.kernel.reply import Nothing, Outcome, Reply, notice, section
from commands.kernel.values import OutOfDate

FIRST_WORD = 3.0
"""Seconds a count may take before the person is told what is going on."""
EVERY = 5.0
"""Seconds between two rewrites of the note (Slack's pace for one message)."""
STOP_ACTION = "count_stop"

_RUNNING: dict[str, asyncio.Task[Reply]] = {}
"""Counts under way in this process, by the token their Stop button carries."""


class Counting:
    """Where a count is: records counted of how many (``Progress``)."""

    def __init__(self) -> None:
        self.done = 0
        self.total = 0

    def __call__(self, done: int, total: int) -> None:
        self.done, self.total = done, total

    def text(self) -> str:
        if not self.total:
            return _(":hourglass_flowing_sand: Counting call records…")
        share = percent(100.0 * self.done / self.total, 0)
        return ngettext(
            ":hourglass_flowing_sand: Counting {total} call record… {share} done.",
            ":hourglass_flowing_sand: Counting {total} call records… {share} done.",
            self.total,
        ).format(total=number(self.total), share=share)


def _note(counting: Counting, token: str) -> Reply:
    text = counting.text()
    stop = ButtonElement(text=_("Stop"), action_id=STOP_ACTION, value=token, style="danger")
    return Reply(text=text, blocks=[section(text), ActionsBlock(elements=[stop])])


async def _started(
    work: Callable[[Counting], Awaitable[Reply]], first_word: float | None
) -> tuple[Counting, asyncio.Task[Reply]]:
    """Start ``work`` and give it ``first_word`` seconds: done by then, it is answered as
    usual; else its caller puts up a note."""
    counting = Counting()
    task = asyncio.ensure_future(work(counting))
    await asyncio.wait({task}, timeout=FIRST_WORD if first_word is None else first_word)
    return counting, task


async def _ticks(task: asyncio.Task[Reply], every: float | None) -> AsyncIterator[None]:
    """Once every ``every`` seconds while ``task`` runs: when to rewrite its note."""
    while not (await asyncio.wait({task}, timeout=EVERY if every is None else every))[0]:
        yield


async def shown_in_thread(
    messenger: Messenger,
    channel: str,
    thread_ts: str,
    work: Callable[[Counting], Awaitable[Reply]],
    *,
    first_word: float | None = None,
    every: float | None = None,
) -> Reply | None:
    """Run ``work``.  Its reply, for the caller to post, when it finished within
    ``first_word`` seconds (or the note could not be posted); else None: the note in the
    thread already became the result (or says the count was stopped)."""
    counting, task = await _started(work, first_word)
    if task.done():
        return task.result()
    token = secrets.token_urlsafe(12)
    posted = await messenger.post(channel, _note(counting, token), thread_ts=thread_ts)
    if posted is None:
        return await task
    _RUNNING[token] = task
    try:
        async for _tick in _ticks(task, every):
            await messenger.update(posted.channel, posted.ts, _note(counting, token))
        reply = task.result()
    except asyncio.CancelledError:
        if not task.cancelled():
            raise  # this handler itself is being cancelled (shutdown): let it go
        stopped = _("Counting stopped: nothing was posted.")
        await messenger.update(posted.channel, posted.ts, Reply(stopped, [section(stopped)]))
        return None
    finally:
        _RUNNING.pop(token, None)
    if not await messenger.update(posted.channel, posted.ts, reply):
        return reply
    return None


UPDATES_BY_URL = 2
"""Rewrites of a note sent through a ``response_url`` (Slack takes five uses of one: the
note, these, the answer, and one to spare)."""


async def shown_in_steps(
    messenger: Messenger,
    response_url: str,
    work: Callable[[Counting], Awaitable[Reply]],
    *,
    first_word: float | None = None,
    every: float | None = None,
) -> Reply:
    """Run ``work`` for a typed command and return its answer.  Past ``first_word``
    seconds, a note says the count is under way (through the command's ``response_url``,
    rewritten a couple of times with how far it got), and the answer, marked
    ``replace_original``, takes the note's place; stopped, the note says so."""
    counting, task = await _started(work, first_word)
    if task.done():
        return task.result()
    token = secrets.token_urlsafe(12)
    if not await messenger.rewrite(response_url, _note(counting, token)):
        return await task
    _RUNNING[token] = task
    updates = 0
    try:
        async for _tick in _ticks(task, every):
            if updates < UPDATES_BY_URL:
                updates += 1
                await messenger.rewrite(response_url, _note(counting, token))
        reply = task.result()
    except asyncio.CancelledError:
        if not task.cancelled():
            raise
        stopped = _("Counting stopped: nothing was posted.")
        return Reply(stopped, [section(stopped)], replace_original=True)
    finally:
        _RUNNING.pop(token, None)
    reply.replace_original = True
    return reply


async def stop_clicked(ctx: CommandContext, click: Click) -> Outcome:
    """Stop: the count under way in this process, if it is here."""
    token = click.value.strip()
    if not token or len(token) > 40 or not token.replace("-", "").replace("_", "").isalnum():
        raise OutOfDate("a Stop button's value", "not a token")
    task = _RUNNING.get(token)
    if task is None or task.done():
        return notice(
            _(
                "This count has ended, or runs in another process of the app where it "
                "cannot be stopped from here."
            )
        )
    task.cancel()
    return Nothing()

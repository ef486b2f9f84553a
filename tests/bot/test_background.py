"""Shutdown and the work still under way: a command answered but not yet finished gets
to finish before the runtime closes its connections; one that hangs does not hold up the
shutdown for ever."""

from __future__ import annotations

import asyncio

from bot.background import BackgroundTasks


async def test_close_lets_work_under_way_finish() -> None:
    tasks = BackgroundTasks()
    release = asyncio.Event()
    done: list[str] = []

    async def command() -> None:
        await release.wait()
        done.append("answered")

    tasks.spawn(command(), name="slash-command")
    assert len(tasks) == 1
    closing = asyncio.create_task(tasks.close(grace=30.0))
    await asyncio.sleep(0)  # let close start waiting
    assert not closing.done()
    release.set()
    await closing
    assert done == ["answered"]
    assert len(tasks) == 0


async def test_close_cancels_what_outlives_the_grace() -> None:
    tasks = BackgroundTasks()
    never = asyncio.Event()
    hung = tasks.spawn(never.wait())
    await tasks.close(grace=0.01)
    assert hung.cancelled()
    assert len(tasks) == 0


async def test_a_finished_task_is_let_go() -> None:
    tasks = BackgroundTasks()
    task = tasks.spawn(asyncio.sleep(0))
    await task
    await asyncio.sleep(0)  # done callbacks run on the next turn of the loop
    assert len(tasks) == 0

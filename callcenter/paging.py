"""Walking a paged listing one page at a time.

A listing can be large (100,000 call records), so ``walk`` never holds more than the
page it is yielding from: the previous page is dropped before the next is requested.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

from callcenter.models import Page

T = TypeVar("T")

FetchPage = Callable[[int, int], Awaitable[Page[T]]]
"""``fetch(limit, offset)`` returning one page."""


def check_page_args(limit: int, offset: int) -> None:
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    if offset < 0:
        raise ValueError(f"offset must not be negative, got {offset}")


async def walk(fetch: FetchPage[T], page_size: int, offset: int = 0) -> AsyncIterator[T]:
    """Yield every item of every page from ``offset`` on.

    Stops at an empty page, a short page (fewer items than the page size the service
    echoes back, so a server-side cap on ``limit`` is not mistaken for the end), or
    once ``offset`` reaches ``total``.
    """
    check_page_args(page_size, offset)
    while True:
        page = await fetch(page_size, offset)
        count = len(page.data)
        effective_size = min(page_size, page.limit) if page.limit > 0 else page_size
        total = page.total
        for item in page.data:
            yield item
        del page
        offset += count
        if count == 0 or count < effective_size or offset >= total:
            return


__all__ = ["FetchPage", "check_page_args", "walk"]

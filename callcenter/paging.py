"""Walking a paged listing one page at a time.

A listing can be large (100,000 call records), so ``walk`` never holds more than the
page it is yielding from: the previous page is dropped before the next is requested.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Protocol, TypeVar

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Paged(Protocol[T_co]):
    """The paging envelope of list responses (spec section 2), as ``models.Page`` reads it."""

    @property
    def data(self) -> Sequence[T_co]: ...

    @property
    def limit(self) -> int: ...

    @property
    def total(self) -> int: ...


FetchPage = Callable[[int, int], Awaitable[Paged[T]]]
"""``fetch(limit, offset)`` returning one page."""


def check_page_args(limit: int, offset: int) -> None:
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    if offset < 0:
        raise ValueError(f"offset must not be negative, got {offset}")


def _more_after(page: Paged[T], page_size: int, offset: int) -> bool:
    """Whether a page may follow ``page``, ``offset`` being where the next would start.

    Not after an empty page, a short page (fewer items than the page size the service
    echoes back, so a server-side cap on ``limit`` is not mistaken for the end), or once
    ``offset`` reaches ``total``."""
    count = len(page.data)
    effective_size = min(page_size, page.limit) if page.limit > 0 else page_size
    return not (count == 0 or count < effective_size or offset >= page.total)


async def walk(fetch: FetchPage[T], page_size: int, offset: int = 0) -> AsyncIterator[T]:
    """Yield every item of every page from ``offset`` on (see ``_more_after`` for where
    it stops)."""
    check_page_args(page_size, offset)
    while True:
        page = await fetch(page_size, offset)
        offset += len(page.data)
        more = _more_after(page, page_size, offset)
        for item in page.data:
            yield item
        del page
        if not more:
            return


async def collect(fetch: FetchPage[T], page_size: int) -> list[T]:
    """Every item of every page, in one list: for a listing shown whole (counted and
    sorted, as ``/callops campaigns`` shows it), where ``walk`` would resume once per
    item only to build the same list."""
    check_page_args(page_size, 0)
    items: list[T] = []
    offset = 0
    while True:
        page = await fetch(page_size, offset)
        items.extend(page.data)
        offset += len(page.data)
        if not _more_after(page, page_size, offset):
            return items


__all__ = ["FetchPage", "Paged", "check_page_args", "collect", "walk"]

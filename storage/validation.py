"""Checks on values that come from people (CLI flags, Slack modals) before they are stored."""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from storage.errors import InvalidValueError


def check_timezone(name: str) -> str:
    """An IANA zone name that zoneinfo knows (so digests fire at the local time people mean)."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidValueError(
            f"unknown timezone {name!r}: use an IANA name such as Asia/Ho_Chi_Minh, "
            "Europe/Berlin or UTC"
        ) from None
    return name


UrlProblem = Literal["not_http", "credentials", "query"]


def base_url_problem(url: str) -> UrlProblem | None:
    """What is wrong with a service base URL, by the one rule every way in follows (the
    connect form, ``callops workspace connect``, ``CALLOPS_BASE_URL``): http(s) with a
    host, no user name or password, no query or fragment (a path prefix is fine).  Where
    the host may be is ``callcenter.addresses``' rule, checked when connecting."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port  # a port that is not a number is no URL
    except ValueError:
        return "not_http"
    if parts.scheme not in ("http", "https") or not parts.hostname or port == 0:
        return "not_http"
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        return "credentials"
    if parts.query or parts.fragment or "?" in url or "#" in url:
        return "query"
    return None


def check_base_url(url: str) -> str:
    """An http(s) URL with a host, without the trailing slash (paths are appended to it)."""
    problem = base_url_problem(url)
    if problem == "not_http":
        raise InvalidValueError(
            f"the base URL {url!r} is not an http(s) URL; write it like https://pbx.example.com/api"
        )
    if problem == "credentials":
        raise InvalidValueError(
            f"the base URL {url!r} must not carry a user name or password; "
            "callops signs in with the API key"
        )
    if problem == "query":
        raise InvalidValueError(f"the base URL {url!r} must not carry a query or fragment")
    return url.strip().rstrip("/")


def check_id(value: str, what: str) -> str:
    """A non-empty identifier (Slack team/user/channel id) without surrounding blanks."""
    cleaned = value.strip()
    if not cleaned or any(ch.isspace() for ch in cleaned):
        raise InvalidValueError(f"{what} must be a non-empty id without spaces, got {value!r}")
    return cleaned

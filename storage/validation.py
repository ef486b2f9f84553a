"""Checks on values that come from people (CLI flags, Slack modals) before they are stored."""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from storage.errors import N_, InvalidValueError

MAX_ZONE_NAME = 64
"""Longer than any IANA zone name (the longest is some 32 letters)."""


def check_timezone(name: str) -> str:
    """An IANA zone name that zoneinfo knows (so digests fire at the local time people mean)."""
    try:
        # "America" is a folder of the zone database and a 5,000-letter name is too long
        # for a file name: zoneinfo raises OSError for both, not ZoneInfoNotFoundError.
        if len(name) > MAX_ZONE_NAME:
            raise ValueError(name)
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise InvalidValueError(
            N_(
                "unknown timezone {name}: use an IANA name such as Asia/Ho_Chi_Minh, "
                "Europe/Berlin or UTC"
            ),
            name=repr(name),
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


_URL_PROBLEMS: dict[UrlProblem, str] = {
    "not_http": N_(
        "the base URL {url} is not an http(s) URL; write it like https://pbx.example.com/api"
    ),
    "credentials": N_(
        "the base URL {url} must not carry a user name or password; "
        "callops signs in with the API key"
    ),
    "query": N_("the base URL {url} must not carry a query or fragment"),
}


def shown_url(url: str, limit: int = 200) -> str:
    """``url`` as it may be shown, logged or stored: a user name and password, a query
    and a fragment (where secrets ride) replaced by ``***``, cut to ``limit``."""
    text = url.strip()
    try:
        parts = urlsplit(text)
    except ValueError:
        parts = None
    if parts is not None and parts.scheme and parts.netloc:
        host = parts.netloc.rpartition("@")[2]
        netloc = f"***@{host}" if "@" in parts.netloc else host
        text = f"{parts.scheme}://{netloc}{parts.path}"
        if parts.query or "?" in url:
            text += "?***"
        if parts.fragment or "#" in url:
            text += "#***"
    elif "@" in text:
        text = "***@" + text.rpartition("@")[2]
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_base_url(url: str) -> str:
    """An http(s) URL with a host, without the trailing slash (paths are appended to it).
    A refusal shows the URL without what may be secret in it (`shown_url`)."""
    problem = base_url_problem(url)
    if problem is not None:
        raise InvalidValueError(_URL_PROBLEMS[problem], url=repr(shown_url(url)))
    return url.strip().rstrip("/")


def check_id(value: str, what: str) -> str:
    """A non-empty identifier (Slack team/user/channel id) without surrounding blanks."""
    cleaned = value.strip()
    if not cleaned or any(ch.isspace() for ch in cleaned):
        raise InvalidValueError(f"{what} must be a non-empty id without spaces, got {value!r}")
    return cleaned


LANGUAGES = ("vi", "en")
"""The languages a person or a workspace may choose (the app's catalogs)."""
NAME_ORDERS = ("family-first", "given-first")
CHART_MODES = ("native", "image")
"""How a workspace's charts are sent: Slack's data_visualization block, or a PNG."""


def check_language(code: str | None) -> str | None:
    """A language callops speaks, or None (no choice: follow whatever comes next)."""
    if code is not None and code not in LANGUAGES:
        raise InvalidValueError(f"unknown language {code!r}: use vi or en")
    return code

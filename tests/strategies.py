"""Hypothesis strategies the fuzzing tests share: JSON as anyone could send it."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st


def json_values(
    *, integers: st.SearchStrategy[int] | None = None, text: int, key: int, size: int, leaves: int
) -> st.SearchStrategy[Any]:
    """Any JSON value: ``text`` characters at most in a string (``key`` in an object's key),
    ``size`` items in a list or object, ``leaves`` scalars in all."""
    scalars = (
        st.none()
        | st.booleans()
        | (st.integers() if integers is None else integers)
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=text)
    )
    keys = st.text(max_size=key)
    return st.recursive(
        scalars,
        lambda children: (
            st.lists(children, max_size=size) | st.dictionaries(keys, children, max_size=size)
        ),
        max_leaves=leaves,
    )


WRONG_TYPES: tuple[Any, ...] = (5, -1, 1.5, True, False, None, "", "x", [], [7], {}, {"id": 5})
"""One JSON value of each type (and shape) a field could wrongly hold."""


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def wrong_type(value: Any) -> st.SearchStrategy[Any]:
    """JSON values of another type than ``value`` (a number where a text was, a list
    where an object was, ``true`` where a list was...), as a forged payload carries."""
    return st.sampled_from([w for w in WRONG_TYPES if _kind(w) != _kind(value)])


def paths(value: Any, at: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """Every place in a JSON document (each key of each object, each item of each list),
    outermost first."""
    found: list[tuple[str | int, ...]] = []
    children: list[tuple[str | int, Any]] = []
    if isinstance(value, dict):
        children = list(value.items())
    elif isinstance(value, list):
        children = list(enumerate(value))
    for key, child in children:
        found.append((*at, key))
        found += paths(child, (*at, key))
    return found

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

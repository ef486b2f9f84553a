"""Forgiving comparison of what was typed with what exists: folding and "did you mean".

Staff type Vietnamese without its marks (``goi lai khach hang ct`` for "Gọi lại khách
hàng CT"), in any case, with stray spaces or hyphens; ``fold`` makes all of those the
same text.  Suggestions come from rapidfuzz's edit-distance ratios on folded text, so a
typo in a command, an option or a campaign name is answered with the nearest real ones.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence

from rapidfuzz import fuzz, process

from commands.kernel.i18n import _

_SEPARATORS = re.compile(r"[\W_]+")
_LETTERS_WITHOUT_DECOMPOSITION = str.maketrans({"đ": "d", "Đ": "D", "ł": "l", "Ł": "L"})
"""Letters Unicode does not decompose into a base letter and a mark (đ is its own letter)."""

WORD_CUTOFF = 65.0
"""The least similarity (0-100) for a command, subcommand or option to be suggested:
``campain`` -> ``campaign`` scores 93, ``stauts`` -> ``status`` 83, ``hlep`` -> ``help`` 75."""
NAME_SUGGEST_AT = 75.0
"""The least score for a campaign name to be offered as "Did you mean"."""
NAME_RESOLVE_AT = 90.0
"""A campaign name scoring this much, ``NAME_MARGIN`` ahead of the next, is the one meant."""
NAME_MARGIN = 5.0
PREFIX_WEIGHT = 0.9
"""A typed prefix with a typo counts a little less than a whole name with one, so a
full name typed with a slip still stands clearly ahead of its longer namesakes
("... CT" against "... CT đợt 2")."""
MIN_FUZZY_LENGTH = 3
"""Shorter text is compared exactly only: two letters are close to everything."""


def fold(text: str) -> str:
    """Text reduced to what a person means by it: no case, no diacritics, single spaces.

    Punctuation and underscores count as spaces, so ``Summer-sale``, ``summer_sale`` and
    ``Summer  Sale`` all fold to ``summer sale``.
    """
    decomposed = unicodedata.normalize("NFKD", text.translate(_LETTERS_WITHOUT_DECOMPOSITION))
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(_SEPARATORS.sub(" ", bare.casefold()).split())


def suggest(
    word: str, choices: Iterable[str], *, limit: int = 3, cutoff: float = WORD_CUTOFF
) -> list[str]:
    """The choices nearest to ``word`` (best first), compared folded; none below ``cutoff``."""
    return [choice for choice, _score in scored_choices(word, choices, limit=limit, cutoff=cutoff)]


def scored_choices(
    word: str, choices: Iterable[str], *, limit: int = 3, cutoff: float = WORD_CUTOFF
) -> list[tuple[str, float]]:
    """``suggest`` with each choice's score (0-100), to merge several lists of choices
    (the English command words and the Vietnamese ones) by how near they are."""
    unique = list(dict.fromkeys(choices))
    folded = [fold(c) for c in unique]
    found = process.extract(fold(word), folded, scorer=fuzz.ratio, limit=limit, score_cutoff=cutoff)
    return [(unique[index], score) for _match, score, index in found]


def _name_score(query: str, name: str, **_: object) -> float:
    """How well a folded query names a folded campaign name: the whole name, or the
    name's start as long as the query (a prefix typed with a slip), a little less."""
    whole = fuzz.ratio(query, name)
    if len(name) <= len(query):
        return whole
    return max(whole, PREFIX_WEIGHT * fuzz.ratio(query, name[: len(query)]))


def closest_names(query: str, names: Sequence[str], *, limit: int = 5) -> list[tuple[int, float]]:
    """Indexes of the names nearest to ``query`` with their scores, best first; only
    those at ``NAME_SUGGEST_AT`` or more.  Names and query are folded here."""
    wanted = fold(query)
    if len(wanted) < MIN_FUZZY_LENGTH:
        return []
    found = process.extract(
        wanted,
        [fold(n) for n in names],
        scorer=_name_score,
        limit=limit,
        score_cutoff=NAME_SUGGEST_AT,
    )
    return [(index, score) for _match, score, index in found]


def clear_winner(scored: Sequence[tuple[int, float]]) -> int | None:
    """The one index a typo surely meant: high enough and clearly ahead of the next."""
    if not scored or scored[0][1] < NAME_RESOLVE_AT:
        return None
    if len(scored) > 1 and scored[0][1] - scored[1][1] < NAME_MARGIN:
        return None
    return scored[0][0]


def alternatives(names: Sequence[str], shown_as: Callable[[str], str] = "`{}`".format) -> str:
    """``a``, ``a or b``, ``a, b or c``: choices as a person lists them (plain text;
    whoever puts it in mrkdwn escapes it, as ``reply.error`` does)."""
    shown = [shown_as(n) for n in names]
    if len(shown) <= 1:
        return "".join(shown)
    return _("{choices} or {last}").format(choices=", ".join(shown[:-1]), last=shown[-1])

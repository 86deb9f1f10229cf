"""The count of a show as players say it at the table, in English or in the words a caller
passes in ("fifteen two, fifteen four, and a pair is six"; "femten to, femten fire og et par er
seks").

The cadence is the rules' own: the items in counting order, each phrase ending on the running
total, "another" for a second pair or run, the last phrase joined with "and". The words are
text: each phrase and number is an English template that is also its key in a message catalog,
so `say(items, words)` asks `words(context, english)` for every one and another language comes
from a catalog file (the page's gettext catalogs) while the engine reads no file at all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

#: (context, English text) -> the text in the language wanted.
Words = Callable[[str, str], str]


def _p(context: str, text: str) -> str:
    """Marks `text` for the catalogs' extraction (with its context) and returns it unchanged."""
    return text


def english(context: str, text: str) -> str:
    """The words of the source language: the English templates themselves."""
    return text


class SpokenItem(Protocol):
    """What the cadence needs of a show's item (`scorer.show.ShowItem`)."""

    @property
    def kind(self) -> str: ...
    @property
    def cards(self) -> tuple[object, ...]: ...
    @property
    def points(self) -> int: ...


FIFTEEN = _p("spoken", "fifteen {total}")
#: Pairs by their number of cards: the first said, and one after another pair.
PAIRS = {
    2: (_p("spoken", "a pair is {total}"), _p("spoken", "another pair is {total}")),
    3: (_p("spoken", "a pair royal is {total}"), _p("spoken", "another pair royal is {total}")),
    4: (_p("spoken", "a double pair royal is {total}"),
        _p("spoken", "another double pair royal is {total}")),
}  # fmt: skip
RUNS = (
    _p("spoken", "a run of {length} is {total}"),
    _p("spoken", "another run of {length} is {total}"),
)
FLUSH = _p("spoken", "a flush of {length} is {total}")
NOBS = _p("spoken", "one for his nobs is {total}")
NOTHING = _p("spoken", "nineteen (no points)")
#: The last phrase joined to the ones before it (themselves joined with ", ").
LAST = _p("spoken", "{before}, and {last}")
#: A show totals at most 29.
NUMBERS = (
    _p("spoken", "zero"), _p("spoken", "one"), _p("spoken", "two"), _p("spoken", "three"),
    _p("spoken", "four"), _p("spoken", "five"), _p("spoken", "six"), _p("spoken", "seven"),
    _p("spoken", "eight"), _p("spoken", "nine"), _p("spoken", "ten"), _p("spoken", "eleven"),
    _p("spoken", "twelve"), _p("spoken", "thirteen"), _p("spoken", "fourteen"),
    _p("spoken", "fifteen"), _p("spoken", "sixteen"), _p("spoken", "seventeen"),
    _p("spoken", "eighteen"), _p("spoken", "nineteen"), _p("spoken", "twenty"),
    _p("spoken", "twenty-one"), _p("spoken", "twenty-two"), _p("spoken", "twenty-three"),
    _p("spoken", "twenty-four"), _p("spoken", "twenty-five"), _p("spoken", "twenty-six"),
    _p("spoken", "twenty-seven"), _p("spoken", "twenty-eight"), _p("spoken", "twenty-nine"),
)  # fmt: skip


def number(n: int, words: Words = english) -> str:
    """A number as said in the count: ``number(21) == "twenty-one"``."""
    return words("spoken", NUMBERS[n])


def say(items: Sequence[SpokenItem], words: Words = english) -> str:
    """The count of `items` (a show's, in counting order) as players say it.

    >>> from scorer.cards import parse_cards, parse_card
    >>> from scorer.show import score_show
    >>> say(score_show(parse_cards(["5H", "5D", "5S", "2C"]), parse_card("KD")).items)
    'fifteen two, fifteen four, fifteen six, fifteen eight, and a pair royal is fourteen'
    >>> say([])
    'nineteen (no points)'
    """
    phrases: list[str] = []
    running = pairs_said = runs_said = 0
    for item in items:
        running += item.points
        total = number(running, words)
        if item.kind == "fifteen":
            template = FIFTEEN
        elif item.kind == "pair":
            template = PAIRS[len(item.cards)][min(pairs_said, 1)]
            pairs_said += 1
        elif item.kind == "run":
            template = RUNS[min(runs_said, 1)]
            runs_said += 1
        elif item.kind == "flush":
            template = FLUSH
        else:
            template = NOBS
        length = number(len(item.cards), words)
        phrases.append(words("spoken", template).format(total=total, length=length))
    if not phrases:
        return words("spoken", NOTHING)
    if len(phrases) == 1:
        return phrases[0]
    return words("spoken", LAST).format(before=", ".join(phrases[:-1]), last=phrases[-1])

"""Refusals in the players' language: the rules engine and the API refuse in English sentences,
and the answer's `error` is that sentence in the request's language where the catalogs have it.

Each sentence a player can meet at the table (a play, a go, a show, a deal or a camera step
refused; a new game's settings) is an English template below, in the catalogs under the context
"error". A refusal matching one is answered with the language's template, its slots filled: a
seat as the player's name, a card with its suit symbol (5♠), a number as the language writes
it, a phase or an action by its own catalog word, and a sentence slot ("deal 3: {message}")
translated the same way. A refusal matching none is answered in English, in the table's words
(names and suit symbols): the engine's rarer messages (a malformed request, a saved game that
does not load) are for developers and stay English.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from webui.errors import table_words
from webui.i18n import Language


def _p(context: str, text: str) -> str:
    """Marks `text` for the catalogs' extraction (with its context) and returns it unchanged."""
    return text


#: Every refusal translated: the engine's (scorer/game.py, scorer/pegging.py, scorer/cards.py,
#: scorer/settings.py) and the API's that the page can meet.
REFUSALS = (
    _p("error", "deal {number}: {message}"),
    # the play and go
    _p("error", "{seat} cannot {action}: it is {seat2}'s turn"),
    _p("error", "the play is over: {seat} cannot {action}"),
    _p("error", "{card} has already been played"),
    _p("error", "{seat} does not hold {card}"),
    _p("error", "{seat} has no cards left to play {card}"),
    _p("error", "{card} would take the count from {count} past {limit}"),
    _p("error", "{seat} says go but can play {cards} on {count} (a renege)"),
    _p("error", "{seat} cannot say go at a count of {count}: any card can still be played"),
    _p("error", "a play is one card"),
    _p("error", "say which seat is to {action}: nobody's turn now"),
    # the phases
    _p("error", "cannot {action} now: the game is at the {phase} phase"),
    _p("error", "the game is over: no more {kind}"),
    _p("error", "nothing to undo"),
    _p("error", "no deal yet"),
    _p("error", "the starter has not been turned"),
    # the deal, the crib and the starter
    _p("error", "cut for deal needs {wanted} cards, got {given}"),
    _p("error", "tie for lowest cut ({cards}): cut again"),
    _p("error", "{seat} has already discarded"),
    _p("error", "the hands are known: name the discards"),
    _p("error", "{seat} lays away {wanted}, not {given} ({cards})"),
    _p("error", "{seat} was not dealt {card}"),
    _p("error", "the starter is one card"),
    _p("error", "the starter {card} was dealt to a player"),
    _p("error", "the starter {card} is in the crib"),
    _p("error", "{card} is the starter"),
    _p("error", "{card} is in the crib"),
    _p("error", "{card} was already shown"),
    _p("error", "{card} was played in the play"),
    _p("error", "{card} appears twice"),
    # the show
    _p("error", "every hand and the crib have been shown"),
    _p("error", "it is {seat}'s {what} to count, not {seat2}'s"),
    _p("error", "enter the cards of {seat}'s {what}"),
    _p("error", "{seat}'s {what} must include {cards}"),
    # muggins and corrections
    _p("error", "muggins is not being played in this game"),
    _p("error", "no claim is open to muggins: the call must come right after the claim, "
                "before the next card or score"),
    _p("error", "{seat} cannot call muggins on its own side"),
    _p("error", "muggins must claim 1 point or more, not {text}"),
    _p("error", "a correction needs non-zero points, not {text}"),
    _p("error", "{seat} is not a seat of {players} players"),
    # table mode
    _p("error", "{text} is not the open question: the table has moved on"),
    _p("error", "{text} is not the open question"),
    _p("error", "{text} is not the last step the camera applied"),
    _p("error", "the game changed since: use Undo"),
    _p("error", "{text} has no reading to apply: name the card"),
    _p("error", "{cards} cannot be there: already placed this deal, or against the rules"),
    # games, matches and settings
    _p("error", "no game {text}"),
    _p("error", "this game is not finished yet"),
    _p("error", "the match is over"),
    _p("error", "the match already continues in game {text}"),
    _p("error", "the number of players cannot change mid-game: start a new game"),
    _p("error", "five-card cribbage is for two players"),
    _p("error", "'names' must be a list of {players} names, not {text}"),
    _p("error", "a seat name is 1 to 40 characters, not {text}"),
    # the camera, the server and the page
    _p("error", "no card model installed: detection is unavailable; enter the cards by hand"),
    _p("error", "the image could not be read: {text}"),
    _p("error", "the upload is too large: the limit is {size} MiB"),
    _p("error", "no such page or endpoint"),
    _p("error", "method not allowed here"),
    _p("error", "internal error ({text}); see the server log"),
    _p("error", "the server's disk is full: nothing was saved; free some space on it and try "
                "again (games can still be read)"),
    # what the slots {action} and {message} may hold
    _p("error", "play {card}"),
    _p("error", "play a card"),
    _p("error", "say go"),
    _p("error", "cut for deal"),
    _p("error", "choose the dealer"),
    _p("error", "deal"),
    _p("error", "discard"),
    _p("error", "turn the starter"),
    _p("error", "show"),
    _p("error", "play"),
)  # fmt: skip

#: The words a {phase}, {kind} or {what} slot holds, each under its own context.
WORDS = {
    "phase": (_p("phase", "cut for deal"), _p("phase", "deal"), _p("phase", "discard"),
              _p("phase", "starter"), _p("phase", "play"), _p("phase", "show"),
              _p("phase", "over")),
    "kind": (_p("kind", "cut"), _p("kind", "dealer"), _p("kind", "deal"), _p("kind", "discard"),
             _p("kind", "starter"), _p("kind", "play"), _p("kind", "go"), _p("kind", "show"),
             _p("kind", "muggins"), _p("kind", "correct")),
    "what": (_p("what", "hand"), _p("what", "crib")),
}  # fmt: skip
#: An unknown seat, in a refusal about a seat that is none.
SEAT = _p("error", "seat {number}")

_CARD = r"(?:10|[2-9AJQK])[CDHS]"
#: What each kind of slot matches in the English sentence (a slot's kind is its name without
#: a trailing digit).
_SLOTS = {
    "seat": r"seat -?\d+",
    "card": _CARD,
    "cards": rf"{_CARD}(?: {_CARD})*",
    "number": r"-?\d+",
    "size": r"[\d.]+",
    "message": r".+",
    "action": r".+?",
    "text": r".+?",
    "phase": "|".join(map(re.escape, sorted(WORDS["phase"], key=len, reverse=True))),
    "kind": r"[a-z ]+",
    "what": r"hand|crib",
}
_NUMBERS = {"count", "limit", "wanted", "given", "players"}
_SLOT = re.compile(r"\{(\w+)\}")


def _kind(slot: str) -> str:
    name = slot.rstrip("0123456789")
    return "number" if name in _NUMBERS else name


@cache
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Each template with the regular expression of its English sentence, the most literal
    first (so "the game is over: no more {kind}" yields to a sentence of its own)."""
    compiled = []
    for template in REFUSALS:
        parts = _SLOT.split(template)
        regex = "".join(
            re.escape(part) if i % 2 == 0 else f"(?P<{part}>{_SLOTS[_kind(part)]})"
            for i, part in enumerate(parts)
        )
        compiled.append((template, re.compile(f"^{regex}$")))
    literal = {template: len(_SLOT.sub("", template)) for template in REFUSALS}
    return tuple(sorted(compiled, key=lambda pair: -literal[pair[0]]))


def in_language(message: str, names: Sequence[str] | None, language: Language) -> str:
    """`message` (an English refusal) in `language`; at a game's table (`names` given) in the
    table's words (see `table_words`), elsewhere with cards as the request wrote them.

    >>> from webui.i18n import english
    >>> in_language("deal 1: seat 1 cannot play 7C: it is seat 0's turn", ["Ann", "Bob"],
    ...             english())
    "deal 1: Bob cannot play 7♣: it is Ann's turn"
    """
    said = _translate(message, names, language)
    if said is not None:
        return said
    return message if names is None else table_words(message, names)


def _translate(message: str, names: Sequence[str] | None, language: Language) -> str | None:
    for template, pattern in _patterns():
        match = pattern.match(message)
        if match is None:
            continue
        values = {}
        for slot, value in match.groupdict().items():
            filled = _fill(_kind(slot), value, names, language)
            if filled is None:
                break
            values[slot] = filled
        else:
            return language.words("error", template).format(**values)
    return None


def _fill(kind: str, value: str, names: Sequence[str] | None, language: Language) -> str | None:
    """A slot's English value in the language; None when a sentence slot is no refusal."""
    if kind == "seat":
        number = int(value.split()[1])
        if names is not None and 0 <= number < len(names):
            return names[number]
        return language.tc("error", SEAT, number=number)
    if kind in ("card", "cards"):
        return value if names is None else table_words(value, names)
    if kind == "number":
        return language.number(int(value))
    if kind == "size":
        return language.number(float(value))
    if kind in ("phase", "kind", "what"):
        return language.tc(kind, value) if value in WORDS[kind] else value
    if kind in ("message", "action"):
        return _translate(value, names, language)
    return value  # a name or a value the request gave: as it is

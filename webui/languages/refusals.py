"""Refusals in the players' language, from what they are: a refusal's code and its values.

The rules engine's refusals (`scorer.refusals.REFUSALS`) and the API's own that a page can meet
(`API_REFUSALS` below) are each a code with one English template, which is also its message id
in the catalogs under the context "error". A refusal is said by its code's template in the
language, its slots filled from its values as each slot's kind says (`scorer.refusals.Slot`): a
seat as the player's name at a game's table ("seat 7" in the language where it is no seat), a
card with its suit symbol (5♠) at a table and as the request wrote it elsewhere, a number as the
language writes it, a phase or an action's kind by its own catalog word, and a refusal or an
action inside another ("deal 3: {message}", "cannot {action} now") said the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from scorer.cards import Suit
from scorer.errors import Value
from scorer.refusals import REFUSALS, SLOTS, Slot
from webui.languages.i18n import Language


def _p(context: str, text: str) -> str:
    """Marks `text` for the catalogs' extraction (with its context) and returns it unchanged."""
    return text


#: The API's own refusals that a page can meet, each code with its English template.
API_REFUSALS = {
    "say_which_seat": _p("error", "say which seat is to {action}: nobody's turn now"),
    # table mode
    "question_moved_on": _p("error", "{text} is not the open question: the table has moved on"),
    "not_the_question": _p("error", "{text} is not the open question"),
    "not_the_last_step": _p("error", "{text} is not the last step the camera applied"),
    "game_changed": _p("error", "the game changed since: use Undo"),
    "no_reading": _p("error", "{text} has no reading to apply: name the card"),
    "cannot_be_there": _p("error", "{cards} cannot be there: already placed this deal, or "
                                   "against the rules"),
    "seat_not_learnt": _p("error", "the camera has not learnt where {seat} sits"),
    # games, matches and settings
    "no_game": _p("error", "no game {text}"),
    "game_not_over": _p("error", "this game is not finished yet"),
    "game_finished": _p("error", "this game is finished: its rules cannot change now; start a "
                                 "new game for other rules"),
    "names_final": _p("error", "this game is finished: its players' names are final"),
    "match_continues": _p("error", "the match already continues in game {text}"),
    "players_fixed": _p("error", "the number of players cannot change mid-game: start a new "
                                 "game"),
    "names_count": _p("error", "'names' must be a list of {players} names, not {text}"),
    "name_length": _p("error", "a seat name is 1 to 40 characters, not {text}"),
    # players' records
    "no_player": _p("error", "no finished game has a player named {name}"),
    "never_met": _p("error", "{name} and {text} have not played a finished game against each "
                             "other"),
    # a body's fields, as its schema refuses them (webui.contract)
    "body_not_object": _p("error", "expected a JSON object, got {type}"),
    "action_body_not_object": _p("error", "an action is a JSON object, not {type}"),
    "unknown_body_fields": _p("error", "unknown field(s) for {what}: {names}"),
    "field_required": _p("error", "'{field}' is required"),
    "not_integer": _p("error", "'{field}' must be an integer, not {text}"),
    "not_text": _p("error", "'{field}' must be a string, not {text}"),
    "not_boolean": _p("error", "'{field}' must be true or false, not {text}"),
    "not_number": _p("error", "'{field}' must be a number, not {text}"),
    "not_list": _p("error", "'{field}' must be a list, not {text}"),
    "not_object": _p("error", "'{field}' must be an object, not {text}"),
    "out_of_range": _p("error", "'{field}' must be {low} to {high}, not {text}"),
    "too_long_text": _p("error", "'{field}' is at most {most} characters"),
    "empty_text": _p("error", "'{field}' must not be empty"),
    "too_many_items": _p("error", "'{field}' holds at most {most} items"),
    "too_few_items": _p("error", "'{field}' holds at least {least} items"),
    "not_one_of": _p("error", "'{field}' must be one of {options}, not {text}"),
    "field_invalid": _p("error", "'{field}' is not valid: {text}"),
    "lone_surrogate": _p("error", "'{field}' holds a lone surrogate {text}"),
    "control_character": _p("error", "'{field}' holds a control character {text}"),
    "field_name_unstorable": _p("error", "a field name in '{field}' holds a lone surrogate or a "
                                         "control character: {text}"),
    "not_finite": _p("error", "'{field}' must be a finite number, not {text}"),
    "card_text": _p("error", "'{field}' must be a card such as \"5H\", not {text}"),
    "cards_list": _p("error", "'{field}' must be a list of cards such as [\"5H\", \"JC\"], not "
                              "{text}"),
    "frame_id": _p("error", "'frame' must be a frame id from a detection, not {text}"),
    "deck_name": _p("error", "'{field}' must be a deck name, not {text}"),
    "proposal_key": _p("error", "'key' must name the proposal (its \"key\"), not {text}"),
    "enrol_mode": _p("error", "'mode' must be \"any\" (any photos of the deck) or \"suits\" (one "
                              "suit per photo, laid out A to K), not {text}"),
    "enrol_suits": _p("error", "'suits' must be the order the suits are shot in, each of C, D, "
                               "H, S once, e.g. [\"C\", \"D\", \"H\", \"S\"], not {text}"),
    "enrol_too_many_photos": _p("error", "an enrolment takes at most {high} photos: delete one "
                                         "first"),
    "export_format": _p("error", "'format' is json or csv, not {text}"),
    # the camera, the server and the page
    "no_card_model": _p("error", "no card model installed: detection is unavailable; enter the "
                                 "cards by hand"),
    "unreadable_image": _p("error", "the image could not be read: {text}"),
    "too_large": _p("error", "the upload is too large: the limit is {size} MiB"),
    "too_many_pixels": _p("error", "a {width} x {height} image is too large: at most "
                                   "{megapixels} megapixels"),
    "no_such_page": _p("error", "no such page or endpoint"),
    "method_not_allowed": _p("error", "method not allowed here"),
    "internal_error": _p("error", "internal error ({text}); see the server log"),
    "disk_full": _p("error", "the server's disk is full: nothing was saved; free some space on "
                             "it and try again (games can still be read)"),
}  # fmt: skip

#: Every refusal said in the players' language: the engine's and the API's.
TEMPLATES = REFUSALS | API_REFUSALS
#: What each slot of `TEMPLATES` holds.
KINDS = SLOTS | {
    "text": Slot.TEXT,
    "size": Slot.NUMBER,
    "width": Slot.TEXT,  # a picture's size in pixels, written as the upload gave it: 4032 x 3024
    "height": Slot.TEXT,
    "megapixels": Slot.NUMBER,
    "field": Slot.TEXT,  # a field's path in a body: names[1], hands[0][2]
    "low": Slot.NUMBER,
    "high": Slot.NUMBER,
    "least": Slot.NUMBER,
    "options": Slot.TEXT,
}

#: The words a {phase}, {kind} or {what} slot holds, each under its own context.
WORDS = {
    Slot.PHASE: (_p("phase", "cut for deal"), _p("phase", "deal"), _p("phase", "discard"),
                 _p("phase", "starter"), _p("phase", "play"), _p("phase", "show"),
                 _p("phase", "over")),
    Slot.KIND: (_p("kind", "cut"), _p("kind", "dealer"), _p("kind", "deal"),
                _p("kind", "discard"), _p("kind", "starter"), _p("kind", "play"),
                _p("kind", "go"), _p("kind", "show"), _p("kind", "muggins"),
                _p("kind", "correct")),
    Slot.WHAT: (_p("what", "hand"), _p("what", "crib"),
                # a request body, as a refusal of its fields names it (webui.contract.bodies)
                _p("what", "this request"), _p("what", "the query"), _p("what", "the settings"),
                _p("what", "match points"), _p("what", "a new game"), _p("what", "a dealer action"),
                _p("what", "a cut action"), _p("what", "a deal action"),
                _p("what", "a discard action"), _p("what", "a starter action"),
                _p("what", "a play action"), _p("what", "a go action"),
                _p("what", "a show action"), _p("what", "a muggins action"),
                _p("what", "a correct action"), _p("what", "a score request"),
                _p("what", "advice"), _p("what", "an answer"), _p("what", "an undo"),
                _p("what", "a dismissal"), _p("what", "an enrolment"),
                _p("what", "a correction"), _p("what", "finishing an enrolment"),
                _p("what", "choosing a deck"), _p("what", "renaming a deck")),
}  # fmt: skip
#: A seat that is no seat of the table, by its number.
SEAT = _p("error", "seat {number}")


def in_language(
    code: str, values: Mapping[str, Value], names: Sequence[str] | None, language: Language
) -> str:
    """The refusal `code` with `values` in `language`; at a game's table (`names` given) with
    seats as the players' names and cards with suit symbols.

    >>> from webui.languages.i18n import english
    >>> turn = {"seat": 1, "action": {"code": "play_card", "values": {"card": "7C"}}, "turn": 0}
    >>> in_language("in_deal", {"number": 1, "message": {"code": "not_your_turn",
    ...             "values": turn}}, ["Ann", "Bob"], english())
    "deal 1: Bob cannot play 7♣: it is Ann's turn"
    """
    template = language.words("error", TEMPLATES[code])
    return template.format(
        **{slot: _said(KINDS[slot], value, names, language) for slot, value in values.items()}
    )


def _said(kind: Slot, value: Value, names: Sequence[str] | None, language: Language) -> str:
    """One slot's value in the language."""
    if kind is Slot.SEAT:
        return _seat(value, names, language)
    if isinstance(value, dict):
        return in_language(value["code"], value["values"], names, language)
    if isinstance(value, list):
        return " ".join(_card(text, names) for text in value)
    if kind is Slot.CARD:
        return _card(str(value), names)
    if isinstance(value, int | float):
        return language.number(value)
    if kind in WORDS and value in WORDS[kind]:
        return language.tc(kind, value)
    return value  # a name or a value as the request gave it


def _seat(seat: Value, names: Sequence[str] | None, language: Language) -> str:
    if names is not None and isinstance(seat, int) and 0 <= seat < len(names):
        return names[seat]
    return language.tc("error", SEAT, number=seat)


def _card(text: str, names: Sequence[str] | None) -> str:
    """A card's text ("10H") as the table says it (10♥); as the request wrote it elsewhere."""
    return text if names is None else text[:-1] + Suit(text[-1]).symbol

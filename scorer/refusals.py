"""Every refusal of the rules engine: a stable code, one English template, and what each slot of
a template holds.

A `scorer.errors.CribbageError` is a code of `REFUSALS` with its slots' values; its message is
the template filled in English (`scorer.errors.english`). Other tools read the code and the
values; the page says them in the player's language: each template is also its message id in
the page's catalogs (context "error"), and a slot's kind (`SLOTS`) says how to write its value
there (a seat as the player's name, a card with its suit symbol, a number as the language
writes it). A slot of kind `PHRASE` holds another refusal or an action ("play 7C", "say go")
as ``{"code": ..., "values": {...}}``, so a refusal inside another is a code too.
"""

from __future__ import annotations

import enum


def _p(context: str, text: str) -> str:
    """Marks `text` for the catalogs' extraction (with its context) and returns it unchanged."""
    return text


class Slot(enum.StrEnum):
    """What a slot holds, and so how its value is written."""

    SEAT = "seat"  # a seat number (0 is the first name given); English "seat 1"
    CARD = "card"  # a card's text: "5H"
    CARDS = "cards"  # a list of cards' texts; English "5H 5D"
    NUMBER = "number"  # a count, a number of cards, points or players, a deal's number
    PHASE = "phase"  # a game phase, a word of the catalogs' context "phase"
    KIND = "kind"  # an action's kind, a word of the catalogs' context "kind"
    WHAT = "what"  # "hand" or "crib", a word of the catalogs' context "what"
    PHRASE = "phrase"  # a refusal or an action inside this one: {"code", "values"}
    TEXT = "text"  # as given: a name, an input as Python writes it ("'x'", "None")


#: Each slot name of the templates and what it holds.
SLOTS = {
    "seat": Slot.SEAT,
    "turn": Slot.SEAT,  # the seat whose turn it is
    "owner": Slot.SEAT,  # the seat whose hand or crib it is
    "card": Slot.CARD,
    "cards": Slot.CARDS,
    "number": Slot.NUMBER,
    "count": Slot.NUMBER,
    "limit": Slot.NUMBER,
    "most": Slot.NUMBER,
    "wanted": Slot.NUMBER,
    "given": Slot.NUMBER,
    "per": Slot.NUMBER,
    "players": Slot.NUMBER,
    "points": Slot.NUMBER,
    "phase": Slot.PHASE,
    "kind": Slot.KIND,
    "what": Slot.WHAT,
    "message": Slot.PHRASE,
    "action": Slot.PHRASE,
    "value": Slot.TEXT,
    "name": Slot.TEXT,
    "names": Slot.TEXT,
    "type": Slot.TEXT,
    "variant": Slot.TEXT,
}

#: Each code and its English template.
REFUSALS = {
    # a refusal inside another, saying where it happened
    "in_deal": _p("error", "deal {number}: {message}"),
    "in_saved_action": _p("error", "action {number} {value}: {message}"),
    "in_peg_request": _p("error", "play {number} {value}: {message}"),
    # what an {action} slot holds
    "play_card": _p("error", "play {card}"),
    "play_a_card": _p("error", "play a card"),
    "say_go": _p("error", "say go"),
    "cut_for_deal": _p("error", "cut for deal"),
    "choose_dealer": _p("error", "choose the dealer"),
    "deal": _p("error", "deal"),
    "discard": _p("error", "discard"),
    "turn_starter": _p("error", "turn the starter"),
    "show": _p("error", "show"),
    # cards
    "bad_rank": _p("error", "rank {value} is not a card rank (1 to 13)"),
    "bad_suit": _p("error", "suit {value} is not a suit (C, D, H or S)"),
    "not_a_card": _p("error", "{value} is not a card"),
    "not_a_card_object": _p("error", "{value} is not a card (parse text with parse_card)"),
    "duplicate_card": _p("error", "{card} appears twice"),
    # the play and go
    "not_your_turn": _p("error", "{seat} cannot {action}: it is {turn}'s turn"),
    "play_over": _p("error", "the play is over: {seat} cannot {action}"),
    "already_played": _p("error", "{card} has already been played"),
    "not_held": _p("error", "{seat} does not hold {card}"),
    "no_cards_left": _p("error", "{seat} has no cards left to play {card}"),
    "past_31": _p("error", "{card} would take the count from {count} past {limit}"),
    "renege": _p("error", "{seat} says go but can play {cards} on {count} (a renege)"),
    "go_too_soon": _p("error", "{seat} cannot say go at a count of {count}: any card can still "
                               "be played"),
    "play_one_card": _p("error", "a play is one card"),
    "pegging_players": _p("error", "pegging needs 2, 3 or 4 players, not {players}"),
    "dealer_not_a_seat": _p("error", "dealer seat {number} is not a seat of {players}"),
    "hands_for_players": _p("error", "{given} hands given for {players} players"),
    # seats, phases and the game's end
    "not_a_seat": _p("error", "{seat} is not a seat of {players} players"),
    "seat_not_a_number": _p("error", "seat {value} is not a seat of {players} players"),
    "needs_seat": _p("error", "a {kind} needs a seat"),
    "wrong_phase": _p("error", "cannot {action} now: the game is at the {phase} phase"),
    "game_over": _p("error", "the game is over: no more {kind}"),
    "nothing_to_undo": _p("error", "nothing to undo"),
    "no_deal": _p("error", "no deal yet"),
    "no_starter": _p("error", "the starter has not been turned"),
    "unknown_action": _p("error", "unknown action {value}"),
    # the deal, the crib and the starter
    "cut_size": _p("error", "cut for deal needs {wanted} cards, got {given}"),
    "tied_cut": _p("error", "tie for lowest cut ({cards}): cut again"),
    "deal_size": _p("error", "{players} hands of {per} are {wanted} cards, got {given}"),
    "deal_size_with_crib_card": _p("error", "{players} hands of {per} and one crib card are "
                                            "{wanted} cards, got {given}"),
    "already_discarded": _p("error", "{seat} has already discarded"),
    "hands_known": _p("error", "the hands are known: name the discards"),
    "discard_size": _p("error", "{seat} lays away {wanted}, not {given} ({cards})"),
    "not_dealt": _p("error", "{seat} was not dealt {card}"),
    "starter_one_card": _p("error", "the starter is one card"),
    "starter_dealt": _p("error", "the starter {card} was dealt to a player"),
    "starter_in_crib": _p("error", "the starter {card} is in the crib"),
    "card_is_starter": _p("error", "{card} is the starter"),
    "card_in_crib": _p("error", "{card} is in the crib"),
    "card_shown": _p("error", "{card} was already shown"),
    "card_played": _p("error", "{card} was played in the play"),
    # the show
    "all_shown": _p("error", "every hand and the crib have been shown"),
    "not_their_count": _p("error", "it is {owner}'s {what} to count, not {seat}'s"),
    "enter_shown_cards": _p("error", "enter the cards of {seat}'s {what}"),
    "show_missing_cards": _p("error", "{seat}'s {what} must include {cards}"),
    "hand_size": _p("error", "a hand to show holds 3 or 4 cards, got {given}: {cards}"),
    "crib_size": _p("error", "a crib to show holds 4 cards, got {given}: {cards}"),
    # muggins and corrections
    "no_muggins": _p("error", "muggins is not being played in this game"),
    "nothing_to_muggins": _p("error", "no claim is open to muggins: the call must come right "
                                      "after the claim, before the next card or score"),
    "muggins_own_side": _p("error", "{seat} cannot call muggins on its own side"),
    "muggins_points": _p("error", "muggins must claim 1 point or more, not {value}"),
    "moot_too_soon": _p("error", "{seat}'s call for {points}: a muggins call is moot only once "
                                 "the game is won"),
    "moot_not_muggins": _p("error", "only a muggins call can be moot, not a {kind}"),
    "zero_correction": _p("error", "a correction needs non-zero points, not {value}"),
    # matches
    "match_over": _p("error", "the match is over"),
    "game_not_finished": _p("error", "the game is not finished"),
    # settings
    "players_range": _p("error", "players must be 2, 3 or 4, not {value}"),
    "bad_variant": _p("error", "variant must be six-card or five-card, not {value}"),
    "five_card_players": _p("error", "five-card cribbage is for two players"),
    "bad_target": _p("error", "target must be 61 or 121, not {value}"),
    "skunk_line_range": _p("error", "{name} must be between 1 and {limit}: {value}"),
    "games_per_match_range": _p("error", "games_per_match must be 1 to {most}: {value}"),
    "match_points_range": _p("error", "match_points.{name} must be 0 to {most}: {value}"),
    "match_point_type": _p("error", "match_points.{name} must be {type}: {value}"),
    "bad_match_points": _p("error", 'match_points must be an object or "acc", got {value}'),
    "settings_not_object": _p("error", "settings must be a JSON object, got {value}"),
    "setting_not_integer": _p("error", "{name} must be an integer, not {value}"),
    "setting_not_bool": _p("error", "{name} must be true or false, not {value}"),
    "unknown_settings": _p("error", "unknown setting(s): {names}"),
    "unknown_match_point_fields": _p("error", "unknown match point field(s): {names}"),
    # discard advice
    "advice_two_players": _p("error", "two players, {variant} cribbage deals {wanted} cards, "
                                      "got {given}: {cards}"),
    "advice_five_cards": _p("error", "two players, six-card cribbage deals {wanted} cards, got "
                                     "{given}: {cards} (five-card cribbage is --variant "
                                     "five-card; three or four players, --players)"),
    "advice_three_players": _p("error", "three players deals {wanted} cards, got {given}: "
                                        "{cards}"),
    "advice_four_players": _p("error", "four players deals {wanted} cards, got {given}: {cards}"),
    "no_partners": _p("error", "only four-player cribbage has partners"),
    # saved games and actions
    "saved_game_not_object": _p("error", "a saved game is a JSON object, got {value}"),
    "action_not_object": _p("error", "an action must be an object with a 'kind', got {value}"),
    "action_field_not_integer": _p("error", "action {name} must be an integer, got {value}"),
    "action_cards_not_list": _p("error", "action cards must be a list, got {value}"),
    "action_moot_not_bool": _p("error", "action moot must be true or false, got {value}"),
    # recorded games (replay)
    "recorded_game_not_object": _p("error", "a recorded game is a JSON object, got {type}"),
    "unknown_fields": _p("error", "unknown field(s): {names}"),
    "first_dealer_not_a_number": _p("error", "first_dealer must be a seat number, got {value}"),
    "no_first_dealer": _p("error", "give 'first_dealer' or the 'cut' for deal"),
    "deals_not_list": _p("error", "'deals' must be a list"),
    "actions_not_list": _p("error", "'actions' must be a list of actions, got {value}"),
    "deal_not_object": _p("error", "a deal must be an object, got {value}"),
    "hands_not_listed": _p("error", "'hands' must list each seat's cards as dealt"),
    "discards_not_listed": _p("error", "'discards' must list {players} seats' discards"),
    "starter_not_a_card": _p("error", "'starter' must be a card, got {value}"),
    "cut_not_cards": _p("error", "cut must be a list of cards, got {value}"),
    "hand_not_cards": _p("error", "a hand must be a list of cards, got {value}"),
    "discard_not_cards": _p("error", "a discard must be a list of cards, got {value}"),
    "dealt_to_nobody": _p("error", "{card} was not dealt to anyone"),
    "bad_play_entry": _p("error", "a play is a card, [seat, card] or an object, got {value}"),
    "shows_not_list": _p("error", "'shows' must be a list in counting order"),
    "bad_show_entry": _p("error", 'a show entry is an object like {{"claim": 8}}, got {value}'),
    "bad_claim": _p("error", "a claim is a number of points, got {value}"),
    "bad_muggins_entry": _p("error", 'muggins is {{"by": seat, "points": n}}, got {value}'),
    "muggins_points_not_number": _p("error", "muggins points must be a number, got {value}"),
    # requests of `score --jsonl` and `peg --jsonl`
    "request_not_object": _p("error", "expected a JSON object, got {value}"),
    "hand_not_card_texts": _p("error", "'hand' must be a list of card strings, got {value}"),
    "starter_not_text": _p("error", "'starter' must be a card string, got {value}"),
    "crib_not_bool": _p("error", "'crib' must be true or false, got {value}"),
    "players_dealer_not_integers": _p("error", "'players' and 'dealer' must be integers"),
    "hands_not_lists": _p("error", "'hands' must be a list of lists of cards, got {value}"),
    "plays_not_list": _p("error", "'plays' must be a list of [seat, card] pairs, got {value}"),
    "play_not_pair": _p("error", "play {number}: expected [seat, card], got {value}"),
}  # fmt: skip

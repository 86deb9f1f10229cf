"""Scoring a complete recorded game from a JSON file (`cribcam replay GAME.json`).

The file gives the settings, the first dealer (or the cut for deal) and, per deal, the hands as
dealt, the discards, the starter, the cards in the order played and, optionally, each claim
and muggins call. See the README for the format; `tests/data/game_two_players.json` is an
example. A game's action log as the app keeps it (`Game.to_json`: settings, first dealer and
`actions`, as `GET /api/export` gives it) replays too; either form may carry the labels of an
exported game (`LABELS`), which the engine does not read. Errors name the deal and the card.
A muggins call made after the game was won is moot at a table, so it is kept in the events as
moot, for no points (the live game refuses it).
"""

from __future__ import annotations

from typing import Any

from scorer.cards import Card, parse_card, parse_cards
from scorer.errors import CribbageError, GameError, refuse_unknown_fields
from scorer.events import Event
from scorer.game import Game, Phase
from scorer.settings import Settings


class ReplayError(CribbageError):
    """A recorded game that cannot be replayed: the message names the deal and the problem."""


#: What an exported game carries beside its record: the app's id, names, match and times.
LABELS = frozenset({"id", "names", "match_id", "created", "updated"})


def replay(data: Any) -> Game:
    """Play the recorded game through the engine and return it, finished or not."""
    if not isinstance(data, dict):
        raise ReplayError("recorded_game_not_object", type=type(data).__name__)
    if "actions" in data:
        return replay_log(data)
    refuse_unknown_fields(data, {"settings", "players", "first_dealer", "cut", "deals", *LABELS},
                          "unknown_fields", ReplayError)  # fmt: skip
    settings = Settings.from_json(data.get("settings", {}))
    first = data.get("first_dealer")
    if first is not None and type(first) is not int:
        raise ReplayError("first_dealer_not_a_number", value=repr(first))
    game = Game(settings, first_dealer=first)
    if first is None:
        cut = data.get("cut")
        if not isinstance(cut, list):
            raise ReplayError("no_first_dealer")
        game.cut_for_deal(_cards(cut, "cut_not_cards"))
    deals = data.get("deals", [])
    if not isinstance(deals, list):
        raise ReplayError("deals_not_list")
    for number, deal in enumerate(deals, start=1):
        if game.phase is Phase.OVER:
            break
        try:
            _replay_deal(game, deal)
        except ReplayError:
            raise
        except CribbageError as error:
            if error.code == "in_deal":  # the game named the deal itself
                raise ReplayError(error.code, **error.values) from None
            raise ReplayError("in_deal", number=number, message=error) from None
    return game


def replay_log(data: dict[str, Any]) -> Game:
    """A game kept as its action log (`Game.to_json`), played again from its first action."""
    refuse_unknown_fields(data, {"settings", "first_dealer", "actions", *LABELS},
                          "unknown_fields", ReplayError)  # fmt: skip
    if not isinstance(data["actions"], list):
        raise ReplayError("actions_not_list", value=repr(data["actions"]))
    first = data.get("first_dealer")
    if first is not None and type(first) is not int:
        raise ReplayError("first_dealer_not_a_number", value=repr(first))
    return Game.from_json({key: data[key] for key in ("settings", "first_dealer", "actions")
                           if key in data})  # fmt: skip


def _cards(value: Any, refusal: str) -> list[Card]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ReplayError(refusal, value=repr(value))
    return parse_cards(value)


def _replay_deal(game: Game, deal: Any) -> None:
    if not isinstance(deal, dict):
        raise GameError("deal_not_object", value=repr(deal))
    refuse_unknown_fields(deal, {"hands", "crib_card", "discards", "starter", "plays", "shows"},
                          "unknown_fields", GameError)  # fmt: skip
    hands = deal.get("hands")
    if not isinstance(hands, list):
        raise GameError("hands_not_listed")
    dealt = [_cards(hand, "hand_not_cards") for hand in hands]
    crib_card = deal.get("crib_card")
    game.deal(dealt, None if crib_card is None else parse_card(crib_card))
    discards = deal.get("discards")
    if not isinstance(discards, list) or len(discards) != game.players:
        raise GameError("discards_not_listed", players=game.players)
    for seat, cards in enumerate(discards):
        game.discard(seat, _cards(cards, "discard_not_cards"))
    starter = deal.get("starter")
    if not isinstance(starter, str):
        raise GameError("starter_not_a_card", value=repr(starter))
    game.cut_starter(parse_card(starter))
    holder = {card: seat for seat, hand in enumerate(dealt) for card in hand}
    for entry in deal.get("plays", []):
        if game.phase is not Phase.PLAY:
            break
        _replay_play(game, entry, holder)
    shows = deal.get("shows", [])
    if not isinstance(shows, list):
        raise GameError("shows_not_list")
    while (nxt := game.next_show()) is not None:
        index = game.show_order().index(nxt)
        _replay_show(game, shows[index] if index < len(shows) else {})


def _replay_play(game: Game, entry: Any, holder: dict[Card, int]) -> None:
    claim = None
    muggins = None
    if isinstance(entry, dict):
        claim, muggins = entry.get("claim"), entry.get("muggins")
        entry = entry.get("card")
    if isinstance(entry, list) and len(entry) == 2:
        seat, card = entry[0], parse_card(entry[1])
    elif isinstance(entry, str):
        card = parse_card(entry)
        if card not in holder:
            raise GameError("dealt_to_nobody", card=card)
        seat = holder[card]
    else:
        raise GameError("bad_play_entry", value=repr(entry))
    game.play(seat, card, claim=_claim(claim))
    _replay_muggins(game, muggins)


def _replay_show(game: Game, entry: Any) -> None:
    if not isinstance(entry, dict):
        raise GameError("bad_show_entry", value=repr(entry))
    game.show(claim=_claim(entry.get("claim")))
    _replay_muggins(game, entry.get("muggins"))


def _claim(value: Any) -> int | None:
    if value is not None and (type(value) is not int or value < 0):
        raise GameError("bad_claim", value=repr(value))
    return value


def _replay_muggins(game: Game, call: Any) -> None:
    if call is None:
        return
    if not isinstance(call, dict) or type(call.get("by")) is not int:
        raise GameError("bad_muggins_entry", value=repr(call))
    points = call.get("points")
    if type(points) is not int:
        raise GameError("muggins_points_not_number", value=repr(points))
    # At a table a call after the game is won is moot, not an error: keep it, for no points.
    game.muggins(call["by"], points, moot_if_over=True)


def replay_report(game: Game) -> dict[str, Any]:
    """Every event with the running scores after it, and the outcome."""
    running = [0] * game.settings.sides
    lines = []
    for event in game.events:
        if event.seat is not None and not event.for_interest:
            side = game.settings.side_of(event.seat)
            running[side] = max(running[side] + event.points, 0)
        lines.append({**event.to_json(), "scores": list(running)})
    return {
        "events": lines,
        "scores": list(game.scores),
        "finished": game.outcome is not None,
        "outcome": None if game.outcome is None else game.outcome.to_json(),
    }


def format_event(event: Event, scores: list[int]) -> str:
    return f"{event}  [{'-'.join(map(str, scores))}]"

"""The JSON a page draws from: the engine's `state_json()` plus what the table shows.

Adds the names, the revision (for live updates), this deal's play history with the count
after each card, every hand and crib counted so far with its itemised breakdown and spoken
cadence, the cards already seen this deal (the picker greys them out) and the match.
"""

from __future__ import annotations

from typing import Any

from scorer.cards import Card
from scorer.events import EventKind
from scorer.game import Game, Phase
from scorer.json_api import show_to_json
from scorer.match import Match
from scorer.show import score_show
from webui.games.store import StoredGame


def game_view(stored: StoredGame, match: list[StoredGame] | None = None) -> dict[str, Any]:
    game = stored.game
    return {
        "id": stored.id,
        "match_id": stored.match_id,
        "names": stored.names,
        "created": stored.created,
        "updated": stored.updated,
        "revision": stored.revision,
        **game.state_json(),
        "play": play_history(game),
        "shows": shows(game),
        "seen": [str(c) for c in seen_cards(game)],
        "hands_known": hands_known(game),
        "log": [action.to_json() for action in game.actions],
        "match": match_view(stored, match or [stored]),
    }


def play_history(game: Game) -> list[dict[str, Any]]:
    """This deal's play, step by step: each card with the count it made and its points."""
    deal = game.deal_state
    if deal is None or deal.pegging is None:
        return []
    return [event.to_json() for event in deal.pegging.events]


def _starters(game: Game) -> dict[int, Card]:
    """Deal number → starter, from the action log (the n-th starter belongs to deal n)."""
    found = [a.cards[0] for a in game.actions if a.kind == "starter" and a.cards]
    return {number: card for number, card in enumerate(found, start=1)}


def shows(game: Game) -> list[dict[str, Any]]:
    """Every hand and crib counted, newest deal first, with the full breakdown."""
    starters = _starters(game)
    result = []
    for event in game.events:
        if event.kind not in (EventKind.HAND, EventKind.CRIB) or event.deal not in starters:
            continue
        show = score_show(event.cards, starters[event.deal], crib=event.kind is EventKind.CRIB)
        result.append({
            "deal": event.deal, "what": event.kind.value, "seat": event.seat,
            "pegged": event.points, "for_interest": event.for_interest,
            "claim": None if event.claim is None else event.claim.to_json(),
            **show_to_json(show),
        })  # fmt: skip
    result.sort(key=lambda s: -int(s["deal"]))
    return result


def _between_deals(game: Game) -> bool:
    """No deal in hand: before the first, or the last deal is over and the next not dealt."""
    return game.deal_state is None or game.phase in (Phase.CUT_FOR_DEAL, Phase.DEAL)


def hands_known(game: Game) -> bool:
    """Whether this deal's hands were entered as dealt."""
    deal = game.deal_state
    return deal is not None and not _between_deals(game) and deal.hands is not None


def seen_cards(game: Game) -> list[Card]:
    """Cards already in a known place this deal: they cannot be entered again. Between
    deals none are: the last deal's cards go back into the pack."""
    deal = game.deal_state
    if deal is None or _between_deals(game):
        return []
    seen: list[Card] = []
    if deal.hands is not None:
        seen += [c for hand in deal.hands for c in hand]
    seen += deal.crib_from_pack
    seen += [c for cards in deal.discards.values() for c in cards]
    if deal.starter is not None:
        seen.append(deal.starter)
    if deal.pegging is not None:
        seen += [c for played in deal.pegging.played for c in played]
    seen += deal.counted
    return sorted(set(seen))


def match_view(stored: StoredGame, games: list[StoredGame]) -> dict[str, Any]:
    """Match points so far over this game's match (finished games only)."""
    settings = stored.game.settings
    match = Match(settings)
    for other in games:
        if other.game.outcome is not None and not match.over:
            match.record_game(other.game)
    return {
        "games_per_match": settings.games_per_match,
        "games": [g.id for g in games],
        "finished": len(match.outcomes),
        "standings": match.standings(),
        "over": match.over,
        "winner": match.winner(),
        "next_first_dealer": match.next_first_dealer,
    }

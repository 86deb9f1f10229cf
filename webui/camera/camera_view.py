"""The camera's table as one game sees it: its seats on the frame edges, and the cards the
camera saw laid that the game could take next.

The camera only suggests: a play event becomes an "apply" suggestion when it is the game's
play phase, the event's edge is the seat whose turn it is, and the card is not already placed
this deal (with the hands entered: the card is still in that seat's hand). Applying posts the
ordinary play action, which the engine validates.
"""

from __future__ import annotations

from typing import Any

from scorer.cards import Card, parse_card
from scorer.game import Game, Phase
from tablemode.seats import game_seat, table_seat
from webui.camera.capture import CameraFeed
from webui.games.live import CameraEvents, GameCamera
from webui.games.store import GameStore, StoredGame
from webui.games.views import seen_cards

NO_CAMERA = "no server camera: start the server with cribcam serve --camera SOURCE"


def no_camera() -> dict[str, Any]:
    return {"enabled": False, "state": "off", "detail": NO_CAMERA}


def camera_events(feed: CameraFeed | None, store: GameStore) -> GameCamera:
    """A game's `camera` events for its live stream: the feed's revision and the game's view of
    the feed (none without a server camera)."""

    def for_game(game_id: str) -> CameraEvents | None:
        if feed is None:
            return None
        return CameraEvents(
            lambda: feed.revision,
            lambda: game_camera_view(feed, store.load(game_id), switch=False),
        )

    return for_game


def game_camera_view(
    feed: CameraFeed | None, stored: StoredGame, *, switch: bool, table_mode: bool | None = None
) -> dict[str, Any]:
    """The feed's snapshot plus `seats`, `watching`, each event's game `seat_index` and
    `suggestions` (with `switch`, the feed follows this game from now on)."""
    if feed is None:
        return no_camera()
    game = stored.game
    players = game.settings.players
    deal = game.deal_state.number if game.deal_state else 0
    watching = feed.attach(
        stored.id, players, game.dealer, deal, switch=switch, table_mode=table_mode
    )
    view = feed.snapshot()
    view["watching"] = watching
    view["seats"] = [
        {"seat": s, "edge": table_seat(players, s), "name": stored.names[s]} for s in range(players)
    ]
    for event in view["events"]:
        event["seat_index"] = game_seat(players, event["seat"]) if watching else None
    view["suggestions"] = suggestions(game, view["events"]) if watching else []
    return view


def suggestions(game: Game, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Camera play events the game could apply now, oldest first."""
    turn = game.turn
    if game.phase is not Phase.PLAY or turn is None:
        return []
    players = game.settings.players
    edge = table_seat(players, turn)
    held = _held(game, turn)
    placed = set(seen_cards(game))
    result: list[dict[str, Any]] = []
    for event in events:
        card = parse_card(event["card"])
        possible = card not in placed if held is None else card in held
        if event["seat"] != edge or not possible:
            continue
        action: dict[str, Any] = {"kind": "play", "seat": turn, "card": str(card)}
        if event.get("frame"):
            action["frame"] = event["frame"]
        result.append({"seat": turn, "edge": edge, "card": str(card),
                       "text": f"{edge} laid {card}", "frame": event.get("frame"),
                       "action": action})  # fmt: skip
    return result


def _held(game: Game, seat: int) -> set[Card] | None:
    """The cards `seat` still holds for the play; None when the hands are hidden."""
    deal = game.deal_state
    if deal is None or deal.hands is None:
        return None
    gone = set(deal.discards.get(seat, ()))
    if deal.pegging is not None:
        gone |= set(deal.pegging.played[seat])
    return set(deal.hands[seat]) - gone

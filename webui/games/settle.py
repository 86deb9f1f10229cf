"""The "settle it" view: the current count card by card, so an argument at the table ends quickly.

Each step of the count (a card laid, a go, the go point or last card) shows the running count,
its points and why, and for a card, the index of the action that laid it; where that card was
applied from a camera or photo detection, the picture it was seen in
(`/api/games/<id>/frames/<index>`). When the count has just ended (31, a go point, the last
card), the finished count is shown instead of an empty one.
"""

from __future__ import annotations

from typing import Any

from scorer.pegging import PegAction, PegEvent
from webui.games.store import StoredGame


def counts(events: list[PegEvent]) -> list[list[PegEvent]]:
    """The deal's play cut into counts: a count ends at 31, a go point or the last card."""
    result: list[list[PegEvent]] = [[]]
    for event in events:
        result[-1].append(event)
        ended = event.action in (PegAction.GO_POINT, PegAction.LAST_CARD) or (
            event.action is PegAction.PLAY and event.count == 31
        )
        if ended:
            result.append([])
    return result


def count_view(stored: StoredGame, pictures: set[int]) -> dict[str, Any]:
    """The current (or just finished) count; `pictures`: action indexes with a stored frame."""
    game = stored.game
    deal = game.deal_state
    pegging = deal.pegging if deal else None
    base = {"game": stored.id, "deal": deal.number if deal else 0, "phase": game.phase.value}
    if pegging is None or not pegging.events:
        return {**base, "count": 0, "finished": False, "points": 0, "steps": []}
    cut = counts(pegging.events)
    finished = not cut[-1]
    steps = cut[-2] if finished else cut[-1]
    laid_by = _play_actions(stored)
    rows = []
    for step in steps:
        row: dict[str, Any] = {**step.to_json(), "name": stored.names[step.seat]}
        row["reason"] = ", ".join(str(item) for item in step.items)
        index = laid_by.get(str(step.card)) if step.card is not None else None
        row["action_index"] = index
        row["frame"] = (
            f"/api/games/{stored.id}/frames/{index}" if index is not None and index in pictures
            else None
        )  # fmt: skip
        rows.append(row)
    return {**base, "count": steps[-1].count, "finished": finished,
            "points": sum(s.points for s in steps), "steps": rows}  # fmt: skip


def _play_actions(stored: StoredGame) -> dict[str, int]:
    """Card → index in the action log of the play that laid it, this deal."""
    actions = stored.game.actions
    start = max((i for i, a in enumerate(actions) if a.kind == "deal"), default=0)
    return {
        str(a.cards[0]): i
        for i, a in enumerate(actions)
        if i >= start and a.kind == "play" and a.cards
    }

"""A player's page: the record in large type, their hand and crib scores beside every deal's
exact distribution, their best hands with the cards, who they played and their recent games.
Drawn on the server (the chart is SVG) from the same record `GET /api/players/<name>` gives."""

from __future__ import annotations

from typing import Any

from babel.numbers import format_decimal
from flask import Blueprint, render_template

from scorer.cards import Suit, parse_card
from scorer.stats import MAX_SHOW
from webui.languages.i18n import language
from webui.records.api import record_of
from webui.records.figures import expected, rivals
from webui.records.store import finished

records_pages = Blueprint("records_pages", __name__)

#: The chart's drawing area in SVG units: one column per score 0..29.
CHART_WIDTH, CHART_HEIGHT, COLUMN = 600, 160, 20


@records_pages.get("/players/<name>")
def player(name: str) -> str:
    record = record_of(name)
    against = list(rivals(finished(), record["key"]).values())
    shares = expected()
    return render_template(
        "player.html",
        record=record,
        charts=[
            chart("hands", record["hands"], shares["hands"]),
            chart("cribs", record["cribs"], shares["cribs"]),
        ],
        against=against,
        card=card_face,
        one=one_decimal,
    )


def chart(what: str, tally: dict[str, Any], expected: dict[str, Any]) -> dict[str, Any]:
    """The SVG geometry of a histogram: a bar per score for the player's share of their hands
    (or cribs), and a mark per score for the share every possible deal gives it."""
    count = tally["count"]
    own = [n / count if count else 0.0 for n in tally["histogram"]]
    top = max(max(own), max(expected["shares"])) or 1.0
    scale = CHART_HEIGHT / top
    bars, marks = [], []
    for points in range(MAX_SHOW + 1):
        height = own[points] * scale
        x = points * COLUMN
        if tally["histogram"][points]:
            bars.append({"x": x + 3, "y": CHART_HEIGHT - height, "width": COLUMN - 6,
                         "height": max(height, 1.0), "points": points,
                         "n": tally["histogram"][points]})  # fmt: skip
        marks.append((x + COLUMN / 2, CHART_HEIGHT - expected["shares"][points] * scale))
    return {
        "what": what,
        "count": count,
        "average": tally["average"],
        "expected_mean": expected["mean"],
        "bars": bars,
        "line": " ".join(f"{x:.1f},{y:.1f}" for x, y in marks),
        "ticks": [(points * COLUMN + COLUMN / 2, points) for points in range(0, MAX_SHOW + 1, 4)],
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
    }


def one_decimal(value: float | None) -> str:
    """An average as the page's language writes it, always to one decimal ("5.0", "4,8"); a
    dash when there is none."""
    if value is None:
        return "–"
    return str(format_decimal(value, format="#,##0.0", locale=language().code))


def card_face(text: str) -> dict[str, Any]:
    """A card as the page shows it: rank and suit symbol, red for hearts and diamonds."""
    card = parse_card(text)
    return {"text": str(card)[:-1] + Suit(card.suit).symbol, "red": card.suit in ("H", "D")}

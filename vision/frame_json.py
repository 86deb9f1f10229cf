"""The JSON a frame's cards are answered in (`cribcam detect --json`, the web app)."""

from __future__ import annotations

from typing import Any

from vision.table.cards import Conflict, FrameCards, SeenCard

#: A frame whose cards' median index is smaller (px) reads markedly worse (MODEL_CARD.md, "Index
#: size and the camera's resolution"): the page then asks for the camera closer or sharper.
SMALL_INDEX_PX = 24


def card_json(seen: SeenCard) -> dict[str, Any]:
    """One physical card: `box` covers every index it was seen by (both corners: nearly the
    whole card); `index_boxes` holds each index's own box in this frame, what a correction of a
    misread card cuts out (none for a card a smoothed table kept through a gap)."""
    boxes = seen.detections.boxes.tolist() if seen.in_frame else []
    return {
        "card": str(seen.card),
        "confidence": round(seen.confidence, 3),
        "box": [round(v, 1) for v in seen.box],
        "index_boxes": [[round(v, 1) for v in box] for box in boxes],
        "in_frame": seen.in_frame,
    }


def frame_quality(seen: FrameCards) -> dict[str, Any]:
    """How surely a frame reads: its cards' median index size (`index_px`), small
    (`small_indices`) under `SMALL_INDEX_PX`, and whether a card seen only at an index the
    frame's edge cuts was set aside (`cut_at_edge`)."""
    index_px = seen.index_px
    return {
        "index_px": None if index_px is None else round(index_px, 1),
        "small_indices": index_px is not None and index_px < SMALL_INDEX_PX,
        "cut_at_edge": seen.cut_at_edge,
    }


def frame_json(image: str, seen: FrameCards) -> dict[str, Any]:
    """The `cribcam detect --json` object: each physical card once, how surely the frame reads
    (`frame_quality`), and any conflicts."""
    return {
        "image": image,
        "cards": [card_json(card) for card in seen.cards],
        **frame_quality(seen),
        "conflicts": [conflict_json(c) for c in seen.conflicts],
    }


def conflict_json(conflict: Conflict) -> dict[str, Any]:
    """One card seen in two places: the card, the places, why."""
    places = [[round(x, 1), round(y, 1)] for x, y in conflict.places]
    return {"card": str(conflict.card), "places": places, "reason": conflict.reason}

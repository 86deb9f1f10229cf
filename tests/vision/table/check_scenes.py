"""Tables laid for the camera check, rendered as a posed camera sees them: a card face up in
front of each player (as the cut for deal leaves them) and the pack in the middle, with the
cards' corner indices where the picture shows them (from the deck's measured index ink)."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from cribtrain.data.clips import FRAME, HAND_ROW, CameraConfig, _lighting, _render, _Table
from cribtrain.data.poses import FRAME_SIZES, POSES, View, through_view, view
from cribtrain.data.synth import Deck, load_decks
from scorer.cards import parse_card
from tests.helpers import FIXTURES
from vision.detection.detections import Detections, class_of_card
from vision.table.cards import FrameCards, SeenCard
from vision.table.roles import Seat

Image = np.ndarray
#: The index height on the table plane (the clips' webcam's).
GLYPH = 16.0
#: Who sits where, by the number of players.
SEATS: dict[int, tuple[Seat, ...]] = {2: ("bottom", "top"), 3: ("bottom", "left", "right"),
                                      4: ("bottom", "left", "top", "right")}  # fmt: skip
CUTS = ("4H", "9C", "QS", "7D")
#: A camera that does not shake: the indices stay where the truth puts them.
STILL = CameraConfig(shake_px=0.0, shake_deg=0.0)


@dataclass(frozen=True)
class CheckScene:
    frame: Image
    #: The cards as a perfect reader would read them.
    truth: FrameCards
    sight: View


def held_out_deck() -> Deck:
    return load_decks([FIXTURES / "deck-dondorf"])[0]


def check_scene(
    deck: Deck, pose: str = "overhead", size: str = "1080p", players: int = 2, *,
    row: float = HAND_ROW, gain: float = 1.0, seed: int = 1, camera: CameraConfig = STILL,
    scale: float = 1.0,
) -> CheckScene:  # fmt: skip
    """Each player's cut card `row` table pixels from the centre towards them, the pack in the
    middle, seen from `pose` at `size` (`scale`: the picture shrunk so, the camera as far
    again), the room's light at `gain`."""
    table = _Table(deck, GLYPH)
    table.pack()
    for seat, card in zip(SEATS[players], CUTS, strict=False):
        [(x, y, angle)] = table.row_spots(seat, 1, row, 0.0)
        table.put(card, (x, y), angle)
    sight = view(POSES[pose], FRAME_SIZES[size])
    detail = sight.detail
    rendered = _render(deck, table.placements, seed, GLYPH, detail, (FRAME // 4))
    rng = np.random.default_rng(seed)
    frame = through_view(rendered, _lighting(seed), rng, camera, sight, detail, None, gain)
    truth = _truth(deck, table, sight)
    if scale != 1.0:
        width, height = FRAME_SIZES[size]
        small = (round(width * scale), round(height * scale))
        frame = np.asarray(cv2.resize(frame, small, interpolation=cv2.INTER_AREA), np.uint8)
        truth = FrameCards(tuple(_scaled(card, scale) for card in truth.cards))
    return CheckScene(frame, truth, sight)


def _truth(deck: Deck, table: _Table, sight: View) -> FrameCards:
    cards = []
    for placement in table.placements:
        if not placement.face_up:
            continue
        boxes = []
        for hull in deck.hulls[placement.code].values():
            plane = hull @ placement.M[:, :2].T + placement.M[:, 2]
            picture = sight.to_picture(plane)
            boxes.append([*picture.min(axis=0), *picture.max(axis=0)])
        card = parse_card(placement.code)
        found = Detections(np.asarray(boxes, np.float32), [0.99] * len(boxes),
                           [class_of_card(card)] * len(boxes))  # fmt: skip
        every = found.boxes
        box = (float(every[:, 0].min()), float(every[:, 1].min()), float(every[:, 2].max()),
               float(every[:, 3].max()))  # fmt: skip
        centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        cards.append(SeenCard(card, 0.99, box, centre, float(found.sizes.mean()), found))
    return FrameCards(tuple(cards))


def _scaled(card: SeenCard, scale: float) -> SeenCard:
    found = card.detections
    moved = Detections(found.boxes * scale, found.scores, found.class_ids)
    x1, y1, x2, y2 = card.box
    return SeenCard(card.card, card.confidence, (x1 * scale, y1 * scale, x2 * scale, y2 * scale),
                    (card.centre[0] * scale, card.centre[1] * scale), card.glyph_size * scale,
                    moved)  # fmt: skip

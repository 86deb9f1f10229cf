"""Frames read on the table's plane from a corner of the table, where the cards lie diagonally
in the picture and a reader that finds only level cards (as the corner detector, trained on
indices within 30 degrees of upright) reads none: the picture read turned says where the plane
is, and the canonical frame is turned so the cards lie level in it."""

from __future__ import annotations

import math

import cv2
import numpy as np

from cribtrain.data.clips import FRAME
from cribtrain.data.poses import FRAME_SIZES, POSES, view
from scorer.cards import parse_card
from vision.detection.detections import Detections
from vision.table.cards import FrameCards, SeenCard
from vision.table.plane import TablePlane, edge_angle
from vision.table.plane_reading import PlaneReading, read_turned

#: A card on the table plane, in the clips' table pixels (an index 16 tall: a card 100).
CARD = (70.0, 100.0)
SPOTS = [(x, y) for x in (130, 260, 390, 520) for y in (120, 320, 520)]
#: The reader reads a card only this near level (degrees), as the corner detector does.
LEVEL_ONLY = 20.0


def _corner_picture() -> np.ndarray:
    """White cards on a green table, lying level on it, seen from a corner at 720p."""
    sight = view(POSES["corner"], FRAME_SIZES["720p"])
    width, height = FRAME_SIZES["720p"]
    picture = np.full((height, width, 3), (40, 45, 50), np.uint8)
    table = sight.to_picture([[0, 0], [FRAME, 0], [FRAME, FRAME], [0, FRAME]])
    cv2.fillPoly(picture, [np.round(table).astype(np.int32)], (40, 140, 40))
    w, h = CARD
    for x, y in SPOTS:
        corners = sight.to_picture([[x - w / 2, y - h / 2], [x + w / 2, y - h / 2],
                                    [x + w / 2, y + h / 2], [x - w / 2, y + h / 2]])  # fmt: skip
        cv2.fillPoly(picture, [np.round(corners * 8).astype(np.int32)], (250, 250, 250),
                     lineType=cv2.LINE_AA, shift=3)  # fmt: skip
    return picture


class LevelOnlyReader:
    """Reads each white card lying within `LEVEL_ONLY` degrees of level: two indices in its
    opposite corners, each sized from the card's area (as a real index's size goes)."""

    def __init__(self) -> None:
        self.reads = 0

    def cards(self, frame: np.ndarray) -> FrameCards:
        self.reads += 1
        mask = (frame.min(axis=2) > 200).astype(np.uint8)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        seen = []
        for n, contour in enumerate(contours):
            area = cv2.contourArea(contour)
            if area < 30:
                continue
            (cx, cy), (w, h), angle = cv2.minAreaRect(contour)
            folded = (angle + 45) % 90 - 45
            if abs(folded) > LEVEL_ONLY:
                continue
            side = 0.16 * math.sqrt(area)
            ends = [(cx - 0.3 * w, cy - 0.3 * h), (cx + 0.3 * w, cy + 0.3 * h)]
            boxes = np.array([[x - side / 3, y - side / 2, x + side / 3, y + side / 2]
                              for x, y in ends], np.float32)  # fmt: skip
            card = parse_card(["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C",
                               "JC", "QC", "KC", "AD", "2D"][n % 15])  # fmt: skip
            detections = Detections(boxes, [0.9, 0.9], [0, 0])
            box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
            seen.append(SeenCard(card, 0.9, box, (cx, cy), side, detections))
        return FrameCards(tuple(seen))


def test_a_corner_s_diagonal_cards_are_read_turned_and_the_plane_levels_them() -> None:
    picture = _corner_picture()
    reader = LevelOnlyReader()
    assert reader.cards(picture).cards == ()  # diagonal in the picture: nothing read
    assert len(read_turned(reader, picture, 45.0).cards) >= 8
    table = TablePlane(FRAME_SIZES["720p"])
    reading = PlaneReading(reader, table)
    ready: list[FrameCards] = []
    for _ in range(table.config.settle):
        ready = reading.ready(picture)
    assert table.settled and len(ready) == table.config.settle
    assert table.tilt > 20  # tilted (the first frames' estimate, blended from none)
    # the canonical frame is turned so the cards lie level: the reader reads them all there
    assert all(len(cards.cards) == len(SPOTS) for cards in ready)
    warped = table.warp(picture)
    placed = [seen.centre for seen in ready[-1].cards]
    angle, sureness = edge_angle(warped, placed, 3 * table.config.glyph)
    assert abs(angle) < 5 and sureness > 0.3


def test_a_picture_read_enough_is_not_read_turned() -> None:
    """Cards level in the picture (a camera over the table): one read a frame."""
    sight = view(POSES["overhead"], FRAME_SIZES["720p"])
    width, height = FRAME_SIZES["720p"]
    picture = np.full((height, width, 3), (40, 140, 40), np.uint8)
    for x, y in SPOTS:
        (x1, y1), (x2, y2) = np.round(sight.to_picture([[x - 35, y - 50], [x + 35, y + 50]]))
        cv2.rectangle(picture, (int(x1), int(y1)), (int(x2), int(y2)), (250, 250, 250), -1)
    reader = LevelOnlyReader()
    reading = PlaneReading(reader, TablePlane(FRAME_SIZES["720p"]))
    reading.ready(picture)
    assert reader.reads == 1


def test_edge_angle_finds_how_far_a_card_is_turned() -> None:
    for degrees in (-30.0, 0.0, 25.0):
        image = np.full((300, 300, 3), (40, 140, 40), np.uint8)
        corners = cv2.boxPoints(((150, 150), (80, 120), degrees))
        cv2.fillPoly(image, [np.round(corners * 8).astype(np.int32)], (250, 250, 250),
                     lineType=cv2.LINE_AA, shift=3)  # fmt: skip
        angle, sureness = edge_angle(image, [(150.0, 150.0)], 100)
        assert abs(angle - degrees) < 2 and sureness > 0.5

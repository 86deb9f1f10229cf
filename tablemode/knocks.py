"""A knocked camera: the cards lying still all seem to move at once on the table's plane.

The plane (`vision.table.plane`) maps the picture's middle to the canonical frame's, so a phone
nudged a few centimetres or turned a few degrees mid-deal shifts every card there, and the seats
learnt from the game no longer lie where the cards do: plays land on the wrong side of the
table. The cards themselves say what happened, for each is one of a kind: where most of those
seen before reappear moved alike (one similarity fits them), frame after frame, the camera
moved, not the cards, and this frame and the next are moved back by it. A shaking camera moves
them every frame otherwise (the smoother follows that); a player gathering their own cards
moves a few, never most of the table.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from scorer.cards import Card
from vision.table.cards import FrameCards
from vision.table.mapping import F64, placed_all


@dataclass(frozen=True)
class KnockConfig:
    """When the cards say the camera moved."""

    #: Cards seen before that must reappear moved alike...
    least_cards: int = 3
    #: ...and this share of those that reappear at least.
    agreeing_share: float = 0.75
    #: A median shift under this many index sizes is the camera's shake (the smoother's).
    least_shift: float = 1.0
    #: A card within this many index sizes of where the fitted move puts it agrees with it.
    agree_within: float = 0.6
    #: Frames in a row the same move must be seen in: a shaking camera's moves differ each
    #: frame, a knocked one's stays (shaking still).
    frames: int = 3
    #: Two frames' moves are the same within this many index sizes and degrees (a shake of a
    #: few pixels and a degree or so on top of the knock).
    same_within: float = 1.0
    same_degrees: float = 2.5


DEFAULT_KNOCKS = KnockConfig()


class KnockFollower:
    """Keeps the cards where they lay on the plane when the camera is knocked: `steady` moves
    each frame's cards back by every knock found so far (`correction`, canonical to canonical
    pixels)."""

    def __init__(self, config: KnockConfig = DEFAULT_KNOCKS) -> None:
        self.config = config
        self.correction: F64 = np.eye(3)
        self.knocks = 0
        self._where: dict[Card, tuple[float, float]] = {}
        self._seen: list[F64] = []  # the same move, seen in the last frames

    def steady(self, frame: FrameCards) -> FrameCards:
        """`frame`'s cards (canonical pixels) moved back by the knocks found, this one's too."""
        if self.knocks:
            frame = placed_all(self.correction, frame)
        move, glyph = self._knock(frame)
        if move is None:
            self._seen = []
        else:
            if self._seen and not self._same(self._seen[0], move, glyph):
                self._seen = []
            self._seen.append(move)
            if len(self._seen) < self.config.frames:
                return frame  # where they lay is kept until the move is known
            self.correction = move @ self.correction
            self.knocks += 1
            self._seen = []
            frame = placed_all(move, frame)
        self._where |= {seen.card: seen.centre for seen in frame.cards if seen.in_frame}
        return frame

    def forget(self) -> None:
        """A new deal: the cards lie elsewhere now (the camera's correction stays)."""
        self._where, self._seen = {}, []

    def _knock(self, frame: FrameCards) -> tuple[F64 | None, float]:
        """The similarity that moves this frame's cards back to where they lay, where most of
        those seen before moved alike by more than shake (else None), and their index size."""
        config = self.config
        seen = [s for s in frame.cards if s.in_frame and s.card in self._where]
        if len(seen) < config.least_cards:
            return None, 0.0
        now = np.array([s.centre for s in seen], np.float64)
        before = np.array([self._where[s.card] for s in seen], np.float64)
        glyph = float(np.median([s.glyph_size for s in seen]))
        if np.median(np.hypot(*(now - before).T)) < config.least_shift * glyph:
            return None, glyph
        fitted, inliers = cv2.estimateAffinePartial2D(
            now, before, method=cv2.RANSAC, ransacReprojThreshold=config.agree_within * glyph
        )
        if fitted is None:
            return None, glyph
        agreeing = int(inliers.sum())
        if agreeing < max(config.least_cards, config.agreeing_share * len(seen)):
            return None, glyph
        return np.vstack([fitted, [0.0, 0.0, 1.0]]), glyph

    def _same(self, one: F64, other: F64, glyph: float) -> bool:
        """Whether two frames' moves are one knock's (within `same_within` and
        `same_degrees`)."""
        turn = np.degrees(np.arctan2(one[1, 0], one[0, 0]) - np.arctan2(other[1, 0], other[0, 0]))
        middle = np.append(np.mean(list(self._where.values()), axis=0), 1.0)  # where cards lie
        apart = float(np.hypot(*((one - other) @ middle)[:2]))
        return abs(turn) <= self.config.same_degrees and apart <= self.config.same_within * glyph

"""`ReadingConfig`: every threshold and option of the reading path, in one frozen object.

A caller that wants another reading (a faster detector side, one look, a deck's reader with
more or less of the base reader beside it) passes one of these to `vision.reading.CardReader`;
the stages take their settings from it, never from module constants. What each value was
measured to give is in models/MODEL_CARD.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vision.detection.models import checked_side
from vision.detection.pips import PipConfig
from vision.errors import VisionError
from vision.table.cards import PairingConfig

#: Stage 1's side where neither the caller nor the detector's export fixes one: frames are read
#: at up to this square's pixels (800 reads small indices better than the 640 it trains at).
DEFAULT_DETECTOR_SIDE = 800


class ReadingConfigError(VisionError, ValueError):
    """A reading setting outside what the reading path can use."""


@dataclass(frozen=True)
class ReadingConfig:
    """How a frame is read: the index finder (stage 1), the index reader (stage 2), scoring,
    orientation and the grouping of index readings into cards."""

    #: The side asked of stage 1 (a frame is read at up to this square's pixels); None: the
    #: detector's own where it was exported for one size, else `DEFAULT_DETECTOR_SIDE`.
    detector_side: int | None = None
    #: Boxes stage 1 scores below this are not read at all.
    min_box_score: float = 0.1
    #: Quarter turns each index crop is read at (1 = as cut): an index across the table reads
    #: the same.
    read_turns: int = 4
    #: The side (px) of the crops stage 2 reads.
    reader_px: int = 64
    #: Look again, closer, at a frame holding more pixels than stage 1 reads where its indices
    #: read small: at up to `closer_look_scale` times the side and at most the frame's pixels.
    closer_look: bool = True
    closer_look_scale: float = 1.44
    #: Under this many times the side, a closer look adds too little to be worth its time.
    closer_look_min_scale: float = 1.2
    #: The median index size (px, in stage 1's input) under which a closer look is due.
    closer_look_index_px: float = 28
    #: Look again at `far_look_scale` of the side where the indices read large, so that indices
    #: larger than stage 1 learnt (close-up fans) come into its range.
    far_look: bool = True
    far_look_scale: float = 0.5
    #: The median index size (px, in stage 1's input) from which a far look is due.
    far_look_index_px: float = 28
    #: Read boxes under `small_reader_px` (longer side, frame pixels) with the small-index
    #: reader too, where the models have one (beside a deck's tuned reader as well).
    small_reader: bool = True
    small_reader_px: float = 24.0
    #: The small-index reader's weight where its reading and the main reader's are combined.
    small_reader_weight: float = 0.5
    #: A deck reader tuned before readers held the base in their weights (no `BASE_SHARE_KEY`)
    #: has the base reader read the boxes the small-index reader leaves too, weighted this much
    #: in their geometric mean (0: the tuned reader alone). A newer deck reader reads alone.
    deck_base_weight: float = 0.5
    #: A newer deck reader reads beside the base reader too, each index taking the surer of
    #: the two readings where they name the same card (`surer_where_agreeing`): tuned on a
    #: few photos it is right more often but less sure, and alone it lost 16 of the 698 cards
    #: the base reader named in the real held-out photos (14 of them read right, under the
    #: card threshold); beside the base it lost 2 and named 2 the base missed.
    deck_keeps_base: bool = True
    #: Below this probability an index's orientation is left unknown.
    min_orientation_confidence: float = 0.9
    #: How index readings group into cards; its `min_score` gives way to the card threshold of
    #: the models' calibration where they have one.
    pairing: PairingConfig = field(default_factory=PairingConfig)
    #: How a number card's pips are counted on its face, a second reading beside its corners
    #: (`PipConfig.enabled`).
    pips: PipConfig = field(default_factory=PipConfig)

    def __post_init__(self) -> None:
        if self.detector_side is not None:
            checked_side(self.detector_side)
        if not 1 <= self.read_turns <= 4:
            raise ReadingConfigError(f"read_turns must be 1 to 4, got {self.read_turns}")
        if self.reader_px < 8:
            raise ReadingConfigError(f"reader_px must be at least 8, got {self.reader_px}")
        for name in ("min_box_score", "small_reader_weight", "deck_base_weight",
                     "min_orientation_confidence"):  # fmt: skip
            value = getattr(self, name)
            if not 0 <= value <= 1:
                raise ReadingConfigError(f"{name} must be within 0..1, got {value}")


#: The app's reading: every default.
DEFAULT_READING = ReadingConfig()

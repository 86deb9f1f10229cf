"""Domain errors of the vision pipeline; each message names the offending input.

They are separate from `scorer.errors` because a bad camera frame or a malformed detection is
not a rules violation: the app reports it and carries on with the next frame.
"""


class VisionError(Exception):
    """Base of every vision error."""


class InvalidDetectionsError(VisionError, ValueError):
    """Detection arrays or label text that do not describe well-formed corner-index boxes."""


class InvalidLayoutError(VisionError, ValueError):
    """A table layout that cannot be played: unknown, repeated or too few/many seats."""


class BadImageError(VisionError, ValueError):
    """Bytes or a file that do not decode to an image."""


class ReaderFailedError(VisionError):
    """The card reader cannot run on this machine (an engine missing or broken, a model file
    that does not load), as opposed to a frame that does not decode."""


class SourceError(VisionError):
    """A frame source that cannot deliver frames (missing file, unplugged camera, stream down)."""


class SourceOpenError(SourceError):
    """A frame source that cannot be opened at all: nothing to reconnect to."""


class FontDeckError(VisionError, ValueError):
    """Bad input to the procedural deck generator (no usable font, a count below one)."""


class WeightsError(VisionError, ValueError):
    """Training weights that cannot be combined (two different networks, a share outside 0-1)."""


class EvaluationError(VisionError, ValueError):
    """A previous evaluation to compare against that is missing or is not one."""


class SplitError(VisionError, ValueError):
    """A train/holdout split file that cannot be read or lacks the part asked for."""


class TrainingError(VisionError, ValueError):
    """Training asked of something that is not there: a missing set, weights or time budget."""


class SynthConfigError(VisionError, ValueError):
    """Synthetic scenes asked for that cannot be drawn: a share that is no probability, a frame
    larger than its scene, no deck to draw from."""


class CardArtError(VisionError, RuntimeError):
    """Card art that cannot be rendered as asked: a missing tool, an unknown deck, a face too
    small to hold its indices."""

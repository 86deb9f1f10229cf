"""The card detector as the web app sees it: any object with `detect(image, name)`.

The app takes one from its config (``DETECTOR``); `cribcam serve` passes the installed model's
detector when there is one. With none, detection endpoints answer 503 rather than guess.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from flask import current_app

from webui.errors import ApiError, NoDetectorError


@runtime_checkable
class Detector(Protocol):
    def detect(self, image: bytes, name: str) -> dict[str, Any]:
        """One `cribcam detect --json` object for the image bytes:
        ``{"image": name, "cards": [{"card": "5H", "confidence": 0.97, "box": [x1, y1, x2, y2]}]}``
        """
        ...


def run_detector(image: bytes, name: str) -> dict[str, Any]:
    """Detect with the configured detector; an image it cannot decode is the client's fault."""
    detector = current_detector()
    try:
        return detector.detect(image, name)
    except ValueError as error:  # the vision package's bad-image errors are ValueErrors
        raise ApiError(f"the image could not be read: {error}") from None


def current_detector() -> Detector:
    detector = current_app.config.get("DETECTOR")
    if detector is None:
        raise NoDetectorError(
            "no card model installed: detection is unavailable; enter the cards by hand"
        )
    if not isinstance(detector, Detector):
        raise TypeError(f"DETECTOR {detector!r} has no detect(image, name) method")
    return detector

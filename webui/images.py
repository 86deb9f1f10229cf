"""Checking an uploaded frame before any detector sees it, with the standard library only.

A JPEG must start with SOI and end with EOI (a truncated upload lacks the EOI), a PNG must
carry its signature and end with an IEND chunk, a WebP's RIFF length must match the bytes.
This catches "not an image" and "cut off in transit" cheaply; decoding is the detector's job.
"""

from __future__ import annotations

from webui.errors import ApiError

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_END = b"IEND\xaeB`\x82"


class IncompleteUploadError(ApiError):
    """An upload that is no image, or one cut off in transit (not `vision.errors.BadImageError`,
    which a decoder raises)."""

    status = 400


def image_kind(data: bytes) -> str:
    """'jpeg', 'png' or 'webp' for a complete image; raises `IncompleteUploadError` naming the
    fault."""
    if not data:
        raise IncompleteUploadError("the upload is empty: send the image bytes as the body")
    if data.startswith(b"\xff\xd8\xff"):
        if not data.rstrip(b"\x00").endswith(b"\xff\xd9"):
            raise IncompleteUploadError("the JPEG is truncated: it has no end-of-image marker")
        return "jpeg"
    if data.startswith(_PNG_SIGNATURE):
        if not data.endswith(_PNG_END):
            raise IncompleteUploadError("the PNG is truncated: it has no IEND chunk")
        return "png"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        if int.from_bytes(data[4:8], "little") + 8 != len(data):
            raise IncompleteUploadError("the WebP is truncated: its length does not match")
        return "webp"
    raise IncompleteUploadError("the body is not a JPEG, PNG or WebP image")

"""Checking an uploaded frame before any detector sees it.

A JPEG must start with SOI and end with EOI, a PNG must carry its signature and end with an
IEND chunk, a WebP's RIFF length must match the bytes: this catches "not an image" and "cut off
in transit" cheaply. Two more checks need the image itself:

- **Size.** The pixels its header declares must fit the upload budget (`ServerLimits.
  upload_pixels`): a decoder allocates what the header says, so a small file claiming
  12000 x 12000 would take gigabytes. Read from the header, before anything is decoded.
- **A JPEG's data.** A JPEG cut short and given a forged end marker passes the marker check,
  and decoders fill the missing rows with grey. It is decoded here at an eighth of its size
  (every byte of its data is still read, at a 64th of the memory) by libjpeg-turbo in strict
  mode (`simplejpeg`), which refuses premature ends and corrupt data.
"""

from __future__ import annotations

import io
import struct

import PIL.WebPImagePlugin
import simplejpeg  # libjpeg-turbo's strict mode reports a JPEG's missing data; cv2 only warns

from webui.errors import DAMAGED_IMAGE, NOT_AN_IMAGE, ApiError
from webui.guard.limits import limits

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_END = b"IEND\xaeB`\x82"


class IncompleteUploadError(ApiError):
    """An upload that is no image, or one cut off in transit (not `vision.errors.BadImageError`,
    which a decoder raises)."""

    status = 400
    code = DAMAGED_IMAGE


class ImageTooLargeError(ApiError):
    """An image whose header declares more pixels than the upload budget."""

    status = 413


def image_kind(data: bytes, max_pixels: int | None = None) -> str:
    """'jpeg', 'png' or 'webp' for a complete image of at most `max_pixels` (default: the
    running app's budget); raises `IncompleteUploadError` or `ImageTooLargeError` naming the
    fault."""
    if not data:
        raise IncompleteUploadError(
            "the upload is empty: send the image bytes as the body", code=NOT_AN_IMAGE
        )
    if data.startswith(b"\xff\xd8\xff"):
        if not data.rstrip(b"\x00").endswith(b"\xff\xd9"):
            raise IncompleteUploadError("the JPEG is truncated: it has no end-of-image marker")
        kind = "jpeg"
    elif data.startswith(_PNG_SIGNATURE):
        if not data.endswith(_PNG_END):
            raise IncompleteUploadError("the PNG is truncated: it has no IEND chunk")
        kind = "png"
    elif data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        if int.from_bytes(data[4:8], "little") + 8 != len(data):
            raise IncompleteUploadError("the WebP is truncated: its length does not match")
        kind = "webp"
    else:
        raise IncompleteUploadError("the body is not a JPEG, PNG or WebP image", code=NOT_AN_IMAGE)
    width, height = _size(kind, data)
    budget = _budget() if max_pixels is None else max_pixels
    if width * height > budget:
        raise ImageTooLargeError.coded("too_many_pixels", None, width=width, height=height,
                                       megapixels=budget / 1e6)  # fmt: skip
    if kind == "jpeg":
        _check_jpeg_data(data)
    return kind


def _budget() -> int:
    return limits().upload_pixels


def _size(kind: str, data: bytes) -> tuple[int, int]:
    """Width and height from the header alone."""
    try:
        if kind == "jpeg":
            height, width, _, _ = simplejpeg.decode_jpeg_header(data)
            return int(width), int(height)
        if kind == "png":
            if data[12:16] != b"IHDR":
                raise ValueError("no IHDR chunk first")
            width, height = struct.unpack(">II", data[16:24])
            return int(width), int(height)
        size: tuple[int, int] = PIL.WebPImagePlugin.WebPImageFile(io.BytesIO(data)).size
        return size
    except (ValueError, OSError, SyntaxError, EOFError, struct.error) as error:
        raise IncompleteUploadError(f"the {kind.upper()} could not be read: {error}") from None


def _check_jpeg_data(data: bytes) -> None:
    try:
        _, _, colorspace, _ = simplejpeg.decode_jpeg_header(data)
        into = "CMYK" if colorspace in ("CMYK", "YCCK") else "GRAY"
        simplejpeg.decode_jpeg(data, colorspace=into, min_height=1, min_width=1, min_factor=8)
    except ValueError as error:
        raise IncompleteUploadError(f"the JPEG is damaged or cut short: {error}") from None

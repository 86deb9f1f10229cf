"""Where the camera stands at a real table: a pinhole camera looking at the table's centre from
overhead, propped at a player's edge, at the side or at a corner, and the homography that takes
the clips' top-down table plane (`clips.FRAME` pixels a side) into its 720p or 1080p picture.

Far cards come out smaller and foreshortened, as a real camera's projection makes them; the
rest of a clip (lighting, a hand withdrawing, noise, JPEG) is as the overhead webcam has it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from cribtrain.data.clips import FRAME, CameraConfig, Image, hand_layer
from vision.table.roles import Seat

F64 = npt.NDArray[np.float64]

#: Frame sizes (width, height) the poses are rendered at.
FRAME_SIZES = {"720p": (1280, 720), "1080p": (1920, 1080)}
#: The part of the table plane that must be in view: every card of a deal, with a margin.
TABLE_IN_VIEW = (16.0, FRAME - 16.0)
#: The finest top-down render: enough texture for the nearest cards of a 1080p frame.
MOST_DETAIL = 3
#: Bare table rendered around the cards' square, in table pixels; beyond it the floor, dark.
MARGIN = FRAME // 4
FLOOR = (40.0, 45.0, 50.0)  # BGR


@dataclass(frozen=True)
class Pose:
    """`tilt`: degrees from looking straight down (0) towards the horizon; `around`: degrees
    around the table from the bottom seat's edge (90: the left side, 45: the bottom-left
    corner); `fov`: the lens's horizontal field of view (a phone's main camera, a webcam)."""

    tilt: float
    around: float = 0.0
    fov: float = 66.0


#: The poses a phone takes at a real table (issue #59): over the middle; leant at the near
#: edge, tilted towards the far one; at the side between two players; in a holder at a corner.
POSES = {
    "overhead": Pose(tilt=0.0),
    "edge": Pose(tilt=60.0),
    "side": Pose(tilt=50.0, around=90.0),
    "corner": Pose(tilt=50.0, around=45.0),
}


@dataclass(frozen=True)
class View:
    """A pose at a frame size: the homography from the table plane to the picture."""

    pose: Pose
    size: tuple[int, int]
    plane_to_picture: F64

    @property
    def detail(self) -> int:
        """The top-down render's scale: the largest magnification over the table, rounded up."""
        low, high = TABLE_IN_VIEW
        points = [(x, y) for x in np.linspace(low, high, 9) for y in np.linspace(low, high, 9)]
        scale = max(_magnification(self.plane_to_picture, p) for p in points)
        return int(min(MOST_DETAIL, max(1, math.ceil(scale))))

    def picture(self, table: npt.NDArray[np.float32], detail: int) -> npt.NDArray[np.float32]:
        """The table plane, rendered at `detail` pixels a table pixel with `MARGIN` around, in
        the picture; the floor beyond the table."""
        render_to_plane = np.array([[1 / detail, 0, -MARGIN], [0, 1 / detail, -MARGIN], [0, 0, 1]])
        return np.asarray(cv2.warpPerspective(
            table, self.plane_to_picture @ render_to_plane, self.size, flags=cv2.INTER_AREA,
            borderMode=cv2.BORDER_CONSTANT, borderValue=FLOOR), np.float32)  # fmt: skip

    def to_picture(self, points: npt.ArrayLike) -> F64:
        """Table-plane points (n, 2) in picture pixels."""
        flat = np.asarray(points, np.float64).reshape(-1, 1, 2)
        return np.asarray(cv2.perspectiveTransform(flat, self.plane_to_picture), np.float64)[:, 0]


def view(pose: Pose, size: tuple[int, int]) -> View:
    """The pose's camera at the distance where the whole table just fits in the picture."""
    near, far = 1.0, 50.0 * FRAME
    for _ in range(60):  # bisection: the table fits from `far`, not from `near`
        middle = (near + far) / 2
        if _fits(_homography(pose, size, middle), size):
            far = middle
        else:
            near = middle
    return View(pose, size, _homography(pose, size, far))


def _fits(homography: F64, size: tuple[int, int], margin: float = 0.03) -> bool:
    low, high = TABLE_IN_VIEW
    corners = np.array([[low, low], [high, low], [high, high], [low, high]], np.float64)
    flat = corners.reshape(-1, 1, 2)
    picture = np.asarray(cv2.perspectiveTransform(flat, homography), np.float64)[:, 0]
    width, height = size
    inside_x = (picture[:, 0] >= margin * width) & (picture[:, 0] <= (1 - margin) * width)
    inside_y = (picture[:, 1] >= margin * height) & (picture[:, 1] <= (1 - margin) * height)
    return bool(np.all(inside_x & inside_y))


def _homography(pose: Pose, size: tuple[int, int], distance: float) -> F64:
    """Table plane (z = 0; x right, y towards the bottom seat, z into the table) to picture,
    for a camera `distance` plane pixels from the table's centre, aimed at it."""
    width, height = size
    focal = width / 2 / math.tan(math.radians(pose.fov) / 2)
    camera = np.array([[focal, 0, width / 2], [0, focal, height / 2], [0, 0, 1]], np.float64)
    tilt, around = math.radians(pose.tilt), math.radians(pose.around)
    outwards = np.array([-math.sin(around), math.cos(around), 0.0])  # from the centre to the pose
    centre = np.array([FRAME / 2, FRAME / 2, 0.0])
    position = centre + distance * (math.sin(tilt) * outwards - np.array([0, 0, math.cos(tilt)]))
    forward = (centre - position) / np.linalg.norm(centre - position)
    down = outwards - outwards.dot(forward) * forward  # the near side at the picture's bottom
    down /= np.linalg.norm(down)
    right = np.cross(down, forward)
    rotation = np.stack([right, down, forward])
    extrinsic = np.column_stack([rotation[:, 0], rotation[:, 1], -rotation @ position])
    homography: F64 = camera @ extrinsic
    return np.asarray(homography / homography[2, 2], np.float64)


def _magnification(homography: F64, point: tuple[float, float]) -> float:
    """How many picture pixels a plane pixel at `point` spans (the larger axis)."""
    x, y = point
    w = homography[2, 0] * x + homography[2, 1] * y + homography[2, 2]
    u = homography[:2, 0] * x + homography[:2, 1] * y + homography[:2, 2]
    jacobian = (homography[:2, :2] * w - np.outer(u, homography[2, :2])) / w**2
    return float(np.linalg.svd(jacobian, compute_uv=False)[0])


def through_view(
    table: npt.NDArray[np.float32], light: npt.NDArray[np.float32], rng: np.random.Generator,
    camera: CameraConfig, sight: View, detail: int,
    hand: tuple[tuple[float, float], Seat] | None = None, gain: float = 1.0,
) -> Image:  # fmt: skip
    """One frame of the table (rendered at `detail`) as the posed camera sees it: the room's
    light at `gain`, a hand over the plane, the camera shaken a little, blur, noise and JPEG."""
    side = (FRAME + 2 * MARGIN) * detail
    frame: npt.NDArray[Any] = table * cv2.resize(light, (side, side)) * (gain * camera.light)
    if hand is not None:
        pad = ((MARGIN, MARGIN), (MARGIN, MARGIN), (0, 0))
        mask, colour = (cv2.resize(np.pad(layer, pad), (side, side))
                        for layer in hand_layer(rng, *hand))  # fmt: skip
        frame = frame * (1 - mask[..., None]) + colour
    width, height = sight.size
    shake = np.eye(3)
    turn = rng.uniform(-camera.shake_deg, camera.shake_deg)
    shake[:2] = cv2.getRotationMatrix2D((width / 2, height / 2), turn, 1.0)
    shake[:2, 2] += rng.uniform(-camera.shake_px, camera.shake_px, 2)
    shaken = View(sight.pose, sight.size, shake @ sight.plane_to_picture)
    picture: npt.NDArray[Any] = cv2.GaussianBlur(shaken.picture(frame, detail), (0, 0), camera.blur)
    picture += rng.normal(0, camera.noise, picture.shape).astype(np.float32)
    pixels = np.clip(picture, 0, 255).astype(np.uint8)
    ok, encoded = cv2.imencode(".jpg", pixels, [cv2.IMWRITE_JPEG_QUALITY, camera.jpeg_quality])
    assert ok, "OpenCV could not encode a JPEG"
    return np.asarray(cv2.imdecode(encoded, cv2.IMREAD_COLOR), np.uint8)

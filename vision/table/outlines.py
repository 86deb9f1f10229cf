"""The table's tilt from the cards' outlines: every card is a rectangle of one shape, so the
camera's tilt is the one under which each card's outline, turned to be seen from straight above,
is a rectangle of a card's aspect.

A card's outline says far more than its corner indices' sizes: its sides are tens of pixels
long where an index is a few, and it says the tilt by itself (a square corner and a known
aspect are two constraints, the plane's normal has two degrees of freedom), where the index
sizes say it only across cards spread wide. The right angle alone is not enough: cards lying
parallel all give the same constraint, which the steepest tilt meets best (every side looks
alike there), so each card's aspect is weighed apart, and the previous estimate is a prior.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.table.cards import SeenCard

F64 = npt.NDArray[np.float64]
F32 = npt.NDArray[np.float32]
Image = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class OutlineConfig:
    """`aspect`: a card's width over its height as most decks have it (poker 63:88 = 0.716, bridge
    0.636, the Dondorf deck 0.64: the middle is at most 6 % off any of them), `aspects` the
    range a deck's is fitted in, `aspect_prior` how strongly it is pulled to `aspect` (as many
    cards' worth: weakly, else a camera over the table is taken tilted to stretch one deck's
    aspect to another's), `tilt_prior` what a degree of tilt costs, squared (a lone card says no
    tilt where one would do as well as none); `area_weight`: what a card's log area apart from
    the others' median costs, seen from above; `reach`: how far from a card's centre its outline
    is looked for, in index sizes (a card is about 6 tall, stretched along the picture by the
    tilt); `contrast`: how far (Lab distance) a pixel's colour must lie from the table's to be a
    card's, of `table_colours` colours at most (a checked cloth has two), each on `table_share`
    of the window's rim; `least_area`, `most_area`: a card's area in the picture, in index sizes
    squared; `straight`: how far (a share of its perimeter) the outline may stray from its four
    sides; `most_tilt`: the steepest tilt tried (degrees); `angle_weight`, `aspect_weight`: what
    a corner's cosine and the aspect's log error cost; `prior`: what a degree away from the kept
    estimate costs, squared (the outlines of a few cards are noisy one frame at a time); `cap`:
    the most one card's cost may add (a quad that is no card: two overlapping), and `misfit`: a
    quad costing more than this at the best tilt is left out and the tilt fitted again without
    it; `gate`: a settled plane leaves a frame's tilt further than this (degrees) from its own
    unheeded."""

    aspect: float = 0.67
    aspects: tuple[float, float] = (0.6, 0.75)
    aspect_prior: float = 0.03
    area_weight: float = 1.0
    tilt_prior: float = 1e-6
    reach: float = 7.0
    contrast: float = 30.0
    table_colours: int = 3
    table_share: float = 0.2
    least_area: float = 6.0
    most_area: float = 80.0
    straight: float = 0.04
    most_tilt: float = 75.0
    angle_weight: float = 1.0
    aspect_weight: float = 1.0
    prior: float = 2e-4
    cap: float = 0.05
    misfit: float = 0.01
    gate: float = 10.0


DEFAULT_OUTLINES = OutlineConfig()


def card_quads(
    picture: Image, cards: list[SeenCard], config: OutlineConfig = DEFAULT_OUTLINES
) -> list[F64]:
    """The four corners (4, 2) of each card's outline in `picture` that is a clean
    quadrilateral, from `cards` (read in `picture`, in its pixels): the region around its
    centre whose colours are none of the table's, its contour's four sides each
    fitted with a line (a card's rounded corners cut no side short). Cards overlapping, a hand
    over one, or a table of the cards' colour give none."""
    height, width = picture.shape[:2]
    lab = cv2.cvtColor(picture, cv2.COLOR_BGR2LAB).astype(np.float32)
    quads: list[F64] = []
    for seen in cards:
        (cx, cy), size = seen.centre, seen.glyph_size
        reach = config.reach * size
        x1, y1 = max(0, int(cx - reach)), max(0, int(cy - reach))
        x2, y2 = min(width, int(cx + reach) + 1), min(height, int(cy + reach) + 1)
        if x2 - x1 < 8 or y2 - y1 < 8:
            continue
        window = lab[y1:y2, x1:x2]
        apart = (_table_distance(window, config) > config.contrast).astype(np.uint8)
        mask = cv2.morphologyEx(apart, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        around = [c for c in contours if cv2.pointPolygonTest(c, (cx - x1, cy - y1), False) >= 0]
        if not around:
            continue
        contour = np.asarray(around[0], np.int32)
        xs, ys = contour[:, 0, 0], contour[:, 0, 1]
        if xs.min() <= 0 or ys.min() <= 0 or xs.max() >= x2 - x1 - 1 or ys.max() >= y2 - y1 - 1:
            continue  # reaches past the window: cards overlapping, a hand, the table's edge
        quad = _quad(contour, size, config)
        if quad is None:
            continue
        quad += np.array([x1, y1], np.float64)
        outline = quad.astype(np.float32).reshape(-1, 1, 2)
        inside = sum(cv2.pointPolygonTest(outline, c.centre, False) >= 0 for c in cards)
        if inside <= 1:  # around two cards' centres: two cards overlapping along a side
            quads.append(quad)
    return quads


def _table_distance(window: F32, config: OutlineConfig) -> F32:
    """Each pixel's colour distance (Lab) to the nearest of the table's colours: those of the
    window's rim (a cloth may be checked or printed), each covering at least
    `OutlineConfig.table_share` of it (a neighbouring card crossing the rim is no table)."""
    band = 3
    sides = (window[:band], window[-band:], window[:, :band], window[:, -band:])
    rim = np.concatenate([side.reshape(-1, 3) for side in sides])
    # k-means from the median and the colours farthest from those chosen (deterministic)
    centres = [np.median(rim, axis=0)]
    for _ in range(config.table_colours - 1):
        nearest = np.min([np.linalg.norm(rim - c, axis=1) for c in centres], axis=0)
        centres.append(rim[int(nearest.argmax())])
    kept = np.array(centres)
    label = np.zeros(len(rim), int)
    for _ in range(8):
        label = np.argmin(np.linalg.norm(rim[:, None] - kept[None], axis=2), axis=1)
        kept = np.array([rim[label == k].mean(axis=0) if np.any(label == k) else kept[k]
                         for k in range(len(kept))])  # fmt: skip
    shares = np.bincount(label, minlength=len(kept)) / len(rim)
    table = kept[shares >= config.table_share] if np.any(shares >= config.table_share) else kept
    distance = np.linalg.norm(window[:, :, None] - table[None, None], axis=3).min(axis=2)
    return np.asarray(distance, np.float32)


def _quad(contour: npt.NDArray[np.int32], size: float, config: OutlineConfig) -> F64 | None:
    """The outline `contour` as four fitted sides' corners, or None where it is no clean
    quadrilateral of a card's size."""
    area = cv2.contourArea(contour)
    if not config.least_area * size**2 <= area <= config.most_area * size**2:
        return None
    hull = cv2.convexHull(contour)
    if area < 0.92 * cv2.contourArea(hull):
        return None  # notched: a card over another, a hand
    approx = cv2.approxPolyN(hull, 4, ensure_convex=True)
    corners = approx.reshape(-1, 2).astype(np.float64)
    if len(corners) != 4:
        return None
    points = contour.reshape(-1, 2).astype(np.float64)
    perimeter = cv2.arcLength(contour, True)
    # each contour point to its nearest side; the points near a corner are left out
    lines = []
    for k in range(4):
        a, b = corners[k], corners[(k + 1) % 4]
        side = b - a
        length = float(np.linalg.norm(side))
        if length < 2:
            return None
        along = (points - a) @ side / length**2
        offset = points - a
        across = np.abs(side[0] * offset[:, 1] - side[1] * offset[:, 0]) / length
        near = (along > 0.15) & (along < 0.85) & (across < max(2.0, config.straight * perimeter))
        if near.sum() < 5:
            return None
        vx, vy, x0, y0 = cv2.fitLine(points[near].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01)
        lines.append(np.cross([x0[0], y0[0], 1.0], [x0[0] + vx[0], y0[0] + vy[0], 1.0]))
    fitted = []
    for k in range(4):
        point = np.cross(lines[k - 1], lines[k])
        if abs(point[2]) < 1e-9:
            return None
        fitted.append(point[:2] / point[2])
    quad = np.array(fitted, np.float64)
    # the fitted corners stay near the approximation's: else a side was fitted to another's points
    if np.abs(quad - corners).max() > 0.15 * math.sqrt(area):
        return None
    middle = (float(quad[:, 0].mean()), float(quad[:, 1].mean()))
    return quad if cv2.pointPolygonTest(contour, middle, False) >= 0 else None


def camera_matrix(picture: tuple[int, int], fov: float) -> F64:
    """The lens: `fov` degrees across the picture, its centre on the axis."""
    width, height = picture
    focal = width / 2 / math.tan(math.radians(fov) / 2)
    return np.array([[focal, 0, width / 2], [0, focal, height / 2], [0, 0, 1]], np.float64)


def normal_of(tilt: float, around: float) -> F64:
    """The unit normal `tilt` degrees from the optical axis, leaning `around` degrees (from
    the picture's x axis towards its y)."""
    t, a = math.radians(tilt), math.radians(around)
    return np.array([math.sin(t) * math.cos(a), math.sin(t) * math.sin(a), math.cos(t)])


def rotation_onto_axis(normal: F64) -> F64:
    """The least rotation taking `normal` onto the optical axis (0, 0, 1) (Rodrigues)."""
    axis = np.cross(normal, [0.0, 0.0, 1.0])
    sine, cosine = float(np.linalg.norm(axis)), float(normal[2])
    if sine < 1e-12:
        return np.eye(3)
    k = axis / sine
    cross = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.asarray(np.eye(3) + sine * cross + (1 - cosine) * cross @ cross, np.float64)


def quad_shapes(quads: F64, camera: F64, normal: F64) -> tuple[F64, F64, F64] | None:
    """Each quad (n, 4, 2) seen from straight above the plane of `normal`: how far its corners
    are from square (their squared cosines' mean), its aspect (the absolute log of its sides'
    ratio, either side the long one) and its log area; None where a quad lies behind the
    camera."""
    turn = camera @ rotation_onto_axis(normal) @ np.linalg.inv(camera)
    flat = np.concatenate([quads.reshape(-1, 2), np.ones((quads.shape[0] * 4, 1))], axis=1)
    mapped = flat @ turn.T
    if np.any(mapped[:, 2] <= 0):
        return None
    points = (mapped[:, :2] / mapped[:, 2:]).reshape(-1, 4, 2)
    sides = np.roll(points, -1, axis=1) - points
    lengths = np.linalg.norm(sides, axis=2) + 1e-9
    unit = sides / lengths[..., None]
    cosines = np.einsum("nkd,nkd->nk", unit, np.roll(unit, -1, axis=1))
    ratio = np.log((lengths[:, 0] + lengths[:, 2]) / (lengths[:, 1] + lengths[:, 3]))
    x, y = points[..., 0], points[..., 1]
    area = 0.5 * np.abs((x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y).sum(axis=1))
    square = np.asarray((cosines**2).mean(axis=1), np.float64)
    return square, np.abs(ratio), np.log(area + 1e-9)


def _costs(
    shapes: tuple[F64, F64, F64] | None, count: int, config: OutlineConfig
) -> tuple[F64, float]:
    """Each quad's cost (capped) and the cost of the deck's aspect they agree on, which is
    fitted with them (decks differ: 0.62 to 0.72) and pulled towards `OutlineConfig.aspect`:
    cards lying all one way say a tilt for any aspect, cards lying across each other say it.
    Cards are congruent, too: seen from above, their areas are alike wherever they lie (what
    keeps a camera over the table from being taken tilted to stretch one deck's aspect to
    another's)."""
    if shapes is None:
        return np.full(count, config.cap), 0.0
    square, ratio, area = shapes
    usual, (low, high) = -math.log(config.aspect), sorted(-math.log(a) for a in config.aspects)
    weight = config.aspect_weight
    aspect = (weight * ratio.sum() + config.aspect_prior * usual) / (
        weight * count + config.aspect_prior
    )
    aspect = min(high, max(low, aspect))
    cost = config.angle_weight * square + weight * (ratio - aspect) ** 2
    cost += config.area_weight * (area - np.median(area)) ** 2
    return np.minimum(cost, config.cap), config.aspect_prior * (aspect - usual) ** 2


def tilt_from_quads(
    quads: list[F64],
    picture: tuple[int, int],
    fov: float,
    prior: F64 | None = None,
    config: OutlineConfig = DEFAULT_OUTLINES,
) -> F64 | None:
    """The plane's unit normal (in the camera's frame) under which `quads` are most like
    rectangles of a card's aspect, near `prior` (the kept normal; None: no prior, a grid over
    the tilt and its direction first); the quads that fit it worst left out and fitted again.
    None without a quad."""
    if not quads:
        return None
    camera = camera_matrix(picture, fov)
    normal = _fitted(np.stack(quads), camera, prior, config)
    costs, _ = _costs(quad_shapes(np.stack(quads), camera, normal), len(quads), config)
    kept = [quad for quad, cost in zip(quads, costs, strict=True) if cost <= config.misfit]
    if len(kept) == len(quads):
        return normal
    return _fitted(np.stack(kept), camera, prior, config) if kept else None


def _fitted(stacked: F64, camera: F64, prior: F64 | None, config: OutlineConfig) -> F64:
    """The best normal for the quads `stacked` (n, 4, 2), near `prior`."""

    def cost(tilt: float, around: float) -> float:
        normal = normal_of(tilt, around)
        costs, aspect = _costs(quad_shapes(stacked, camera, normal), len(stacked), config)
        total = float(costs.sum()) + aspect + config.tilt_prior * tilt**2
        if prior is not None:
            apart = math.degrees(math.acos(min(1.0, float(normal @ prior))))
            total += config.prior * apart**2
        return total

    if prior is None:
        grid = [(0.0, 0.0)] + [(t, a) for t in np.arange(5.0, config.most_tilt + 0.1, 5.0)
                               for a in np.arange(0.0, 360.0, 10.0)]  # fmt: skip
        best = min(grid, key=lambda p: cost(*p))
    else:
        best = (math.degrees(math.acos(min(1.0, float(prior[2])))),
                math.degrees(math.atan2(float(prior[1]), float(prior[0]))) % 360)  # fmt: skip
    step_t, step_a = 2.5, 5.0
    for _ in range(60):  # a pattern search: move to a better neighbour, else halve the steps
        t, a = best
        candidates = [(min(config.most_tilt, max(0.0, t + dt)), (a + da) % 360)
                      for dt in (-step_t, 0, step_t) for da in (-step_a, 0, step_a)]  # fmt: skip
        moved = min(candidates, key=lambda p: cost(*p))
        if moved == best:
            step_t, step_a = step_t / 2, step_a / 2
            if step_t < 0.05:
                break
        best = moved
    return normal_of(*best)

"""Temporal smoothing: a stable table from noisy frames, and the play events it implies.

One frame is not to be trusted: a hand passes over the cards, a glyph is misread, the phone
shakes. `TableSmoother` keeps one *track* per spot on the table and

- accepts a card only after it is seen in ``accept_hits`` of the last ``window`` frames;
- keeps an accepted card through a short absence (a hand passing over): removal needs
  ``remove_after`` consecutive missed frames;
- decides a spot's identity from the evidence of its recent sightings: each sighting's 52 class
  chances (each corner's, where the reader gives them) are multiplied over the sightings, a
  sharper sighting weighing more, so readings whose first choices split still sum to the card
  they favour (a 6H/9H flip); missed frames (a hand passing over) add nothing and take nothing;
- decides as soon as the evidence is enough, not after a fixed count: a card read surely in its
  first clear frame is decided then, an unsure one waits for more sightings, and one still
  unsure after ``ask_after`` sightings is laid with its doubt (`PlayEvent.sure`), for the
  players to answer rather than a guess applied;
- follows camera shake by estimating each frame's global shift from cards matched by identity;
- emits a `PlayEvent` ("seat S laid card C") once per card and deal, when a card with a decided
  identity has sat in a seat's play row for ``play_confirm`` frames, in the order the cards
  were laid (the frame each was first seen at its spot, not when its identity settled: a card
  laid first but read late holds back the cards laid after it, up to ``order_wait`` frames);
- takes what the game says of the deal (`update`'s `phase`, from the caller): once the play has
  begun no new starter; after it, the cards turned up together (none laid in the play, all new
  since the last card laid) are the crib wherever they lie, even touching a play row; three
  of them lying ``crib_short_wait`` frames with no fourth are the crib with a card unseen;
- keeps each card's role until the card moves (TABLE-MODE.md): one frame's grouping or a shaking
  camera must not re-zone it. A card already on the table when the smoother starts (first seen
  in its first ``settle_frames`` frames) or when `new_deal` is called is no play until it moves.

A card *moves* when its centre leaves a spot by more than ``move_radius`` index sizes, the
spot following the camera's estimated shift (a hand-held camera drifts; the table does not).

Sightings are matched to tracks by identity first (a deck holds each card once, so the same
identity is the same card even when it jumps because a corner got covered), then by position.
"""

from __future__ import annotations

import math
import statistics
from collections import deque
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from scorer.cards import Card
from vision.detection.detections import Detections, card_of_class, class_of_card
from vision.table.cards import Conflict, FrameCards, SeenCard, top_choices
from vision.table.roles import (
    DEFAULT_ZONES,
    Role,
    RoleZones,
    Seat,
    TableLayout,
    TablePhase,
    TableState,
    assign_roles,
    with_roles,
)
from vision.table.seating import DEFAULT_SEATING, Seating


@dataclass(frozen=True)
class SmoothingConfig:
    """Frame counts, and distances in index sizes."""

    window: int = 5
    #: A card is on the table once seen in this many of the last `window` frames, or at once
    #: when its identity is decided (`decide_chance`) in an unbroken run of sightings.
    accept_hits: int = 3
    remove_after: int = 20
    #: A track never accepted is forgotten after this many missed frames in a row.
    drop_pending_after: int = 5
    #: A track's identity is read from its last this many sightings (frames it was missed in
    #: do not count: a hand passing over neither adds evidence nor clears it).
    vote_window: int = 15
    #: Each sighting's evidence is the log of its class chances, each raised by this first:
    #: one frame misread however surely costs the truth a bounded amount, not a veto.
    evidence_floor: float = 0.001
    #: The summed evidence is scaled by this before it becomes chances: frames of one still
    #: card share its blur and light, so they are not fully independent witnesses.
    evidence_scale: float = 0.5
    #: ...and divided by the number of sightings to this power (0: every frame a new witness,
    #: 1: their geometric mean): a reader that misreads a card once tends to misread it in
    #: every frame, so agreeing frames make a card surer more slowly than independent ones.
    evidence_count_power: float = 0.5
    #: A sighting weighs (its index size / the largest the track was seen at) to this power:
    #: a card half under a withdrawing hand or glimpsed smaller says less of what it is.
    size_power: float = 1.0
    #: A sighting's face reading (its pips counted: `SeenCard.face`) adds its log chances
    #: times this to its corners': a second, weaker witness (0: the face is not heard).
    face_weight: float = 0.5
    #: A track's identity is decided once its fused chance reaches this (at its first
    #: sighting, when that one is clear enough)...
    decide_chance: float = 0.9
    #: ...and no more than this share of its corner readings rule it out (give it under
    #: `deny_chance`): a reader that surely reads it one way, then surely another (two corners
    #: of one card, or two frames), is not sure whichever way the product leans.
    deny_share: float = 0.25
    deny_chance: float = 0.1
    #: ...while one still under it after this many sightings is laid with its doubt: the
    #: players are asked rather than a guess applied, and the play does not stall.
    ask_after: int = 8
    #: A track reports this many likeliest cards (`SeenCard.choices`), each this likely.
    choices: int = 5
    choice_floor: float = 0.001
    #: A sighting this close to where a track is expected is that track (same spot)...
    match_radius: float = 1.5
    #: ...unless it is a whole card read at least `other_sure` as one that the track, laid or
    #: decided, gives under `other_chance`, at least `other_apart` from it: the next card of a
    #: row, laid while the hand hid this one, not this card read again.
    other_sure: float = 0.9
    other_chance: float = 0.01
    other_apart: float = 0.75
    #: A lone index this close to a matched card's other corner is that corner misread...
    same_spot: float = 1.0
    #: ...while the card was seen whole within this many frames. Longer, that corner is
    #: covered (a pegging row overlaps), and an index lying on it is the covering card's.
    whole_memory: int = 5
    #: A sighting of a track's identity this close to it is a plain update, not a move; a card
    #: keeps its role, and a card already on the table stays no play, until it moves farther.
    move_radius: float = 2.0
    #: A lone index (its card's other corner never seen) this close to a card seen whole may be
    #: that card's corner misread, and lays no play; farther off it is a card of its own.
    lone_beside: float = 6.0
    #: A card that came with a card laid (within this many frames) and lies within this many
    #: index sizes of it is that card, its corners read as another (a four-index card's two
    #: pairs read apart): one card is laid at a time, and a row's cards lie farther apart.
    twin_frames: int = 2
    twin_within: float = 2.0
    #: ...and so is a card of the same rank lying this near one laid, both seen within
    #: `twin_frames`, whenever it came (one card's corners read one way, then another, mostly
    #: in suit): a row's cards lie 1.6 index sizes apart at the least, nearer on a far camera.
    twin_always_within: float = 1.2
    #: ...and so is a card whose every index lies within this many index sizes of an index the
    #: laid card was seen by (its most indices), both seen within `twin_frames`: a far
    #: four-index card's column read as another card lies a column's half-width off its centre.
    twin_spot: float = 0.6
    #: Cards first seen in this many frames from the start were on the table before it.
    settle_frames: int = 2
    #: After the play, a crib's cards but one turned up and lying this many frames with no
    #: other are the crib with a card never read (far, covered): the players name that one.
    crib_short_wait: int = 3
    #: A card's centre guessed from one corner is off by up to this (its first whole sighting
    #: corrects it; no move).
    guess_error: float = 3.0
    #: Weight of the newest position in the running average.
    position_weight: float = 0.5
    #: Frames a decided card sits in a play row before it is laid.
    play_confirm: int = 1
    #: A card laid after another whose identity has not settled yet waits at most this many
    #: frames from the other's arrival (a card that never settles must not stop the play).
    order_wait: int = 15


@dataclass(frozen=True)
class PlayEvent:
    """``seat`` laid ``card`` into its play row, noticed at ``frame`` (and ``timestamp``)."""

    seat: Seat
    card: Card
    frame: int
    timestamp: float | None = None
    #: The track's likeliest cards when the event was emitted (`SeenCard.choices`).
    choices: tuple[tuple[Card, float], ...] = ()
    #: The frame the card was first seen where it lies (laid), None when not known.
    laid: int | None = None
    #: False when the evidence stayed thin (`SmoothingConfig.ask_after`): `card` is the likeliest
    #: reading, not a decided one, and the players are to be asked.
    sure: bool = True

    def __str__(self) -> str:
        return f"{self.seat} laid {self.card}"


@dataclass(frozen=True)
class SmoothedFrame:
    frame: int
    state: TableState
    events: tuple[PlayEvent, ...] = ()
    #: Estimated camera movement since the previous frame, in pixels.
    shift: tuple[float, float] = (0.0, 0.0)


@dataclass(eq=False)
class _Track:
    created: int
    seen: SeenCard
    centre: tuple[float, float]
    config: SmoothingConfig
    offset: tuple[float, float] = (0.0, 0.0)  # shift accumulated since last seen
    hits: deque[bool] = field(default_factory=deque)
    votes: deque[Card] = field(default_factory=deque)
    #: Each recent sighting's weighted log chances of the 52 classes, over the same window as
    #: the votes (a sighting that is no new reading adds none: `SeenCard.fresh`).
    evidence: deque[npt.NDArray[np.float64]] = field(default_factory=deque)
    #: Each of those sightings' corner readings: their 52 class chances, one row a corner.
    chances: deque[npt.NDArray[np.float64]] = field(default_factory=deque)
    #: The fused chances of the 52 classes (`fuse`), and how many sightings gave them.
    posterior: npt.NDArray[np.float64] | None = None
    sightings: int = 0
    #: The largest index size it was seen at: the yardstick of a sighting's weight.
    best_size: float = 0.0
    #: Sightings in a row, up to now (a missed frame ends the run).
    run: int = 0
    identity: Card | None = None
    misses: int = 0
    accepted: bool = False
    play_seat: Seat | None = None
    play_streak: int = 0
    play_since: int = 0
    glyph_offsets: list[tuple[float, float]] = field(default_factory=list)
    #: Frames since the card was last seen by two corners.
    since_whole: int = 0
    seen_whole: bool = False
    #: The role it keeps until it moves from `role_spot`; None while undecided.
    role: Role | None = None
    role_spot: tuple[float, float] | None = None
    #: Where it lay when the deal started (or the smoother did): no play unless it moves.
    settled: tuple[float, float] | None = None
    #: The frame it was first seen at its spot (created, or moved there): when it was laid.
    arrived: int = -1
    #: Its play event was emitted this deal (whatever its identity reads since).
    played: bool = False
    #: Cards the players said it is not: laid as one of them, the game took it as another.
    ruled_out: set[Card] = field(default_factory=set)
    #: Where its indices lay when it was seen by the most of them (moved with the camera).
    spots: list[tuple[float, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.arrived < 0:
            self.arrived = self.created

    def observe(self, seen: SeenCard, shift: tuple[float, float], frame: int) -> None:
        g = seen.glyph_size
        expected = (self.centre[0] + shift[0], self.centre[1] + shift[1])
        centre = self.locate(seen, expected)
        if math.dist(centre, expected) > self.config.match_radius * g:
            centre = seen.centre  # the card moved: trust the sighting
        jump = math.dist(centre, expected) > self.config.match_radius * g
        if jump:
            self.arrived = frame  # laid anew here
        # The first whole sighting corrects a centre guessed from one corner: not a move.
        first_whole = seen.indices_seen >= 2 and not self.seen_whole
        self.seen_whole |= seen.indices_seen >= 2
        correction = (centre[0] - expected[0], centre[1] - expected[1])
        if not first_whole or math.hypot(*correction) > self.config.guess_error * g:
            correction = (0.0, 0.0)
        w = 1.0 if jump or first_whole else self.config.position_weight
        self.since_whole += 1
        if seen.indices_seen == 2:
            glyphs = seen.detections.centres.tolist()
            self.glyph_offsets = [(x - seen.centre[0], y - seen.centre[1]) for x, y in glyphs]
            self.since_whole = 0
        self.centre = (
            (1 - w) * expected[0] + w * centre[0],
            (1 - w) * expected[1] + w * centre[1],
        )
        self.seen, self.offset, self.misses = seen, (0.0, 0.0), 0
        self._follow((shift[0] + correction[0], shift[1] + correction[1]))
        if seen.indices_seen >= max(2, len(self.spots)):
            self.spots = [(float(x), float(y)) for x, y in seen.detections.centres.tolist()]
        self._hit(True)
        self.votes.append(seen.card)
        while len(self.votes) > self.config.vote_window:
            self.votes.popleft()
        if seen.fresh or not self.evidence:
            self.best_size = max(self.best_size, g)
            rows = corner_chances(seen)
            self.evidence.append(self._evidence(seen, rows))
            self.chances.append(rows)
            while len(self.evidence) > self.config.vote_window:
                self.evidence.popleft()
                self.chances.popleft()
            self.sightings += 1
            count = len(self.evidence) ** self.config.evidence_count_power
            self.posterior = fuse(self.evidence, self.config.evidence_scale / count)
            self.identify()
        if self.decided:  # decided in an unbroken run of sightings: on the table at once
            self.accepted = True

    def identify(self) -> None:
        """Its identity: the likeliest card by its evidence that the players did not rule out."""
        if self.posterior is None:
            return
        chances = self.posterior.copy()
        chances[[class_of_card(c) for c in self.ruled_out]] = -1.0
        self.identity = card_of_class(int(chances.argmax()))

    def _evidence(self, seen: SeenCard, rows: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """One sighting's weighted log chances from its corner readings `rows`: each corner a
        witness of its own (two corners that agree are surer than one), weighed by the
        sighting's size."""
        floor = self.config.evidence_floor
        logs: npt.NDArray[np.float64] = np.log(rows + floor).sum(axis=0)
        if seen.face is not None and self.config.face_weight:
            logs = logs + self.config.face_weight * np.log(seen.face + floor)
        weight = min(1.0, seen.glyph_size / max(self.best_size, 1e-6)) ** self.config.size_power
        weighed: npt.NDArray[np.float64] = weight * (logs - logs.max())
        return weighed

    def locate(self, seen: SeenCard, expected: tuple[float, float]) -> tuple[float, float]:
        """Where ``seen`` puts this card's centre, if it is this card.

        A lone index only says where one corner is. Once the card was seen whole its index
        offsets are known, so a covered corner does not move the card (which would break up
        its row, and mislead the shake estimate).
        """
        if seen.indices_seen != 1 or not self.glyph_offsets:
            return seen.centre
        x, y = (float(v) for v in seen.detections.centres[0])
        candidates = [(x - dx, y - dy) for dx, dy in self.glyph_offsets]
        return min(candidates, key=lambda c: math.dist(c, expected))

    def miss(self, shift: tuple[float, float]) -> None:
        self.centre = (self.centre[0] + shift[0], self.centre[1] + shift[1])
        self.offset = (self.offset[0] + shift[0], self.offset[1] + shift[1])
        self.misses += 1
        self.since_whole += 1
        self.run = 0
        self._hit(False)
        self._follow(shift)

    def _follow(self, shift: tuple[float, float]) -> None:
        """Move the spots the card is measured from with the camera."""
        if self.role_spot is not None:
            self.role_spot = (self.role_spot[0] + shift[0], self.role_spot[1] + shift[1])
        if self.settled is not None:
            self.settled = (self.settled[0] + shift[0], self.settled[1] + shift[1])
        if self.settled is not None and self.moved_from(self.settled):
            self.settled = None
        self.spots = [(x + shift[0], y + shift[1]) for x, y in self.spots]

    def moved_from(self, spot: tuple[float, float]) -> bool:
        return math.dist(self.centre, spot) > self.config.move_radius * self.seen.glyph_size

    def settle(self) -> None:
        """The card lies here as the deal starts: not a play unless it moves."""
        self.settled = self.centre

    def keep_role(self, now: Role) -> Role:
        """The role to show, given this frame's `now`: the role kept until the card moves,
        except that a completed crib is taken at once (its first cards seen were a lone
        group); an undecided card takes the first role decided."""
        kept = self.role
        moved = self.role_spot is not None and self.moved_from(self.role_spot)
        if kept is None or moved or (now.kind == "crib" and now != kept):
            kept = None if now.kind == "undecided" else now
            self.role, self.role_spot = kept, None if kept is None else self.centre
        return kept or now

    def _hit(self, hit: bool) -> None:
        self.run = self.run + 1 if hit else 0
        self.hits.append(hit)
        while len(self.hits) > self.config.window:
            self.hits.popleft()
        if sum(self.hits) >= self.config.accept_hits:
            self.accepted = True

    @property
    def expired(self) -> bool:
        limit = self.config.remove_after if self.accepted else self.config.drop_pending_after
        return self.misses > limit

    @property
    def chance(self) -> float:
        """The fused chance of its identity."""
        if self.posterior is None or self.identity is None:
            return 0.0
        return float(self.posterior[class_of_card(self.identity)])

    @property
    def decided(self) -> bool:
        """Its evidence names one card surely enough, over sightings in an unbroken run (a
        glimpse here and there is no card on the table, however surely read)."""
        return self.sure and self.run >= min(self.sightings, self.config.accept_hits)

    @property
    def sure(self) -> bool:
        """Its identity is decided by the evidence (not only laid for lack of more): likely
        enough, and not ruled out by too many of its corner readings."""
        config = self.config
        if self.identity is None or self.chance < config.decide_chance:
            return False
        own = class_of_card(self.identity)
        readings = np.concatenate(list(self.chances))[:, own]
        return int((readings < config.deny_chance).sum()) <= config.deny_share * len(readings)

    @property
    def stable(self) -> bool:
        """Accepted, with an identity decided by the evidence, or still doubtful after
        `ask_after` sightings (laid with its doubt, for the players to answer)."""
        if not self.accepted or self.identity is None:
            return False
        return self.sure or self.sightings >= self.config.ask_after

    def as_seen(self) -> SeenCard:
        assert self.identity is not None
        dx, dy = self.offset
        x1, y1, x2, y2 = self.seen.box
        return SeenCard(
            self.identity,
            self.chance,
            (x1 + dx, y1 + dy, x2 + dx, y2 + dy),
            self.centre,
            self.seen.glyph_size,
            self.seen.detections.shifted(dx, dy),
            in_frame=self.misses == 0,
            choices=self.choices(),
        )

    def choices(self) -> tuple[tuple[Card, float], ...]:
        """The likeliest cards by the fused evidence of the recent sightings (its identity
        first) once it is sure; until then by their corners' mean chances: readings that
        contradict one another make their product overconfident, and a doubtful card must
        read as doubtful (a starter or crib card is proposed as soon as it is on the table)."""
        if self.posterior is None:
            return ()
        config = self.config
        if self.sure:
            return top_choices(self.posterior, config.choices, config.choice_floor)
        mean: npt.NDArray[np.float64] = np.concatenate(list(self.chances)).mean(axis=0)
        return top_choices(mean, config.choices, config.choice_floor)


def corner_chances(seen: SeenCard) -> npt.NDArray[np.float64]:
    """The 52 class chances of each corner `seen` was read by, one row a corner; one row of
    `SeenCard.distribution` where the reader gave no class probabilities."""
    d = seen.detections
    if d.probabilities is not None and len(d):
        rows: npt.NDArray[np.float64] = d.probabilities.astype(np.float64)
        return rows
    return seen.distribution[np.newaxis]


def _crowded(state: TableState) -> int:
    """Rows holding more cards or groups than a seat lays (`assign_roles`)."""
    return sum(1 for u in state.undecided if u.code in ("too many", "groups"))


def fuse(evidence: Iterable[npt.NDArray[np.float64]], scale: float) -> npt.NDArray[np.float64]:
    """The 52 class chances that sightings' log chances (`evidence`) add up to, `scale` tempering
    their sum.

    >>> six, nine = np.full(52, -7.0), np.full(52, -7.0)  # 6H (31) surely, 9H (34) barely
    >>> six[[31, 34]], nine[[31, 34]] = (0.0, -2.0), (-0.3, 0.0)
    >>> chances = fuse([six, nine, nine], 1.0)  # 9H first twice, yet 6H the likelier
    >>> [round(float(p), 2) for p in chances[[31, 34]]]
    [0.8, 0.2]
    """
    logs = scale * np.sum(np.stack(list(evidence)), axis=0)
    chances: npt.NDArray[np.float64] = np.exp(logs - logs.max())
    chances /= chances.sum()
    return chances


class TableSmoother:
    """Feed it each frame's cards; it returns the smoothed table and any new play events."""

    def __init__(
        self,
        layout: TableLayout,
        *,
        config: SmoothingConfig = SmoothingConfig(),
        zones: RoleZones = DEFAULT_ZONES,
    ) -> None:
        self.layout, self.config, self.zones = layout, config, zones
        #: Where the seats sit (`update`'s `seating`): the picture's edges until learnt.
        self.seating = DEFAULT_SEATING
        self._tracks: list[_Track] = []
        self._frame = -1
        self._laid: list[PlayEvent] = []
        #: The track each play event was laid from.
        self._laid_from: list[_Track] = []
        self._emitted: set[Card] = set()
        #: When the last card played this deal was laid (-1: none yet).
        self._last_laid = -1

    @property
    def events(self) -> tuple[PlayEvent, ...]:
        """Every play event of the current deal, in order."""
        return tuple(self._laid)

    def new_deal(self, starter: Card | None = None) -> None:
        """Forget the cards laid so far: the next deal may lay the same cards again. The cards
        on the table now are no plays of the new deal unless they move, except those turned up
        since the new deal's `starter` (as the game has it) when it lies here: the game may
        take the starter only as the first card laid is seen (both read late)."""
        self._laid.clear()
        self._laid_from.clear()
        self._emitted.clear()
        self._last_laid = -1
        turned = [t.arrived for t in self._tracks if starter is not None and t.identity == starter]
        since = min(turned) if turned else None
        for track in self._tracks:
            track.play_seat, track.play_streak, track.played = None, 0, False
            if since is None or track.arrived <= since:
                track.settle()

    def update(
        self,
        frame: FrameCards,
        frame_size: tuple[int, int],
        *,
        dealer: Seat | None = None,
        timestamp: float | None = None,
        seating: Seating = DEFAULT_SEATING,
        phase: TablePhase | None = None,
        laid: Collection[Card] | None = None,
    ) -> SmoothedFrame:
        """The smoothed table after `frame`; `seating` says where the seats sit (learnt on the
        table plane, or the picture's edges). A new seating re-zones every card once: the roles
        kept were decided by where the seats were thought to be. `phase` is where the game
        says the deal is (None: unknown, roles by place alone); `laid`, the cards the game
        holds as laid this deal (None: no game), corrections by the players included."""
        self._frame += 1
        if seating != self.seating:
            self.seating = seating
            for track in self._tracks:
                # The starter is the card turned before the play, wherever the seats are.
                if phase in (None, "deal") or track.role is None or track.role.kind != "starter":
                    track.role, track.role_spot = None, None
        if laid is not None:
            self._release(laid)
        shift = self._match(list(frame.cards))
        self._tracks = [t for t in self._tracks if not t.expired]
        tracks, conflicts = self._accepted_tracks()

        def assign(tracks: list[_Track]) -> TableState:
            seen = FrameCards(tuple(t.as_seen() for t in tracks), (*frame.conflicts, *conflicts))
            return assign_roles(seen, self.layout, frame_size, dealer=dealer, zones=self.zones,
                                seating=self.seating, phase=phase)  # fmt: skip

        state = assign(tracks)
        if crowded := _crowded(state):
            # More cards in a row than a seat lays: a lone index beside a card seen whole is
            # that card's corner misread (its centre guessed on the wrong side), no card, and
            # so is a card that came with a card laid, where it lies (`_not_a_card`).
            lone = [t for t in tracks if not t.played and self._not_a_card(t)]
            cards = list(tracks)
            for track in sorted(lone, key=lambda t: -t.arrived):  # the latest first
                cards.remove(track)
                if _crowded(fewer := assign(cards)) < crowded:
                    tracks, state = cards, fewer
                    break
        now = state.roles()
        kept = {t.identity: t.keep_role(now[t.identity]) for t in tracks if t.identity}
        if phase == "show" and dealer is not None:
            kept |= self._crib(tracks, dealer)
        state = with_roles(state, kept, frame_size, self.zones)
        return SmoothedFrame(self._frame, state, self._play_events(state, timestamp), shift)

    def _crib(self, tracks: list[_Track], dealer: Seat) -> dict[Card, Role]:
        """After the play: the cards turned up since the last card laid, none of them laid in
        the play nor on the table from the deal's start, are the dealer's crib when they are
        as many as a crib holds, wherever they lie (a row, a fan, a spread pile). One more,
        two of them lying as one card (a fanned card's two index columns read as two cards),
        are all the crib's: the players are asked which four it is. One fewer, lying
        `crib_short_wait` frames since the last of them came, are the crib but a card unread."""
        new = [
            t
            for t in tracks
            if t.identity is not None
            and not t.played
            and t.identity not in self._emitted
            and t.settled is None
            and t.arrived > self._last_laid
            and (t.role is None or t.role.kind != "starter")
        ]
        full = self.zones.crib_cards
        short = len(new) == full - 1 and all(
            self._frame - t.arrived >= self.config.crib_short_wait for t in new
        )
        if len(new) != full and not short and not (len(new) == full + 1 and self._read_twice(new)):
            return {}
        crib = Role("crib", dealer)
        for track in new:
            if track.role != crib:
                track.role, track.role_spot = crib, track.centre
        return {t.identity: crib for t in new if t.identity is not None}

    def _match(self, sightings: list[SeenCard]) -> tuple[float, float]:
        """Associate this frame's sightings with tracks; returns the estimated camera shift."""
        by_identity: dict[Card, _Track] = {}
        for track in sorted(self._tracks, key=lambda t: (t.accepted, len(t.votes))):
            if track.identity is not None:
                by_identity[track.identity] = track
        pairs = [(s, by_identity[s.card]) for s in sightings if s.card in by_identity]
        shift = (0.0, 0.0)
        if pairs:
            located = [(t.locate(s, t.centre), t.centre) for s, t in pairs]
            shift = (
                statistics.median(c[0] - e[0] for c, e in located),
                statistics.median(c[1] - e[1] for c, e in located),
            )

        def distance(s: SeenCard, t: _Track) -> float:
            expected = (t.centre[0] + shift[0], t.centre[1] + shift[1])
            located = t.locate(s, expected)
            return math.dist(located, expected) / ((s.glyph_size + t.seen.glyph_size) / 2)

        matched: dict[int, SeenCard] = {}  # id(track) -> sighting
        used: set[int] = set()  # id(sighting)

        def match(s: SeenCard, t: _Track) -> None:
            matched[id(t)] = s
            used.add(id(s))

        def absorb() -> None:
            """Drop lone indices lying on the other corner of a card already matched and lately
            seen whole: they are that card's index misread, not another card (which would grow
            a phantom track)."""
            owners = [
                t
                for t in self._tracks
                if id(t) in matched
                and t.glyph_offsets
                and t.since_whole <= self.config.whole_memory
            ]
            for s in sightings:
                if id(s) in used or s.indices_seen != 1:
                    continue
                if any(distance(s, t) <= self.config.same_spot for t in owners):
                    used.add(id(s))

        for s, t in pairs:
            if distance(s, t) <= self.config.move_radius:
                match(s, t)
        absorb()
        near = sorted(
            (distance(s, t), i, j)
            for i, s in enumerate(sightings)
            for j, t in enumerate(self._tracks)
            if id(s) not in used and id(t) not in matched
        )
        for d, i, j in near:
            s, t = sightings[i], self._tracks[j]
            if d > self.config.match_radius:
                break
            if id(s) not in used and id(t) not in matched and not self._laid_beside(s, t, d):
                match(s, t)
        for s, t in pairs:
            if id(s) not in used and id(t) not in matched and s.indices_seen >= 2:
                # the card moved (e.g. from the hand to the play row); a lone index only
                # guesses where its card lies, and far off it is another card misread
                match(s, t)
        absorb()
        for track in self._tracks:
            if id(track) in matched:
                track.observe(matched[id(track)], shift, self._frame)
            else:
                track.miss(shift)
        for s in sightings:
            if id(s) not in used:
                track = _Track(self._frame, s, s.centre, self.config)
                track.observe(s, (0.0, 0.0), self._frame)
                if self._frame < self.config.settle_frames:
                    track.settle()
                self._tracks.append(track)
        return shift

    def _laid_beside(self, seen: SeenCard, track: _Track, apart: float) -> bool:
        """Whether `seen`, `apart` index sizes from where `track` is expected, is another card
        laid beside it (`other_sure`, `other_chance`, `other_apart`)."""
        config = self.config
        if (
            apart < config.other_apart
            or seen.indices_seen < 2
            or seen.confidence < config.other_sure
        ):
            return False
        if track.posterior is None or not (track.played or track.sure):
            return False
        return bool(track.posterior[class_of_card(seen.card)] < config.other_chance)

    def _release(self, laid: Collection[Card]) -> None:
        """The players' word over the reader's: a card laid as read here that the game took as
        another (a player corrected it) is not that card: it keeps its next likeliest name and
        leaves the name to a card laid later that reads so. The game's plays are taken in the
        order they were laid here (`tablemode.follow`)."""
        for number, (event, track) in enumerate(zip(self._laid, self._laid_from, strict=True), 1):
            if event.card in laid or number > len(laid) or event.card in track.ruled_out:
                continue  # taken as read, not taken yet, or already released
            track.ruled_out.add(event.card)
            track.identify()
            self._emitted.discard(event.card)

    def _accepted_tracks(self) -> tuple[list[_Track], list[Conflict]]:
        """One track per identity among the accepted; extra spots with it are conflicts."""
        holders: dict[Card, list[_Track]] = {}
        for track in self._tracks:
            if track.accepted and track.identity is not None:
                holders.setdefault(track.identity, []).append(track)
        kept: list[_Track] = []
        conflicts: list[Conflict] = []
        for card, tracks in holders.items():
            tracks.sort(key=lambda t: -sum(1 for c in t.votes if c == card))
            kept.append(tracks[0])
            if len(tracks) > 1:
                seen = [t.as_seen() for t in tracks]
                conflicts.append(
                    Conflict(
                        card,
                        tuple(s.centre for s in seen),
                        Detections.concatenate([s.detections for s in seen]),
                        f"{card} tracked at {len(tracks)} spots",
                    )
                )
        return kept, conflicts

    def _not_a_card(self, track: _Track) -> bool:
        """Whether `track` is most likely a card laid misread, no card of its own."""
        return self._corner_of_another(track) or self._twin_of_played(track)

    def _twin_of_played(self, track: _Track) -> bool:
        """Whether `track` lies where a card already laid lies: come with it or read as the
        name the players took from it (`twin_within`), or seen with it lately: of its rank
        (`twin_always_within`), or by indices where it was seen by its own (`twin_spot`)."""
        config = self.config
        g = track.seen.glyph_size
        for other in self._tracks:
            if not other.played or other is track:
                continue
            apart = math.dist(other.centre, track.centre) / g
            if self._came_as_one(track, other) or (
                apart <= config.twin_within and track.identity in other.ruled_out
            ):
                return True
            seen_with = max(other.misses, track.misses) <= config.twin_frames
            alike = (
                track.identity is not None
                and other.identity is not None
                and track.identity.rank == other.identity.rank
            )
            if apart <= config.twin_always_within and seen_with and alike:
                return True
            if seen_with and not track.misses and self._on_spots(track, other):
                return True
        return False

    def _on_spots(self, track: _Track, other: _Track) -> bool:
        """Whether every index `track` is seen by now lies where `other` was seen by one
        (`twin_spot`)."""
        reach = self.config.twin_spot * track.seen.glyph_size
        return bool(other.spots) and all(
            min(math.dist((x, y), spot) for spot in other.spots) <= reach
            for x, y in track.seen.detections.centres.tolist()
        )

    def _came_as_one(self, track: _Track, other: _Track) -> bool:
        """Whether `other` came with `track` (`twin_frames`) where it lies (`twin_within` of
        its index sizes): one card whose corners were read as two."""
        config = self.config
        near = math.dist(other.centre, track.centre) <= config.twin_within * track.seen.glyph_size
        return near and abs(other.arrived - track.arrived) <= config.twin_frames

    def _read_twice(self, tracks: list[_Track]) -> bool:
        """Whether two of `tracks` came as one card (`_came_as_one`)."""
        return any(self._came_as_one(a, b) for i, a in enumerate(tracks) for b in tracks[i + 1 :])

    def _corner_of_another(self, track: _Track) -> bool:
        """Whether `track`, a lone index never seen with its card's other corner, lies beside a
        card seen whole: it may be that card's corner misread."""
        if track.seen_whole:
            return False
        reach = self.config.lone_beside * track.seen.glyph_size
        return any(
            other is not track and other.seen_whole and other.identity != track.identity
            and math.dist(other.centre, track.centre) <= reach
            for other in self._tracks
        )  # fmt: skip

    def _play_events(self, state: TableState, timestamp: float | None) -> tuple[PlayEvent, ...]:
        rows = {
            seen.card: (seat, index)
            for seat, seat_cards in state.seats.items()
            for index, seen in enumerate(seat_cards.play)
        }
        ready: list[tuple[tuple[int, int, int, int], Seat, Card, _Track]] = []
        last = self.layout.seats.index(self._laid[-1].seat) if self._laid else -1
        n = len(self.layout.seats)
        #: When each card in a play row, not played yet and not ready, was laid: a card laid
        #: after it waits for it (its identity may settle late: a far card misread at first).
        unsettled: list[int] = []
        for track in self._tracks:
            if track.identity is None or track.settled is not None or track.played:
                continue
            if self._not_a_card(track):  # a far 10S's corner read as 10C: nothing waits
                continue
            place = rows.get(track.identity)
            if not track.stable:
                if place is not None and track.identity not in self._emitted:
                    unsettled.append(track.arrived)
                continue
            if place is None:
                track.play_seat, track.play_streak = None, 0
                continue
            seat, index = place
            if track.play_seat != seat:
                track.play_seat, track.play_streak, track.play_since = seat, 0, self._frame
            track.play_streak += 1
            confirmed = track.play_streak >= self.config.play_confirm
            if confirmed and track.identity not in self._emitted:
                turn = (self.layout.seats.index(seat) - last - 1) % n
                order = (track.arrived, track.play_since, turn, index)
                ready.append((order, seat, track.identity, track))
            elif track.identity not in self._emitted:
                unsettled.append(track.arrived)
        events = []
        for _, seat, card, track in sorted(ready, key=lambda r: r[0]):
            if card in self._emitted or self._twin_of_played(track) or track.misses:
                # two spots with one identity, or one card read as two: laid once; a card
                # unseen now is laid once seen (a twin's corners unseen lately are no card)
                continue
            waiting = [a for a in unsettled if a < track.arrived]
            if any(self._frame - a <= self.config.order_wait for a in waiting):
                break  # a card laid before it is not read yet: the play keeps its order
            event = PlayEvent(
                seat, card, self._frame, timestamp, track.choices(), track.arrived, track.sure
            )
            self._emitted.add(card)
            track.played = True
            self._last_laid = max(self._last_laid, track.arrived)
            self._laid.append(event)
            self._laid_from.append(track)
            events.append(event)
        return tuple(events)

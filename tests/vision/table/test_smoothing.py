"""Temporal smoothing: acceptance, occlusion, identity votes, and the play events of a game."""

from __future__ import annotations

import numpy as np
import pytest

from scorer.cards import DECK, Card, parse_card
from tests.tabletop import card_detections, row_detections, table
from vision.detection.detections import Detections, class_of_card
from vision.table.cards import cards_from_detections
from vision.table.roles import TableLayout
from vision.table.seating import Seating
from vision.table.smoothing import PlayEvent, SmoothingConfig, TableSmoother

SIZE = (1280, 720)
TWO = TableLayout(["bottom", "top"])


def feed(smoother: TableSmoother, detections: Detections, **kw: object):  # type: ignore[no-untyped-def]
    return smoother.update(cards_from_detections(detections), SIZE, **kw)  # type: ignore[arg-type]


def play_row(seat: str, cards: list[str]) -> Detections:
    if seat == "bottom":
        return row_detections(cards, (480, 490))
    return row_detections(cards, (800, 230), rotation=2)


def test_card_is_accepted_after_k_of_n_frames() -> None:
    smoother = TableSmoother(TWO)
    starter = table([card_detections("KC", (640, 360))])
    frames = (starter, Detections.empty(), starter, starter)
    seen = [feed(smoother, d).state.starter for d in frames]
    assert seen[:3] == [None, None, None]  # two sightings are not enough
    assert seen[3] is not None and seen[3].card == parse_card("KC")


def test_glimpse_is_never_accepted() -> None:
    smoother = TableSmoother(TWO)
    glimpse = table([card_detections("KC", (640, 360))])
    for d in [glimpse, Detections.empty(), Detections.empty(), glimpse] + [Detections.empty()] * 8:
        assert feed(smoother, d).state.starter is None


def test_hand_passing_over_does_not_remove_cards_but_long_absence_does() -> None:
    config = SmoothingConfig(remove_after=10)
    smoother = TableSmoother(TWO, config=config)
    row = table([play_row("bottom", ["5H", "6H"])])
    for _ in range(4):
        feed(smoother, row)
    for _ in range(10):  # covered by a hand
        state = feed(smoother, Detections.empty()).state
        assert [c.card for c in state.seats["bottom"].play] == [parse_card("5H"), parse_card("6H")]
    state = feed(smoother, Detections.empty()).state
    assert state.seats["bottom"].play == ()


def test_card_kept_through_a_gap_is_not_in_this_frame() -> None:
    """Its boxes are where it was last seen: a correction must not cut this frame there."""
    smoother = TableSmoother(TWO)
    row = table([play_row("bottom", ["5H", "6H"])])
    for _ in range(4):
        seen = feed(smoother, row).state.seats["bottom"].play
    assert [c.in_frame for c in seen] == [True, True]
    kept = feed(smoother, Detections.empty()).state.seats["bottom"].play
    assert [c.card for c in kept] == [parse_card("5H"), parse_card("6H")]
    assert [c.in_frame for c in kept] == [False, False]
    back = feed(smoother, row).state.seats["bottom"].play
    assert [c.in_frame for c in back] == [True, True]


def start_empty(smoother: TableSmoother) -> None:
    """The camera starts on an empty table: what comes next is laid, not found there."""
    for _ in range(SmoothingConfig().settle_frames):
        feed(smoother, Detections.empty())


def test_identity_flip_is_decided_by_vote() -> None:
    smoother = TableSmoother(TWO)
    start_empty(smoother)
    six = table([play_row("bottom", ["6H"])])
    nine = Detections(six.boxes, six.scores, [class_of_card(parse_card("9H"))] * len(six))
    events = []
    for i in range(12):
        events += feed(smoother, nine if i % 3 == 1 else six).events
    assert [str(e) for e in events] == ["bottom laid 6H"]
    state = feed(smoother, six).state
    assert [c.card for c in state.seats["bottom"].play] == [parse_card("6H")]


def test_new_deal_lets_a_card_be_laid_again() -> None:
    smoother = TableSmoother(TWO)
    start_empty(smoother)
    row = table([play_row("top", ["5D"])])
    events = [e for _ in range(5) for e in feed(smoother, row).events]
    smoother.new_deal()
    cleared = SmoothingConfig().remove_after + 1
    events += [e for _ in range(cleared) for e in feed(smoother, Detections.empty()).events]
    events += [e for _ in range(5) for e in feed(smoother, row).events]
    assert [str(e) for e in events] == ["top laid 5D", "top laid 5D"]


def test_cards_on_the_table_when_the_camera_starts_are_no_plays() -> None:
    smoother = TableSmoother(TWO)
    row = table([play_row("bottom", ["5H", "6H"]), card_detections("KC", (640, 360))])
    rng = np.random.default_rng(0)
    events = [e for _ in range(30) for e in feed(smoother, noisy(row, rng, (0.0, 0.0))).events]
    assert events == []
    later = table([row, play_row("top", ["9S"])])
    events = [e for _ in range(6) for e in feed(smoother, later).events]
    assert [str(e) for e in events] == ["top laid 9S"]


def test_a_card_lying_when_a_deal_starts_is_laid_only_once_it_moves() -> None:
    smoother = TableSmoother(TWO)
    start_empty(smoother)
    starter = card_detections("KC", (640, 360))
    row = table([play_row("top", ["5D"]), starter, play_row("bottom", ["AS"])])
    laid = {str(e) for _ in range(5) for e in feed(smoother, row).events}
    assert laid == {"top laid 5D", "bottom laid AS"}
    smoother.new_deal()
    drift = [(3.0 * i, -2.0 * i) for i in range(12)]  # a hand-held camera drifts: no move
    events = [e for dx, dy in drift for e in feed(smoother, row.shifted(dx, dy)).events]
    assert events == []
    elsewhere = table([starter, play_row("bottom", ["AS", "5D"])]).shifted(*drift[-1])
    events += [e for _ in range(5) for e in feed(smoother, elsewhere).events]
    assert [str(e) for e in events] == ["bottom laid 5D"]


def test_a_card_keeps_its_role_until_it_moves() -> None:
    """A card on the centre's edge, read a pixel or two apart, is the starter in one frame and
    the bottom seat's play row in the next: the role first decided stays."""
    smoother = TableSmoother(TWO)
    edge = 360 + 0.2 * 360  # the centre's radius, towards the bottom seat
    # Cards lying still elsewhere tell the card's move from the camera's shake.
    still = play_row("top", ["5D", "6D"])
    rng = np.random.default_rng(3)
    roles = set()
    for i in range(30):
        wobble = table([card_detections("KC", (640, edge + (-3 if i % 2 else 3))), still])
        roles.add(str(feed(smoother, noisy(wobble, rng, (0.0, 0.0))).state.roles().get(KC)))
    assert len(roles - {"None"}) == 1
    # Moved well into the other role's zone, it takes that role.
    (first,) = roles - {"None"}
    spot, now = ((640, 520), "play:bottom") if first == "starter" else ((640, 360), "starter")
    moved = table([card_detections("KC", spot), still])
    for _ in range(3):
        state = feed(smoother, moved).state
    assert str(state.roles()[KC]) == now


def test_an_index_on_a_long_covered_corner_is_a_new_card_not_a_misread() -> None:
    """Lately seen whole, a lone index on a card's other corner is that corner misread; once
    the corner has been covered a while (a pegging row overlaps), it is the covering card's."""
    smoother = TableSmoother(TWO)
    whole = table([card_detections("6D", (640, 360))])
    one_corner = table([card_detections("6D", (640, 360), corners="tl")])

    def on_the_covered_corner(card: str) -> Detections:
        lone = card_detections(card, (640, 360), corners="br")
        return Detections.concatenate([one_corner, lone])

    for _ in range(4):
        feed(smoother, whole)
    for _ in range(4):
        assert set(feed(smoother, on_the_covered_corner("9C")).state.roles()) == {parse_card("6D")}
    for _ in range(8):
        feed(smoother, one_corner)
    for _ in range(4):
        state = feed(smoother, on_the_covered_corner("AS")).state
    assert set(state.roles()) == {parse_card("6D"), parse_card("AS")}


# A two-player play: top (non-dealer) leads; cards reach the rows one at a time.
PLAYS = [
    ("top", "10D"),
    ("bottom", "5H"),
    ("top", "6D"),
    ("bottom", "JS"),
    ("top", "4D"),
    ("bottom", "3H"),
    ("top", "AD"),
    ("bottom", "2S"),
]
KC = parse_card("KC")
ON_TABLE = {parse_card(c) for _, c in PLAYS} | {KC}
STRANGERS = [c for c in DECK if c not in ON_TABLE]


def noisy(d: Detections, rng: np.random.Generator, shift: tuple[float, float]) -> Detections:
    """Camera shake (global shift), jitter, dropped glyphs and rare misreads."""
    keep = rng.random(len(d)) > 0.1
    jitter = rng.normal(0, 1.0, (len(d), 2)).astype(np.float32)
    boxes = d.boxes + np.hstack([jitter, jitter]) + np.asarray([*shift, *shift], np.float32)
    ids = d.class_ids.copy()
    misread = rng.random(len(d)) < 0.03
    for i in np.flatnonzero(misread):
        ids[i] = class_of_card(STRANGERS[rng.integers(len(STRANGERS))])
    return Detections(boxes, d.scores, ids)[keep]


def occluded(d: Detections, seat: str) -> Detections:
    """A hand reaching from the seat's edge over its play row hides everything under it."""
    y = d.centres[:, 1]
    hidden = y > 380 if seat == "bottom" else y < 340
    return d[~hidden]


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_play_sequence_with_occlusion_and_shake_gives_ordered_events(seed: int) -> None:
    rng = np.random.default_rng(seed)
    smoother = TableSmoother(TWO)
    rows: dict[str, list[str]] = {"bottom": [], "top": []}
    events = []
    shift = (0.0, 0.0)
    for number, (seat, card) in enumerate(PLAYS):
        rows[seat].append(card)
        if number == 4:
            shift = (15.0, -10.0)  # the phone is bumped
        on_table = table(
            [card_detections("KC", (640, 360)), *(play_row(s, r) for s, r in rows.items() if r)]
        )
        frames = [occluded(on_table, seat)] * int(rng.integers(2, 6)) + [on_table] * 6
        if number == len(PLAYS) - 1:
            frames += [on_table] * 4  # the camera keeps filming after the last card
        for d in frames:
            wobble = (shift[0] + rng.normal(0, 2), shift[1] + rng.normal(0, 2))
            events += feed(smoother, noisy(d, rng, wobble), dealer="bottom").events
    assert [(e.seat, str(e.card)) for e in events] == PLAYS
    assert list(smoother.events) == events
    state = feed(smoother, on_table.shifted(*shift)).state
    assert state.starter is not None and str(state.starter.card) == "KC"
    assert [str(c.card) for c in state.seats["top"].play] == [c for s, c in PLAYS if s == "top"]
    assert [str(c.card) for c in state.seats["bottom"].play] == [
        c for s, c in PLAYS if s == "bottom"
    ]
    assert not state.undecided


def test_card_moved_from_visible_hand_to_play_row_is_laid_once() -> None:
    smoother = TableSmoother(TWO)
    hand = ["AS", "2S", "3S", "4S"]
    events = []
    for laid in range(3):
        d = table([row_detections(hand[laid:], (560, 640)), play_row("bottom", hand[:laid])])
        for _ in range(6):
            events += feed(smoother, d).events
    assert [str(e) for e in events] == ["bottom laid AS", "bottom laid 2S"]
    state = feed(smoother, d).state
    assert [str(c.card) for c in state.seats["bottom"].hand] == ["3S", "4S"]


def chances(d: Detections, row: dict[str, float]) -> Detections:
    """`d`, every index read with these class probabilities (card -> chance)."""
    probabilities = np.zeros((len(d), 52), np.float32)
    for name, chance in row.items():
        probabilities[:, class_of_card(parse_card(name))] = chance
    return d.with_rows(probabilities=probabilities)


def named(choices: tuple[tuple[Card, float], ...]) -> list[tuple[str, float]]:
    return [(str(card), round(chance, 3)) for card, chance in choices]


def test_first_choices_that_split_are_decided_by_their_summed_evidence() -> None:
    """Read 9H twice, barely, and 6H once, surely: a vote of first choices says 9H, the
    evidence 6H. The play carries the fused choices."""
    row = play_row("bottom", ["6H"])
    barely_nine = chances(row, {"9H": 0.5, "6H": 0.4})
    surely_six = chances(row, {"6H": 0.98, "9H": 0.01})
    smoother = TableSmoother(TWO)
    start_empty(smoother)
    events = []
    for d in (barely_nine, barely_nine, surely_six):
        update = feed(smoother, d)
        events += update.events
    (card,) = update.state.seats["bottom"].play
    assert card.card == parse_card("6H")
    assert [name for name, _ in named(card.choices)[:2]] == ["6H", "9H"]
    assert card.choices[0][1] > 0.9
    (event,) = events
    assert event.card == parse_card("6H") and event.sure
    assert event.choices == card.choices


def test_a_card_read_surely_is_laid_on_its_first_clear_frame() -> None:
    smoother = TableSmoother(TWO)
    start_empty(smoother)
    sure = chances(table([play_row("bottom", ["5H"])]), {"5H": 0.995, "5D": 0.004})
    events = feed(smoother, sure).events
    assert [str(e) for e in events] == ["bottom laid 5H"]
    assert events[0].sure


def test_an_unsure_card_waits_and_is_then_laid_with_its_doubt() -> None:
    """Evidence that stays thin is not decided: after `ask_after` sightings the card is laid
    unsure, its likeliest cards first, for the players to answer."""
    smoother = TableSmoother(TWO)
    start_empty(smoother)
    unsure = chances(table([play_row("bottom", ["6H"])]), {"6H": 0.5, "9H": 0.47})
    sightings = [feed(smoother, unsure).events for _ in range(SmoothingConfig().ask_after)]
    assert all(not events for events in sightings[:-1])
    (event,) = sightings[-1]
    assert not event.sure
    assert [name for name, _ in named(event.choices)[:2]] == ["6H", "9H"]
    assert event.choices[0][1] < SmoothingConfig().decide_chance


def test_a_hand_passing_over_neither_adds_nor_clears_evidence() -> None:
    """A card read 6H a little more than 9H, covered for a few frames between its sightings:
    the same evidence, laid at the same sighting and as surely, as with no hand at all."""
    row = table([play_row("bottom", ["6H"])])
    leaning = chances(row, {"6H": 0.6, "9H": 0.35})
    hidden = Detections.empty()

    def laid(frames: list[Detections]) -> tuple[int, PlayEvent]:
        smoother = TableSmoother(TWO)
        start_empty(smoother)
        seen = 0
        for d in frames:
            seen += d is leaning
            (event, *_) = feed(smoother, d).events or (None,)
            if event is not None:
                return seen, event
        raise AssertionError("never laid")

    plain_at, plain = laid([leaning] * 12)
    covered_at, covered = laid([leaning] * 3 + [hidden] * 4 + [leaning] * 9)
    assert plain_at > 3  # decided only after the hand went
    assert covered_at == plain_at and covered.card == plain.card == parse_card("6H")
    assert covered.choices == plain.choices


def flickering(seat: str, read: list[str], frames: int) -> list[Detections]:
    """A far card whose index reads one way, then another (its identity settles late)."""
    return [play_row(seat, [read[i % len(read)]]) for i in range(frames)]


def test_a_card_read_late_is_laid_before_the_card_laid_after_it() -> None:
    """Top lays 10D first, misread as 10C half the time at first; bottom lays 5H four frames
    later, read at once. The plays follow when each card was laid, not when its identity
    settled."""
    smoother = TableSmoother(TWO)
    start_empty(smoother)
    top = flickering("top", ["10D", "10C"], 4) + [play_row("top", ["10D"])] * 8
    events = []
    for i, d in enumerate(top):
        frame = table([d, play_row("bottom", ["5H"])]) if i >= 4 else d
        events += feed(smoother, frame).events
    assert [str(e) for e in events] == ["top laid 10D", "bottom laid 5H"]
    laid = [e.laid for e in events]
    assert laid[0] is not None and laid[1] is not None and laid[0] < laid[1]


def test_a_card_that_never_settles_is_laid_with_its_doubt_not_held_back() -> None:
    """Read 10D and 10C by turns: never decided, it is laid unsure (the players are asked)
    after `ask_after` sightings, and the card laid after it follows."""
    smoother = TableSmoother(TWO)
    start_empty(smoother)
    config = SmoothingConfig()
    events = []
    for i, d in enumerate(flickering("top", ["10D", "10C"], config.order_wait + 8)):
        frame = table([d, play_row("bottom", ["5H"])]) if i >= 2 else d
        events += feed(smoother, frame).events
    assert [e.seat for e in events] == ["top", "bottom"]
    doubtful, five = events
    assert not doubtful.sure and {str(c) for c, _ in doubtful.choices[:2]} == {"10D", "10C"}
    assert five.sure and str(five.card) == "5H"
    assert doubtful.frame < config.order_wait


CRIB = ["9C", "8C", "7C", "QH"]


@pytest.mark.parametrize("told", [True, False])
def test_after_the_play_the_cards_turned_up_together_are_the_crib_wherever_they_lie(
    told: bool,
) -> None:
    """The crib turned up right beside the top's play row links with it into one group of
    8: by place alone it is undecided; told the play is over, the new cards are the crib."""
    smoother = TableSmoother(TWO)
    start_empty(smoother)
    starter = card_detections("KC", (640, 360))
    for _ in range(6):
        feed(smoother, table([starter]), dealer="bottom", phase="deal" if told else None)
    rows: dict[str, list[str]] = {"bottom": [], "top": []}
    events = []
    for seat, card in PLAYS:
        rows[seat].append(card)
        on_table = table([starter, *(play_row(s, r) for s, r in rows.items() if r)])
        for _ in range(6):
            events += feed(
                smoother, on_table, dealer="bottom", phase="play" if told else None
            ).events
    assert [(e.seat, str(e.card)) for e in events] == PLAYS
    crib = row_detections(CRIB, (580, 230), rotation=2)  # 4.4 index sizes from the top's row
    for _ in range(8):
        state = feed(smoother, table([on_table, crib]), dealer="bottom",
                     phase="show" if told else None).state  # fmt: skip
    if not told:
        assert [u.code for u in state.undecided] == ["too many"]
        return
    assert sorted(str(c.card) for c in state.crib) == sorted(CRIB)
    assert state.crib_seat == "bottom"
    assert [str(c.card) for c in state.seats["top"].play] == [c for s, c in PLAYS if s == "top"]
    assert state.starter is not None and state.starter.card == KC
    assert not state.undecided


def played_out() -> tuple[TableSmoother, Detections]:
    """A smoother told of a two-player deal (bottom deals) to the end of its play (starter KC,
    then `PLAYS`), and the table as it lies then."""
    smoother = TableSmoother(TWO)
    start_empty(smoother)
    starter = card_detections("KC", (640, 360))
    for _ in range(6):
        feed(smoother, table([starter]), dealer="bottom", phase="deal")
    rows: dict[str, list[str]] = {"bottom": [], "top": []}
    for seat, card in PLAYS:
        rows[seat].append(card)
        on_table = table([starter, *(play_row(s, r) for s, r in rows.items() if r)])
        for _ in range(6):
            feed(smoother, on_table, dealer="bottom", phase="play")
    return smoother, on_table


def test_a_crib_card_read_twice_where_it_lies_leaves_the_players_to_say_which_four() -> None:
    """A fanned crib card's two index columns read as two cards (QH and, an index size
    beside it, QD): five cards turned up together are all the crib's, for the players to
    choose four; five with none lying where another lies are no crib."""
    for apart, crib_cards in ((1.0, 5), (-6.0, 0)):
        smoother, on_table = played_out()
        crib = row_detections(CRIB, (580, 230), rotation=2)
        twin = card_detections("QD", (448 + apart * 20, 230), rotation=2)  # beside QH, g 20
        for _ in range(8):
            state = feed(smoother, table([on_table, crib, twin]), dealer="bottom",
                         phase="show").state  # fmt: skip
        assert len(state.crib) == crib_cards, (apart, state)


def test_three_crib_cards_lying_with_no_fourth_are_the_crib_with_a_card_unread() -> None:
    """A far crib card never read: the three turned up with it are the crib once they have
    lain `crib_short_wait` frames (not at once: the fourth may be read a frame later)."""
    smoother, on_table = played_out()
    crib = row_detections(CRIB[:3], (580, 230), rotation=2)
    sizes = []
    for _ in range(SmoothingConfig().crib_short_wait + 4):
        state = feed(smoother, table([on_table, crib]), dealer="bottom", phase="show").state
        sizes.append(len(state.crib))
    assert sizes[0] == 0 and sizes[-1] == 3, sizes
    assert sorted(str(c.card) for c in state.crib) == sorted(CRIB[:3])
    assert state.crib_seat == "bottom" and not state.undecided


def test_the_starter_keeps_its_role_through_a_new_seating_once_the_play_has_begun() -> None:
    """Seats learnt from the first card laid re-zone the table: the starter is no play."""
    smoother = TableSmoother(TWO)
    start_empty(smoother)
    starter = table([card_detections("KC", (640, 380))])
    for _ in range(6):
        feed(smoother, starter, phase="deal")
    turned = Seating({"bottom": (0.0, -1.0), "top": (0.0, 1.0)})
    state = feed(smoother, starter, phase="play", seating=turned).state
    assert state.starter is not None and state.starter.card == KC
    assert not state.undecided


def test_a_card_turned_up_after_the_new_deal_s_starter_is_laid_in_it() -> None:
    """The game takes the starter only as the first card laid is already seen (both read
    late): that card is this deal's first play, not a card lying from before."""
    smoother = TableSmoother(TWO)
    start_empty(smoother)
    old = play_row("bottom", ["AS"])
    for _ in range(5):
        feed(smoother, table([old]))
    smoother.new_deal()
    starter = card_detections("KC", (640, 360))
    for _ in range(3):
        feed(smoother, table([old, starter]))
    laid = table([old, starter, play_row("top", ["5D"])])
    for _ in range(3):
        feed(smoother, laid)
    smoother.new_deal(parse_card("KC"))
    events = [e for _ in range(5) for e in feed(smoother, laid).events]
    assert [str(e) for e in events] == ["top laid 5D"]


def test_a_lone_index_never_seen_with_its_other_corner_is_no_play() -> None:
    """A far card's corner read as another card, beside it in the row, lays nothing."""
    smoother = TableSmoother(TWO)
    start_empty(smoother)
    corner = card_detections("10C", (830, 180), rotation=2, corners="tl")
    row = table([play_row("top", ["10S"]), corner])
    events = [e for _ in range(6) for e in feed(smoother, row).events]
    events += [
        e for _ in range(6) for e in feed(smoother, table([row, play_row("bottom", ["5H"])])).events
    ]
    assert [str(e) for e in events] == ["top laid 10S", "bottom laid 5H"]


def test_a_card_seen_by_one_corner_alone_is_laid() -> None:
    """A card whose other corner stays hidden (or a camera that sees one corner a card) is a
    play of its own when no card seen whole lies beside it."""
    smoother = TableSmoother(TWO)
    start_empty(smoother)
    lone = card_detections("9C", (640, 180), rotation=2, corners="tl")
    events = [e for _ in range(6) for e in feed(smoother, table([lone])).events]
    assert [str(e) for e in events] == ["top laid 9C"]


def test_a_misread_corner_does_not_crowd_a_full_play_row() -> None:
    """A lone index beside a card seen whole (that card's corner misread) is no fifth card of
    a row of four: the row keeps its cards, nothing is left undecided."""
    smoother = TableSmoother(TWO)
    start_empty(smoother)
    cards = ["2C", "7H", "JS", "AH"]
    for laid in range(1, 4):  # laid one by one, each seen whole as it is laid
        for _ in range(5):
            feed(smoother, table([play_row("top", cards[:laid])]))
    phantom = card_detections("JC", (700, 180), rotation=2, corners="tl")
    for _ in range(5):
        feed(smoother, table([play_row("top", cards[:3]), phantom]))
    for _ in range(5):
        state = feed(smoother, table([play_row("top", cards), phantom])).state
    assert [str(c.card) for c in state.seats["top"].play] == ["2C", "7H", "JS", "AH"]
    assert state.undecided == ()


def test_a_card_the_players_corrected_leaves_its_name_to_the_card_it_was_read_as() -> None:
    """Top's card read as AC was taken by the game as AS (a player's correction): the AC bottom
    lays later is a play of its own, not top's card moving."""
    smoother = TableSmoother(TWO)
    start_empty(smoother)
    top = play_row("top", ["AC"])
    events = [e for _ in range(5) for e in feed(smoother, table([top]), laid=[]).events]
    # now seen better, top's card reads as what it is
    both = table([play_row("top", ["AS"]), play_row("bottom", ["AC"])])
    events += [e for _ in range(5) for e in feed(smoother, both, laid=[parse_card("AS")]).events]
    assert [str(e) for e in events] == ["top laid AC", "bottom laid AC"]


def test_a_card_whose_two_index_pairs_read_as_two_cards_is_laid_once() -> None:
    """A four-index card's diagonals read apart (AS and AC) come as one card laid: one play."""
    smoother = TableSmoother(TWO)
    start_empty(smoother)
    halves = [card_detections("AS", (640, 490)), card_detections("AC", (640, 490), corners="tr bl")]
    events = [e for _ in range(6) for e in feed(smoother, table(halves)).events]
    assert len(events) == 1 and str(events[0]) in ("bottom laid AS", "bottom laid AC")


def test_a_card_laid_read_as_another_now_and_then_is_no_card_of_its_own() -> None:
    """A four-index KD's other pair read as KH in some frames, where KD lies: no card of its
    own, and the JH laid beside KD later is laid as JH."""
    smoother = TableSmoother(TWO)
    start_empty(smoother)
    kd = card_detections("KD", (800, 230), rotation=2)
    kh = card_detections("KH", (781, 230), rotation=2, corners="tr bl")
    events = [e for _ in range(5) for e in feed(smoother, table([kd])).events]
    for i in range(8):
        events += feed(smoother, table([kd, kh] if i % 2 else [kd])).events
    jh = card_detections("JH", (756, 230), rotation=2)
    events += [e for _ in range(6) for e in feed(smoother, table([kd, jh])).events]
    assert [str(e) for e in events] == ["top laid KD", "top laid JH"]


def test_a_card_of_another_rank_laid_close_beside_a_laid_card_is_laid() -> None:
    """A far camera's row: top's 9C laid an index size from its AC (their centres guessed
    close) is a card of its own, not the AC's corners read another way."""
    smoother = TableSmoother(TWO)
    start_empty(smoother)
    ac = card_detections("AC", (800, 230), rotation=2)
    events = [e for _ in range(5) for e in feed(smoother, table([ac])).events]
    nine = card_detections("9C", (780, 230), rotation=2, corners="tr bl")
    events += [e for _ in range(8) for e in feed(smoother, table([ac, nine])).events]
    assert [str(e) for e in events] == ["top laid AC", "top laid 9C"]


def test_a_card_laid_on_a_row_while_the_card_below_is_hidden_is_a_card_of_its_own() -> None:
    """A side seat's row (issue #59, a corner, 4 players, seed 0): left's 3D laid 1.3 index
    sizes along from its AS while the hand hid the AS. The 3D is not the AS read again: a
    whole card read surely as one the AS's evidence rules out, off its spot, is laid too."""
    smoother = TableSmoother(TWO)
    start_empty(smoother)
    ace = card_detections("AS", (800, 230), rotation=2)
    events = [e for _ in range(5) for e in feed(smoother, table([ace])).events]
    three = card_detections("3D", (774, 230), rotation=2)
    events += [e for _ in range(10) for e in feed(smoother, table([three])).events]
    events += [e for _ in range(5) for e in feed(smoother, table([ace, three])).events]
    assert [str(e) for e in events] == ["top laid AS", "top laid 3D"]


LYING = [card_detections(c, (300 + 100 * i, 500)) for i, c in enumerate(["2D", "8C", "QH"])]
FAR_JS = card_detections("JS", (800, 230), rotation=2, corners="tl br tr bl")


def far_js_read_by_columns(frames: int) -> tuple[TableSmoother, list[PlayEvent]]:
    """A far JS laid, seen whole, then by its columns read JS and JC, each surely, for
    `frames` frames (the cards lying there from the start say the camera did not move)."""
    smoother = TableSmoother(TWO)
    events = [e for i in range(7) for e in feed(smoother, table(LYING + [FAR_JS] * (i > 1))).events]
    left = card_detections("JS", (800, 230), rotation=2, corners="tl bl")
    right = card_detections("JC", (800, 230), rotation=2, corners="tr br")
    for _ in range(frames):
        events += feed(smoother, table([*LYING, left, right])).events
    return smoother, events


def test_a_laid_card_s_column_read_as_another_card_lays_nothing() -> None:
    """A far JS (issue #59, a corner, 4 players, seed 1) read by its columns as JS and JC: the
    JC column's centre lies half the card's width off the JS's (no twin by distance), but its
    indices lie where the JS's were seen: no card of its own."""
    _, events = far_js_read_by_columns(8)
    assert [str(e) for e in events] == ["top laid JS"]


def test_a_lone_index_far_from_a_card_of_its_name_does_not_move_that_card_there() -> None:
    """...and then a lone index read JC two index sizes off: a lone corner only guesses where
    its card lies, so the JC column's track does not move there (out of the JS's spots) to be
    laid; the lone index lies beside the JS, and lays nothing either."""
    smoother, events = far_js_read_by_columns(2)
    lone = card_detections("JC", (760, 230), rotation=2, corners="br")
    events += [e for _ in range(8) for e in feed(smoother, table([*LYING, FAR_JS, lone])).events]
    assert [str(e) for e in events] == ["top laid JS"]


def test_a_card_read_beside_a_corrected_card_as_its_old_name_is_that_card() -> None:
    """Top's card read as AC was taken as AS: an AC read 1.5 index sizes from it (its corners
    misread the same way) lays nothing; an AC laid across the table does."""
    smoother = TableSmoother(TWO)
    start_empty(smoother)
    top = play_row("top", ["AC"])
    events = [e for _ in range(5) for e in feed(smoother, table([top]), laid=[]).events]
    beside = card_detections("AC", (770, 230), rotation=2)
    seen = table([play_row("top", ["AS"]), beside])
    events += [e for _ in range(5) for e in feed(smoother, seen, laid=[parse_card("AS")]).events]
    seen = table([play_row("top", ["AS"]), play_row("bottom", ["AC"])])
    events += [e for _ in range(5) for e in feed(smoother, seen, laid=[parse_card("AS")]).events]
    assert [str(e) for e in events] == ["top laid AC", "bottom laid AC"]

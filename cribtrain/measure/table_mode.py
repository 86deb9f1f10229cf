"""Table mode on a whole-deal clip, as a table of players would live it: every frame read,
smoothed and followed, sure steps applied by themselves, each question answered by a player who
knows the truth (one tap when the right card is among its buttons, a correction on the form
otherwise), and the result compared with the deal entered by hand.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from cribtrain.data.deal_clips import DealClip, DealScript
from scorer.cards import Card
from scorer.game import Game, Phase
from scorer.settings import Settings, Variant
from tablemode.follow import Follower, Option, Proposal, option_for, steps_to_play
from tablemode.steps import Step, legal
from tablemode.tracker import TableTracker, TrackerConfig
from tablemode.view import TableView
from vision.table.plane_reading import FrameReader

#: Taps a correction takes when the right card is not among a question's buttons: open the form,
#: choose the card, confirm.
FORM_TAPS = 3


@dataclass
class Followed:
    """What following one clip gave."""

    game: Game
    taps: int = 0
    #: Truth events (the starter, each play, each crib card): read right by the reader's first
    #: choice, and by table mode's proposal (the deal prior), before any player's answer.
    events: int = 0
    first_choice_right: int = 0
    prior_right: int = 0
    #: Frames from each card's first frame to its step applied (or asked), per play.
    frames_to_step: list[int] = field(default_factory=list)
    seconds_per_frame: list[float] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)
    #: Truth events the camera never proposed (the players enter them on the form).
    missed: list[str] = field(default_factory=list)


def by_hand(script: DealScript) -> Game:
    """The deal entered through the engine (hidden hands), the oracle for the scores."""
    game = Game(settings_of(script), first_dealer=script.dealer)
    game.deal(None)
    for seat in range(len(script.seats)):
        game.discard(seat, None)
    game.cut_starter(script.starter)
    for laid, (edge, card) in enumerate(script.plays):
        for go in script.goes:
            if go.after == laid:
                game.go(script.seats.index(go.seat))
        game.play(script.seats.index(edge), card)
    for go in script.goes:  # a single count ends at a go
        if go.after == len(script.plays) and game.phase is Phase.PLAY:
            game.go(script.seats.index(go.seat))
    for _ in script.seats:
        nxt = game.next_show()
        assert nxt is not None
        game.show(list(script.hands[script.seats[nxt[1]]]))
    game.show(list(script.crib))
    return game


def settings_of(script: DealScript) -> Settings:
    """The game a deal script is a deal of: five-card cribbage where its play is one count."""
    if script.single_count:
        return Settings(players=2, variant=Variant.FIVE_CARD)
    return Settings(players=len(script.seats))


def follow_clip(
    clip: DealClip,
    reader: FrameReader,
    *,
    until_clear: bool = True,
    plane: bool = False,
    changes: bool = False,
) -> Followed:
    """Follow `clip` frame by frame from a game whose dealer is the script's; with `plane`,
    the cards are placed on the table's own plane (`vision.table.plane`) first, and the seats
    are where the game says they are on it (`tablemode.seats.SeatLearner`), not the picture's
    edges; with `changes`, each frame reads only what changed (`TrackerConfig.read_changes`)."""
    script = clip.script
    players = len(script.seats)
    game = Game(settings_of(script), first_dealer=script.dealer)
    height, width = clip.frames[0].shape[:2]
    # The app's own tracker: what is measured here is what the players get.
    config = TrackerConfig(plane=plane, read_changes=changes)
    tracker = TableTracker(players, (width, height), config)
    follower = Follower()
    result = Followed(game)
    truth, seats = truth_by_key(script), play_seats(script)
    first_frame = {m.cards[0]: m.frame for m in clip.marks if m.kind == "play"}
    decided: set[str] = set()
    for index, frame in enumerate(clip.frames):
        start = time.perf_counter()

        def follow(view: TableView, index: int = index) -> None:
            for _ in range(64):
                found = follower.proposals(game, view)
                if not found:
                    break
                proposal = found[0]
                if proposal.key not in decided:
                    decided.add(proposal.key)
                    _score_reading(result, proposal, view, truth, first_frame, index)
                if not _act(result, game, follower, proposal, truth, seats):
                    break

        tracker.update(frame, reader, game, str(index), follow=follow)
        result.seconds_per_frame.append(time.perf_counter() - start)
        if until_clear and game.deals_played and game.phase in (Phase.DEAL, Phase.OVER):
            break  # the crib is counted: the deal is over
    result.missed = [key for key in truth if key not in decided]
    result.taps += FORM_TAPS * len(result.missed)
    return result


def truth_by_key(script: DealScript) -> dict[str, tuple[Card, ...]]:
    """Proposal key → the true cards."""
    truth: dict[str, tuple[Card, ...]] = {"deal 1 starter": (script.starter,)}
    for n, (_, card) in enumerate(script.plays, start=1):
        truth[f"deal 1 play {n}"] = (card,)
    dealer = script.dealer
    truth[f"deal 1 crib of seat {dealer}"] = tuple(sorted(script.crib))
    for seat, left in script.unplayed.items():  # five-card: the hands shown, cards turned up
        if left:
            truth[f"deal 1 hand of seat {script.seats.index(seat)}"] = tuple(
                sorted(script.hands[seat])
            )
    return truth


def play_seats(script: DealScript) -> dict[str, int]:
    """Play key → the seat (engine order) that laid it."""
    return {f"deal 1 play {n}": script.seats.index(seat)
            for n, (seat, _) in enumerate(script.plays, start=1)}  # fmt: skip


def _cards(proposal: Proposal, cards: tuple[Card, ...]) -> tuple[Card, ...]:
    """Cards as compared with the truth: a crib or a hand is a set of cards, in no order."""
    return tuple(sorted(cards)) if proposal.kind in ("crib", "show") else cards


def _score_reading(result: Followed, proposal: Proposal, view: TableView,
                   truth: dict[str, tuple[Card, ...]], first_frame: dict[Card, int], index: int
                   ) -> None:  # fmt: skip
    wanted = truth.get(proposal.key)
    if wanted is None or proposal.kind == "show":
        return
    # a crib is a set of cards, one of them perhaps unread (`Proposal.partial`)
    proposed = proposal.options[0].cards if proposal.options else proposal.partial
    result.events += len(wanted)
    result.prior_right += len(set(proposed) & set(wanted))
    result.first_choice_right += len(set(_first_choices(proposal, view)) & set(wanted))
    if proposal.kind == "play" and wanted[0] in first_frame:
        result.frames_to_step.append(index - first_frame[wanted[0]])


def _first_choices(proposal: Proposal, view: TableView) -> tuple[Card, ...]:
    """The reader's own first choice for what `proposal` reads (no deal prior)."""
    if proposal.kind == "starter" and view.starter is not None:
        return (view.starter.card,)
    if proposal.kind == "crib":
        return tuple(r.card for r in view.crib)
    number = int(proposal.key.rsplit(" ", 1)[1])
    return (view.plays[number - 1].reading.card,) if number <= len(view.plays) else ()


def _act(result: Followed, game: Game, follower: Follower, proposal: Proposal,
         truth: dict[str, tuple[Card, ...]], seats: dict[str, int]) -> bool:  # fmt: skip
    """Apply `proposal` as the table would: by itself when sure, else as the player answers.
    Whether anything was applied."""
    wanted = truth.get(proposal.key)
    proposed = proposal.options[0] if proposal.options else None
    right = proposed
    if wanted is not None:
        right = _right(game, proposal, wanted, seats.get(proposal.key))
    if right is None:
        follower.decline(proposal.key)
        return False
    # any other starter, or card by the play's seat, or a crib's card unread: the picker's tap
    picked = (
        proposal.kind == "starter"
        or (proposal.kind == "play" and right.steps[-1].seat == proposal.seat)
        or (bool(proposal.partial) and set(proposal.partial) <= set(right.cards))
    )
    offered = right in proposal.options or picked
    if proposal.sure:
        if right is not proposed:  # "Wrong card?", then its button or the form
            result.taps += 2 if offered else 1 + FORM_TAPS
    else:
        result.questions.append(f"{proposal.key}: {proposal.doubt}")
        result.taps += 1 if offered else FORM_TAPS
    for step in right.steps:
        step.apply(game)
    return True


def _right(game: Game, proposal: Proposal, wanted: tuple[Card, ...], seat: int | None
           ) -> Option | None:  # fmt: skip
    """The option reading the true cards (a play by its true `seat`): offered, or entered by
    the player."""
    offered = next((o for o in proposal.options if _cards(proposal, o.cards) == wanted
                    and seat in (None, o.steps[-1].seat)), None)  # fmt: skip
    if offered is None and proposal.kind == "play" and seat is not None:
        play = steps_to_play(game, seat, wanted[0])  # entered on the form
        return None if play is None else Option(wanted, 0.0, play)
    if offered is not None or proposal.kind != "show":
        return offered or option_for(game, proposal, wanted)
    steps = (Step("show", proposal.seat, wanted),)  # a hand entered on the form
    return Option(wanted, 0.0, steps) if legal(game, steps) else None

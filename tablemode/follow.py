"""From the camera's table to the game's next action, with the deal as a prior.

`Follower.proposals` reads the game's phase and the `TableView` and proposes what the table
shows next: the starter (with the hidden deal and discards before it), the next card laid (with
the go's its seat order implies), a hand's show (its cards are the ones that player laid), the
crib once it is turned. Every reading goes through the deal prior: a card already placed this
deal cannot appear again, and the steps must be legal for the engine; where the reader's first
choice is impossible its likeliest possible one is taken, and the proposal is then not sure.

A sure proposal is applied by itself (the page offers a moment to undo it); the others ask the
players, with the likeliest possible cards as buttons. A proposal undone or waved away is not
proposed again. The follower is one game's memory; it is not thread-safe (its owner locks).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from scorer.cards import Card
from scorer.errors import CribbageError
from scorer.game import Game, Phase
from scorer.pegging import TARGET_COUNT, PegAction, PegEvent, Pegging
from tablemode.config import DEFAULT_TABLE_MODE, TableModeConfig
from tablemode.steps import Step, copy_of, laid_this_deal, legal
from tablemode.view import CardReading, LaidCard, TableView

ProposalKind = Literal["starter", "play", "show", "crib"]
#: A play the camera never saw (entered by the players): it took no event.
_MISSED = -1


@dataclass(frozen=True)
class Option:
    """One answer to a proposal: the card(s) it reads, their chance, and the steps to apply."""

    cards: tuple[Card, ...]
    chance: float
    steps: tuple[Step, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "cards": [str(c) for c in self.cards],
            "chance": round(self.chance, 3),
            "actions": [s.to_json() for s in self.steps],
        }


@dataclass(frozen=True)
class Proposal:
    """What the table shows next. `options[0]` is the proposal; the rest are the buttons a
    question offers. `claim`: a muggins game asks the player's own count before applying."""

    key: str
    kind: ProposalKind
    seat: int | None
    text: str
    options: tuple[Option, ...]
    sure: bool
    claim: bool = False
    frame: str | None = None
    #: Why it is not sure, for the question shown.
    doubt: str = ""
    #: The same as a code and its values, for a page in another language: "declined",
    #: "not next" (`seat`: where the card lies), "impossible" and "misread" (`card`: as read),
    #: "unsure", "not a crib", "crib unsure", "crib card unseen".
    doubt_code: str = ""
    doubt_args: tuple[tuple[str, str | int], ...] = ()
    #: A crib with a card never read: the cards read, with no option; the players' answer is
    #: these and the card they name (`option_for`).
    partial: tuple[Card, ...] = ()

    def option(self, cards: Sequence[Card] | None = None) -> Option:
        """The option reading `cards` (None: the proposal's own); KeyError when it has none."""
        if cards is None:
            return self.options[0]
        for option in self.options:
            if list(option.cards) == list(cards):
                return option
        raise KeyError(f"{self.key} offers no option {' '.join(map(str, cards))}")

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "kind": self.kind,
            "seat": self.seat,
            "text": self.text,
            "sure": self.sure,
            "claim": self.claim,
            "frame": self.frame,
            "doubt": self.doubt,
            "doubt_code": self.doubt_code,
            "doubt_args": dict(self.doubt_args),
            "options": [o.to_json() for o in self.options],
            "partial": [str(c) for c in self.partial],
        }


@dataclass
class Follower:
    """One game's table mode: proposals from the table, and what the players waved away."""

    config: TableModeConfig = DEFAULT_TABLE_MODE
    #: Proposal keys undone or dismissed by the players: never applied by themselves again.
    declined: set[str] = field(default_factory=set)
    #: The last deal after which the table was seen clear (0: before the first deal).
    cleared_after: int = 0
    #: This deal's play events taken, by index into `TableView.plays`, in the order played
    #: (two cards laid nearly together may reach the table's rows in the other order).
    _taken: list[int] = field(default_factory=list)
    #: (deal, cards laid, event index) of the last play proposed: taken by the card laid next
    #: where it is that card or by its seat (another seat's card was one the camera missed).
    _offered: tuple[int, int, int] | None = None
    #: How many views the next play has looked laid out of turn, by its key.
    _out_of_turn: dict[str, int] = field(default_factory=dict)

    def proposals(self, game: Game, view: TableView) -> list[Proposal]:
        """What the table shows next that the game has not taken, in the order to apply it
        (at most one; an empty list while the table shows nothing new)."""
        phase = game.phase
        if view.clear and phase in (Phase.DEAL, Phase.CUT_FOR_DEAL):
            self.cleared_after = game.deals_played
        found: Proposal | None = None
        if phase in (Phase.DEAL, Phase.DISCARD, Phase.STARTER):
            found = self._starter(game, view)
        elif phase is Phase.PLAY:
            found = self._play(game, view)
        elif phase is Phase.SHOW:
            found = self._show(game, view)
        if found is None:
            return []
        if found.key in self.declined:
            found = replace(
                found,
                sure=False,
                doubt=found.doubt or "changed by a player",
                doubt_code=found.doubt_code or "declined",
            )
        return [found]

    def decline(self, key: str) -> None:
        self.declined.add(key)

    # -- the deal and the starter ------------------------------------------------------------
    def _starter(self, game: Game, view: TableView) -> Proposal | None:
        if view.starter is None:
            return None
        before: list[Step] = []
        if game.phase is Phase.DEAL:
            if self.cleared_after < game.deals_played:
                return None  # the last deal's starter still lies there
            before.append(Step("deal"))
        deal = game.deal_state
        hidden = deal is None or game.phase is Phase.DEAL or deal.hands is None
        if not hidden:
            return None  # hands entered: their discards are entered too
        if game.phase is not Phase.STARTER:
            done = set() if game.phase is Phase.DEAL or deal is None else set(deal.discards)
            before += [Step("discard", s) for s in range(game.players) if s not in done]
        number = game.deals_played + (1 if game.phase is Phase.DEAL else 0)
        options = self._options(
            game, view.starter, lambda c: [*before, Step("starter", None, (c,))]
        )
        return self._proposal(
            f"deal {number} starter", "starter", None, "starter {card}", options, view.starter
        )

    # -- the play ----------------------------------------------------------------------------
    def _play(self, game: Game, view: TableView) -> Proposal | None:
        deal = game.deal_state
        assert deal is not None and deal.pegging is not None
        plays = [e for e in deal.pegging.events if e.action is PegAction.PLAY]
        laid = len(plays)
        key = f"deal {deal.number} play {laid + 1}"
        played = {e.card for e in plays}
        free = [
            i for i in self._free_events(deal.number, plays, view.plays)
            # a card the players entered already (a correction), seen laid: nothing new
            if view.plays[i].reading.card not in played
            or self._play_of(game, view.plays[i], key).options
        ]  # fmt: skip
        if not free:
            return None
        first = self._play_of(game, view.plays[free[0]], key)
        laid_card = view.plays[free[0]].reading.card
        if (
            not first.options
            and deal.pegging.single_count
            and (deal.pegging.count + laid_card.value > TARGET_COUNT)
        ):  # a card past 31: not a play, but a hand shown after the count ended
            ended = self._count_ended(game, view)
            if ended is not None:
                return ended
        chosen, index = first, free[0]
        # Laid out of turn (or impossible), the card after it may be the one laid first; a card
        # only unsurely read is still the first laid (its seat did not say go).
        if first.doubt_code in ("not next", "impossible") and len(free) > 1:
            second = self._play_of(game, view.plays[free[1]], key)
            if not second.doubt:
                chosen, index = second, free[1]
        if chosen.seat != view.plays[index].seat:  # out of turn: wait for the card before it
            waited = self._out_of_turn[key] = self._out_of_turn.get(key, 0) + 1
            if waited <= self.config.order_patience:
                return None
            if deal.pegging.single_count:  # no card came before it: the count ended at a go
                ended = self._count_ended(game, view)
                if ended is not None:
                    return ended
        self._offered = (deal.number, laid, index)
        return chosen

    def _count_ended(self, game: Game, view: TableView) -> Proposal | None:
        """Five-card's single count: a card turned up that would take the count past 31 says
        the play is over (each seat said go): the first hand shown, the goes before it. None
        where the count does not end so, or the hand is not turned up yet."""
        trial, goes = copy_of(game), []
        while trial.phase is Phase.PLAY and trial.turn is not None:
            goes.append(Step("go", trial.turn))
            try:
                trial.go(trial.turn)
            except CribbageError:
                return None
        shown = self._show(trial, view)
        if shown is None or not shown.options:
            return None
        options = tuple(replace(o, steps=(*goes, *o.steps)) for o in shown.options)
        return replace(shown, options=options)

    def _free_events(self, deal: int, played: Sequence[PegEvent], seen: Sequence[LaidCard]
                     ) -> list[int]:  # fmt: skip
        """The indexes of the play events (`seen`) not yet taken, in the order the table saw
        them, after the game's `played` cards. A card played took the event proposed for it
        where it is that card or by that seat (read otherwise) or a card laid before (seen
        again), else the event seen as that card; a card proposed from another seat's event,
        entered otherwise by the players, was one the camera missed (it took none); one entered
        with nothing proposed took the first event."""
        offered = self._offered
        if offered is None or offered[0] != deal:
            self._taken = []
        taken = self._taken
        del taken[len(played) :]  # plays undone
        while len(taken) < len(played):
            play = played[len(taken)]
            free = [i for i in range(len(seen)) if i not in taken]
            proposed = offered[2] if offered and offered[:2] == (deal, len(taken)) else None
            if proposed in free and (
                seen[proposed].reading.card in (play.card, *(p.card for p in played))
                or seen[proposed].seat == play.seat
            ):  # that card, read otherwise, or a card laid before read again: no card missed
                taken.append(proposed)
                continue
            same = [i for i in free if seen[i].reading.card == play.card]
            if same or proposed is not None:
                taken.append(same[0] if same else _MISSED)
            else:  # in the table's order, perhaps an event not seen yet
                taken.append(min(set(range(len(seen) + len(played))) - set(taken)))
        return [i for i in range(len(seen)) if i not in taken]

    def _play_of(self, game: Game, laid: LaidCard, key: str) -> Proposal:
        """`laid` as the next play: by its own seat, else (with a doubt) by the turn's."""
        seat, doubt = laid.seat, ""
        options = self._options(game, laid.reading, lambda c: steps_to_play(game, seat, c))
        if not options and game.turn is not None and game.turn != laid.seat:
            seat = game.turn  # the card cannot be that seat's: read it as the turn's
            options = self._options(game, laid.reading, lambda c: steps_to_play(game, seat, c))
            doubt = f"seat {laid.seat} is not next: it is seat {seat}'s turn"
        goes = options[0].steps[:-1] if options else ()
        said = "".join(f"seat {s.seat} said go, " for s in goes)
        text = said + f"seat {seat} played {{card}}"
        proposal = self._proposal(key, "play", seat, text, options, laid.reading)
        if not doubt:
            return proposal
        return replace(
            proposal,
            sure=False,
            doubt=doubt,
            doubt_code="not next",
            doubt_args=(("seat", laid.seat),),
        )

    # -- the show ----------------------------------------------------------------------------
    def _show(self, game: Game, view: TableView) -> Proposal | None:
        nxt = game.next_show()
        deal = game.deal_state
        if nxt is None or deal is None or deal.pegging is None:
            return None
        role, seat = nxt
        claim = game.settings.muggins
        key = f"deal {deal.number} {role} of seat {seat}"
        if role == "crib" and deal.hands is None:
            return self._crib(game, view, seat, key, claim)
        # a hidden hand is the cards its player laid; known hands the engine counts itself
        cards = tuple(deal.pegging.played[seat]) if deal.hands is None else ()
        turned: tuple[CardReading, ...] = ()
        if deal.hands is None and len(cards) < deal.pegging.hand_size:
            turned = self._turned_up(deal.pegging, view, seat)  # five-card's single count
            cards += tuple(r.card for r in turned)
        step = Step("show", seat, cards)
        if not legal(game, [step]):
            return None  # the cards left in hand not turned up yet, or misread past the deal
        kind: ProposalKind = "show" if role == "hand" else "crib"
        option = Option(cards, 1.0, (step,))
        proposal = Proposal(key, kind, seat, f"seat {seat}'s {role}", (option,), sure=not claim,
                            claim=claim, frame=view.frame)  # fmt: skip
        if all(r.sure and r.chance >= self.config.sure_chance for r in turned):
            return proposal
        return replace(proposal, sure=False, doubt="a card of the hand is not surely read",
                       doubt_code="unsure")  # fmt: skip

    @staticmethod
    def _turned_up(pegging: Pegging, view: TableView, seat: int) -> tuple[CardReading, ...]:
        """The cards `seat` turned up in its row after a single count left them in hand (as
        many as its hand still holds, first seen first), none where fewer lie there yet."""
        played = {card for cards in pegging.played for card in cards}
        left = pegging.hand_size - len(pegging.played[seat])
        turned = tuple(
            laid.reading for laid in view.plays
            if laid.seat == seat and laid.reading.card not in played
        )  # fmt: skip
        return turned[:left] if len(turned) >= left else ()

    def _crib(
        self, game: Game, view: TableView, seat: int, key: str, claim: bool
    ) -> Proposal | None:
        """The crib turned face up: its four cards read, each with the deal as a prior. A
        fifth card seen with them is one of them read twice: which four, the players say; with
        a card never read, the players name it."""
        if len(view.crib) == 3:
            return self._short_crib(game, view, seat, key, claim)
        if len(view.crib) == 5:
            options = self._crib_fours(game, view.crib, seat)
        elif len(view.crib) == 4:
            options = self._crib_options(game, view.crib, seat)
        else:
            return None
        if not options:
            return _not_a_crib(key, seat, claim, view)
        best = options[0]
        firsts = tuple(r.card for r in view.crib)
        sure = (
            best.cards == firsts
            and min(r.chance for r in view.crib) >= self.config.sure_chance
            and not claim
        )
        doubt = "" if sure or claim else "a crib card is not surely read"
        code = "" if sure or claim else "crib unsure"
        cards_text = " ".join(map(str, best.cards))
        return Proposal(
            key,
            "crib",
            seat,
            f"seat {seat}'s crib {cards_text}",
            tuple(options),
            sure=sure,
            claim=claim,
            frame=view.crib[0].frame or view.frame,
            doubt=doubt,
            doubt_code=code,
        )

    def _short_crib(
        self, game: Game, view: TableView, seat: int, key: str, claim: bool
    ) -> Proposal:
        """A crib with a card unread (`SmoothingConfig.crib_short_wait`): the cards read, each
        its likeliest possible card, and a question for the one missing."""
        picked = _possible_firsts(game, view.crib)
        if picked is None:
            return _not_a_crib(key, seat, claim, view)
        read = [c for c, _ in picked]
        text = f"seat {seat}'s crib {' '.join(map(str, read))} and a card unread"
        return Proposal(
            key,
            "crib",
            seat,
            text,
            (),
            sure=False,
            claim=claim,
            frame=view.crib[0].frame or view.frame,
            doubt="a crib card is not seen",
            doubt_code="crib card unseen",
            partial=tuple(read),
        )

    def _crib_fours(self, game: Game, crib: Sequence[CardReading], seat: int) -> list[Option]:
        """The likeliest crib of each four of five cards seen, the likeliest first (all five:
        which card is the one read twice, the chances do not tell)."""
        fours = ([*crib[:i], *crib[i + 1 :]] for i in range(len(crib)))
        found = [o[0] for four in fours if (o := self._crib_options(game, four, seat))]
        return sorted({o.cards: o for o in found}.values(), key=lambda o: -o.chance)

    def _crib_options(self, game: Game, crib: Sequence[CardReading], seat: int) -> list[Option]:
        """The likeliest possible crib, then the likeliest with one card read as another of its
        choices (whichever card: a far card's suit may be read surely wrong)."""
        picked = _possible_firsts(game, crib)
        if picked is None:
            return []
        placed = set(placed_this_deal(game))
        cards = [c for c, _ in picked]
        chance = math.prod(p for _, p in picked)
        found: list[tuple[float, list[Card]]] = [(chance, cards)]
        for i, reading in enumerate(crib):
            for card, p in reading.choices[: self.config.choices_tried]:
                if card not in placed and card not in cards:
                    other = [*cards[:i], card, *cards[i + 1 :]]
                    found.append((chance / max(picked[i][1], 1e-6) * p, other))
        options: list[Option] = []
        for p, other in sorted(found, key=lambda f: -f[0]):
            step = Step("show", seat, tuple(other))
            if legal(game, [step]):
                options.append(Option(tuple(other), p, (step,)))
            if len(options) == self.config.choices_offered:
                break
        return options

    # -- the prior ---------------------------------------------------------------------------
    def _options(
        self, game: Game, reading: CardReading, steps: Callable[[Card], Sequence[Step] | None]
    ) -> list[Option]:
        """The reading's choices that are possible this deal, likeliest first: not a card
        already placed, and `steps(card)` (None: no way) legal for the engine."""
        placed = set(placed_this_deal(game))
        options: list[Option] = []
        for card, chance in reading.choices[: self.config.choices_tried]:
            if card in placed:
                continue
            sequence = steps(card)
            if sequence is not None and legal(game, sequence):
                options.append(Option((card,), chance, tuple(sequence)))
            if len(options) >= self.config.choices_offered:
                break
        return options

    def _proposal(
        self,
        key: str,
        kind: ProposalKind,
        seat: int | None,
        text: str,
        options: list[Option],
        reading: CardReading,
    ) -> Proposal:
        if not options:
            return Proposal(
                key,
                kind,
                seat,
                text.format(card=reading.card),
                (),
                sure=False,
                frame=reading.frame,
                doubt=f"{reading.card} cannot be there: it is already placed or breaks the rules",
                doubt_code="impossible",
                doubt_args=(("card", str(reading.card)),),
            )
        best = options[0]
        first = best.cards[0] == reading.card
        sure = first and best.chance >= self.config.sure_chance and reading.sure
        doubt = (
            ""
            if sure
            else (
                f"read as {reading.card}, which cannot be there" if not first else "not surely read"
            )
        )
        code = "" if sure else ("misread" if not first else "unsure")
        return Proposal(
            key,
            kind,
            seat,
            text.format(card=best.cards[0]),
            tuple(options),
            sure,
            frame=reading.frame,
            doubt=doubt,
            doubt_code=code,
            doubt_args=(("card", str(reading.card)),),
        )


def _possible_firsts(
    game: Game, readings: Sequence[CardReading]
) -> list[tuple[Card, float]] | None:
    """Each reading's likeliest card not placed this deal nor picked for a reading before it,
    with its chance; None where a reading has none."""
    placed = set(placed_this_deal(game))
    picked: list[tuple[Card, float]] = []
    for reading in readings:
        taken = placed | {c for c, _ in picked}
        choice = next(((c, p) for c, p in reading.choices if c not in taken), None)
        if choice is None:
            return None
        picked.append(choice)
    return picked


def _not_a_crib(key: str, seat: int, claim: bool, view: TableView) -> Proposal:
    """The crib's question where no possible crib reads as the cards seen."""
    return Proposal(key, "crib", seat, f"seat {seat}'s crib", (), sure=False, claim=claim,
                    frame=view.frame, doubt="these cards cannot be the crib",
                    doubt_code="not a crib")  # fmt: skip


def placed_this_deal(game: Game) -> Iterable[Card]:
    """The cards face up this deal so far: the starter, the cards played, the hands shown."""
    deal = game.deal_state
    if deal is None or game.phase is Phase.DEAL:
        return []
    placed: list[Card] = list(deal.crib_from_pack)
    if deal.starter is not None:
        placed.append(deal.starter)
    placed += laid_this_deal(game)
    placed += deal.counted
    return placed


def steps_to_play(game: Game, seat: int, card: Card) -> tuple[Step, ...] | None:
    """The steps that have `seat` lay `card` next: the go's of the seats before it (all round,
    when the card does not fit the count) and the play; None when the engine takes none."""
    trial = copy_of(game)
    goes: list[Step] = []
    play = Step("play", seat, (card,))
    for _ in range(2 * game.players + 1):
        turn = trial.turn
        if turn is None:
            return None
        if turn == seat and legal(trial, [play]):
            return (*goes, play)
        try:
            trial.go(turn)
        except CribbageError:
            return None
        goes.append(Step("go", turn))
    return None


def option_for(game: Game, proposal: Proposal, cards: Sequence[Card]) -> Option | None:
    """`proposal` read as `cards`, which the reader need not have offered (a player's
    correction): a play by the proposal's seat after the go's it implies, a crib with a card
    unread shown as `cards`, otherwise the proposal's steps with `cards` in the last; None when
    the engine takes no such steps."""
    offered = next((o for o in proposal.options if list(o.cards) == list(cards)), None)
    if offered is not None:
        return offered
    if not proposal.options and not proposal.partial:
        return None
    if proposal.kind == "play" and proposal.seat is not None and len(cards) == 1:
        steps = steps_to_play(game, proposal.seat, cards[0])
    elif proposal.partial:
        steps = (Step("show", proposal.seat, tuple(cards)),)
    else:
        *before, last = proposal.options[0].steps
        steps = (*before, replace(last, cards=tuple(cards)))
    if steps is None or not legal(game, steps) or set(cards) & set(placed_this_deal(game)):
        return None
    return Option(tuple(cards), 0.0, tuple(steps))

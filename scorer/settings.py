"""Game settings: players, variant, target, muggins, skunk lines and match points.

Everything `RULES.md` calls a house rule is a field here, with the standard default.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from scorer.errors import CribbageError, refuse_unknown_fields


class SettingsError(CribbageError):
    """A setting out of range or of the wrong type."""


#: The longest match (the page offers 1 to 99 games).
MAX_GAMES_PER_MATCH = 99
#: The most match points one game can earn (common schemes give 1 to 4).
MAX_MATCH_POINTS = 99


class Variant(enum.StrEnum):
    SIX_CARD = "six-card"
    FIVE_CARD = "five-card"

    @property
    def default_target(self) -> int:
        """The game's length unless the settings name one: five-card is a 61-point game."""
        return 61 if self is Variant.FIVE_CARD else 121


class _VariantTarget(int):
    """The type of `Settings.target`'s default, told apart by identity from a target given."""


_VARIANT_TARGET = _VariantTarget(0)


class Skunk(enum.IntEnum):
    """How badly the loser lost; the values order the levels."""

    NONE = 0
    SKUNK = 1
    DOUBLE = 2
    TRIPLE = 3


@dataclass(frozen=True)
class MatchPoints:
    """Match points the winner of a game earns, by skunk level (and what the loser gets).

    The default is the common 1/2/3; ACC tournaments use win 2, skunk 3, loss 0 (`ACC`).
    """

    win: int = 1
    skunk: int = 2
    double_skunk: int = 3
    triple_skunk: int = 3
    loss: int = 0
    triple_skunk_wins_match: bool = False

    def __post_init__(self) -> None:
        for name in ("win", "skunk", "double_skunk", "triple_skunk", "loss"):
            value = getattr(self, name)
            if type(value) is not int or not 0 <= value <= MAX_MATCH_POINTS:
                raise SettingsError("match_points_range", name=name, most=MAX_MATCH_POINTS,
                                    value=repr(value))  # fmt: skip

    def for_winner(self, level: Skunk) -> int:
        return (self.win, self.skunk, self.double_skunk, self.triple_skunk)[level]


ACC_MATCH_POINTS = MatchPoints(win=2, skunk=3, double_skunk=3, triple_skunk=3, loss=0)


@dataclass(frozen=True)
class Settings:
    """One game's rules. A target left out is the variant's (121; five-card 61); skunk lines
    left as None take the standard value for the target.

    >>> Settings(target=61).skunk_lines()
    (46, 31, None)
    >>> five = Settings(variant=Variant.FIVE_CARD)
    >>> five.target, five.skunk_lines()
    (61, (46, 31, None))
    """

    players: int = 2
    variant: Variant = Variant.SIX_CARD
    target: int = _VARIANT_TARGET  # left out: the variant's (121; five-card 61)
    muggins: bool = False
    muggins_penalties: bool = True  # ACC 10.4: a wrong muggins call gives the points away
    false_game_penalty: bool = False  # ACC 8.4: overclaimed points to the opponent, -15
    skunk_line: int | None = None  # loser under this: skunk (121: 91, 61: 46)
    double_skunk_line: int | None = None  # under this: double skunk (121: 61, 61: 31)
    triple_skunk_line: int | None = None  # house rule, off unless set (e.g. 31 in a 121 game)
    match_points: MatchPoints = field(default_factory=MatchPoints)
    games_per_match: int = 1

    def __post_init__(self) -> None:
        if self.players not in (2, 3, 4):
            raise SettingsError("players_range", value=repr(self.players))
        try:
            object.__setattr__(self, "variant", Variant(self.variant))
        except ValueError:
            raise SettingsError("bad_variant", value=repr(self.variant)) from None
        if self.variant is Variant.FIVE_CARD and self.players != 2:
            raise SettingsError("five_card_players")
        if self.target is _VARIANT_TARGET:  # resolved here, so to_json always names the target
            object.__setattr__(self, "target", self.variant.default_target)
        if self.target not in (61, 121):
            raise SettingsError("bad_target", value=repr(self.target))
        for name in ("skunk_line", "double_skunk_line", "triple_skunk_line"):
            value = getattr(self, name)
            if value is not None and (type(value) is not int or not 0 < value < self.target):
                raise SettingsError("skunk_line_range", name=name, limit=self.target - 1,
                                    value=repr(value))  # fmt: skip
        games = self.games_per_match
        if type(games) is not int or not 1 <= games <= MAX_GAMES_PER_MATCH:
            raise SettingsError("games_per_match_range", most=MAX_GAMES_PER_MATCH,
                                value=repr(games))  # fmt: skip

    # -- derived ---------------------------------------------------------------------------
    @property
    def partnerships(self) -> bool:
        return self.players == 4

    @property
    def sides(self) -> int:
        """Scoring sides: partnerships share one score."""
        return 2 if self.partnerships else self.players

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.partnerships else seat

    @property
    def dealt_per_player(self) -> int:
        return 6 if self.players == 2 and self.variant is Variant.SIX_CARD else 5

    @property
    def discards_per_player(self) -> int:
        return 2 if self.players == 2 else 1

    @property
    def hand_size(self) -> int:
        return self.dealt_per_player - self.discards_per_player

    @property
    def crib_cards_from_pack(self) -> int:
        """Three players: one card goes straight from the pack to the crib."""
        return 1 if self.players == 3 else 0

    def skunk_lines(self) -> tuple[int, int, int | None]:
        standard = (91, 61) if self.target == 121 else (46, 31)
        return (
            self.skunk_line or standard[0],
            self.double_skunk_line or standard[1],
            self.triple_skunk_line,
        )

    def skunk_level(self, loser_score: int) -> Skunk:
        skunk, double, triple = self.skunk_lines()
        if triple is not None and loser_score < triple:
            return Skunk.TRIPLE
        if loser_score < double:
            return Skunk.DOUBLE
        if loser_score < skunk:
            return Skunk.SKUNK
        return Skunk.NONE

    # -- JSON ------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["variant"] = self.variant.value
        return data

    @classmethod
    def from_json(cls, data: Any) -> Settings:
        if not isinstance(data, dict):
            raise SettingsError("settings_not_object", value=repr(data))
        refuse_unknown_fields(
            data, (f.name for f in fields(cls)), "unknown_settings", SettingsError
        )
        values = dict(data)
        for name in ("players", "target", "games_per_match"):
            if name in values and type(values[name]) is not int:
                raise SettingsError("setting_not_integer", name=name, value=repr(values[name]))
        for name in ("muggins", "muggins_penalties", "false_game_penalty"):
            if name in values and type(values[name]) is not bool:
                raise SettingsError("setting_not_bool", name=name, value=repr(values[name]))
        if "match_points" in values:
            values["match_points"] = _match_points(values["match_points"])
        return cls(**values)


def _match_points(data: Any) -> MatchPoints:
    if data == "acc":
        return ACC_MATCH_POINTS
    if not isinstance(data, dict):
        raise SettingsError("bad_match_points", value=repr(data))
    fields_ = (f.name for f in fields(MatchPoints))
    refuse_unknown_fields(data, fields_, "unknown_match_point_fields", SettingsError)
    for name, value in data.items():
        wanted = bool if name == "triple_skunk_wins_match" else int
        if type(value) is not wanted:
            raise SettingsError("match_point_type", name=name, type=wanted.__name__,
                                value=repr(value))  # fmt: skip
    return MatchPoints(**data)

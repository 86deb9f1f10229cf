"""Players' records with many stored games: the player's page and `GET /api/players/<name>`,
median and p95, over games played to the end by the engine (random deals, random legal play).

Run from the repository root: ``python benchmarks/bench_records.py [--games N] [--runs N]``.
The games (2, 3 and 4 players among six names) are stored through the store's import, so each
gets its summary as a finished game does; the Flask test client then asks in-process (the
figures are the server's own time). The first page of a process also works out every deal's
exact distribution (`scorer.stats`, kept afterwards): it is reported apart.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scorer.cards import Card, Suit
from scorer.game import Game, Phase
from scorer.settings import Settings
from webui import create_app
from webui.games.store import GameStore, StoredGame

NAMES = ["Ann", "Bob", "Carl", "Dora", "Erik", "Fay"]
DECK = [Card(rank, suit) for rank in range(1, 14) for suit in Suit]


def played_game(rng: random.Random, players: int) -> Game:
    """A game played to its end: random deals and discards, a random legal card each turn."""
    settings = Settings(players=players)
    game = Game(settings, first_dealer=rng.randrange(players))
    while game.phase is not Phase.OVER:
        deck = rng.sample(DECK, len(DECK))
        per = settings.dealt_per_player
        hands = [deck[s * per : (s + 1) * per] for s in range(players)]
        extra = deck[players * per] if settings.crib_cards_from_pack else None
        game.deal(hands, extra)
        for seat, hand in enumerate(hands):
            game.discard(seat, rng.sample(hand, settings.discards_per_player))
        game.cut_starter(deck[-1])
        while game.phase is Phase.PLAY:
            turn = game.turn
            assert turn is not None and game.deal_state and game.deal_state.pegging
            game.play(turn, rng.choice(game.deal_state.pegging.playable(turn) or []))
        while game.next_show() is not None:
            game.show()
    return game


def stored_games(count: int, seed: int) -> list[StoredGame]:
    rng = random.Random(seed)
    games, now = [], time.time()
    for number in range(count):
        players = rng.choice([2, 2, 2, 2, 3, 4])
        names = ["Ann", *rng.sample(NAMES[1:], players - 1)]  # Ann plays every game
        rng.shuffle(names)
        game_id = f"g{number:05d}"
        stamp = now - (count - number) * 3600
        games.append(StoredGame(game_id, game_id, names, stamp, stamp, 0,
                                played_game(rng, players)))  # fmt: skip
    return games


def timed(get: object, path: str, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        answer = get(path)  # type: ignore[operator]
        times.append(time.perf_counter() - start)
        assert answer.status_code == 200, (path, answer.status_code)
    return times


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="stored games (default 1000)")
    parser.add_argument("--runs", type=int, default=50, help="requests per figure (default 50)")
    parser.add_argument("--seed", type=int, default=62)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "games.sqlite3"
        start = time.perf_counter()
        games = stored_games(args.games, args.seed)
        made = time.perf_counter() - start
        start = time.perf_counter()
        GameStore(db).merge(games)
        stored = time.perf_counter() - start
        deals = sum(game.game.deals_played for game in games)
        print(f"{args.games} games played by the engine ({deals} deals) in {made:.1f} s, "
              f"stored with their summaries in {stored:.1f} s")  # fmt: skip
        client = create_app({"TESTING": True, "DATABASE": db}).test_client()
        first = timed(client.get, "/players/Ann", 1)[0]
        print(f"first player page (works out the exact distributions once): {first * 1000:.0f} ms")
        for what, path in [("player page  /players/Ann", "/players/Ann"),
                           ("record  GET /api/players/Ann", "/api/players/Ann"),
                           ("players  GET /api/players", "/api/players"),
                           ("home page  /", "/")]:  # fmt: skip
            times = timed(client.get, path, args.runs)
            median, p95 = statistics.median(times) * 1000, percentile(times, 0.95) * 1000
            print(f"{what:32} median {median:6.1f} ms   p95 {p95:6.1f} ms   ({args.runs} requests)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

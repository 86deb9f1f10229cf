"""`cribcam enroll` and `cribcam deck`: teach cribcam the deck on the table, manage deck profiles.

    cribcam enroll NAME shots/*.jpg                 # any photos of the deck: the model proposes
    cribcam enroll NAME clubs.jpg diamonds.jpg hearts.jpg spades.jpg --suits C D H S
    cribcam enroll NAME --camera 0                  # takes 4 photos (--photos N)
    cribcam enroll NAME --camera 0 --suits C D H S  # prompts for one suit per photo
    cribcam deck list | use NAME | use --base | rename OLD NEW | delete NAME
    cribcam deck correct PHOTO QH --box X1 Y1 X2 Y2   # a card misread in a game, for the re-tune
    cribcam deck tune NAME                          # re-tune, folding in the corrections

Enrolment takes any photos of the deck's cards: a card in several photos is more examples of it
(all its corners go to the tune), and cards no photo shows are only noted. It shows every card
found (numbered, with a grid image of the crops), flags the ones where the model is unsure or
disagrees with the layout order, takes corrections as ``7=QH`` (``7=-``: not a card), and asks
again while one photo shows a card twice (one deck holds it once). Then it tunes the reader
(Ctrl-C cancels and keeps the previous profile). Profiles live in `<models>/decks` (see
`vision.decks.profiles`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from cribcam.commands.art import at_least
from vision.decks.enroll import (
    READ_PX,
    Enrollment,
    EnrollmentError,
    Image,
    Shot,
    crop_from_patch,
    cut_patch,
    propose,
)
from vision.decks.profiles import ProfileStore, default_root
from vision.detection.models import MODELS_DIR
from vision.reading import CardReader
from vision.table.sources import open_source, read_image

#: A tune's budget: under a minute leaves it hardly any training after its 25-s reserve.
TUNE_SECONDS = at_least(60, float)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    enroll = commands.add_parser("enroll", help="teach cribcam your deck (shots -> deck profile)")
    enroll.add_argument("name", help="deck name")
    enroll.add_argument("shots", nargs="*", type=Path,
                        help="photos of the deck's cards (they may repeat)")  # fmt: skip
    enroll.add_argument("--suits", nargs="+", choices=list("CDHS"), metavar="SUIT",
                        help="shot k holds this suit laid out A..K in reading order")  # fmt: skip
    enroll.add_argument("--camera", metavar="SOURCE", help="take the shots from a camera")
    enroll.add_argument("--photos", type=at_least(1, int), default=4,
                        help="photos --camera takes without --suits (4)")  # fmt: skip
    enroll.add_argument("--fix", nargs="+", default=[], metavar="N=CARD",
                        help="corrections, e.g. 7=QH or 12=- (not a card)")  # fmt: skip
    enroll.add_argument("--yes", action="store_true", help="accept without asking")
    enroll.add_argument("--grid", type=Path, help="where to write the crop grid (JPEG)")
    enroll.add_argument("--budget", type=TUNE_SECONDS, default=180.0,
                        help="tune seconds (180; at least 60)")  # fmt: skip
    enroll.add_argument("--use", action="store_true", help="make it the deck in use")
    _common(enroll)
    enroll.set_defaults(run=run_enroll)

    deck = commands.add_parser("deck", help="list, choose, rename, delete or re-tune decks")
    steps = deck.add_subparsers(dest="step", metavar="STEP", required=True)
    _common(steps.add_parser("list", help="the deck profiles; * marks the one in use"))
    use = steps.add_parser("use", help="choose the deck in use")
    use.add_argument("name", nargs="?")
    use.add_argument("--base", action="store_true", help="go back to the base model")
    _common(use)
    rename = steps.add_parser("rename", help="rename a deck")
    rename.add_argument("old")
    rename.add_argument("new")
    _common(rename)
    delete = steps.add_parser("delete", help="delete a deck")
    delete.add_argument("name")
    _common(delete)
    correct = steps.add_parser("correct", help="keep a misread card for the next re-tune")
    correct.add_argument("image", type=Path, help="the photo the card was misread in")
    correct.add_argument("card", help="what the card really is, e.g. QH")
    corners = ("X1", "Y1", "X2", "Y2")
    correct.add_argument("--box", nargs=4, type=float, required=True, metavar=corners,
                         help="the misread corner index, in pixels")  # fmt: skip
    correct.add_argument("--deck", help="deck profile (default: the deck in use)")
    _common(correct)
    tune = steps.add_parser("tune", help="re-tune a deck, folding in game corrections")
    tune.add_argument("name")
    tune.add_argument("--budget", type=TUNE_SECONDS, default=180.0,
                      help="tune seconds (180; at least 60)")  # fmt: skip
    _common(tune)
    deck.set_defaults(run=run_deck)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--models", type=Path, default=MODELS_DIR, help="base model folder")
    parser.add_argument("--decks", type=Path, help="deck profile folder (<models>/decks)")


def store_of(args: argparse.Namespace) -> ProfileStore:
    return ProfileStore(args.decks or default_root(args.models))


def run_enroll(args: argparse.Namespace) -> int:
    reader = CardReader(args.models)
    shots = _camera_shots(args) if args.camera else _file_shots(args)
    enrollment = propose(shots, reader.index_boxes, reader.classify)
    if not enrollment.candidates:
        raise EnrollmentError("no cards found in the shots")
    grid = args.grid or Path(f"enroll-{args.name}.jpg")
    cv2.imwrite(str(grid), crop_grid(enrollment))
    print(f"crop grid: {grid}")
    for fix in args.fix:
        _apply(enrollment, fix)
    _show(enrollment)
    if not args.yes and sys.stdin.isatty():
        _ask(enrollment)
    cards = enrollment.labelled()
    corners = sum(len(patches) for _, patches in cards)
    print(f"{_cards(len(cards))}, {corners} corners to learn from")
    return _tune(args, store_of(args), args.name, cards)


def run_deck(args: argparse.Namespace) -> int:
    store = store_of(args)
    if args.step == "list":
        active = store.active()
        for name in store.names():
            record = store.get(name).record
            after = record.get("accuracy_after")
            accuracy = f"{after:.1%}" if isinstance(after, float) else "n/a"
            mark = "*" if name == active else " "
            tuned = record.get("tuned", "?")
            print(f"{mark} {name}  (tuned {tuned}, held-out accuracy {accuracy})")
        if active is None:
            print("* base model (no deck chosen)")
    elif args.step == "use":
        store.use(None if args.base else args.name)
        print(f"deck in use: {store.active() or 'base model'}")
    elif args.step == "rename":
        store.rename(args.old, args.new)
    elif args.step == "delete":
        store.delete(args.name)
    elif args.step == "correct":
        deck: str | None = args.deck or store.active()
        if deck is None:
            raise EnrollmentError("no deck in use: give --deck NAME")
        patch = cut_patch(read_image(args.image), np.array(args.box, np.float32))
        store.add_correction(deck, patch, args.card.upper())
        print(f"kept for deck {deck!r}; `cribcam deck tune {deck}` folds it in")
    elif args.step == "tune":
        return _tune(args, store, args.name, None)
    return 0


def _tune(args: argparse.Namespace, store: ProfileStore, name: str,
          cards: list[tuple[str, list[Image]]] | None) -> int:  # fmt: skip
    from cribtrain.fit.tune import TuneSettings, tune_profile

    bar = tqdm(total=100, desc="tuning", unit="%")

    def progress(fraction: float, text: str) -> None:
        bar.set_postfix_str(text)
        bar.update(round(fraction * 100) - bar.n)

    try:
        settings = TuneSettings(budget_s=args.budget)
        result = tune_profile(
            store, name, cards, base_models=args.models, settings=settings, progress=progress
        )
    except KeyboardInterrupt:
        bar.close()
        print("tune cancelled: the previous profile is unchanged", file=sys.stderr)
        return 130
    bar.close()
    before, after = result.accuracy_before, result.accuracy_after
    if before is not None and after is not None:
        print(f"held-out crops ({result.held_out} indices x 8 angles): "
              f"base reader {before:.1%} -> tuned {after:.1%}")  # fmt: skip
    if result.profile.record.get("ink") == "light":
        print("the deck prints its indices light on a dark face: they are read as negatives too")
    if result.kept_base:
        print("the tuned reader read them clearly worse: the deck keeps the base reader "
              "(its cards stay saved for a later re-tune)")  # fmt: skip
    print(f"deck {name!r} saved in {result.profile.folder} ({result.seconds:.0f} s)")
    if getattr(args, "use", False):
        store.use(name)
        print(f"deck in use: {name}")
    return 0


def _file_shots(args: argparse.Namespace) -> list[Shot]:
    if not args.shots:
        raise EnrollmentError("give shot files or --camera SOURCE")
    suits = args.suits or []
    if suits and len(suits) != len(args.shots):
        raise EnrollmentError(f"{len(args.shots)} shots but {len(suits)} suits")
    return [Shot(read_image(path), suits[k] if suits else None)
            for k, path in enumerate(args.shots)]  # fmt: skip


def _camera_shots(args: argparse.Namespace) -> list[Shot]:
    asks: list[tuple[str | None, str]] = (
        [(suit, f"Lay out the {suit} cards A to K in rows, face up and apart")
         for suit in args.suits]
        if args.suits
        else [(None, f"Photo {k + 1} of {args.photos}: lay some cards of the deck face up and "
                     "apart (cards may repeat from the last photo)") for k in range(args.photos)]
    )  # fmt: skip
    shots = []
    with open_source(args.camera) as source:
        for suit, ask in asks:
            input(f"{ask}; press Enter ")
            frame = source.read(timeout=5.0)
            if frame is None:
                raise EnrollmentError(f"no frame from {args.camera}")
            shots.append(Shot(frame.image, suit))
    return shots


def _apply(enrollment: Enrollment, fix: str) -> None:
    number, _, card = fix.partition("=")
    if not number.strip().isdigit() or not card.strip():
        raise EnrollmentError(f"bad correction {fix!r}: write N=CARD, e.g. 7=QH, or 7=-")
    card = card.strip()
    enrollment.correct(int(number), None if card == "-" else card)


def _show(enrollment: Enrollment) -> None:
    for c in enrollment.candidates:
        layout = f" layout {c.layout_card}" if c.layout_card else ""
        flag = "  <- check" if c.flagged else ""
        shown = c.card or "(not a card)"
        print(f"{c.number:3d}  {shown:4s} model {c.model_card} {c.model_confidence:.0%}"
              f"{layout}{flag}")  # fmt: skip
    problems = enrollment.problems()
    for line in problems.errors():
        print(f"problem: {line}")
    for line in problems.notes():
        print(f"note: {line} (the tune learns the cards it is shown)")
    if problems.repeated:
        print(f"note: {_cards(len(problems.repeated))} in more than one photo: more examples")


def _cards(count: int) -> str:
    return f"{count} card" if count == 1 else f"{count} cards"


def _ask(enrollment: Enrollment) -> None:
    while True:
        text = input("corrections (e.g. 7=QH 12=-), Enter when all are right: ").strip()
        errors = enrollment.problems().errors()
        if not text and not errors:
            return
        if not text:  # a card twice in one photo: the player must say which one is wrong
            print("\n".join(f"still to correct: {line}" for line in errors))
            continue
        for fix in text.split():
            try:
                _apply(enrollment, fix)
            except EnrollmentError as error:
                print(error)
        _show(enrollment)


def crop_grid(enrollment: Enrollment, columns: int = 13, cell: int = 96) -> Image:
    """One tile per card: its first index crop, its number and proposed identity (red: check)."""
    rows = max(1, -(-len(enrollment.candidates) // columns))
    sheet = np.full((rows * (cell + 20), columns * cell, 3), 255, np.uint8)
    for k, c in enumerate(enrollment.candidates):
        y, x = (k // columns) * (cell + 20), (k % columns) * cell
        crop = cv2.resize(crop_from_patch(c.patches[0], READ_PX), (cell - 4, cell - 4))
        sheet[y + 2 : y + cell - 2, x + 2 : x + cell - 2] = crop
        colour = (0, 0, 220) if c.flagged else (0, 140, 0)
        cv2.putText(sheet, f"{c.number} {c.card or '-'}", (x + 4, y + cell + 14),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1)  # fmt: skip
    return sheet

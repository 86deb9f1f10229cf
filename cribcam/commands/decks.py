"""`cribcam enroll` and `cribcam deck`: teach cribcam the deck on the table, manage deck profiles.

    cribcam enroll NAME shots/*.jpg --list          # list the proposals and stop
    cribcam enroll NAME shots/*.jpg --fixes <decks>/.enroll-NAME/review.txt  # as edited; tune
    cribcam enroll NAME shots/*.jpg --fix 12=QH 7=- # correct by number, then tune
    cribcam enroll NAME shots/*.jpg                 # any photos of the deck: the model proposes
    cribcam enroll NAME clubs.jpg diamonds.jpg hearts.jpg spades.jpg --suits C D H S
    cribcam enroll NAME --camera 0                  # takes 4 photos (--photos N)
    cribcam enroll NAME --camera 0 --suits C D H S  # prompts for one suit per photo
    cribcam deck list | use NAME | use --base | rename OLD NEW | delete NAME
    cribcam deck correct PHOTO QH --box X1 Y1 X2 Y2   # a card misread in a game, for the re-tune
    cribcam deck tune NAME                          # re-tune, folding in the corrections

Enrolment takes any number of photos of the deck's cards: a card in several photos is more
examples of it (all its corners go to the tune), and cards no photo shows are only noted. The
photos are read one at a time (a progress bar), each proposed alone as the teaching page
proposes it (`Enrollment.add`). It lists the cards found: number, the photo it is in, the
proposed card and whether the model is sure (with ``--list`` or at a terminal every card, else
only those not sure), and writes into the decks folder (`<decks>/.enroll-NAME/`; nothing is
written in the current folder) each photo with its cards boxed and numbered and the review
file `review.txt`: the proposals as corrections, ``N=CARD`` a line, an unsure one ``N=CARD?``.
The review step without a terminal: ``--list``, correct the card names in that file (``-``: not
a card; remove an unsure card's ``?`` once it is right), then run again with ``--fixes`` and
the file to tune. Corrections are also ``--fix 7=QH`` (``7=-``: not a card); the numbers stay
the same for the same photos in the same order. At a terminal it asks for corrections; without
one it tunes only when no proposal is unsure (or with ``--yes``, which tunes them as proposed).
A card one photo shows twice at places that cannot be one card must be corrected first. Then
it tunes the reader (a progress bar, nothing else of the training's log; Ctrl-C cancels and
keeps the previous profile).

Proposals come from the reader the table reads with (`ProfileStore.reader_in_use`: the deck in
use's tuned reader, else the shipped one), as on the teaching page, so both propose the same
cards. Profiles live in `<models>/decks` (see `vision.decks.profiles`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from cribcam.commands.art import at_least
from vision.decks.enroll import (
    READ_PX,
    Candidate,
    Enrollment,
    EnrollmentError,
    Image,
    Shot,
    crop_from_patch,
    cut_patch,
    propose,
)
from vision.decks.profiles import ProfileStore, default_root
from vision.detection.detections import CLASS_NAMES
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
    enroll.add_argument("--list", action="store_true",
                        help="list the proposals (number, photo, card, sure), write the review "
                        "file and stop")  # fmt: skip
    enroll.add_argument("--fix", nargs="+", default=[], metavar="N=CARD",
                        help="corrections, e.g. 7=QH or 12=- (not a card)")  # fmt: skip
    enroll.add_argument("--fixes", type=Path, metavar="FILE",
                        help="a file of corrections, N=CARD, any number a line (the review file "
                        "--list writes, edited)")  # fmt: skip
    enroll.add_argument("--yes", action="store_true",
                        help="tune the proposals as they stand, unsure ones included")  # fmt: skip
    enroll.add_argument("--grid", type=Path,
                        help="where to write the crop grid (<decks>/.enroll-NAME/)")  # fmt: skip
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
    store = store_of(args)
    tuned = store.reader_in_use()
    reader = CardReader(args.models, reader_path=tuned)
    print("proposing with " + (f"the reader of deck {store.active()!r} (the deck in use)"
                               if tuned else "the shipped reader"))  # fmt: skip
    photos, names = _camera_shots(args) if args.camera else _file_shots(args)
    enrollment = _propose_each(photos, reader)
    if not enrollment.candidates:
        raise EnrollmentError("no cards found in the shots")
    fixes = list(args.fix) + (_read_fixes(args.fixes) if args.fixes else [])
    for fix in fixes:
        _apply(enrollment, fix)
    folder = store.root / f".enroll-{args.name}"
    _draw(enrollment, photos, names, folder, args.grid)
    review = _write_review(enrollment, names, folder / REVIEW_FILE, args.name)
    terminal = not args.yes and not args.list and sys.stdin.isatty()
    _show(enrollment, names, every=args.list or terminal)
    if args.list:
        print(
            f"listed only: correct the cards in {review} (a card's name after '=', '-' for "
            f"not a card, an unsure one's '?' removed once it is right), then run again with "
            f"--fixes {review} (or --fix N=CARD) to tune ({_unsure_line(enrollment)})"
        )
        return 0
    if terminal:
        _ask(enrollment, names)
    elif not args.yes:
        unsure = [c.number for c in enrollment.candidates if c.flagged]
        if unsure:
            raise EnrollmentError(
                f"cards {', '.join(map(str, unsure))} are unsure: confirm or correct them in "
                f"{review} and run again with --fixes {review} (or --fix N=CARD, N=- for not a "
                "card), or pass --yes to tune them as proposed"
            )
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
        print(f"renamed deck {args.old!r} to {args.new!r}")
    elif args.step == "delete":
        was_active = store.active() == args.name
        profile = store.get(args.name)
        cards = len({c.get("card") for c in profile.crops()})
        reader = "its tuned reader" if profile.tuned else "no tuned reader"
        store.delete(args.name)
        print(f"deleted deck {args.name!r} ({_cards(cards)}, {reader}) from {store.root}")
        now = store.active()
        print(f"deck in use: {now or 'base model'}"
              + (f" ({args.name!r} was in use)" if was_active else ""))  # fmt: skip
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


#: One photo as the command takes it: its suit (laid out A to K) or None, and how to get its
#: image (read again from its file when drawn, so that any number of photos fit in memory).
Photo = tuple[str | None, Callable[[], Image]]
#: The file each run writes beside the boxed photos: the proposals as corrections to edit.
REVIEW_FILE = "review.txt"


def _file_shots(args: argparse.Namespace) -> tuple[list[Photo], list[str]]:
    """The photos, and the name each is listed by (its file's)."""
    if not args.shots:
        raise EnrollmentError("give shot files or --camera SOURCE")
    suits = args.suits or []
    if suits and len(suits) != len(args.shots):
        raise EnrollmentError(f"{len(args.shots)} shots but {len(suits)} suits")
    photos: list[Photo] = [(suits[k] if suits else None, partial(read_image, path))
                           for k, path in enumerate(args.shots)]  # fmt: skip
    return photos, [path.name for path in args.shots]


def _camera_shots(args: argparse.Namespace) -> tuple[list[Photo], list[str]]:
    asks: list[tuple[str | None, str]] = (
        [(suit, f"Lay out the {suit} cards A to K in rows, face up and apart")
         for suit in args.suits]
        if args.suits
        else [(None, f"Photo {k + 1} of {args.photos}: lay some cards of the deck face up and "
                     "apart (cards may repeat from the last photo)") for k in range(args.photos)]
    )  # fmt: skip
    photos: list[Photo] = []
    with open_source(args.camera) as source:
        for suit, ask in asks:
            input(f"{ask}; press Enter ")
            frame = source.read(timeout=5.0)
            if frame is None:
                raise EnrollmentError(f"no frame from {args.camera}")
            photos.append((suit, _holding(frame.image)))
    return photos, [f"camera photo {k + 1}" for k in range(len(photos))]


def _holding(image: Image) -> Callable[[], Image]:
    return lambda: image


def _propose_each(photos: list[Photo], reader: CardReader) -> Enrollment:
    """Each photo read and proposed alone, numbered on, as the teaching page does
    (`Enrollment.add`), with a progress bar; the photo itself is not kept."""
    suits = {suit for suit, _ in photos}
    expected = (CLASS_NAMES if None in suits
                else tuple(c for c in CLASS_NAMES if c[-1] in suits))  # fmt: skip
    enrollment = Enrollment([], expected)
    bar = tqdm(photos, desc="reading photos", unit="photo", disable=len(photos) < 2,
               file=sys.stderr)  # fmt: skip
    for k, (suit, load) in enumerate(bar):
        found = propose([Shot(load(), suit)], reader.index_boxes, reader.classify,
                        reader.index_facing)  # fmt: skip
        enrollment.add(found, k)
    return enrollment


def _apply(enrollment: Enrollment, fix: str) -> None:
    number, _, card = fix.partition("=")
    if not number.strip().isdigit() or not card.strip():
        raise EnrollmentError(f"bad correction {fix!r}: write N=CARD, e.g. 7=QH, or 7=-")
    card, candidate = card.strip(), enrollment.get(int(number))
    unsure = card.endswith("?")  # the review file's unsure proposal, left as it was written
    card = card.removesuffix("?")
    if card.upper() == (candidate.card or "-") and (unsure or not candidate.flagged):
        return  # a sure proposal needs no confirming; an unsure one still '?' is not confirmed
    enrollment.correct(int(number), None if card == "-" else card)


def _read_fixes(path: Path) -> list[str]:
    """The corrections a `--fixes` file holds: N=CARD items, any number a line; # comments."""
    try:
        text = path.read_text()
    except OSError as error:
        raise EnrollmentError(f"the corrections file {str(path)!r} cannot be read: "
                              f"{error}") from None  # fmt: skip
    return [item for line in text.splitlines() for item in line.partition("#")[0].split()]


def _sureness(c: Candidate) -> str:
    if c.skipped:
        return "not a card"
    if c.card is None:
        return "no card?"  # proposed so (`Candidate.doubtful`): one corner, read too unsurely
    if c.confirmed:
        return "confirmed"
    return "unsure" if c.flagged else "sure"


def _unsure_line(enrollment: Enrollment) -> str:
    unsure = [str(c.number) for c in enrollment.candidates if c.flagged]
    return f"unsure: {' '.join(unsure)}" if unsure else "none unsure"


def _show(enrollment: Enrollment, names: list[str], every: bool = True) -> None:
    """One line a proposal: number, photo (number and file), card, sure or unsure, readings;
    not `every`: only those that are not sure proposals (unsure, confirmed, not a card)."""
    shown = [c for c in enrollment.candidates if every or _sureness(c) != "sure"]
    if not every:
        print(f"{_cards(len(enrollment.candidates))} proposed, "
              f"{len(enrollment.candidates) - len(shown)} of them sure"
              + (": the others" if shown else ""))  # fmt: skip
    if shown:
        print("  no  photo                 card  sure        model")
    for c in shown:
        print(_line(c, names))
    problems = enrollment.problems()
    for line in problems.errors():
        print(f"problem: {line}")
    for line in problems.notes():
        print(f"note: {line} (the tune learns the cards it is shown)")
    if problems.repeated:
        print(f"note: {_cards(len(problems.repeated))} in more than one photo: more examples")


def _photo(c: Candidate, names: list[str]) -> str:
    return f"{c.shot + 1} {names[c.shot]}" if c.shot < len(names) else str(c.shot + 1)


def _line(c: Candidate, names: list[str]) -> str:
    layout = f", layout {c.layout_card}" if c.layout_card else ""
    return (f"{c.number:4d}  {_photo(c, names)[:20]:20s}  {c.card or '-':4s}  "
            f"{_sureness(c):10s}  {c.model_card} {c.model_confidence:.0%}{layout}")  # fmt: skip


def _write_review(enrollment: Enrollment, names: list[str], path: Path, deck: str) -> Path:
    """The proposals as a corrections file (`--fixes`): ``N=CARD`` a line, an unsure one
    ``N=CARD?`` (a word only once changed), with its photo and likeliest names as a comment.
    A player without a terminal corrects by card name in it and runs again with it."""
    lines = [
        f"# cribcam enroll {deck}: {_cards(len(enrollment.candidates))} proposed from "
        f"{len(names)} photos (each boxed and numbered in photo-NN.jpg beside this file).",
        "# Write a card's right name after '=' (QH, 10S; '-' for not a card); an unsure one ends",
        "# in '?': remove the '?' once it is right. Then: cribcam enroll ... --fixes THIS_FILE",
    ]
    for c in enrollment.candidates:
        word = f"{c.number}={c.card or '-'}{'?' if c.flagged else ''}"
        likeliest = ", ".join(f"{card} {chance:.0%}" for card, chance in c.likeliest)
        lines.append(f"{word:9s} # photo {_photo(c, names)}: {_sureness(c)}"
                     + (f" (likeliest {likeliest})" if likeliest else ""))  # fmt: skip
    path.write_text("\n".join(lines) + "\n")
    return path


def _cards(count: int) -> str:
    return f"{count} card" if count == 1 else f"{count} cards"


def _ask(enrollment: Enrollment, names: list[str]) -> None:
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
        _show(enrollment, names)


def _draw(enrollment: Enrollment, photos: list[Photo], names: list[str], folder: Path,
          grid: Path | None) -> None:  # fmt: skip
    """Each photo with its proposals boxed and numbered (`photo-NN.jpg`) and the grid of their
    corners, in `folder` (the decks folder's `.enroll-NAME`; the grid at `grid` if given)."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("photo-*.jpg"):
        old.unlink()
    for k, (_, load) in enumerate(photos):
        cv2.imwrite(str(folder / f"photo-{k + 1:02d}.jpg"), boxed_photo(load(), [
            c for c in enrollment.candidates if c.shot == k]))  # fmt: skip
    grid = grid or folder / "corners.jpg"
    cv2.imwrite(str(grid), crop_grid(enrollment))
    print(f"each photo with its cards boxed and numbered: {folder}/photo-NN.jpg "
          f"({len(names)} photos); corner crops: {grid}")  # fmt: skip


def boxed_photo(image: Image, candidates: list[Candidate]) -> Image:
    """`image` with each candidate's whole card boxed and numbered (orange: unsure)."""
    out = image.copy()
    thick = max(2, round(max(out.shape[:2]) / 400))
    for c in candidates:
        x1, y1, x2, y2 = (round(v) for v in c.where)
        colour = (0, 140, 255) if c.flagged else (60, 180, 60)
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, thick, cv2.LINE_AA)
        label = f"{c.number} {c.card or '-'}"
        scale = thick * 0.35
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
        ty = max(th + 4, y1)
        cv2.rectangle(out, (x1, ty - th - 4), (x1 + tw + 4, ty), colour, -1)
        cv2.putText(out, label, (x1 + 2, ty - 2), cv2.FONT_HERSHEY_SIMPLEX, scale,
                    (255, 255, 255), thick, cv2.LINE_AA)  # fmt: skip
    return out


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

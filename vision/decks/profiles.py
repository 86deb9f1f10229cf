"""Deck profiles: a fine-tuned reading stage for one physical deck, kept beside the base model.

Layout (one folder per deck, the folder name is the deck name)::

    <models>/decks/                 # or the user data dir when <models> is read-only
        active                      # text: the name of the deck in use (absent: base model)
        <name>/profile.json         # name, created, base model hash, accuracy, crops list
        <name>/corner-reader.onnx   # the tuned reader (absent until a tune succeeds)
        <name>/crops/<CARD>/<id>.png  # confirmed index patches (enrolment and game corrections)

A profile is replaced whole: a tune writes a staging folder and `commit` swaps it in with two
renames, so a failed or cancelled tune leaves the previous profile exactly as it was.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
import platformdirs

from vision.detection.detections import CLASS_NAMES
from vision.detection.models import MODELS_DIR, PACKAGED_MODELS_DIR, READER_FILE
from vision.errors import VisionError

PROFILE_FILE = "profile.json"
ACTIVE_FILE = "active"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$")


class ProfileError(VisionError, ValueError):
    """A deck profile that does not exist, already exists, or has an unusable name."""


def default_root(models_dir: Path = MODELS_DIR) -> Path:
    """`<models>/decks` when that folder can be written (a checkout), else the user data dir.
    An installed wheel's models are never written beside: a reinstall would lose the decks."""
    if models_dir == PACKAGED_MODELS_DIR:
        return Path(platformdirs.user_data_dir("cribcam")) / "decks"
    root = models_dir / "decks"
    probe = root if root.exists() else models_dir
    if probe.exists() and os.access(probe, os.W_OK):
        return root
    return Path(platformdirs.user_data_dir("cribcam")) / "decks"


def file_hash(path: Path) -> str:
    """Short sha256 of a model file: ties a profile to the base model it was tuned from."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class Profile:
    """One stored deck: its folder and its JSON record."""

    folder: Path
    record: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.record["name"])

    @property
    def reader(self) -> Path:
        return self.folder / READER_FILE

    @property
    def tuned(self) -> bool:
        return self.reader.exists()

    def crops(self) -> list[dict[str, Any]]:
        return list(self.record.get("crops", []))


def write_patch(folder: Path, card: str, patch: npt.NDArray[np.uint8], source: str,
                record: dict[str, Any], held_out: bool = False) -> str:  # fmt: skip
    """Store one labelled index patch in a profile folder and list it in `record`."""
    if card not in CLASS_NAMES:
        raise ProfileError(f"{card!r} is not a card (AC..KS)")
    number = len(record.setdefault("crops", []))
    relative = f"crops/{card}/{source}-{number:04d}.png"
    (folder / relative).parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(folder / relative), patch):
        raise ProfileError(f"could not write {folder / relative}")
    record["crops"].append({"file": relative, "card": card, "source": source,
                            "held_out": held_out})  # fmt: skip
    return relative


class ProfileStore:
    """The deck profiles under one root folder."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root if root is not None else default_root()

    def names(self) -> list[str]:
        """The stored decks' names. A tune's staging folder and a replaced profile waiting to
        be removed (``.staging-*``, ``.retired-*``; left behind by a crash) hold a
        profile.json too, but their names are no deck's: they are not listed."""
        if not self.root.exists():
            return []
        return sorted(
            p.name for p in self.root.iterdir() if _usable(p.name) and (p / PROFILE_FILE).exists()
        )

    def get(self, name: str) -> Profile:
        folder = self.root / _checked(name)
        if not (folder / PROFILE_FILE).exists():
            known = ", ".join(self.names()) or "none"
            raise ProfileError(f"no deck profile named {name!r} (known: {known})")
        return Profile(folder, json.loads((folder / PROFILE_FILE).read_text()))

    def exists(self, name: str) -> bool:
        return (self.root / _checked(name) / PROFILE_FILE).exists()

    def staging(self, name: str, *, copy_current: bool) -> Path:
        """A fresh folder to build a new version of `name` in; `commit` swaps it in."""
        _checked(name)
        self.root.mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(prefix=f".staging-{name}-", dir=self.root))
        if copy_current and self.exists(name):
            shutil.copytree(self.root / name, folder, dirs_exist_ok=True)
        return folder

    def commit(self, staged: Path, record: dict[str, Any]) -> Profile:
        """Write the record and swap the staged folder in place of the current profile."""
        name = _checked(str(record["name"]))
        _write_json(staged / PROFILE_FILE, record)
        target = self.root / name
        retired = None
        if target.exists():
            retired = self.root / f".retired-{name}-{time.time_ns()}"
            target.rename(retired)
        staged.rename(target)
        if retired is not None:
            shutil.rmtree(retired, ignore_errors=True)
        return self.get(name)

    def discard(self, staged: Path) -> None:
        shutil.rmtree(staged, ignore_errors=True)

    def rename(self, old: str, new: str) -> Profile:
        profile = self.get(old)
        if self.exists(new):
            raise ProfileError(f"a deck profile named {new!r} already exists")
        was_active = self.active() == old
        record = dict(profile.record, name=_checked(new))
        _write_json(profile.folder / PROFILE_FILE, record)
        profile.folder.rename(self.root / new)
        if was_active:
            self.use(new)
        return self.get(new)

    def delete(self, name: str) -> None:
        profile = self.get(name)
        if self.active() == name:
            self.use(None)
        shutil.rmtree(profile.folder)

    def active(self) -> str | None:
        """The deck in use (None: the base model)."""
        path = self.root / ACTIVE_FILE
        name = path.read_text().strip() if path.is_file() else ""
        return name if name and self.exists(name) else None

    def use(self, name: str | None) -> None:
        """Choose the deck in use; None goes back to the base model."""
        path = self.root / ACTIVE_FILE
        if name is None:
            path.unlink(missing_ok=True)
            return
        self.get(name)
        self.root.mkdir(parents=True, exist_ok=True)
        path.write_text(name + "\n")

    def reader_for(self, name: str | None) -> Path | None:
        """The reader ONNX of a deck (None: the base model); an untuned deck is an error."""
        if name is None:
            return None
        profile = self.get(name)
        if not profile.tuned:
            raise ProfileError(f"deck {name!r} has not been tuned yet: run `cribcam deck tune`")
        return profile.reader

    def reader_in_use(self) -> Path | None:
        """The index reader the table reads with: the deck in use's tuned reader, None for the
        shipped one (no deck in use, or one not tuned). The teaching page and `cribcam enroll`
        both propose cards with it, so they propose the same cards from the same photos."""
        name = self.active()
        if name is None:
            return None
        profile = self.get(name)
        return profile.reader if profile.tuned else None

    def add_correction(self, name: str, patch: npt.NDArray[np.uint8], card: str) -> str:
        """Keep a card the player corrected during a game; the next re-tune folds it in."""
        profile = self.get(name)
        record = dict(profile.record)
        record["crops"] = profile.crops()
        relative = write_patch(profile.folder, card, patch, "game", record)
        _write_json(profile.folder / PROFILE_FILE, record)
        return relative


def _is_marker(name: str) -> bool:
    """The marker file's name, in any case: on a case-insensitive disk that folder is the file."""
    return name.casefold() == ACTIVE_FILE.casefold()


def _usable(name: str) -> bool:
    """Whether `name` can name a deck (its folder); names starting with '.' cannot."""
    return (bool(_NAME.match(name)) and name.strip() == name and name != "base"
            and not _is_marker(name))  # fmt: skip


def _checked(name: str) -> str:
    if _is_marker(name):
        raise ProfileError(f"{name!r} cannot name a deck: the decks folder keeps the name of "
                           f"the deck in use in a file called {ACTIVE_FILE!r}")  # fmt: skip
    if not _usable(name):
        raise ProfileError(
            f"bad deck name {name!r}: 1-64 letters, digits, spaces, '_', '.', '-' (not 'base')"
        )
    return name


def _write_json(path: Path, record: dict[str, Any]) -> None:
    """Write then rename, so a crash never leaves half a JSON file."""
    temporary = path.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(record, indent=1))
    temporary.replace(path)

"""Where cribcam keeps its files: the user's data directory, so games survive reinstalls."""

from __future__ import annotations

from pathlib import Path

import platformdirs


def data_dir() -> Path:
    """The per-user data directory (XDG_DATA_HOME/cribcam on Linux), created on demand."""
    path = Path(platformdirs.user_data_dir("cribcam", appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def default_db() -> Path:
    return data_dir() / "games.sqlite3"

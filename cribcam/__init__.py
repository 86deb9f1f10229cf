"""cribcam: a companion for a real cribbage table."""

from importlib.metadata import version

__version__ = version("cribcam")  # one place: pyproject.toml

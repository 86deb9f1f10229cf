"""Where a `next=` parameter may send the browser: a path of this site only, as the browser
itself would read it (it drops tabs and line breaks from a URL and reads a backslash as a
slash, so `/\t/evil.example` and `/\\evil.example` lead to another site)."""

from __future__ import annotations

_DROPPED = str.maketrans("", "", "\t\n\r")


def same_site_path(target: str | None, default: str = "/") -> str:
    """`target` when it is a path of this site after the browser's own clean-up, else `default`.

    >>> same_site_path("/games/3f9a?x=1"), same_site_path("/\\t/evil.example")
    ('/games/3f9a?x=1', '/')
    >>> same_site_path("/\\\\evil.example"), same_site_path("https://evil.example")
    ('/', '/')
    """
    if not target:
        return default
    cleaned = target.translate(_DROPPED).replace("\\", "/")
    if not cleaned.startswith("/") or cleaned.startswith("//"):
        return default
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in cleaned):
        return default  # no other control character belongs in a URL either
    return cleaned

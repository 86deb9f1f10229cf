"""Keeping the message catalogs: every message of the pages, their scripts, the refusals and
the spoken count, extracted from the code, and what each language's catalog lacks.

    python -m webui.languages.catalogs update   # translations/messages.pot from the code,
                                                # merged into every <code>.po (new messages
                                                # left to translate)
    python -m webui.languages.catalogs check    # exit 1, naming each message a catalog lacks
    python -m webui.languages.catalogs new de   # start translations/de.po for a new language

The markers are `t()`, `tn()`, `tc()` (Python and the page scripts), `_()`, `ngettext()`,
`pgettext()` (templates) and `_p(context, text)` (text marked where it is defined).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract
from babel.messages.pofile import read_po, write_po

from webui.languages.i18n import SOURCE, TRANSLATIONS

#: Where messages are: (folder, file pattern, extraction method). The folders are packages.
SOURCES = (
    ("webui", "*.py", "python"),
    ("webui", "*/*.py", "python"),  # the app's rooms (webui/games/, webui/languages/, ...)
    ("scorer", "spoken.py", "python"),
    ("scorer", "refusals.py", "python"),
    ("webui", "templates/*.html", "jinja2.ext:babel_extract"),
    ("webui", "static/*.js", "javascript"),
)
KEYWORDS = {
    "t": None,
    "tx": None,  # the page scripts' t() whose values may be elements
    "tc": ((1, "c"), 2),
    "tn": (1, 2),
    "_p": ((1, "c"), 2),
    "_": None,
    "gettext": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
}
TEMPLATE = TRANSLATIONS / "messages.pot"
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _root() -> Path:
    return Path(__file__).resolve().parents[2]


def extract_messages() -> Catalog:
    """Every message in the code, with where it is used."""
    catalog = Catalog(project="cribcam", fuzzy=False)
    root = _root()
    options = {"parse_template_string": "true"}  # JavaScript: t() inside `${...}`
    for folder, pattern, method in SOURCES:
        for path in sorted((root / folder).glob(pattern)):
            with path.open("rb") as file:
                for line, message, comments, context in extract(
                    method, file, keywords=KEYWORDS, options=options, strip_comment_tags=True
                ):
                    where = (path.relative_to(root).as_posix(), line)
                    catalog.add(message, None, [where], auto_comments=comments, context=context)
    return catalog


def _key(message: Message) -> tuple[str, str | None]:
    msgid = message.id[0] if isinstance(message.id, tuple | list) else message.id
    return str(msgid), message.context


def _keys(catalog: Catalog) -> set[tuple[str, str | None]]:
    return {_key(m) for m in catalog if m.id}


def read_catalog(path: Path) -> Catalog:
    with path.open("rb") as file:
        return read_po(file, locale=path.stem if path.suffix == ".po" else None)


def problems(catalog: Catalog, wanted: Catalog) -> list[str]:
    """What `catalog` lacks of `wanted`'s messages: each message missing, untranslated, fuzzy,
    with another set of placeholders or too few plural forms, in words."""
    found = {_key(m): m for m in catalog if m.id}
    said: list[str] = []
    for message in wanted:
        if not message.id:
            continue
        key = _key(message)
        name = repr(key[0]) + (f" (context {key[1]})" if key[1] else "")
        have = found.get(key)
        if have is None:
            said.append(f"missing: {name}")
            continue
        string = have.string
        forms = [str(f or "") for f in (string if isinstance(string, tuple | list) else [string])]
        if have.fuzzy or not all(forms):
            said.append(f"{'fuzzy' if have.fuzzy else 'untranslated'}: {name}")
            continue
        if isinstance(message.id, tuple | list) and len(forms) != catalog.num_plurals:
            said.append(f"{len(forms)} plural forms, not {catalog.num_plurals}: {name}")
        ids = [str(i) for i in (message.id if isinstance(message.id, tuple | list) else
                                [message.id])]  # fmt: skip
        expected = set().union(*(_PLACEHOLDER.findall(i) for i in ids)) - {"n"}
        for form in forms:
            if set(_PLACEHOLDER.findall(form)) - {"n"} != expected:
                said.append(f"placeholders {sorted(_PLACEHOLDER.findall(form))} "
                            f"not {sorted(expected)}: {name}")  # fmt: skip
    return said


def languages() -> Iterator[Path]:
    yield from sorted(TRANSLATIONS.glob("*.po"))


def _write(catalog: Catalog, path: Path) -> None:
    with path.open("wb") as file:
        write_po(file, catalog, width=100, sort_output=False, include_previous=False)


def update() -> None:
    """The template from the code, merged into every catalog."""
    template = extract_messages()
    _write(template, TEMPLATE)
    for path in languages():
        catalog = read_catalog(path)
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()  # a message the code no longer has is dropped
        _write(catalog, path)


def new(code: str) -> Path:
    """Start the catalog of language `code` from the template."""
    path = TRANSLATIONS / f"{code}.po"
    if code == SOURCE or path.exists():
        raise SystemExit(f"{path} exists (or {code} is the source language)")
    catalog = Catalog(locale=code, project="cribcam", fuzzy=False)
    catalog.update(extract_messages())
    _write(catalog, path)
    return path


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "check"
    if command == "update":
        update()
        return 0
    if command == "new" and len(argv) == 2:
        print(f"wrote {new(argv[1])}: translate every message, then `check`")
        return 0
    if command != "check":
        print(__doc__)
        return 2
    wanted, failed = extract_messages(), False
    for path in languages():
        for problem in problems(read_catalog(path), wanted):
            print(f"{path.name}: {problem}")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The page in the players' language: gettext catalogs, the language of each request, and the
page scripts' share of the same catalogs.

English is the source language: its text is the catalogs' message ids, in the code. Every other
language is one file, `webui/translations/<code>.po` (`da.po`, `ro.po`), read when the app
starts; adding a language is adding its file (`python -m webui.languages.catalogs new de`). A
request is answered in the language its device chose with the switch on the page (the
`cribcam-lang` cookie), else the first of the browser's languages (Accept-Language) that has a
catalog, else English.

Templates call `_()` / `ngettext()` / `pgettext()`; Python code `t()` / `tn()` / `tc()`; the page
scripts the same `t()` / `tn()` / `tc()` (static/i18n.js) over this catalog as JSON, served at
`/i18n/<code>.js`. Placeholders are `{name}` everywhere, and numbers filled in are written as
the language writes them.
"""

from __future__ import annotations

import gettext
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path
from typing import Any

from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import NullTranslations, Translations
from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    g,
    has_request_context,
    redirect,
    request,
)
from werkzeug.wrappers import Response as BaseResponse

from scorer.cards import parse_card, parse_cards
from scorer.show import Show, score_show
from webui.redirects import same_site_path

TRANSLATIONS = Path(__file__).parents[1] / "translations"
SOURCE = "en"
COOKIE = "cribcam-lang"
#: How long a device keeps its choice of language.
COOKIE_SECONDS = 365 * 24 * 3600
#: gettext's separator between a message's context and its id (also the scripts' key).
CONTEXT_SEPARATOR = "\x04"

i18n = Blueprint("i18n", __name__)


@dataclass(frozen=True)
class Language:
    """One language's catalog: gettext for the server, `messages` for the page's scripts."""

    code: str
    name: str  # in the language itself: "dansk"
    translations: NullTranslations = field(repr=False)
    plural: str  # gettext's Plural-Forms expression of n
    #: The plural form for each of the language's CLDR plural categories ("one", "few",
    #: "other"): the page picks a form through Intl.PluralRules, with no code to evaluate.
    plurals: Mapping[str, int] = field(repr=False)
    messages: Mapping[str, str | list[str]] = field(repr=False)

    def t(self, message: str, **values: Any) -> str:
        """`message` in this language, `{placeholders}` filled."""
        return self.fill(self.translations.gettext(message), values)

    def tc(self, context: str, message: str, **values: Any) -> str:
        return self.fill(self.words(context, message), values)

    def tn(self, singular: str, plural: str, n: int, **values: Any) -> str:
        """The form for `n` (which fills `{n}`)."""
        return self.fill(self.translations.ngettext(singular, plural, n), {"n": n, **values})

    def words(self, context: str, message: str) -> str:
        """The raw template (placeholders unfilled): `scorer.spoken`'s words."""
        return str(self.translations.pgettext(context, message))

    def number(self, value: float) -> str:
        """A number as the language writes it (the decimal comma in Danish and Romanian)."""
        try:
            return str(format_decimal(value, locale=self.code))
        except (ArithmeticError, ValueError):  # beyond what a locale's format holds
            return str(value)

    def fill(self, text: str, values: Mapping[str, Any]) -> str:
        numbers = {
            k: self.number(v) if isinstance(v, int | float) and not isinstance(v, bool) else v
            for k, v in values.items()
        }
        return text.format(**numbers)

    @property
    def script(self) -> str:
        """The catalog as the page's scripts load it."""
        data = {
            "lang": self.code,
            "plural": self.plural,
            "plurals": self.plurals,
            "messages": self.messages,
        }
        return f"window.CRIBCAM_CATALOG = {json.dumps(data, ensure_ascii=False)};\n"

    @property
    def version(self) -> str:
        """A short hash of the catalog: its URL changes when it does, so browsers may cache it."""
        return hashlib.sha256(self.script.encode()).hexdigest()[:12]


def english() -> Language:
    plurals = plural_forms(SOURCE, "(n != 1)")
    return Language(SOURCE, "English", NullTranslations(), "(n != 1)", plurals, {})


def plural_forms(code: str, expression: str) -> dict[str, int]:
    """Which of a catalog's plural forms (its gettext expression) each CLDR plural category
    of the language takes; a ValueError where the two disagree (a wrong Plural-Forms header).

    >>> plural_forms("ro", "(n == 1 ? 0 : n == 0 || n % 100 >= 1 && n % 100 <= 19 ? 1 : 2)")
    {'few': 1, 'one': 0, 'other': 2}
    """
    form = gettext.c2py(expression)
    category = Locale.parse(code).plural_form
    found: dict[str, int] = {}
    for n in range(1000):  # the rules repeat within a thousand
        if found.setdefault(category(n), form(n)) != form(n):
            raise ValueError(f"{code}: Plural-Forms {expression!r} disagree with CLDR at n={n}")
    return dict(sorted(found.items()))


def load_language(path: Path) -> Language:
    """A catalog file `<code>.po`; fuzzy and empty translations are left out (English shows)."""
    code = path.stem
    with path.open("rb") as file:
        catalog = read_po(file, locale=code)
    compiled = BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    messages: dict[str, str | list[str]] = {}
    for message in catalog:
        if not message.id or message.fuzzy:
            continue
        msgid = message.id[0] if isinstance(message.id, tuple | list) else message.id
        key = f"{message.context}{CONTEXT_SEPARATOR}{msgid}" if message.context else msgid
        if isinstance(message.string, tuple | list):
            if all(message.string):
                messages[key] = list(message.string)
        elif message.string:
            messages[key] = message.string
    name = Locale.parse(code).get_display_name(code) or code
    plurals = plural_forms(code, catalog.plural_expr)
    return Language(code, name, Translations(compiled), catalog.plural_expr, plurals, messages)


def load_languages(directory: Path = TRANSLATIONS) -> dict[str, Language]:
    """English, then every catalog in `directory`, by code."""
    languages = {SOURCE: english()}
    for path in sorted(directory.glob("*.po")):
        languages[path.stem] = load_language(path)
    return languages


def choose(codes: Iterable[str], cookie: str | None, accepted: Iterable[str]) -> str:
    """The device's choice if it is a language here, else the browser's first language that
    is (by its main tag: da-DK is da), else English.

    >>> choose(["en", "da", "ro"], None, ["de-DE", "da-DK", "en"])
    'da'
    >>> choose(["en", "da", "ro"], "ro", ["da"]), choose(["en", "da"], "xx", ["fr"])
    ('ro', 'en')
    """
    known = set(codes)
    if cookie in known:
        return str(cookie)
    for value in accepted:
        code = value.split("-")[0].split("_")[0].lower()
        if code in known:
            return code
    return SOURCE


def languages() -> dict[str, Language]:
    found: dict[str, Language] = current_app.extensions["cribcam.languages"]
    return found


def language() -> Language:
    """The language this request is answered in (English outside a request, as in the server
    camera's thread)."""
    if not has_request_context():
        return english()
    chosen: Language | None = g.get("cribcam_language")
    if chosen is None:
        every = languages()
        accepted = [value for value, _ in request.accept_languages]
        chosen = g.cribcam_language = every[choose(every, request.cookies.get(COOKIE), accepted)]
    return chosen


def spoken(show: Show) -> str:
    """A show's count as said at the table, in this request's language."""
    return show.spoken(language().words)


def with_spoken(view: dict[str, Any]) -> dict[str, Any]:
    """A game's view with each show's `spoken` count in this request's language. Views are
    made once in English and shared by every reader (`webui.games.view_cache`): this is a copy."""
    chosen = language()
    if chosen.code == SOURCE or not view.get("shows"):
        return view
    shows = [
        {**show, "spoken": score_show(parse_cards(show["hand"]), parse_card(show["starter"]),
                                      crib=show["crib"]).spoken(chosen.words)}
        for show in view["shows"]
    ]  # fmt: skip
    return {**view, "shows": shows}


def t(message: str, **values: Any) -> str:
    return language().t(message, **values)


def tc(context: str, message: str, **values: Any) -> str:
    return language().tc(context, message, **values)


def tn(singular: str, plural: str, n: int, **values: Any) -> str:
    return language().tn(singular, plural, n, **values)


@i18n.get("/i18n/<code>.js")
def catalog(code: str) -> Response:
    """A language's catalog for the page's scripts (static/i18n.js reads it)."""
    found = languages().get(code)
    if found is None:
        return Response("/* no such language */\n", 404, mimetype="text/javascript")
    response = Response(found.script, mimetype="text/javascript")
    response.cache_control.public = True
    response.cache_control.max_age = 24 * 3600  # the page asks with ?v=<version>
    return response


@i18n.get("/language/<code>")
def switch(code: str) -> BaseResponse:
    """The switch on the page: keep `code` on this device and go back to the page."""
    response = redirect(same_site_path(request.args.get("next")))
    if code in languages():
        response.set_cookie(COOKIE, code, max_age=COOKIE_SECONDS, samesite="Lax")
    return response


def install(app: Flask, directory: Path = TRANSLATIONS) -> None:
    """Load the catalogs; give the templates `_()`, `ngettext()`, `pgettext()` and `lang`."""
    app.extensions["cribcam.languages"] = load_languages(directory)
    app.jinja_env.add_extension("jinja2.ext.i18n")
    app.jinja_env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=t, ngettext=tn, pgettext=tc, newstyle=False
    )

    @app.context_processor
    def the_language() -> dict[str, Any]:
        return {"lang": language(), "languages": languages()}

    app.register_blueprint(i18n)

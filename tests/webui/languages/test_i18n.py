"""The page in the players' language: every catalog holds every message, the spoken count of a
fixed set of hands reads right in each language (written out here by hand), refusals come in
the language, the API's codes and numbers do not change with it, and a fourth language is one
catalog file."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po
from flask.testing import FlaskClient

from scorer.cards import parse_card, parse_cards
from scorer.errors import GameError, phrase
from scorer.show import score_show
from tests.webui.conftest import HANDS, Act, play_to_pegging
from webui import create_app
from webui.languages.catalogs import TEMPLATE, extract_messages, problems, read_catalog
from webui.languages.i18n import COOKIE, SOURCE, TRANSLATIONS, Language, choose, load_languages
from webui.languages.refusals import in_language

LANGUAGES = load_languages()
CATALOGS = sorted(TRANSLATIONS.glob("*.po"))


# -- the catalogs -----------------------------------------------------------------------------
def test_there_are_catalogs_for_danish_and_romanian() -> None:
    assert [path.stem for path in CATALOGS] == ["da", "ro"]
    assert list(LANGUAGES) == [SOURCE, "da", "ro"]


@pytest.mark.parametrize("path", CATALOGS, ids=lambda path: path.stem)
def test_every_catalog_has_every_message(path: Path) -> None:
    """Each message of the code (pages, scripts, refusals, the spoken count) is translated,
    not fuzzy, with the same placeholders and as many plural forms as the language has."""
    wanted = extract_messages()
    assert len(wanted) > 400  # the extraction found the code's messages
    assert problems(read_catalog(path), wanted) == []


def test_a_missing_message_fails_the_check() -> None:
    """The check above can fail: a catalog lacking a message, or one left untranslated, fuzzy
    or with other placeholders, is reported."""
    wanted = extract_messages()
    catalog = read_catalog(TRANSLATIONS / "da.po")
    del catalog["Undo"]
    catalog.get("Who deals first?").string = ""  # type: ignore[union-attr]
    catalog.get("Game over").flags.add("fuzzy")  # type: ignore[union-attr]
    catalog.get("{name} deals").string = "{navn} giver"  # type: ignore[union-attr]
    assert sorted(problems(catalog, wanted)) == [
        "fuzzy: 'Game over'",
        "missing: 'Undo'",
        "placeholders ['navn'] not ['name']: '{name} deals'",
        "untranslated: 'Who deals first?'",
    ]


def test_the_template_holds_the_code_s_messages() -> None:
    """translations/messages.pot is what `python -m webui.languages.catalogs update` makes of the
    code: a translator starting a language from it sees every message."""
    keys = lambda catalog: {(m.context, str(m.id)) for m in catalog if m.id}  # noqa: E731
    assert keys(read_catalog(TEMPLATE)) == keys(extract_messages())


# -- the spoken count -------------------------------------------------------------------------
#: Hand, starter, crib?, and the count as said in English, Danish and Romanian.
SPOKEN = [
    ("7H 8C 8D AS", "KD", False,
     "fifteen two, fifteen four, and a pair is six",
     "femten to, femten fire og et par er seks",
     "cincisprezece doi, cincisprezece patru și o pereche fac șase"),
    ("3H 3D 4S 5C", "KD", False,
     "fifteen two, fifteen four, a pair is six, a run of three is nine, "
     "and another run of three is twelve",
     "femten to, femten fire, et par er seks, et løb på tre er ni og endnu et løb på tre er tolv",
     "cincisprezece doi, cincisprezece patru, o pereche fac șase, o serie de trei fac nouă "
     "și încă o serie de trei fac doisprezece"),
    ("KH KD 5S 5C", "2D", False,
     "fifteen two, fifteen four, fifteen six, fifteen eight, a pair is ten, "
     "and another pair is twelve",
     "femten to, femten fire, femten seks, femten otte, et par er ti og endnu et par er tolv",
     "cincisprezece doi, cincisprezece patru, cincisprezece șase, cincisprezece opt, "
     "o pereche fac zece și încă o pereche fac doisprezece"),
    ("6C 6D 6H 9S", "3C", False,
     "fifteen two, fifteen four, fifteen six, fifteen eight, fifteen ten, fifteen twelve, "
     "and a pair royal is eighteen",
     "femten to, femten fire, femten seks, femten otte, femten ti, femten tolv og tre ens er atten",
     "cincisprezece doi, cincisprezece patru, cincisprezece șase, cincisprezece opt, "
     "cincisprezece zece, cincisprezece doisprezece și trei de un fel fac optsprezece"),
    ("AH 2H 3H JD", "4D", False,
     "fifteen two, fifteen four, a run of four is eight, and one for his nobs is nine",
     "femten to, femten fire, et løb på fire er otte og en til hans nob er ni",
     "cincisprezece doi, cincisprezece patru, o serie de patru fac opt "
     "și unul pentru nob-ul lui fac nouă"),
    ("JH 2H 4H 9H", "AH", False,
     "fifteen two, fifteen four, a flush of five is nine, and one for his nobs is ten",
     "femten to, femten fire, en flush på fem er ni og en til hans nob er ti",
     "cincisprezece doi, cincisprezece patru, o culoare de cinci fac nouă "
     "și unul pentru nob-ul lui fac zece"),
    ("2H 4H 6H 8H", "KS", False,
     "a flush of four is four", "en flush på fire er fire", "o culoare de patru fac patru"),
    ("9H QD KH 8S", "5S", True,
     "fifteen two, and fifteen four", "femten to og femten fire",
     "cincisprezece doi și cincisprezece patru"),
    ("5H 5D 5S JC", "5C", False,
     "fifteen two, fifteen four, fifteen six, fifteen eight, fifteen ten, fifteen twelve, "
     "fifteen fourteen, fifteen sixteen, a double pair royal is twenty-eight, "
     "and one for his nobs is twenty-nine",
     "femten to, femten fire, femten seks, femten otte, femten ti, femten tolv, femten fjorten, "
     "femten seksten, fire ens er otteogtyve og en til hans nob er niogtyve",
     "cincisprezece doi, cincisprezece patru, cincisprezece șase, cincisprezece opt, "
     "cincisprezece zece, cincisprezece doisprezece, cincisprezece paisprezece, "
     "cincisprezece șaisprezece, patru de un fel fac douăzeci și opt "
     "și unul pentru nob-ul lui fac douăzeci și nouă"),
    ("2C 4D 6S 8H", "KC", False,
     "nineteen (no points)", "nitten (ingen point)", "nouăsprezece (niciun punct)"),
]  # fmt: skip


@pytest.mark.parametrize(("hand", "starter", "crib", "en", "da", "ro"), SPOKEN)
def test_spoken_counts_read_right_in_each_language(
    hand: str, starter: str, crib: bool, en: str, da: str, ro: str
) -> None:
    show = score_show(parse_cards(hand.split()), parse_card(starter), crib=crib)
    said = {code: show.spoken(LANGUAGES[code].words) for code in ("en", "da", "ro")}
    assert said == {"en": en, "da": da, "ro": ro}
    assert show.spoken() == en  # the engine's own words are the English


def show_the_first_hand(client: FlaskClient, new_game: Callable[..., str], act: Act) -> str:
    """A game (Ann, Bob; Bob deals) with the known deal played out and Ann's hand counted."""
    game_id = new_game(first_dealer=1, names=["Ann", "Bob"])
    play_to_pegging(act, game_id)
    game = client.get(f"/api/games/{game_id}").json
    assert game is not None
    while game["phase"] == "play":  # each lays the first card that fits, else says go
        held = [c for c in HANDS[game["turn"]] if c not in ("9H", "QD", "KH", "8S")]
        played = {step["card"] for step in game["play"]}
        card = next((c for c in held if c not in played
                     and parse_card(c).value + game["count"] <= 31), None)  # fmt: skip
        game = act(game_id, **({"kind": "play", "card": card} if card else {"kind": "go"}))
    client.set_cookie(COOKIE, "da")
    shown = act(game_id, kind="show")["show"]
    assert shown["hand"] == ["5H", "5D", "JC", "6S"]
    assert shown["spoken"] == (
        "femten to, femten fire, femten seks, femten otte og tre ens er fjorten"
    )
    return game_id


def test_the_api_s_spoken_count_follows_the_device_s_language(
    client: FlaskClient, new_game: Callable[..., str], act: Act
) -> None:
    game_id = show_the_first_hand(client, new_game, act)
    spoken = {code: _get(client, f"/api/games/{game_id}", code)["shows"][0]["spoken"]
              for code in ("en", "ro")}  # fmt: skip
    assert spoken == {
        "en": "fifteen two, fifteen four, fifteen six, fifteen eight, "
              "and a pair royal is fourteen",
        "ro": "cincisprezece doi, cincisprezece patru, cincisprezece șase, cincisprezece opt "
              "și trei de un fel fac paisprezece",
    }  # fmt: skip


# -- the API ----------------------------------------------------------------------------------
def _get(client: FlaskClient, path: str, language: str) -> Any:
    client.set_cookie(COOKIE, language)
    return client.get(path).json


def _without_spoken(view: Any) -> Any:
    return {**view, "shows": [{k: v for k, v in s.items() if k != "spoken"} for s in view["shows"]]}


def test_the_api_stays_language_neutral(
    client: FlaskClient, new_game: Callable[..., str], act: Act
) -> None:
    """Codes and numbers are the same in every language; only the spoken count differs."""
    game_id = show_the_first_hand(client, new_game, act)
    views = {code: _get(client, f"/api/games/{game_id}", code) for code in LANGUAGES}
    assert views["da"]["shows"][0]["spoken"] != views["en"]["shows"][0]["spoken"]
    neutral = {code: _without_spoken(view) for code, view in views.items()}
    assert neutral["da"] == neutral["en"] == neutral["ro"]
    tables = {code: _get(client, f"/api/games/{game_id}/table", code) for code in LANGUAGES}
    assert tables["da"] == tables["en"] == tables["ro"]


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "deal 1: Bob cannot play 7♣: it is Ann's turn"),
        ("da", "giv 1: Bob kan ikke spille 7♣: Ann er i tur"),
        ("ro", "împărțirea 1: Bob nu poate juca 7♣: este rândul lui Ann"),
    ],
)
def test_a_refused_play_is_said_in_the_language(
    client: FlaskClient, new_game: Callable[..., str], act: Act, language: str, expected: str
) -> None:
    game_id = new_game(first_dealer=1, names=["Ann", "Bob"])
    play_to_pegging(act, game_id)
    client.set_cookie(COOKIE, language)
    turn = {"seat": 1, "action": {"code": "play_card", "values": {"card": "7C"}}, "turn": 0}
    assert act(game_id, 409, kind="play", seat=1, card="7C") == {
        "error": expected,
        "code": "in_deal",
        "values": {"number": 1, "message": {"code": "not_your_turn", "values": turn}},
    }


def deal(number: int, code: str, **values: Any) -> GameError:
    return GameError("in_deal", number=number, message=phrase(code, **values))


@pytest.mark.parametrize(
    ("error", "english", "da"),
    [
        (deal(2, "renege", seat=0, cards=["5H", "5D"], count=21),
         "deal 2: seat 0 says go but can play 5H 5D on 21 (a renege)",
         "giv 2: Ann siger go, men kan spille 5♥ 5♦ på 21 (en renonce)"),
        (deal(1, "past_31", card="9C", count=25, limit=31),
         "deal 1: 9C would take the count from 25 past 31",
         "giv 1: 9♣ ville bringe tællingen fra 25 over 31"),
        (GameError("wrong_phase", action=phrase("turn_starter"), phase="play"),
         "cannot turn the starter now: the game is at the play phase",
         "kan ikke vende starteren nu: partiet er i fasen “spillet”"),
        (deal(3, "not_their_count", owner=1, what="crib", seat=0),
         "deal 3: it is seat 1's crib to count, not seat 0's",
         "giv 3: det er Bobs krybbe, der skal tælles, ikke Anns"),
        (GameError("not_a_seat", seat=7, players=2), "seat 7 is not a seat of 2 players",
         "plads 7 er ikke en plads ved 2 spillere"),
        # a saved game that does not load: said in the language too, now that it has a code
        (GameError("in_saved_action", number=3, value="'x'", message=phrase("not_dealt", seat=1,
                                                                             card="7C")),
         "action 3 'x': seat 1 was not dealt 7C", "handling 3 'x': Bob fik ikke 7♣"),
        # a word the catalogs do not have (an action kind no game knows) stays as given
        (GameError("moot_not_muggins", kind="fly"),
         "only a muggins call can be moot, not a fly",
         "kun et muggins-kald kan være uden betydning, ikke fly"),
    ],
)  # fmt: skip
def test_refusals_in_danish(error: GameError, english: str, da: str) -> None:
    assert str(error) == english
    assert in_language(error.code, error.values, ["Ann", "Bob"], LANGUAGES["da"]) == da


def test_a_refusal_away_from_a_table_keeps_its_card_codes(client: FlaskClient) -> None:
    client.set_cookie(COOKIE, "da")
    response = client.post("/api/score", json={"hand": ["5H", "5H", "6C", "7D"], "starter": "8S"})
    assert response.json == {
        "error": "5H optræder to gange",
        "code": "duplicate_card",
        "values": {"card": "5H"},
    }


# -- choosing the language ----------------------------------------------------------------------
def test_the_browser_s_language_then_the_switch_chooses(client: FlaskClient) -> None:
    english = client.get("/", headers={"Accept-Language": "fr-FR,fr;q=0.9"})
    assert '<html lang="en">' in english.get_data(as_text=True)
    danish = client.get("/", headers={"Accept-Language": "de-DE,da-DK;q=0.8"}).get_data(
        as_text=True
    )
    assert '<html lang="da">' in danish and "Nyt parti" in danish and "New game" not in danish
    switched = client.get("/language/ro?next=/games/x")
    assert switched.status_code == 302 and switched.headers["Location"] == "/games/x"
    assert client.get_cookie(COOKIE) is not None
    kept = client.get("/", headers={"Accept-Language": "da-DK"}).get_data(as_text=True)
    assert '<html lang="ro">' in kept and "Partidă nouă" in kept  # the device's choice wins
    assert client.get("/language/ro?next=//evil.example").headers["Location"] == "/"


def test_choose() -> None:
    assert choose(["en", "da"], None, []) == "en"
    assert choose(["en", "da"], "da", ["en-GB"]) == "da"
    assert choose(["en", "da", "ro"], "sv", ["ro_RO", "da"]) == "ro"


def test_the_scripts_catalog_is_served_with_its_plural_forms(client: FlaskClient) -> None:
    script = client.get("/i18n/ro.js").get_data(as_text=True)
    assert script.startswith("window.CRIBCAM_CATALOG = ")
    assert '"plurals": {"few": 1, "one": 0, "other": 2}' in script  # Intl.PluralRules → form
    assert '"Undo": "Anulează"' in script and '"item\\u0004pair": "pereche"' in script
    assert client.get("/i18n/xx.js").status_code == 404


def test_numbers_in_the_language_s_format() -> None:
    assert (
        LANGUAGES["da"].tc("error", "the upload is too large: the limit is {size} MiB", size=7.5)
        == "filen er for stor: grænsen er 7,5 MiB"
    )
    assert LANGUAGES["ro"].number(1234.5) == "1.234,5"
    assert LANGUAGES["en"].number(1234.5) == "1,234.5"


def test_a_fourth_language_is_one_catalog_file(tmp_path: Path, db_path: Path) -> None:
    """A Swedish catalog dropped beside the others is offered, chosen and served."""
    for path in CATALOGS:
        shutil.copy(path, tmp_path / path.name)
    swedish = Catalog(locale="sv")
    for message in read_catalog(TRANSLATIONS / "da.po"):
        if message.id:  # Danish standing in for Swedish: only the file matters here
            swedish.add(message.id, message.string, context=message.context)
    swedish["Undo"].string = "Ångra"  # type: ignore[union-attr]
    with (tmp_path / "sv.po").open("wb") as file:
        write_po(file, swedish)
    app = create_app({"TESTING": True, "DATABASE": db_path, "TRANSLATIONS": tmp_path})
    client = app.test_client()
    page = client.get("/", headers={"Accept-Language": "sv-SE"}).get_data(as_text=True)
    assert '<html lang="sv">' in page and 'hreflang="sv"' in page
    assert '"Undo": "Ångra"' in client.get("/i18n/sv.js").get_data(as_text=True)
    languages: dict[str, Language] = app.extensions["cribcam.languages"]
    assert list(languages) == ["en", "da", "ro", "sv"]

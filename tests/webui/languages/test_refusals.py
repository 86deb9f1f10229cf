"""Refusals are said from their code and values: every code the engine or the API can raise has
one template, translated in every catalog (a new refusal without a translation fails here), and
the API answers each with its sentence in the request's language beside its code and values."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Catalog
from flask.testing import FlaskClient

from scorer.errors import Value, slots
from scorer.refusals import REFUSALS
from tests.webui.conftest import Act, play_to_pegging
from webui.languages.catalogs import read_catalog
from webui.languages.i18n import COOKIE, TRANSLATIONS, english, load_languages
from webui.languages.refusals import API_REFUSALS, KINDS, TEMPLATES, in_language

ROOT = Path(__file__).resolve().parents[3]
CATALOGS = sorted(TRANSLATIONS.glob("*.po"))
LANGUAGES = load_languages()
_PLACEHOLDER = re.compile(r"(?<!\{)\{(\w+)\}")


def untranslated(catalog: Catalog) -> list[str]:
    """The refusal codes whose template `catalog` lacks, leaves empty or fuzzy, or translates
    with other slots."""
    lacking = []
    for code, template in TEMPLATES.items():
        message = catalog.get(template, context="error")
        said = "" if message is None or message.fuzzy else str(message.string or "")
        if not said or set(_PLACEHOLDER.findall(said)) != slots(template):
            lacking.append(code)
    return lacking


def test_each_code_has_one_template_whose_slots_are_known() -> None:
    assert set(REFUSALS).isdisjoint(API_REFUSALS)
    assert {code for code, t in TEMPLATES.items() if not slots(t) <= set(KINDS)} == set()


@pytest.mark.parametrize("path", CATALOGS, ids=lambda path: path.stem)
def test_every_refusal_is_translated_in_every_catalog(path: Path) -> None:
    assert len(TEMPLATES) > 120
    assert untranslated(read_catalog(path)) == []


def test_a_refusal_without_a_translation_is_found() -> None:
    catalog = read_catalog(TRANSLATIONS / "da.po")
    catalog.delete(REFUSALS["renege"], context="error")
    catalog.get(API_REFUSALS["no_game"], context="error").string = ""  # type: ignore[union-attr]
    wrong = catalog.get(REFUSALS["not_your_turn"], context="error")
    wrong.string = "{seat} kan ikke {action}: {seat2} er i tur"  # type: ignore[union-attr]
    assert sorted(untranslated(catalog)) == ["no_game", "not_your_turn", "renege"]


#: Calls whose first argument is a refusal's code: an API refusal (`ApiError.coded`), a
#: field's refusal by its schema (`webui.contract.fields.refused`, `refused_as`, pydantic's).
RAISERS = {"coded", "refused", "refused_as", "PydanticCustomError"}


def _coded(path: Path) -> set[str]:
    """The codes `path` raises API refusals with, ``SomeError.coded("code", ...)``, and those a
    schema's refusals map to (`webui.contract.routes`' table of pydantic's error types)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and _called(node.func) in RAISERS and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant):
                found.add(str(first.value))
            else:  # only the contract forwards the code a field's own schema refused with
                assert path.parent.name == "contract", f"{path.name}: a code written out"
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "_TYPE_CODES":
            found.update(str(v.value) for v in node.value.values)  # type: ignore[attr-defined]
    return found


def _called(func: ast.expr) -> str:
    return getattr(func, "attr", "") or getattr(func, "id", "")


def test_every_code_the_api_raises_has_a_template_and_every_template_is_raised() -> None:
    raised = set().union(*(_coded(path) for path in sorted((ROOT / "webui").glob("**/*.py"))))
    assert raised - set(TEMPLATES) == set()
    assert set(API_REFUSALS) - raised == set()


def test_the_codes_a_page_words_itself_are_worded_there() -> None:
    """An upload refused and the tune the server cannot run: the teach page says them."""
    script = (ROOT / "webui" / "static" / "enroll.js").read_text()
    for code in ("not_an_image", "damaged_image", "no_train_extra"):
        assert f'"{code}"' in script


def test_a_slot_is_said_as_its_kind_says() -> None:
    """A seat that is no seat by its number, cards as written away from a table, a number as
    the language writes it, a word of the catalogs by its own translation."""
    da, ro = LANGUAGES["da"], LANGUAGES["ro"]
    assert in_language("not_a_seat", {"seat": 7, "players": 2}, ["Ann", "Bob"], da) == (
        "plads 7 er ikke en plads ved 2 spillere"
    )
    assert in_language("tied_cut", {"cards": ["10H", "10S"]}, None, da) == (
        "lige om laveste kort (10H 10S): træk igen"
    )
    assert in_language("too_large", {"size": 7.5}, None, ro) == (
        "fișierul este prea mare: limita este de 7,5 MiB"
    )
    wrong_phase: dict[str, Value] = {"action": {"code": "say_go", "values": {}}, "phase": "show"}
    assert in_language("wrong_phase", wrong_phase, None, english()) == (
        "cannot say go now: the game is at the show phase"
    )
    assert in_language("wrong_phase", wrong_phase, None, da) == (
        "kan ikke sige go nu: partiet er i fasen “visningen”"
    )


# -- the API's answer ------------------------------------------------------------------------
def _game_at_play(client: FlaskClient, new_game: Callable[..., str], act: Act) -> str:
    game_id = new_game(first_dealer=1, names=["Ann", "Bob"])
    play_to_pegging(act, game_id)
    return game_id


#: Each: a request refused (given the client and a game at the play), its status, code, values.
REFUSED: list[tuple[Callable[[FlaskClient, str], Any], int, str, dict[str, Any]]] = [
    (lambda c, g: c.post(f"/api/games/{g}/actions", json={"kind": "go", "seat": 0}), 409,
     "in_deal", {"number": 1, "message": {"code": "renege", "values": {
         "seat": 0, "cards": ["5H", "5D", "JC", "6S"], "count": 0}}}),
    (lambda c, g: c.post(f"/api/games/{g}/actions", json={"kind": "discard", "seat": 0,
                                                          "cards": ["9H", "QD"]}), 409,
     "wrong_phase", {"action": {"code": "discard", "values": {}}, "phase": "play"}),
    (lambda c, g: c.post(f"/api/games/{g}/actions", json={"kind": "correct", "seat": 9,
                                                          "points": 2}), 409,
     "not_a_seat", {"seat": 9, "players": 2}),
    (lambda c, g: c.get("/api/games/nope"), 404, "no_game", {"text": "'nope'"}),
    (lambda c, g: c.post(f"/api/games/{g}/next"), 409, "game_not_over", {}),
    (lambda c, g: c.put(f"/api/games/{g}/settings", json={"players": 3}), 409, "players_fixed",
     {}),
    (lambda c, g: c.put(f"/api/games/{g}/names", json=["Ann"]), 400, "names_count",
     {"players": 2, "text": "['Ann']"}),
    (lambda c, g: c.post(f"/api/games/{g}/table/answer", json={"key": "play:0:5H"}), 409,
     "question_moved_on", {"text": "'play:0:5H'"}),
    (lambda c, g: c.get("/api/no/such/thing"), 404, "no_such_page", {}),
    (lambda c, g: c.post("/api/score", json={"hand": ["5H", "5D"], "starter": "5C"}), 400,
     "hand_size", {"given": 2, "cards": ["5H", "5D"]}),
]  # fmt: skip


@pytest.mark.parametrize("language", ["en", "da", "ro"])
@pytest.mark.parametrize(("request_", "status", "code", "values"), REFUSED)
def test_the_api_answers_a_refusal_with_its_code_values_and_sentence_in_the_language(
    client: FlaskClient,
    new_game: Callable[..., str],
    act: Act,
    language: str,
    request_: Callable[[FlaskClient, str], Any],
    status: int,
    code: str,
    values: dict[str, Any],
) -> None:
    game_id = _game_at_play(client, new_game, act)
    client.set_cookie(COOKIE, language)
    response = request_(client, game_id)
    at_table = response.request.path.startswith(f"/api/games/{game_id}/")
    names = ["Ann", "Bob"] if at_table else None
    said = in_language(code, values, names, LANGUAGES[language])
    assert response.status_code == status
    assert response.json == {"error": said, "code": code, "values": values}

"""Table mode from wherever the phone stands (issue #59): Chromium's fake camera plays a
4-player deal seen from a phone propped at the table's edge or at a corner (720p, a deck kept
out of training), the page posts its frames, the shipped models read them on the table's own
plane, the seats are learnt from the game and shown over the picture, and the deal is followed
to the crib with every score as entered by hand; the players' taps are counted."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright import sync_api

from cribtrain.data.clips import write_y4m
from cribtrain.data.deal_clips import DealScript, deal_clip
from cribtrain.data.poses import FRAME_SIZES, POSES, view
from cribtrain.data.synth import load_decks
from cribtrain.measure.table_mode import FORM_TAPS, by_hand, truth_by_key
from tests.webui.test_browser_table_mode import HELD_OUT, HOLD, stuck, table_page
from tests.webui.test_serve import Server

pytestmark = pytest.mark.slow  # a real browser on a whole 4-player deal: minutes

#: Partners face each other (bottom and top, left and right); right deals, bottom leads.
FOUR = DealScript.of(
    ("bottom", "left", "top", "right"), 3,
    {"bottom": ["5H", "9C", "KD", "2S"], "left": ["6D", "10H", "3C", "QS"],
     "top": ["7S", "JC", "4H", "AD"], "right": ["8D", "QH", "9S", "3D"]},
    ["2H", "7C", "KS", "4C"], "5C",
)  # fmt: skip
NAMES = ["Ann", "Bob", "Cy", "Di"]
#: Frames a second the fake camera plays: each table state held 6 s, as a 4-player table read
#: on the plane takes up to 2 s a frame on a loaded 2-core machine (each state is seen twice).
FPS = 2
#: The crib lies 18 s before the table is cleared, as players count it: the page reads a frame
#: every second or two, and the hand turning the crib up hides it at first.
CRIB_HOLD = 3 * HOLD
#: Taps a 4-player deal may take: who deals, and a question or two the camera cannot settle.
MOST_TAPS = 4


def answer(page: sync_api.Page, server: Server, game_id: str) -> int:
    """Answer the open question with the deal's truth, as the players would: its button, or
    (not offered) the form's taps, sent as the form sends them. The taps not on the page."""
    question = server.call("GET", f"/api/games/{game_id}/table")[1]["question"]
    if question is None:  # answered or gone since the page showed it
        return 0
    key = question["key"]
    truth = [str(c) for c in truth_by_key(FOUR)[key]]
    options = [set(o["cards"]) for o in question["options"]]
    node = page.locator(f".question[data-key='{key}']")
    if set(truth) not in options:
        status, body = server.call("POST", f"/api/games/{game_id}/table/answer",
                                   {"key": key, "cards": truth})  # fmt: skip
        assert status == 200, (key, truth, body)
        node.wait_for(state="detached")
        return FORM_TAPS
    node.locator(".card-answer").nth(options.index(set(truth))).click()
    node.wait_for(state="detached")
    return 0


@pytest.mark.parametrize(("pose", "size"), [("edge", "desktop"), ("corner", "phone")])
def test_a_four_player_deal_from_a_propped_phone_is_followed_to_the_crib(
    server: Server, tmp_path: Path, pose: str, size: str
) -> None:
    deck = load_decks([HELD_OUT])[0]
    sight = view(POSES[pose], FRAME_SIZES["720p"])
    video = tmp_path / "deal.y4m"
    clip = deal_clip(deck, FOUR, seed=3, hold=HOLD, sight=sight, crib_hold=CRIB_HOLD)
    write_y4m(clip.frames, video, fps=FPS)
    status, created = server.call("POST", "/api/games", {"players": 4, "names": NAMES})
    assert status == 201, created
    oracle = by_hand(FOUR)
    with table_page(server, created["id"], video, size) as page:
        page.get_by_role("button", name=NAMES[FOUR.dealer]).click()
        try:
            page.wait_for_function("Number(document.getElementById('count').textContent) >= 15")
            # The seats learnt from the cards laid, each player's name over the picture.
            page.locator(".seat-mark").first.wait_for()
            page.screenshot(path=str(tmp_path / f"table-{pose}-{size}-play.png"))
            # A tap on a name asks who sits there; Cancel leaves the seats as learnt (two taps
            # of the test's own, not the players').
            page.locator(".seat-mark").first.click()
            page.locator(".seat-chooser").wait_for()
            page.screenshot(path=str(tmp_path / f"table-{pose}-{size}-seat.png"))
            page.locator(".seat-chooser button", has_text="Cancel").click()
            page.locator(".seat-chooser").wait_for(state="detached")
            # The crib turned face up beside the dealer is read and counted: the deal is done.
            # What the camera cannot settle it asks, and the players answer (taps counted).
            crib, on_form = page.locator(".show[data-what=crib]"), 0
            for _ in range(MOST_TAPS + 1):
                page.locator(".show[data-what=crib], .question").first.wait_for()
                if crib.count():
                    break
                on_form += answer(page, server, created["id"])
        except sync_api.TimeoutError:
            raise stuck(page, server, created["id"], tmp_path / f"table-{pose}-stuck.png") from None
        page.screenshot(path=str(tmp_path / f"table-{pose}-{size}-crib.png"))
        shown = page.locator(".scoreline .points").all_inner_texts()
        assert [int(s) for s in shown] == list(oracle.scores)
        assert crib.get_attribute("data-total") == str(oracle.events[-1].points)
        marks = page.locator(".seat-mark").all_inner_texts()
        assert set(marks) <= set(NAMES) and marks, marks
        shown_taps = page.evaluate("document.getElementById('table-mode').dataset.taps || '0'")
        taps = int(shown_taps) - 2 + on_form
        print(f"{pose}: {taps} taps, seats shown for {sorted(marks)}")
        assert taps <= MOST_TAPS, f"{taps} taps for one deal"

"""Journey: the end of a game (issue #36 item 6).

ann and bob, each signed in, play Dragon Dale to its end by the rules. On the board page, on a
desktop and on a phone, each reads "You won" or "<winner> won" with the game's reason and the
final scores as the rules counted them, a replay from the start, the record to download and its
audit's verdict. The end mail says the same and links the record. ann clicks "Play again": a
new Dragon Dale game with the same seats; bob is told by mail, and on his board, which still
shows the finished game, he joins the rematch and lands in his seat of the new game. Asked for
too early, or by a spectator, the rematch is refused and nothing is made."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import wait_for
from tests.integration.helpers import bearer
from tests.journeys.acts import mailed, person, plain
from tests.journeys.conftest import Deployment, settle
from tests.journeys.end_acts import dragondale, play_to_the_end
from tests.support.receivers import MailBox, Web

pytestmark = [pytest.mark.integration, pytest.mark.browser]

PHONE = {"width": 390, "height": 844}


def test_both_players_see_the_result_with_scores_and_the_record_and_play_again(
        service: Deployment, mailbox: MailBox, hooks: Web, signed_in: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    with service.client() as c:
        ann, bob = person(c, mailbox, hooks, "ann"), person(c, mailbox, hooks, "bob")
        game = dragondale(c, [ann, bob])
        # Too early: the game is being played.
        early = c.post(f"/v1/games/{game.id}/rematch", headers=bearer(ann.key))
        assert (early.status_code, early.json()["error"]["code"]) == (409, "game_active")

        over = play_to_the_end(c, game)
        outcome = over["outcome"]
        [winner] = outcome["winners"]
        names = {0: "ann", 1: "bob"}
        scores = ", ".join(f"{names[i]} {v}" for i, v in enumerate(outcome["scores"]))
        assert outcome["reason"] and len(outcome["scores"]) == 2, outcome
        # A spectator may not ask for the rematch.
        spectator = c.post(f"/v1/games/{game.id}/rematch")
        assert (spectator.status_code, spectator.json()["error"]["code"]) == (401, "token_required")

    # Each reads the result on the board: ann on a desktop, bob on a phone.
    a = signed_in(ann.as_dict())
    b = signed_in(bob.as_dict(), **PHONE)
    for page, name in ((a, "ann"), (b, "bob")):
        page.goto(f"{service.url}/games/{game.id}")
        mine = names[winner] == name
        expect(page.locator("#end-h")).to_have_text("You won" if mine else f"{names[winner]} won")
        expect(page.locator("#end-reason")).to_contain_text(outcome["reason"][1:])
        for i, v in enumerate(outcome["scores"]):
            expect(page.locator("#end-scores tr").nth(i)).to_contain_text(f"{names[i]}{v}")
        expect(page.locator("#end-audit")).to_have_text("audit: verified")
        expect(page.locator("#end-replay")).to_have_attribute("href", f"/games/{game.id}/replay?seq=1")
        expect(page.locator("#end-record")).to_have_attribute("href", f"/v1/games/{game.id}/export")
        page.screenshot(path=str(tmp_path / f"end-{name}.png"), full_page=False)
    print(f"screenshots: {tmp_path}")

    # The end mail says the same, with the record's link and its audit.
    def end_mail(p: Any) -> list[str]:
        return [plain(m) for m in mailed(mailbox, p, game.id) if "the game is over" in str(m["Subject"])]

    wait_for(lambda: end_mail(ann) and end_mail(bob), timeout=20)
    for p in (ann, bob):
        [text] = end_mail(p)
        won = "you won" if names[winner] == p.name else f"{names[winner]} won"
        assert f"{p.name}, the game is over: {won} ({outcome['reason']})." in text, text
        assert f"Final scores: {scores}." in text, text
        assert f"Download the record: {service.url}/v1/games/{game.id}/export" in text, text
        assert f"Its audit (verified, unverifiable or failed): {service.url}/v1/games/{game.id}/audit" in text
        assert f"Replay it from the start: {service.url}/games/{game.id}/replay?seq=1" in text

    # ann plays again; bob is told, by mail and on his board, and joins.
    a.locator("#end-again").click()
    expect(a.locator("#end-rematch")).to_contain_text("You asked for a rematch")
    new = re.search(r"/games/([\w-]+)", a.locator("#end-join").get_attribute("href") or "").group(1)  # type: ignore[union-attr]
    assert new != game.id
    wait_for(lambda: any("asks for a rematch" in plain(m) for m in mailed(mailbox, bob, new)), timeout=20)
    expect(b.locator("#end-rematch")).to_contain_text("ann asked for a rematch")
    b.screenshot(path=str(tmp_path / "end-bob-told.png"), full_page=False)
    b.locator("#end-join").click()
    expect(b).to_have_url(re.compile(rf"/games/{re.escape(new)}$"))
    expect(b.locator("#your-seat")).to_contain_text("bob")
    a.locator("#end-join").click()
    expect(a.locator("#your-seat")).to_contain_text("ann")
    settle()
    with service.client() as c:
        assert c.get(f"/v1/games/{game.id}/rematch").json()["game"] == new
        again = c.get(f"/v1/games/{new}").json()
        assert again["game"] == "dragondale" and [s["name"] for s in again["seats"]] == ["ann", "bob"]
        # One notice of the rematch to bob (ann asked: she is not told of her own).
        assert len([m for m in mailed(mailbox, bob, new) if "asks for a rematch" in plain(m)]) == 1
        assert not [m for m in mailed(mailbox, ann, new) if "asks for a rematch" in plain(m)]

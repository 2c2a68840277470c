"""Journey: a disputed roll, ruled from the page by a referee who is a signed-in player (issue #37,
"Disputed roll").

carol referees ann and bob's Rite game as a player. ann's pass rolls the volcano die; bob disputes
it. carol is mailed and webhooked once each; she opens the mailed link in her signed-in browser,
sees the move before and after with what a void would re-draw, and voids it from the page with a
reason. ann and bob are told once, with the reason; the move list and the replay say it; ann's
move played instead draws a fresh result (a draw index past every draw made); the game's record,
once it ends, audits as verified with the service's published key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.conftest import wait_for
from tests.integration.helpers import bearer
from tests.journeys.acts import (
    Person,
    accepted,
    events,
    hooked,
    link_to,
    mailed,
    move_entry,
    move_texts,
    notice_seq,
    person,
    plain,
    rite,
    roll_by,
    send,
    words_of,
)
from tests.journeys.conftest import Deployment, settle
from tests.support.receivers import MailBox, Web

pytestmark = [pytest.mark.integration, pytest.mark.browser]


def test_the_referee_is_told_of_a_disputed_roll_and_voids_it_from_the_page_with_a_reason(
        service: Deployment, mailbox: MailBox, hooks: Web, signed_in: Any, tmp_path: Path) -> None:
    with service.client() as c:
        ann, bob, carol = (person(c, mailbox, hooks, n) for n in ("ann", "bob", "carol"))
        game = rite(c, [ann, bob], referee=carol)
        roll = roll_by(c, game, "ann")
        entry = move_entry(c, game.id, roll.on)
        move = entry["move"]

        note = "the die rolled off the table"
        _, opened = accepted(send(c, game.id, game.token("bob"), "boardlog.dispute", {"seq": roll.on, "note": note}))

        # carol is told once by mail and once by webhook: the move in words, the note, a link.
        def to_carol() -> tuple[list[Any], list[Any]]:
            return ([m for m in mailed(mailbox, carol, game.id) if notice_seq(m) == opened],
                    [n for n in hooked(hooks, carol, game.id) if n["seq"] == opened])

        wait_for(lambda: all(to_carol()), timeout=20)
        settle()
        mails, hooked_ = to_carol()
        assert len(mails) == 1 and len(hooked_) == 1, (mails, hooked_)
        text = plain(mails[0])
        assert note in text and f"move {move}" in text, text
        assert note in words_of(hooked_[0]), hooked_[0]
        link = link_to(text, service.url, game.id)

        # The ruling view's data: the move, and what a void would draw again.
        d = c.get(f"/v1/games/{game.id}/dispute", headers=bearer(carol.key))
        assert d.status_code == 200, d.text
        dispute = d.json()
        assert dispute["on"] == roll.on and dispute["move"] == move and dispute["by"] == "bob"
        assert dispute["note"] == note and dispute["before_seq"] == roll.on - 1 and dispute["after_seq"] == roll.last
        assert any("volcano" in s for s in dispute["redraws"]), dispute

    # carol opens the link in her own browser, signed in: the console, not a spectator's board.
    page = signed_in(carol.as_dict())
    page.on("dialog", lambda dl: dl.accept())
    page.goto(link)
    shown = page.locator("#conduct-live .conduct-dispute")
    expect(shown).to_contain_text(note)
    expect(shown).to_contain_text(dispute["text"].rstrip("."))
    expect(page.get_by_text(dispute["redraws"][0])).to_be_visible()
    # The move replayed before and after: links into the replay at both steps.
    assert shown.locator("a[href*='/replay']").count() >= 2 or page.locator("a[href*='/replay']").count() >= 2
    reason = "the roll was made after bob had left the table"
    shown.locator("textarea").fill(reason)
    shown.get_by_role("button", name="Void").click()
    expect(page.locator("#conduct-live .conduct-dispute")).to_have_count(0)

    with service.client() as c:
        wait_for(lambda: any(e["type"] == "boardlog.DisputeResolved" for e in events(c, game.id, game.token("ann"), opened)),
                 timeout=15)
        logged = events(c, game.id, game.token("ann"), since=opened + 1)
        [resolved] = [e for e in logged if e["type"] == "boardlog.DisputeResolved"]
        assert resolved["data"] == {**resolved["data"], "verdict": "voided", "by": "referee", "reason": reason}
        ruled = max(e["seq"] for e in logged)

        # ann and bob are told once each, with the reason.
        sentence = f"The referee (carol) voids move {move}: {reason}"

        def told(p: Person) -> list[dict[str, Any]]:
            return [n for n in hooked(hooks, p, game.id) if n["seq"] == ruled]

        wait_for(lambda: told(ann) and told(bob), timeout=20)
        settle()
        for p in (ann, bob):
            assert len(told(p)) == 1 and sentence in words_of(told(p)[0]), (p.name, told(p))
            assert len([m for m in mailed(mailbox, p, game.id) if notice_seq(m) == ruled]) == 1

        # The move list and the replay say it.
        assert any(sentence in t for t in move_texts(c, game.id)), move_texts(c, game.id)
    expect(page.locator("#moves")).to_contain_text(sentence)
    page.goto(f"{service.url}/games/{game.id}/replay?seq={resolved['seq']}")  # the ruling's step
    expect(page.locator("body")).to_contain_text(reason)

    with service.client() as c:
        # ann plays instead and draws afresh: past every draw already made, the voided one's too.
        again = roll_by(c, game, "ann")
        assert again.draws[0] >= roll.draws[1], (roll, again)

        # The game ends; its record audits as verified with the published key alone.
        accepted(c.post(f"/v1/games/{game.id}/abort?wait=1", headers=bearer(game.admin)))
        record = tmp_path / "game.jsonl"
        record.write_bytes(c.get(f"/v1/games/{game.id}/export").content)
        keys = tmp_path / "keys.json"
        keys.write_text(json.dumps(c.get("/v1/keys").json()))
    ran = service.cli("audit", str(record), "--key", str(keys))
    assert ran.returncode == 0 and "verified" in ran.stdout, ran.stdout + ran.stderr

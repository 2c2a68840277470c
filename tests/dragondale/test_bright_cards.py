"""Bright-border cards outside their tribe's turn (issue #38 item 12, rules version 3), each from a
hand-built position: "Cards with a bright border contain an effect that you can use outside of
your turn" [Card Notes]. The one such card of the content is Master Hunters (the draft's example)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.core import IllegalCommand
from rules.dragondale import GAME
from rules.dragondale.content import BRIGHT, CARD_BY_ID
from rules.dragondale.state import State
from tests.dragondale.positions import (
    at_action,
    cmd,
    new_game,
    park,
    place,
    play,
    tokens,
    tribe,
    types_of,
    unit_id,
)

V, C = 0, 1
NAMES = ["ann", "bob"]
MASTER_HUNTERS = CARD_BY_ID["cel-named"]


def entered(rules: int = 3, hand: tuple[str, ...] | None = None) -> tuple[State, str, str]:
    """The Vikings explore from mountain1 into marsh1, where a hidden Celt Hunters unit stands;
    the Dragon is far away, in yew. The state after the take, the Viking and the Hunters unit."""
    s = replace(park(park(new_game(["vikings", "celts"]), V), C), terr_tokens={}, dragon="yew", rules=rules)
    w, h = unit_id(s, V, "warriors"), unit_id(s, C, "hunters")
    s = tribe(place(place(s, V, {w: "mountain1"}), C, {h: "marsh1"}), C, tokens=tokens("neutral:leaf"))
    if hand is not None:
        s = tribe(s, C, hand=hand)
    s, _ = play(at_action(s, V, 1), cmd(V, "explore", dir="in", target="marsh1", via=["mountain1"]))
    s, _ = play(s, cmd(V, "take", units=[w]))
    return s, w, h


def test_every_bright_border_card_of_the_content_is_tested_here() -> None:
    """Each card with a bright border names its moment and its text; this module plays each."""
    bright = sorted(c for moments in BRIGHT.values() for cards in moments.values() for c in cards)
    assert bright == ["cel-named"]
    assert MASTER_HUNTERS["name"] == "Master Hunters" and MASTER_HUNTERS["moment"] == "entered"


def test_master_hunters_is_offered_with_a_pass_when_an_enemy_enters_before_the_encounter() -> None:
    """Master Hunters: "When another tribe's units move into a territory where one of your units
    stands, you may play this card before the encounter." The Celts are asked, not the Vikings,
    before any encounter, and may pass."""
    assert "When another tribe's units move into a territory where one of your units stands" in MASTER_HUNTERS["text"]
    s, _, _ = entered()
    assert s.prompt is not None and (s.prompt.kind, s.prompt.seats) == ("bright", (C,))
    assert list(GAME.legal_commands(s, C)) == [cmd(C, "special", card="cel-named"), cmd(C, "skip")]
    said = GAME.describe_prompt(s, None, NAMES)
    assert "may play a bright-border card" in said and "Marshland 1" in said
    assert "Hunters" not in said  # the card's name would read as the hidden unit's type
    assert GAME.describe_command(s, cmd(C, "special", card="cel-named"), C, NAMES) == "bob plays “Master Hunters”."
    s, ev = play(s, cmd(C, "skip"))
    assert "EncounterStarted" in types_of(ev)


def test_master_hunters_played_out_of_turn_gains_insight_and_moves_the_unit_out_of_the_encounter() -> None:
    """Master Hunters: "- You may reveal 1 insight token to gain 1 insight token. - Move 1 unit (out
    of your turn: into an adjacent free territory)." The Hunters slip out of marsh1 (paying its
    LEAVING cost), so the encounter there does not happen, and play goes back to the Vikings."""
    assert "You may reveal 1 insight token to gain 1 insight token" in MASTER_HUNTERS["text"]
    s, _, h = entered()
    s, ev = play(s, cmd(C, "special", card="cel-named"))
    assert first_data(ev, "CardPlayed") == {"card": "cel-named", "bright": True}
    assert "cel-named" in s.tribes[C].ideas and "cel-named" not in s.tribes[C].hand
    assert "outside their turn" in GAME.describe_event(s, ev[0], None, NAMES).text
    s, ev = play(s, cmd(C, "reveal", token=0))
    assert types_of(ev)[:2] == ["InsightRevealed", "InsightDrawn"] and len(s.tribes[C].tokens) == 2
    assert s.prompt is not None and s.prompt.kind == "cmove"
    s, _ = play(s, cmd(C, "choose", option=f"move:{h}:mountain3"))
    s, ev = play(s, cmd(C, "discard", card="cel-h1"))  # Marshland: "LEAVING: Discard 1 card OR pay 1 insight token"
    assert "EncounterStarted" not in types_of(ev)
    assert next(u.loc for u in s.tribes[C].units if u.id == h) == "mountain3"
    assert s.prompt is not None and (s.prompt.kind, s.prompt.seats) == ("action", (V,))


def first_data(events: list, typ: str) -> dict:
    return dict(next(e for e in events if e.type == "dragondale." + typ).data)


def test_master_hunters_out_of_turn_moves_only_into_a_free_territory() -> None:
    """Out of the turn a card's move goes only where no other tribe nor the Dragon is (RULINGS.md,
    Bright-border cards): only the active tribe's movements start encounters. From marsh1 the
    Hunters may go to mountain1 (which the Viking left), thicket3 or ash, not into mountain3 where
    another Viking stands."""
    s, _, h = entered()
    s = place(s, V, {unit_id(s, V, "warriors", 1): "mountain3"})
    s, _ = play(s, cmd(C, "special", card="cel-named"))
    s, _ = play(s, cmd(C, "skip"))  # the "may": no reveal, the card goes on
    dests = {c.args["option"].split(":")[2] for c in GAME.legal_commands(s, C)
             if c.type == "dragondale.choose" and c.args["option"].split(":")[1] == h}
    assert dests == {"ash", "mountain1", "thicket3"}  # not mountain3, where a Viking stands


def test_the_prompt_is_asked_without_the_card_in_hand_and_offers_only_the_pass() -> None:
    """A prompt asked only when the card is in hand would tell the Vikings what the Celts' hidden
    hand holds ("Hand: Hidden from the others"): it is asked all the same, with the pass alone."""
    s, _, _ = entered(hand=("cel-fell",))
    assert s.prompt is not None and s.prompt.kind == "bright"
    assert list(GAME.legal_commands(s, C)) == [cmd(C, "skip")]
    with pytest.raises(IllegalCommand) as err:
        play(s, cmd(C, "special", card="cel-named"))
    assert err.value.code == "not_in_hand"
    with pytest.raises(IllegalCommand) as err:
        play(replace(s, tribes=tribe(s, C, hand=("cel-fell", "cel-named")).tribes), cmd(C, "special", card="cel-fell"))
    assert err.value.code == "bright_card"


def test_version_2_games_play_bright_cards_only_on_their_own_turn() -> None:
    """A game made under rules version 2 goes on as it did (its record re-runs in the audit):
    straight to the encounter, nobody asked."""
    s, _, _ = entered(rules=2)
    assert s.prompt is not None and s.prompt.kind != "bright"


def test_no_prompt_on_the_holders_own_turn() -> None:
    """"outside of your turn": the Celts exploring into the Vikings' territory are not asked (the
    card is theirs to play as an action)."""
    s = replace(park(park(new_game(["vikings", "celts"]), V), C), terr_tokens={}, dragon="yew")
    w, h = unit_id(s, V, "warriors"), unit_id(s, C, "hunters")
    s = place(place(s, V, {w: "marsh1"}), C, {h: "mountain1"})
    s, _ = play(at_action(s, C, 1), cmd(C, "explore", dir="in", target="marsh1", via=["mountain1"]))
    s, ev = play(s, cmd(C, "take", units=[h]))
    assert s.prompt is None or s.prompt.kind != "bright"
    assert "EncounterStarted" in types_of(ev)

"""Issue #16, Dragon Dale "rule flow": one test per rule, each from a hand-built position."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.core import Command, Event, InvalidCommand, Rng, SeatInfo
from rules.dragondale import GAME
from rules.dragondale.decide import run
from rules.dragondale.flow import Flow
from rules.dragondale.queries import vp
from rules.dragondale.state import DRAGON, State
from tests.dragondale.positions import (
    at_action,
    at_task,
    cmd,
    end_actions,
    first,
    new_game,
    park,
    place,
    play,
    play_on,
    tokens,
    tribe,
    types_of,
    unit_id,
)

V, C = 0, 1  # Vikings at camp_a, Celts at camp_b on the 2-tribe board


def two(**kw: object) -> State:
    s = new_game(["vikings", "celts"], **kw)  # type: ignore[arg-type]
    return replace(park(park(s, 0), 1), terr_tokens={})


def warriors(s: State, k: int) -> list[str]:
    return [unit_id(s, V, "warriors", i) for i in range(k)]


def legal(s: State, seat: int) -> list[Command]:
    return list(GAME.legal_commands(s, seat))


def run_task(s: State, seat: int, task: dict, turn: int | None = None) -> tuple[State, list[Event]]:
    """Put `task` on top of a finished turn and run the stack on to the first prompt."""
    s = at_task(s, seat, task, turn=turn)
    s = replace(s, ctl={**s.ctl, "prompt": None}, prompt=None)
    f = Flow(s, Rng(b"flow"))
    run(f)
    d = f.finish()
    return d.state, d.events


def card(seat: int, *effects: dict) -> dict:
    """A special action card's effect list being resolved (a card's context names no opponent)."""
    return {"k": "eff", "seat": seat, "list": list(effects), "i": 0, "ctx": {}}


# -- 3. Root Tunnel ---------------------------------------------------------------------------

def test_root_tunnel_companion_may_enter_a_tunnel_held_by_an_enemy_and_meets_it() -> None:
    """Root Tunnel: "BEFORE LEAVING: Move 1 unit into any other ROOT TUNNEL." Any other tunnel:
    an enemy there does not seal it; the unit that goes there meets that enemy."""
    s = two()
    a, b = warriors(s, 2)
    s = place(s, V, {a: "tunnel1", b: "tunnel1"})
    s = place(s, C, {unit_id(s, C, "hunters"): "tunnel2"})
    s = at_action(replace(s, dragon="ash"), V)
    go = cmd(V, "explore", dir="out", target="tunnel1", via=["marsh2"])
    assert go in legal(s, V)
    s, _ = play(s, go)
    s, ev = play_on(s, cmd(V, "take", units=[a]))
    moves = [m for e in ev if e.type == "dragondale.UnitsMoved" for m in e.data["moves"]]
    assert [m[1:] for m in moves] == [["tunnel1", "tunnel2"], ["tunnel1", "marsh2"]]  # companion first
    assert first(ev, "EncounterStarted").data == {"territory": "tunnel2", "sides": ["vikings", "celts"]}


def test_root_tunnel_companion_may_enter_the_dragons_tunnel_and_meets_the_dragon() -> None:
    """Root Tunnel: "any other ROOT TUNNEL", the Dragon's too (tunnel2 is an outer Dragon territory)."""
    s = two()
    a, b = warriors(s, 2)
    s = at_action(replace(place(s, V, {a: "tunnel1", b: "tunnel1"}), dragon="tunnel2"), V)
    s, _ = play(s, cmd(V, "explore", dir="out", target="tunnel1", via=["thicket1"]))
    s, ev = play(s, cmd(V, "take", units=[a]))
    assert first(ev, "EncounterStarted").data == {"territory": "tunnel2", "sides": ["vikings", "dragon"]}


def test_root_tunnel_companion_entering_a_reward_tunnel_gains_the_reward() -> None:
    """Explore: "If you moved a unit into a territory with an exploration reward ... resolve the
    effect BEFORE any encounters": the companion's move into tunnel1 (a reward) is such a move."""
    s = two()
    a, b = warriors(s, 2)
    s = at_action(replace(place(s, V, {a: "tunnel2", b: "tunnel2"}), dragon="ash"), V)
    s, _ = play(s, cmd(V, "explore", dir="out", target="tunnel2", via=["thicket2"]))
    s, _ = play(s, cmd(V, "take", units=[a]))
    assert s.prompt is not None and s.prompt.kind == "reward" and s.prompt.options == {"territory": "tunnel1"}


# -- 4. End condition B -----------------------------------------------------------------------

def _felled(s: State, by: dict[str, int]) -> State:
    return replace(s, trees=tuple(t._replace(state="felled", by=by[t.id]) if t.id in by else t for t in s.trees))


def test_end_b_the_last_felled_tree_is_worth_2_and_unsecured_wood_0() -> None:
    """Case B: "The last felled tree is worth 2 VP; other wood that has not been secured is worth
    0 VP." The Vikings felled tree2 this round (not secured yet) and now fell the last tree."""
    s = _felled(two(), {"tree2": V, "tree3": C, "tree4": C, "tree5": C})
    s = replace(s, wood=("tree2",))
    assert vp(s, V) == 0 and vp(s, C) == 6
    a = warriors(s, 1)[0]
    s = tribe(place(s, V, {a: "marsh1"}), V, tokens=tokens("neutral:square"))
    s = at_task(s, V, {"k": "tree", "seat": V, "intro": True, "stage": "pick"})
    s, _ = play(s, cmd(V, "choose", option="tree:tree1"))
    s, _ = play(s, cmd(V, "pay", tokens=[0]))
    out = GAME.is_over(s)
    assert out is not None and out.reason == "all trees are felled"
    assert out.scores == (2, 6) and out.winners == (C,)


def test_felled_wood_is_secured_at_the_start_of_the_fellers_next_turn() -> None:
    """General Flow: "altered" means "felled and secured": a tree felled is worth 2 VP once its
    wood is secured, at the start of the feller's next turn (before victory may be announced)."""
    s = two()
    a = warriors(s, 1)[0]
    s = tribe(place(s, V, {a: "marsh1"}), V, tokens=tokens("neutral:square"))
    s = at_task(s, V, {"k": "tree", "seat": V, "intro": True, "stage": "pick"})
    s, _ = play(s, cmd(V, "choose", option="tree:tree1"))
    s, _ = play(s, cmd(V, "pay", tokens=[0]))
    assert s.wood == ("tree1",) and vp(s, V) == 0
    s, ev = run_task(s, V, {"k": "start", "seat": V})
    assert first(ev, "WoodSecured").data == {"trees": ["tree1"]}
    assert s.wood == () and vp(s, V) == 2
    assert GAME.view(s, C)["trees"][0]["wood_secured"] is True


# -- 5. Over the Fury track's edge --------------------------------------------------------------

def test_over_the_edge_chaos_may_be_declined_for_free_even_without_insight() -> None:
    """Step E: "If you move out on the top, you may bring chaos to the Dale ... In both cases you
    reset your Fury Level to 6 ... and reduce the Dragon's dominance." Declining costs nothing."""
    s = tribe(two(), V, fury=10, tokens=())
    s, _ = run_task(s, V, card(V, {"do": "fury_up"}))
    assert s.prompt is not None and s.prompt.kind == "edge"
    assert {c.type for c in legal(s, V)} == {"dragondale.choose", "dragondale.skip"}
    before = s.dominance.index(DRAGON)
    top = s.fury_top
    s, ev = play(s, cmd(V, "skip"))
    assert "FuryTokensExchanged" not in types_of(ev) and s.fury_top == top
    assert s.tribes[V].fury == 6 and s.dominance.index(DRAGON) == before + 1


def test_over_the_edge_with_insight_declining_keeps_the_insight() -> None:
    """Step E: "you may reshuffle all Fury cards": a tribe holding insight pays none to decline."""
    s = tribe(two(), V, fury=2, tokens=tokens("neutral:leaf"))
    s = at_task(s, V, {"k": "edge", "seat": V, "side": "bottom"})
    assert not [c for c in legal(s, V) if c.type == "dragondale.pay"]
    s, ev = play(s, cmd(V, "skip"))
    assert "FuryCardsReshuffled" not in types_of(ev) and "InsightPaid" not in types_of(ev)
    assert len(s.tribes[V].tokens) == 1


# -- 6. Cards stop at an impossible step ---------------------------------------------------------

@pytest.mark.parametrize("effect", ["return_unit", "empower", "check_tree"])
def test_card_stops_at_a_step_it_cannot_perform(effect: str) -> None:
    """Special Action: "If you reach a "-"-effect you cannot or don't want to perform completely,
    ignore the rest of the card." No dispelled unit to return, no Library card to empower, no
    unaltered tree to check: the rest of the card (here, Fury up) is not done."""
    s = tribe(two(), V, library=())
    s = replace(s, trees=tuple(t._replace(state="felled", by=C) for t in s.trees), wood=())
    s, ev = run_task(s, V, card(V, {"do": effect}, {"do": "fury_up"}))
    assert not [e for e in ev if e.type == "dragondale.FuryMoved" and e.seat == V]


def test_card_stops_at_an_impossible_step_inside_a_paid_reward() -> None:
    """Special Action: the rest of the card is ignored, also after a "[pay cost] to [reward]"
    whose reward cannot be performed (nothing to return): the card's last line is not done."""
    s = tribe(two(), V, hand=("vik-h1",))
    s, _ = run_task(s, V, card(V, {"do": "may", "cost": "discard", "then": [{"do": "return_unit"}]},
                               {"do": "fury_up"}))
    assert s.prompt is not None and s.prompt.kind == "may"
    s, ev = play(s, cmd(V, "discard", card="vik-h1"))
    assert not [e for e in ev if e.type == "dragondale.FuryMoved" and e.seat == V]


def test_declined_may_goes_on_with_the_rest_of_the_card() -> None:
    """Special Action: "You may ignore any effects that start with "You may" and carry on with
    the rest of the card."""
    s = tribe(two(), V, tokens=tokens("neutral:leaf"))
    s, _ = run_task(s, V, card(V, {"do": "may", "cost": "pay", "then": [{"do": "boost"}]}, {"do": "fury_up"}))
    s, ev = play(s, cmd(V, "skip"))
    assert first(ev, "FuryMoved").data == {"to": 7}


# -- 7. The Fury track moves one space at a time ----------------------------------------------------

def test_fury_track_moves_one_space_at_a_time_and_gains_the_token_it_passes() -> None:
    """Fury Track: "Move your tribe token 1 space up" ... "If you move your tribe token onto a
    space with your insight token, gain it." From 10 down 3 the Vikings pass their token on 8."""
    s = tribe(new_game(["vikings", "celts"]), V, fury=10, tokens=())
    assert s.fury_tokens["8"].owner == "vikings"
    f = Flow(s, Rng(b"x"))
    f.fury_step(V, -3)
    ev = f.decision().events
    assert [e.data["to"] for e in ev if e.type == "dragondale.FuryMoved"] == [9, 8, 7]
    assert first(ev, "InsightPickedUp").data["where"] == "fury:8"
    assert f.s.tribes[V].fury == 7 and len(f.s.tribes[V].tokens) == 1 and "8" not in f.s.fury_tokens


def test_fury_track_moving_past_the_end_goes_over_the_edge_after_the_last_space() -> None:
    """Over the Edge: "If your tribe token moves onto one of the spaces with text at the upper or
    lower end of the table, you have to fulfill the effect": 9 up 3 is 10, then over the top."""
    s = tribe(two(), V, fury=9)
    f = Flow(s, Rng(b"x"))
    f.fury_step(V, 3)
    assert [e.data["to"] for e in f.decision().events if e.type == "dragondale.FuryMoved"] == [10]
    assert f.stack[-1] == {"k": "edge", "seat": V, "side": "top"}


# -- 8. Choices the rulebook gives a player --------------------------------------------------------

def test_announcing_victory_at_4_vp_is_a_may() -> None:
    """Step A: "If you control at least 4 VP you may announce victory and win immediately." The
    tribe may play on; the rest of step A still comes (its dispelled unit may return)."""
    s = two()
    s = replace(s, trees=tuple(t._replace(state="blessed", by=V) if t.id in ("tree1", "tree2") else t
                               for t in s.trees))
    s = place(s, V, {warriors(s, 1)[0]: None}, hidden=False)
    s, _ = run_task(s, V, {"k": "start", "seat": V})
    assert s.prompt is not None and s.prompt.kind == "start"
    assert {c.type for c in legal(s, V)} == {"dragondale.announce", "dragondale.skip"}
    s, ev = play(s, cmd(V, "skip"))
    assert GAME.is_over(s) is None and "GameEnded" not in types_of(ev)
    assert s.prompt is not None and s.prompt.kind == "start"
    assert "dragondale.return" in {c.type for c in legal(s, V)}


def test_first_game_of_two_tribes_asks_who_was_lost_last() -> None:
    """Setup 5: "2 and 4 tribes: Whoever was lost last" starts. A fact the players know: any seat
    names the starting tribe; playing order, dominance and the Dragon Stone follow it."""
    s = new_game(["vikings", "celts"])
    assert s.prompt is not None and s.prompt.kind == "first" and s.prompt.seats == (0, 1)
    assert {c.args["option"] for c in legal(s, V)} == {"first:vikings", "first:celts"}
    s, ev = play(s, cmd(V, "choose", option="first:celts"))
    assert first(ev, "StartingTribeChosen").data["order"] == [1, 0]
    assert s.order == (1, 0) and s.dominance == (DRAGON, 0, 1) and s.stone == 0
    assert first(ev, "TurnStarted").data["seat"] == C


def test_first_game_starting_tribe_may_be_given_as_an_option() -> None:
    """Setup 5, decided when the game is made: `"first": "druids"` starts the Druids."""
    s = new_game(["vikings", "celts", "druids", "dark_faery"], first="druids")
    assert s.order == (2, 3, 0, 1) and s.dominance == (DRAGON, 1, 0, 3, 2) and s.stone == 1
    assert s.ctl["turn"] == 2


@pytest.mark.parametrize(("tribes", "opts"), [
    (["vikings", "celts", "druids"], {"first": "celts"}),  # 3 tribes: the "1st" encampment starts
    (["vikings", "celts"], {"first": "celts", "experienced": True}),  # experienced: "randomly"
    (["vikings", "celts"], {"first": "druids"}),  # not in play
])
def test_first_option_only_where_the_players_name_the_starting_tribe(tribes: list[str], opts: dict) -> None:
    with pytest.raises(InvalidCommand) as err:
        GAME.setup({"tribes": tribes, **opts}, [SeatInfo(i, t) for i, t in enumerate(tribes)], Rng(b"x"))
    assert err.value.code == "bad_options"


def test_three_tribes_start_at_the_first_encampment_without_asking() -> None:
    """Setup 5: "3 tribes: ... If it says "1st", you are the starting tribe."""
    s = new_game(["vikings", "celts", "druids"])
    assert s.prompt is not None and s.prompt.kind != "first" and s.ctl["turn"] == 0


def test_use_2_actions_a_main_action_is_never_passed_by_choice() -> None:
    """Step B: "Use 2 actions on your turn." No pass is offered: Plan is always there as the 2nd
    action; a tribe with nothing it can do as its 1st (no unit on the board, no card, no
    Library) is not asked, and the turn goes on."""
    for n in (1, 2):
        s = at_action(two(), V, n)
        assert legal(s, V) and "dragondale.skip" not in {c.type for c in legal(s, V)}
    assert cmd(V, "plan") in legal(at_action(two(), V, 2), V)
    s = two()
    s = place(s, V, {u.id: None for u in s.tribes[V].units}, hidden=False)
    s = tribe(s, V, hand=(), library=())
    s, ev = run_task(s, V, {"k": "action", "seat": V, "n": 1})
    assert "TurnStarted" in types_of(ev) and s.ctl["turn"] == C


# -- 9. Dragon VP timing -------------------------------------------------------------------------

def test_dispelled_dragon_vp_counts_until_step_d_of_the_next_turn() -> None:
    """If You Dispel the Dragon: "The Dragon will enter play again in step D - MOVEMENT of your NEXT
    turn. Then you don't have it as VP any more." (General Flow's "at the end of your next turn"
    is read as this step: see RULINGS.md.) At the start of that turn the VP still counts."""
    s = two()
    s = replace(s, dragon=None, dragon_vp=C, dragon_turn=3, stone=C, turn_no=5)
    assert vp(s, C) == 1
    s, ev = end_actions(at_action(s, C, 2))
    assert "DragonReturned" in types_of(ev) and s.dragon_vp is None and vp(s, C) == 0


# -- 10. Smaller ones ------------------------------------------------------------------------------

def test_setup_step_10_puts_insight_in_the_encampments_too() -> None:
    """Setup 10: "Put 1 insight token of each tribe on all territories of the board that do not
    contain an exploration reward", encampments included; a unit moving home gains its own."""
    s = new_game(["vikings", "celts"], first="vikings")
    assert [t.owner for t in s.terr_tokens["camp_a"]] == ["vikings", "celts"]
    a = warriors(s, 1)[0]
    s = at_action(tribe(place(s, V, {a: "thicket1"}), V, tokens=()), V)
    s, _ = play(s, cmd(V, "explore", dir="in", target="camp_a", via=["thicket1"]))
    s, ev = play(s, cmd(V, "take", units=[a]))
    assert first(ev, "InsightPickedUp").data["where"] == "camp_a"
    assert [t.owner for t in s.terr_tokens["camp_a"]] == ["celts"]


def test_empower_card_whose_only_effect_is_exchange_can_be_chosen_without_insight() -> None:
    """Boost and Empower: "choose 1 to place into your Ideas pile and apply the EMPOWER EFFECT":
    with no insight to exchange the card is still unlocked; nothing is exchanged."""
    s = at_action(tribe(two(), V, tokens=(), library=("vik-2", "vik-7")), V)
    assert cmd(V, "empower", card="vik-2", effect="exchange") in legal(s, V)
    s, ev = play(s, cmd(V, "empower", card="vik-2", effect="exchange"))
    assert "vik-2" in s.tribes[V].ideas and s.tribes[V].library == ("vik-7",)
    assert "InsightPaid" not in types_of(ev) and "InsightDrawn" not in types_of(ev)


def test_a_card_discarded_under_a_top_card_is_seen_only_by_its_tribe() -> None:
    """Glossary, discard: "if a card marked "Ideas (TOP)" is in your supply, it must be on top of
    the pile for the enemy tribes to see" ("Other tribes may only look at the top card")."""
    s = two()
    a, b = warriors(s, 2)
    s = place(s, V, {a: "marsh1", b: "marsh1"})
    s = at_action(tribe(s, V, tokens=(), hand=("vik-h1",), ideas=("vik-B", "vik-A")), V)
    s, _ = play(s, cmd(V, "explore", dir="out", target="marsh1", via=["mountain1"]))
    s, _ = play(s, cmd(V, "take", units=[a]))
    discard = cmd(V, "discard", card="vik-h1")
    s, ev = play(s, discard)
    event = first(ev, "CardDiscarded")
    assert "vik-h1" not in str(GAME.redact(event, C).data)
    assert GAME.redact(event, V).data["secret"] == {"card": "vik-h1"}
    assert s.tribes[V].ideas == ("vik-B", "vik-h1", "vik-A")
    seen = GAME.redact_command(discard, C)
    assert seen is not None and "vik-h1" not in str(seen.args)


def test_a_card_discarded_on_top_of_ideas_is_seen_by_all() -> None:
    """Glossary, discard: with no TOP card the discarded card lies on top, where all may look."""
    s = two()
    a, b = warriors(s, 2)
    s = place(s, V, {a: "marsh1", b: "marsh1"})
    s = at_action(tribe(s, V, tokens=(), hand=("vik-h1",), ideas=("vik-B",)), V)
    s, _ = play(s, cmd(V, "explore", dir="out", target="marsh1", via=["mountain1"]))
    s, _ = play(s, cmd(V, "take", units=[a]))
    s, ev = play(s, cmd(V, "discard", card="vik-h1"))
    assert GAME.redact(first(ev, "CardDiscarded"), C).data == {"card": "vik-h1"}

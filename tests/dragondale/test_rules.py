"""One test per rule, each from a hand-built position."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from rules.core import Command, IllegalCommand, Rng
from rules.decider import decide
from rules.dragondale import GAME
from rules.dragondale.board import board_for
from rules.dragondale.content import MOVEMENT_CARDS
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


def explores(s: State, seat: int = V) -> list[dict]:
    return [dict(c.args) for c in GAME.legal_commands(s, seat) if c.type == "dragondale.explore"]


def take_sizes(s: State, seat: int = V) -> set[int]:
    return {len(c.args["units"]) for c in GAME.legal_commands(s, seat)}


def warriors(s: State, k: int) -> list[str]:
    return [unit_id(s, V, "warriors", i) for i in range(k)]


def resume(s: State) -> State:
    """Run the task stack of a hand-built position on to its first prompt."""
    f = Flow(s, Rng(b"x"))
    run(f)
    d = f.finish()
    assert d.events[-1].type == "dragondale.PromptChanged"
    return d.state


def refusal(s: State, c: Command) -> str:
    with pytest.raises(IllegalCommand) as err:
        decide(GAME, s, c, Rng(b"x"))
    return err.value.code


def test_refusals_by_the_platform_and_by_the_rules_change_nothing() -> None:
    s = at_action(park(park(new_game(["vikings", "celts"]), 0), 1), 0)
    before = s
    assert refusal(s, cmd(1, "skip")) == "not_your_turn"
    assert refusal(s, Command("dragondale.skip", {}, None)) == "seat_required"
    assert refusal(s, cmd(0, "take", units=["v1"])) == "wrong_prompt"  # no action prompt takes units
    # an action prompt may take "plan", but only the second action offers it
    assert refusal(s, cmd(0, "plan")) == "plan_second"
    assert refusal(s, cmd(0, "explore", dir="in", target="camp_b", via=["thicket2"])) == "encampment"
    assert s == before


def test_commands_after_the_end_are_refused() -> None:
    s = new_game(["vikings", "celts"])
    s = replace(s, outcome={"winners": [0], "scores": [4, 0], "reason": "announced victory"})
    assert refusal(s, Command("dragondale.skip", {}, 0)) == "game_over"


def test_marshland_leaving_costs_a_card_or_an_insight() -> None:
    s = two()
    a, b = warriors(s, 2)
    s = at_action(tribe(place(s, V, {a: "marsh1", b: "marsh1"}), V, tokens=tokens("neutral:leaf")), V)
    s, _ = play(s, cmd(V, "explore", dir="out", target="marsh1", via=["mountain1"]))
    s, _ = play(s, cmd(V, "take", units=[a]))
    assert s.prompt is not None and s.prompt.kind == "move"
    kinds = Counter(c.type for c in GAME.legal_commands(s, V))
    assert kinds["dragondale.pay"] == 1 and kinds["dragondale.discard"] == len(set(s.tribes[V].hand))
    s, ev = play(s, cmd(V, "pay", tokens=[0]))
    assert types_of(ev)[:2] == ["InsightPaid", "UnitsMoved"]


def test_marshland_without_card_or_insight_cannot_be_left() -> None:
    s = two()
    a, b = warriors(s, 2)
    s = at_action(tribe(place(s, V, {a: "marsh1", b: "marsh1"}), V, tokens=(), hand=()), V)
    assert not any((e["target"] == "marsh1" and e["dir"] == "out") or ("marsh1" in e["via"] and e["dir"] == "in")
                   for e in explores(s))


def test_forced_move_out_of_marshland_without_payment_discards_the_units() -> None:
    s = two()
    a = warriors(s, 1)[0]
    s = tribe(place(s, V, {a: "marsh1"}), V, tokens=(), hand=())
    s = at_task(s, V, {"k": "fmove", "seat": V, "terr": "marsh1", "max": 1, "hide": False})
    s, ev = play(s, cmd(V, "choose", option="to:mountain1"))
    assert first(ev, "UnitsDispelled").data["units"] == {a: "warriors"}


def test_mountain_admits_two_units_per_movement() -> None:
    s = two()
    us = warriors(s, 3)
    s = at_action(place(s, V, dict.fromkeys(us, "marsh1")), V)
    s, _ = play(s, cmd(V, "explore", dir="in", target="mountain1", via=["marsh1"]))
    assert take_sizes(s) == {1, 2}


def test_thicket_lets_two_units_leave_per_movement() -> None:
    s = two()
    us = warriors(s, 3)
    s = at_action(place(s, V, dict.fromkeys(us, "thicket1")), V)
    s, _ = play(s, cmd(V, "explore", dir="out", target="thicket1", via=["tunnel1"]))
    assert take_sizes(s) == {1, 2}


def test_inner_dragon_territory_admits_one_unit_per_movement() -> None:
    s = two()
    a, b = warriors(s, 2)
    c = unit_id(s, V, "seers")
    s = at_action(place(s, V, {a: "marsh1", b: "marsh1", c: "mountain1"}), V)
    s2, _ = play(s, cmd(V, "explore", dir="in", target="ash", via=["marsh1"]))
    assert take_sizes(s2) == {1}
    assert {"dir": "in", "target": "ash", "via": ["marsh1", "mountain1"]} not in explores(s)


def test_encampment_admits_only_its_own_tribe() -> None:
    s = two()
    h = unit_id(s, C, "hunters")
    s = at_action(place(s, C, {h: "thicket1"}), C)
    assert not any(e["target"] == "camp_a" for e in explores(s, C))


def test_encampment_lets_two_leave_and_hides_units_coming_home() -> None:
    s = two()
    s = at_action(s, V)
    s2, _ = play(s, cmd(V, "explore", dir="out", target="camp_a", via=["thicket1"]))
    assert take_sizes(s2) == {1, 2}
    a = warriors(s, 1)[0]
    s = at_action(place(s, V, {a: "thicket1"}, hidden=False), V)
    s, _ = play(s, cmd(V, "explore", dir="in", target="camp_a", via=["thicket1"]))
    s, ev = play(s, cmd(V, "take", units=[a]))
    assert first(ev, "UnitsHidden").data["units"] == [a]


def test_entering_a_territory_with_your_insight_token_gains_it() -> None:
    s = new_game(["vikings", "celts"])
    s = park(park(s, 0), 1)
    assert any(t.owner == "vikings" for t in s.terr_tokens["thicket1"])
    s = at_action(tribe(s, V, tokens=()), V)
    s, _ = play(s, cmd(V, "explore", dir="out", target="camp_a", via=["thicket1"]))
    s, ev = play(s, cmd(V, "take", units=[warriors(s, 1)[0]]))
    picked = first(ev, "InsightPickedUp")
    assert picked.data["where"] == "thicket1" and len(s.tribes[V].tokens) == 1
    assert s.tribes[V].tokens[0].hidden
    assert all(t.owner != "vikings" for t in s.terr_tokens["thicket1"])


def test_exploration_reward_comes_before_the_encounter() -> None:
    s = two()
    h = unit_id(s, C, "hunters")
    s = at_action(place(s, C, {h: "tunnel1"}), V)
    s, _ = play(s, cmd(V, "explore", dir="out", target="camp_a", via=["tunnel1"]))
    s, ev = play(s, cmd(V, "take", units=[warriors(s, 1)[0]]))
    assert "EncounterStarted" not in types_of(ev)
    assert s.prompt is not None and s.prompt.kind == "reward"
    s, ev = play_on(s, cmd(V, "choose", option="reward:boost"))
    assert types_of(ev).index("CardBoosted") < types_of(ev).index("EncounterStarted")


def test_no_exploration_reward_where_you_already_are() -> None:
    s = two()
    a, b = warriors(s, 2)
    s = at_action(place(s, V, {a: "tunnel1", b: "tunnel1"}), V)
    s, _ = play(s, cmd(V, "explore", dir="out", target="camp_a", via=["tunnel1"]))
    s, _ = play(s, cmd(V, "take", units=[warriors(s, 3)[2]]))
    assert s.prompt is not None and s.prompt.kind == "action"


def test_explore_only_first_and_plan_only_second_action() -> None:
    s = at_action(two(), V, 1)
    verbs = {c.type for c in GAME.legal_commands(s, V)}
    assert "dragondale.explore" in verbs and "dragondale.plan" not in verbs
    s = at_action(two(), V, 2)
    verbs = {c.type for c in GAME.legal_commands(s, V)}
    assert "dragondale.plan" in verbs and "dragondale.explore" not in verbs


def test_plan_takes_ideas_and_others_may_reveal_insight_to_boost() -> None:
    s = two()
    ideas = s.tribes[V].ideas
    s = at_action(tribe(s, C, tokens=tokens("celts:star")), V, 2)
    s, ev = play(s, cmd(V, "plan"))
    assert set(ideas) <= set(s.tribes[V].hand) and s.tribes[V].ideas == ()
    assert s.prompt is not None and s.prompt.kind == "plan_react" and s.prompt.seats == (C,)
    top = s.tribes[C].library[0]
    s, ev = play(s, cmd(C, "choose", option="plan:boost:0"))
    assert first(ev, "InsightRevealed").data == {"index": 0, "type": "star"}
    assert first(ev, "CardBoosted").data == {"card": top}


def test_empower_picks_one_of_the_top_two_library_cards() -> None:
    s = at_action(tribe(two(), V, tokens=tokens("neutral:leaf")), V, 1)
    top2 = s.tribes[V].library[:2]
    cards = {c.args["card"] for c in GAME.legal_commands(s, V) if c.type == "dragondale.empower"}
    assert cards == set(top2)
    second = top2[1]
    eff = next(c.args["effect"] for c in GAME.legal_commands(s, V)
               if c.type == "dragondale.empower" and c.args["card"] == second)
    s, ev = play(s, cmd(V, "empower", card=second, effect=eff))
    assert s.tribes[V].library[0] == top2[0] and second in s.tribes[V].ideas
    assert types_of(ev)[0] == "CardEmpowered" and len(types_of(ev)) >= 2  # the effect applied


def test_boost_with_an_empty_library_lowers_the_dragon() -> None:
    s = tribe(two(), V, library=())
    s = at_task(s, V, {"k": "reward", "seat": V, "terr": "tunnel1"})
    before = s.dominance.index(DRAGON)
    s, _ = play(s, cmd(V, "choose", option="reward:boost"))
    assert s.dominance.index(DRAGON) == before + 1


def test_dispelled_unit_returns_hidden_at_start_of_turn() -> None:
    s = two()
    a = warriors(s, 1)[0]
    s = place(s, V, {a: None}, hidden=False)
    s = at_task(s, V, {"k": "start", "seat": V, "mode": "dispelled"}, kind="start")
    s, _ = play(s, cmd(V, "return", unit=a))
    # back among the hidden units of the encampment it takes a fresh id (rules.dragondale.identity)
    back = [u for u in s.tribes[V].units if u.type == "warriors" and u.loc == "camp_a"]
    assert a not in {u.id for u in s.tribes[V].units} and len(back) == 3
    assert all(u.hidden for u in back)


def test_four_vp_at_the_start_of_your_turn_wins() -> None:
    s = two()
    s = replace(s, trees=tuple(t._replace(state="blessed", by=V) if t.id in ("tree1", "tree2") else t for t in s.trees))
    assert vp(s, V) == 4
    s = at_task(s, V, {"k": "start", "seat": V, "mode": "announce"}, kind="start")
    assert [c.type for c in GAME.legal_commands(s, V)] == ["dragondale.announce", "dragondale.skip"]
    s, _ = play(s, cmd(V, "announce"))
    out = GAME.is_over(s)
    assert out is not None and out.winners == (V,) and out.reason == "announced victory"


def test_dragon_at_lowest_dominance_ends_with_most_vp_and_dominance_tiebreak() -> None:
    s = two()
    s = replace(s, dominance=(C, DRAGON, V))
    assert vp(s, V) == vp(s, C) == 0
    s = tribe(s, V, library=())
    s = at_task(s, V, {"k": "reward", "seat": V, "terr": "tunnel1"})
    s, _ = play(s, cmd(V, "choose", option="reward:boost"))
    out = GAME.is_over(s)
    assert out is not None and out.reason == "the Dragon reached the lowest dominance"
    assert out.winners == (C,)  # tied on VP, the Celts are higher


def test_all_trees_felled_ends_the_game() -> None:
    s = two()
    s = replace(s, trees=tuple(t._replace(state="felled", by=C) if t.id != "tree1" else t for t in s.trees))
    a = warriors(s, 1)[0]
    s = tribe(place(s, V, {a: "marsh1"}), V, tokens=tokens("neutral:square", "neutral:square", "vikings:square",
                                                           "neutral:circle", "neutral:leaf", "neutral:star"))
    s = at_task(s, V, {"k": "tree", "seat": V, "intro": True, "stage": "pick"})
    s, _ = play(s, cmd(V, "choose", option="tree:tree1"))
    s, _ = play(s, cmd(V, "pay", tokens=[0]))
    out = GAME.is_over(s)
    assert out is not None and out.reason == "all trees are felled" and out.winners == (C,)
    assert out.scores == (2, 8)


def test_over_the_top_is_chaos() -> None:
    s = tribe(two(), V, fury=10)
    s = at_task(s, V, {"k": "eff", "seat": V, "list": [{"do": "fury_up"}], "i": 0, "ctx": {}})
    s = replace(s, ctl={**s.ctl, "prompt": None}, prompt=None)
    s = resume(s)
    assert s.prompt is not None and s.prompt.kind == "edge"
    before = s.dominance.index(DRAGON)
    s, ev = play(s, cmd(V, "choose", option="chaos"))
    assert "FuryTokensExchanged" in types_of(ev)
    assert s.tribes[V].fury == 6 and s.dominance.index(DRAGON) == before + 1
    assert sorted(s.fury_top + s.fury_bottom) == ["circle", "leaf", "square", "star"]


def test_over_the_bottom_is_lost_in_dreams() -> None:
    s = tribe(two(), V, fury=2, tokens=tokens("neutral:leaf"))
    s = at_task(s, V, {"k": "edge", "seat": V, "side": "bottom"})
    s, ev = play(s, cmd(V, "choose", option="dreams"))
    assert "FuryCardsReshuffled" in types_of(ev)
    assert all(not up for _, up in s.fury_cards) and s.tribes[V].fury == 6
    s = tribe(two(), V, fury=2, tokens=tokens("neutral:leaf"))
    s = at_task(s, V, {"k": "edge", "seat": V, "side": "bottom"})
    s, ev = play(s, cmd(V, "skip"))  # the reshuffle is a "may": declined, the insight is kept
    assert "FuryCardsReshuffled" not in types_of(ev) and len(s.tribes[V].tokens) == 1
    assert s.tribes[V].fury == 6


def _step_d(s: State, dragon: str, deck: tuple[str, ...]) -> tuple[State, list]:
    s = replace(s, dragon=dragon, stone=V, mdeck=deck)
    return end_actions(at_action(s, V, 2))


def test_dragon_in_inner_moves_to_adjacent_inner_with_the_rune() -> None:
    s, _ = _step_d(two(), "ash", ("yew1", "oak1"))
    assert s.dragon == "yew"


def test_dragon_on_its_own_rune_reshuffles_and_goes_outer() -> None:
    s, ev = _step_d(two(), "ash", ("ash1", "oak1"))
    assert "DragonDeckShuffled" in types_of(ev)
    drawn = [e.data["card"] for e in ev if e.type.endswith("DragonCardDrawn")]
    second = MOVEMENT_CARDS[drawn[1]]
    b = board_for(2)
    assert s.dragon == ("ash" if "stay" in second else b.outer_by_rune[second["rune"]])


def test_dragon_in_outer_follows_a_matching_arrow() -> None:
    s, _ = _step_d(two(), "mountain1", ("yew2",))
    assert s.dragon == "marsh2"


def test_dragon_in_outer_without_matching_arrow_goes_inner() -> None:
    s, ev = _step_d(two(), "mountain3", ("ash2", "oak1"))
    drawn = [e.data["card"] for e in ev if e.type.endswith("DragonCardDrawn")]
    second = MOVEMENT_CARDS[drawn[1]]
    assert s.dragon == ("mountain3" if "stay" in second else second["rune"])


def test_stay_card_lets_the_stone_holder_choose() -> None:
    s, _ = _step_d(two(), "ash", ("stay_choice",))
    assert s.dragon == "ash" and s.prompt is not None and s.prompt.kind == "stay"
    before = s.dominance.index(DRAGON)
    s, _ = play(s, cmd(V, "choose", option="stay:dominance"))
    assert s.dominance.index(DRAGON) == before + 1


def test_stay_card_on_felled_trees_lowers_the_dragon() -> None:
    s = two()
    s = replace(s, trees=tuple(t._replace(state="felled", by=C) if t.id == "tree1" else t for t in s.trees))
    before = s.dominance.index(DRAGON)
    s, ev = _step_d(s, "ash", ("stay_trees",))
    assert s.dominance.index(DRAGON) == before + 1 and "EncounterStarted" not in types_of(ev)


def test_dispelling_the_dragon_gives_vp_stone_and_it_returns_next_turn() -> None:
    s = two()
    h = unit_id(s, C, "hunters")
    s = place(s, C, {h: "ash"})
    s = replace(s, dragon="ash", stone=V, dominance=(DRAGON, C, V))
    s = at_task(s, C, {"k": "eff", "seat": C, "list": [{"do": "dispel_dragon"}], "i": 0,
                       "ctx": {"terr": "ash", "opp": DRAGON}}, turn=V)
    s = replace(s, ctl={**s.ctl, "prompt": None}, prompt=None)
    s = resume(s)
    assert s.dragon is None and s.dragon_vp == C and s.stone == C
    assert s.dominance == (C, DRAGON, V) and vp(s, C) == 1
    # at the Celts' next turn, step D returns the Dragon and the VP is gone
    s = replace(s, turn_no=s.turn_no + 1)
    s, ev = end_actions(at_action(s, C, 2))
    assert first(ev, "DragonReturned").data["to"] in ("ash", "oak", "yew")
    assert s.dragon_vp is None


def _encounter(s: State, vik_stance: str, celt_stance: str, vik_tokens: tuple = (), celt_tokens: tuple = ()) -> tuple[State, list]:
    a = warriors(s, 1)[0]
    h = unit_id(s, C, "hunters")
    s = place(place(s, V, {a: "camp_a"}), C, {h: "thicket1"})
    s = tribe(s, V, stances=(("ox", "trample"), ("raven", "dark_omen"), ("seers", "runecast"), ("warriors", vik_stance)),
              tokens=vik_tokens)
    s = tribe(s, C, stances=(("alanis", "alanis"), ("bards", "ballad"), ("hunters", celt_stance)), tokens=celt_tokens)
    s = at_action(s, V)
    s, _ = play(s, cmd(V, "explore", dir="in", target="thicket1", via=["camp_a"]))
    return play_on(s, cmd(V, "take", units=[a]))


def test_initiative_tie_goes_to_the_higher_dominance() -> None:
    s = two()
    # RAID active 2 vs AMBUSH... TRACKING passive 3: make it a tie with RAID (2) vs GREAT HUNT passive (2)
    s = replace(s, dominance=(DRAGON, C, V))
    s, ev = _encounter(s, "raid", "great_hunt")
    init = first(ev, "InitiativeDetermined").data
    assert init["initiative"] == {"vikings": 2, "celts": 2} and init["first"] == "celts"


def test_end_encounter_stops_the_other_stance() -> None:
    s = two()
    s, ev = _encounter(s, "shield_wall", "great_hunt")
    assert first(ev, "InitiativeDetermined").data["first"] == "vikings"
    assert "UnitsDispelled" not in types_of(ev)


def test_matching_insight_with_dragon_might_adds_the_track_value() -> None:
    s = two()
    s = tribe(s, C, fury=10)
    # GREAT HUNT shows the Dragon Might mark: a circle token adds the might at level 10
    s, ev = _encounter(s, "raid", "great_hunt", celt_tokens=tokens("celts:circle"))
    s, ev = play(s, cmd(C, "pay", tokens=[0]))
    init = first(ev, "InitiativeDetermined").data["initiative"]
    assert init["celts"] == 2 + 6  # circle is at the top: might 6 at level 10


def test_non_matching_insight_adds_one() -> None:
    s = two()
    s, ev = _encounter(s, "raid", "great_hunt", celt_tokens=tokens("celts:leaf"))
    s, ev = play(s, cmd(C, "pay", tokens=[0]))
    assert first(ev, "InitiativeDetermined").data["initiative"]["celts"] == 3


def test_new_stances_the_active_and_the_passive_tribe_both_choose() -> None:
    """Step F: "ALL tribes have to give new stances to any unit that was in an encounter, even
    if it's not their turn" ... "Each tribe renews their stances differently, depending on if
    they are active or passive": the passive tribe chooses too (nothing is drawn for it), one of
    the type's other cards; the active tribe may keep the card."""
    s = two()
    s, _ = _encounter(s, "shield_wall", "great_hunt")
    s, ev = end_actions(s)  # second action; then steps C-F
    assert s.prompt is not None and s.prompt.kind == "restance" and set(s.prompt.seats) == {V, C}
    assert not [e for e in ev if e.type.endswith("StanceChosen")]
    celt = {c.args["card"] for c in GAME.legal_commands(s, C)}
    assert celt == {"ambush", "tracking"}
    assert {c.args["card"] for c in GAME.legal_commands(s, V)} == {"shield_wall", "berserk", "raid"}
    s, ev = play(s, cmd(C, "stance", unit="hunters", card="tracking"))
    assert s.tribes[C].stance("hunters") == "tracking" and s.tribes[C].revealed == ()
    assert "secret" not in GAME.redact(first(ev, "StanceChosen"), V).data
    assert s.prompt is not None and s.prompt.seats == (V,)
    s, ev = play(s, cmd(V, "stance", unit="warriors", card="berserk"))
    assert s.tribes[V].stance("warriors") == "berserk" and s.tribes[V].revealed == ()
    assert s.ctl["turn"] == C  # all stances hidden again: the next tribe's turn


def test_insight_bag_draw_favours_the_tribe_shape() -> None:
    s = replace(two(), bag={"neutral:square": 10, "neutral:circle": 10})
    counts: Counter[str] = Counter()
    rng = Rng(b"bag")
    for _ in range(2000):
        f = Flow(s, rng)
        f.draw_insight(V)  # Vikings prefer squares: weight 3 to 1
        counts[f.events[0].data["secret"]["token"][1]] += 1
    assert 0.70 < counts["square"] / 2000 < 0.80


def test_experienced_check_reshuffles_unaltered_trees() -> None:
    s = two(experienced=True)
    a = warriors(s, 1)[0]
    s = tribe(place(s, V, {a: "marsh1"}), V, tokens=())
    s = at_task(s, V, {"k": "tree", "seat": V, "intro": False, "stage": "pick"})
    s, ev = play(s, cmd(V, "choose", option="tree:tree1"))
    assert first(ev, "TreeRevealed").data["tree"] == "tree1"
    s, ev = play(s, cmd(V, "skip"))  # cannot pay: the trees are shuffled anyway
    assert "TreesShuffled" in types_of(ev)


def test_newcomer_intro_card_is_exchanged_and_first_tree_protected() -> None:
    s = two(newcomer=["vikings"])
    assert "vik-reach-intro" in s.tribes[V].hand
    a = warriors(s, 1)[0]
    s = tribe(place(s, V, {a: "marsh1"}), V, tokens=tokens("neutral:star"))
    s = at_action(s, V)
    s, ev = play(s, cmd(V, "special", card="vik-reach-intro"))
    assert first(ev, "CardExchanged").data == {"old": "vik-reach-intro", "new": "vik-reach"}
    s, _ = play(s, cmd(V, "skip"))  # does not call the Dragon over
    s, _ = play(s, cmd(V, "choose", option="tree:tree1"))
    s, ev = play(s, cmd(V, "pay", tokens=[0]))
    tree = next(t for t in s.trees if t.id == "tree1")
    assert tree.state == "felled" and tree.by == V and tree.protected


def test_dark_faery_poisons_then_curses() -> None:
    s = new_game(["dark_faery", "celts"])
    s = replace(park(park(s, 0), 1), terr_tokens={})
    maeve = unit_id(s, 0, "maeve")
    s = place(s, 0, {maeve: "marsh1"})
    s = at_action(s, 0, 1)
    s, ev = play(s, cmd(0, "poison", tree="tree1"))
    assert first(ev, "TreeChecked").seat == 0 and s.tribes[0].tribe_tokens == 5
    under = next(t for t in s.trees if t.id == "tree1").under
    from rules.dragondale.content import UNDERSIDES

    u = UNDERSIDES[under]
    ty = u["type"] or "star"
    need = u["count"] + (1 if u["plus"] else 0)
    s = tribe(s, 0, tokens=tokens(*[f"neutral:{ty}"] * need))
    s = at_task(s, 0, {"k": "tree", "seat": 0, "intro": False, "stage": "pick"})
    s, _ = play(s, cmd(0, "choose", option="tree:tree1"))
    s, ev = play(s, cmd(0, "pay", tokens=list(range(need))))
    assert first(ev, "TreeAltered").data["state"] == "cursed" and vp(s, 0) == 2
    assert s.tribes[0].roots == 2


def test_rune_stone_is_lost_when_an_enemy_stays() -> None:
    s = two()
    a = warriors(s, 1)[0]
    h = unit_id(s, C, "hunters")
    s = place(s, V, {a: "thicket1"})
    assert vp(s, V) == 1
    s = place(s, C, {h: "thicket1"})
    assert vp(s, V) == 0 and vp(s, C) == 0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_tokens_and_dominance(n: int) -> None:
    tribes = ["vikings", "celts", "druids", "dark_faery"][:n]
    s = new_game(tribes)
    b = board_for(n)
    # step 10: "all territories of the board that do not contain an exploration reward",
    # encampments included
    places = [t for t in b.terr.values() if not t.reward]
    assert any(t.kind == "camp" for t in places)
    assert all(len(s.terr_tokens[t.id]) == n for t in places)
    assert s.dominance[0] == DRAGON and list(s.dominance[1:]) == list(reversed(s.order))
    assert len(s.fury_tokens) == n
    total = sum(s.bag.values()) + n * len(places) + n
    expected = 16 * n + (8 if n == 4 else 4 + 8)
    assert total == expected
    assert all(u.hidden == (u.type != "ox") and u.loc == t.camp for t in s.tribes for u in t.units)


def test_setup_three_tribes_start_at_first_encampment_counter_clockwise() -> None:
    s = new_game(["celts", "druids", "vikings"], experienced=True)
    b = board_for(3)
    assert b.terr[s.tribes[s.order[0]].camp].first
    assert s.order == (0, 1, 2)


def test_setup_two_tribes_uses_the_overlay() -> None:
    b = board_for(2)
    assert "camp_c" not in b.terr and "thicket3" in b.terr


def test_setup_experienced_asks_for_stances_and_leaves_out_forest_guardian() -> None:
    s = new_game(["druids", "celts"], experienced=True)
    assert s.prompt is not None and s.prompt.kind == "stance_round" and set(s.prompt.seats) == {0, 1}
    cards = {c.args["card"] for c in GAME.legal_commands(s, 0) if c.args["unit"] == "fynn"}
    assert "forest_guardian" not in cards and "magician" in cards


def test_setup_first_game_asks_for_stances_before_the_second_turn() -> None:
    s = new_game(["vikings", "celts"])
    s = at_action(replace(s, turn_no=1), V, 2)
    s = replace(s, turn_no=2, stone=C)
    s, _ = end_actions(s)
    assert s.prompt is not None and s.prompt.kind == "stance_round" and set(s.prompt.seats) == {0, 1}


def test_flying_paws_splits_into_two_free_territories_and_hides() -> None:
    s = new_game(["druids", "celts"])
    s = replace(park(park(s, 0), 1), terr_tokens={})
    a, b = unit_id(s, 0, "forest_animals", 0), unit_id(s, 0, "forest_animals", 1)
    s = place(s, 0, {a: "thicket1", b: "thicket1"}, hidden=False)
    s = at_task(s, 0, {"k": "fmove", "seat": 0, "terr": "thicket1", "max": 2, "hide": True})
    opts = {c.args["option"] for c in GAME.legal_commands(s, 0)}
    assert "to:fog1" in opts and "to:fog1+tunnel1:forest_animals" in opts
    assert not any("camp_b" in o for o in opts)
    s, ev = play(s, cmd(0, "choose", option="to:fog1+tunnel1:forest_animals"))
    locs = sorted(u.loc for u in s.tribes[0].units if u.id in (a, b))
    assert locs == ["fog1", "tunnel1"]
    assert sorted(first(ev, "UnitsHidden").data["units"]) == sorted([a, b])


def test_dominance_effect_moves_a_tribe_up_but_not_past_the_dragon() -> None:
    s = replace(two(), dominance=(DRAGON, C, V))
    s = at_task(s, V, {"k": "opt", "seat": V, "options": [[{"do": "dominance"}], [{"do": "dominance"}]], "ctx": {}})
    s, _ = play(s, cmd(V, "choose", option="opt:0"))
    assert s.dominance == (DRAGON, V, C)
    s = at_task(s, V, {"k": "opt", "seat": V, "options": [[{"do": "dominance"}]], "ctx": {}})
    s, _ = play(s, cmd(V, "choose", option="opt:0"))
    assert s.dominance == (DRAGON, V, C)


def test_card_may_pay_then_move_a_unit_with_an_encounter_first() -> None:
    s = two()
    a = warriors(s, 1)[0]
    h = unit_id(s, C, "hunters")
    s = tribe(place(place(s, V, {a: "thicket1"}), C, {h: "fog1"}), V, tokens=tokens("neutral:leaf"))
    s = at_action(s, V, 1)
    s = tribe(s, V, hand=("vik-named",))
    s, _ = play(s, cmd(V, "special", card="vik-named"))  # Experienced Commander
    assert s.prompt is not None and s.prompt.kind == "may"
    s, _ = play(s, cmd(V, "pay", tokens=[0]))
    assert s.prompt is not None and s.prompt.kind == "cmove"
    s, ev = play_on(s, cmd(V, "choose", option=f"move:{a}:fog1"))
    assert "EncounterStarted" in types_of(ev)


def test_lure_the_dragon_moves_it_and_meets_the_tribes_there() -> None:
    s = two()
    h = unit_id(s, C, "hunters")
    s = place(s, C, {h: "oak"})
    s = replace(s, dragon="ash", mdeck=("oak2", "yew1"))
    s = at_task(s, V, {"k": "eff", "seat": V, "list": [{"do": "dragon_move"}], "i": 0, "ctx": {}})
    s = replace(s, ctl={**s.ctl, "prompt": None}, prompt=None)
    f = Flow(s, Rng(b"x"))
    run(f)
    evs = f.finish().events
    assert [x.data for x in evs if x.type.endswith("DragonMoved")] == [{"to": "oak", "from": "ash"}]
    assert any(x.type.endswith("EncounterStarted") for x in evs)


def test_reaching_the_dragon_tree_only_moves_the_dragon_to_you() -> None:
    s = two()
    a = warriors(s, 1)[0]
    s = place(s, V, {a: "yew"})
    s = replace(s, dragon="ash", mdeck=("oak2", "yew1"))
    s = at_task(s, V, {"k": "eff", "seat": V, "list": [{"do": "dragon_reach"}], "i": 0, "ctx": {}})
    s = replace(s, ctl={**s.ctl, "prompt": None}, prompt=None)
    s = resume(s)
    assert s.dragon == "ash"  # the card said oak: nobody of yours there, the Dragon stays


def test_second_effect_skipped_when_the_first_side_has_left() -> None:
    s = two()
    # FORESIGHT (Seers, active 4) moves the Vikings away before the Celts' GREAT HUNT (passive 2)
    a = unit_id(s, V, "seers")
    h = unit_id(s, C, "hunters")
    s = place(place(s, V, {a: "camp_a"}), C, {h: "thicket1"})
    s = tribe(s, V, stances=(("ox", "trample"), ("raven", "dark_omen"), ("seers", "foresight"), ("warriors", "raid")))
    s = at_action(s, V)
    s, _ = play(s, cmd(V, "explore", dir="in", target="thicket1", via=["camp_a"]))
    s, ev = play_on(s, cmd(V, "take", units=[a]))
    assert first(ev, "InitiativeDetermined").data["first"] == "vikings"
    assert s.prompt is not None and s.prompt.kind == "fmove"
    opt = next(c for c in GAME.legal_commands(s, V) if c.args["option"] == "to:camp_a")
    s, ev = play(s, opt)
    assert "UnitsDispelled" not in types_of(ev) and "EncounterEnded" in types_of(ev)


def test_great_hunt_dispels_two_per_revealed_hunter() -> None:
    s = new_game(["celts", "druids"])
    s = replace(park(park(s, 0), 1), terr_tokens={})
    h1, h2 = unit_id(s, 0, "hunters", 0), unit_id(s, 0, "hunters", 1)
    druids = [u.id for u in s.tribes[1].units][:5]
    s = place(place(s, 0, {h1: "camp_a", h2: "camp_a"}), 1, dict.fromkeys(druids, "thicket1"))
    s = tribe(s, 0, stances=(("alanis", "alanis"), ("bards", "ballad"), ("hunters", "great_hunt")),
              tokens=tokens("celts:circle"))
    s = tribe(s, 1, stances=(("forest_animals", "stampede"), ("fynn", "magician"), ("ovates", "herbal_lore")),
              tokens=())
    s = at_action(s, 0)
    s, _ = play(s, cmd(0, "explore", dir="in", target="thicket1", via=["camp_a"]))
    s, _ = play(s, cmd(0, "take", units=[h1, h2]))
    if s.prompt is not None and s.prompt.kind == "enc_unit":
        s, _ = play(s, next(iter(GAME.legal_commands(s, 1))))
    s, ev = play(s, cmd(0, "pay", tokens=[0]))
    # circle matches and GREAT HUNT shows the Dragon Might mark: 2 + 4 at Fury level 6
    init = first(ev, "InitiativeDetermined").data
    assert init["initiative"]["celts"] == 6 and init["initiative"]["druids"] <= 3 and init["first"] == "celts"
    assert s.prompt is not None and s.prompt.kind == "pick"
    picks = [c.args["option"] for c in GAME.legal_commands(s, 0)]
    assert picks and all(len(p.split(":")[1].split("+")) == 4 for p in picks)  # 2 hunters x 2


def test_runic_storm_adds_the_conquered_rune_stones() -> None:
    s = two()
    a = warriors(s, 1)[0]
    h = unit_id(s, C, "hunters")
    s = place(place(s, V, {a: "thicket1"}), C, {h: "fog2", unit_id(s, C, "bards"): "oak"})
    cards = [c for c, _ in s.fury_cards]
    cards.remove("runic_storm")
    cards.insert(6 - 2, "runic_storm")
    s = replace(s, fury_cards=tuple((c, False) for c in cards), dragon="ash", stone=V, mdeck=("oak1",))
    s = tribe(s, C, tokens=(), stances=(("alanis", "alanis"), ("bards", "lullaby"), ("hunters", "great_hunt")))
    s, ev = end_actions(at_action(s, V, 2))
    assert first(ev, "InitiativeDetermined").data["initiative"]["dragon"] == 6 + 2


def test_vikings_step_c_the_ox_by_a_tree_finds_insight() -> None:
    s = replace(two(), bag={"neutral:leaf": 3})
    s = place(s, V, {"ox": "marsh1"})
    s, ev = end_actions(at_action(s, V, 2))
    assert first(ev, "InsightDrawn").seat == V


def test_druids_tribe_action_exchanges_an_insight_token() -> None:
    s = new_game(["druids", "celts"])
    s = tribe(replace(s, bag={"neutral:star": 2}), 0, tokens=tokens("druids:leaf"))
    s = at_task(s, 0, {"k": "tribe_action", "seat": 0}, kind="tribe_action")
    s, ev = play(s, cmd(0, "choose", option="exchange:0"))
    assert types_of(ev)[:2] == ["InsightPaid", "InsightDrawn"]
    assert s.tribes[0].tokens == tokens("neutral:star") and s.bag == {"neutral:star": 1, "druids:leaf": 1}


def test_plan_reaction_can_take_a_random_idea() -> None:
    s = two()
    ideas = s.tribes[C].ideas
    s = at_action(tribe(s, C, tokens=tokens("celts:star")), V, 2)
    s, _ = play(s, cmd(V, "plan"))
    s, ev = play(s, cmd(C, "choose", option="plan:take:0"))
    card = first(ev, "IdeaTaken").data["secret"]["card"]
    assert card in ideas and card in s.tribes[C].hand and card not in s.tribes[C].ideas
    assert "secret" not in GAME.redact(first(ev, "IdeaTaken"), V).data


def test_active_tribe_orders_tribes_going_over_the_edge() -> None:
    s = two()
    s = tribe(s, V, fury=10, revealed=("skyward_watch",), tokens=())
    s = tribe(s, C, fury=10, revealed=("alanis",), tokens=())
    s = replace(s, stone=C)
    s, _ = end_actions(at_action(s, V, 2))
    assert s.prompt is not None and s.prompt.kind == "fury_react" and s.prompt.seats == (V,)
    assert {c.args["option"] for c in GAME.legal_commands(s, V)} == {"first:vikings", "first:celts"}
    s, _ = play(s, cmd(V, "choose", option="first:celts"))
    assert s.prompt is not None and s.prompt.kind == "edge" and s.prompt.seats == (C,)


def test_card_explore_is_a_full_exploration_with_a_discard_cost() -> None:
    s = two()
    s = tribe(s, V, hand=("vik-named", "vik-h1"))
    s = at_task(s, V, {"k": "eff", "seat": V, "list": [
        {"do": "may", "cost": "discard", "then": [{"do": "explore"}]}], "i": 0, "ctx": {}})
    s = replace(s, ctl={**s.ctl, "prompt": None}, prompt=None)
    s = resume(s)
    assert s.prompt is not None and s.prompt.kind == "may"
    s, _ = play(s, cmd(V, "discard", card="vik-h1"))
    assert s.prompt is not None and s.prompt.kind == "cexplore"
    s, _ = play(s, cmd(V, "explore", dir="out", target="camp_a", via=["thicket1"]))
    assert s.prompt is not None and s.prompt.kind == "take"

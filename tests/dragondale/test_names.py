"""Names and hidden information (issue #16, Dragon Dale 1, 2 and 11): insight tokens named by
their place so any may be used, fresh public ids for hidden units that mix, refusals in words."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from rules.core import Command, IllegalCommand, Rng, SeatInfo, fold
from rules.decider import decide
from rules.dragondale import GAME
from rules.dragondale.queries import token_combos
from rules.dragondale.refusals import KINDS
from rules.dragondale.state import State
from tests.dragondale.positions import (
    at_action,
    at_task,
    cmd,
    new_game,
    park,
    place,
    play,
    tokens,
    tribe,
)

V, C = 0, 1  # Vikings at camp_a, Celts at camp_b on the 2-tribe board


def two() -> State:
    s = new_game(["vikings", "celts"])
    return replace(park(park(s, 0), 1), terr_tokens={})


def legal(s: State, seat: int = V) -> list[Command]:
    return list(GAME.legal_commands(s, seat))


def refused(s: State, c: Command) -> str:
    with pytest.raises(IllegalCommand) as exc:
        play(s, c)
    assert exc.value.code in KINDS
    return exc.value.message


TWINS = tokens("neutral:square", "neutral:square", "vikings:circle")


# -- 1: insight tokens -----------------------------------------------------------------------

def test_any_insight_token_may_be_paid_even_one_identical_to_another() -> None:
    """"You can pay with any insight token, no matter which tribe it belongs to and no matter if
    it's hidden or revealed" [Gaining and Playing Insight]. Two identical hidden tokens are two
    choices: offering only the first would make a public `pay 1` say that token 1 differs."""
    s = at_task(tribe(two(), V, tokens=TWINS), V, {"k": "lose", "seat": V})
    assert [c.args["tokens"] for c in legal(s)] == [[0], [1], [2]]
    after, ev = play(s, cmd(V, "pay", tokens=[1]))
    assert after.tribes[V].tokens == tokens("neutral:square", "vikings:circle")
    paid = GAME.redact(next(e for e in ev if e.type.endswith("InsightPaid")), C)
    assert paid is not None and paid.data == {"index": 1, "token": None}


@pytest.mark.parametrize("task", [
    {"k": "may", "seat": V, "cost": "pay", "then": [], "ctx": {}},
    {"k": "may", "seat": V, "cost": "reveal", "then": [], "ctx": {}},
    {"k": "plan_react", "seat": V},
])
def test_every_token_prompt_offers_each_token_whatever_its_type(task: dict) -> None:
    """The answers naming tokens are the same whatever the hidden tokens are: a player's choice
    of token then says nothing the board does not show [Revealing Insight]."""
    def named(s: State) -> list[Command]:
        return [c for c in legal(s) if c.type != "dragondale.skip"]

    twins = at_task(tribe(two(), V, tokens=TWINS, ideas=("vik-3",)), V, task)
    mixed = at_task(tribe(two(), V, tokens=tokens("neutral:leaf", "neutral:square", "vikings:circle"),
                          ideas=("vik-3",)), V, task)
    assert named(twins) == named(mixed)
    assert {c.args.get("tokens", [c.args.get("token")])[0] if c.type != "dragondale.choose"
            else int(c.args["option"].rsplit(":", 1)[1]) for c in named(twins)} == {0, 1, 2}


def test_a_tree_cost_may_be_paid_with_any_fitting_tokens() -> None:
    """"You have to pay insight according to the symbols" [Pay Costs According to the Tree]: each
    set of tokens that fits is an answer, also one of identical twins of another."""
    toks = tokens("neutral:square", "neutral:square", "vikings:square", "celts:circle")
    assert token_combos(toks, {"kind": "type", "type": "square", "count": 2}) == [[0, 1], [0, 2], [1, 2]]
    assert token_combos(toks, {"kind": "any"}) == [[0], [1], [2], [3]]


def test_empower_exchange_offers_each_token() -> None:
    """"Exchange 1 of your insight tokens with one in the bag" [Boost and Empower]: any of them."""
    s = tribe(two(), V, tokens=TWINS, library=("vik-2", "vik-3"))
    s = at_action(s, V, 2)
    effects = sorted(c.args["effect"] for c in legal(s) if c.type == "dragondale.empower" and c.args["card"] == "vik-2")
    assert effects == ["exchange:0", "exchange:1", "exchange:2"]


def test_a_refused_exchange_names_the_tokens_held() -> None:
    s = at_action(tribe(two(), V, tokens=TWINS, library=("vik-2", "vik-3")), V, 2)
    msg = refused(s, cmd(V, "empower", card="vik-2", effect="exchange:3"))
    assert msg == "empower vik-2 exchange:3: you hold 3 insight token(s), numbered 0 to 2"
    msg = refused(s, cmd(V, "empower", card="vik-2", effect="exchange"))
    assert msg == "empower vik-2 exchange: name the token to exchange, exchange:0 to exchange:2"


def test_a_refused_answer_to_altering_a_tree_says_which_step_it_is() -> None:
    """"Reveal the symbols underneath the tree. You have to pay insight according to the symbols"
    [Pay Costs According to the Tree]: first the tree, then its cost."""
    s = at_task(tribe(two(), V, tokens=TWINS), V, {"k": "tree", "seat": V, "intro": False, "stage": "pick"})
    assert refused(s, cmd(V, "pay", tokens=[0])) == "pay 0: first choose the tree to alter (tree <tree>), or skip"
    s = at_task(tribe(two(), V, tokens=TWINS), V,
                {"k": "tree", "seat": V, "intro": False, "stage": "pay", "tree": "tree1", "was": "unaltered"})
    assert refused(s, cmd(V, "choose", option="tree:tree2")) == "tree tree2: tree1 is chosen: pay its cost (pay <tokens>), or skip"


def test_a_refused_payment_says_why_and_names_no_type() -> None:
    s = at_task(tribe(two(), V, tokens=TWINS), V, {"k": "lose", "seat": V})
    msg = refused(s, cmd(V, "pay", tokens=[3]))
    assert msg == "pay 3: you hold 3 insight token(s), numbered 0 to 2; there is no 3"
    msg = refused(s, cmd(V, "pay", tokens=[0, 1]))
    assert msg == "pay 0 1: pay exactly 1 insight token here"


def test_a_refused_answer_to_a_card_cost_names_the_cost() -> None:
    """"If an effect follows the structure "[pay cost] to [gain reward]" ... it is optional for you
    to pay the cost" [Special Action]: the cost is the card's, and a refusal says which it is."""
    s = at_task(tribe(two(), V, tokens=TWINS), V, {"k": "may", "seat": V, "cost": "reveal", "then": [], "ctx": {}})
    assert refused(s, cmd(V, "pay", tokens=[0])) == "pay 0: this effect's cost is to reveal (an insight token), or skip it"


# -- 2: public identities of hidden units ------------------------------------------------------

def _warriors_home(seed: int) -> tuple[str, State, list]:
    """A revealed Warriors walks from thicket1 back into the encampment, among 5 hidden Vikings."""
    s = two()
    a = next(u.id for u in s.tribes[V].units if u.type == "warriors")
    s = at_action(place(s, V, {a: "thicket1"}, hidden=False), V)
    s, _ = play(s, cmd(V, "explore", dir="in", target="camp_a", via=["thicket1"]), seed)
    s, ev = play(s, cmd(V, "take", units=[a]), seed)
    return a, s, ev


def test_a_rehidden_unit_cannot_be_linked_to_its_earlier_public_identity() -> None:
    """"Hide units once they return to your encampment" [Encampment]; hidden, "the tribe symbol and
    not the unit illustration is visible" [Hidden Units], so the miniatures there are alike. The
    Warriors' id goes, every hidden Viking there takes a fresh id in an order drawn at random, and
    what another seat or a spectator sees is the same whichever fresh id the Warriors got."""
    seen: dict[int | None, set[str]] = {C: set(), None: set()}
    warriors_ids: set[tuple[str, ...]] = set()
    for seed in range(8):
        a, s, ev = _warriors_home(seed)
        mixed = [e for e in ev if e.type.endswith("UnitsMixed")]
        assert len(mixed) == 1
        assert a not in {u.id for u in s.tribes[V].units} and a in mixed[0].data["was"]
        home = sorted(u.id for u in s.tribes[V].units if u.loc == "camp_a" and u.hidden)
        assert sorted(mixed[0].data["now"]) == home and not set(home) & set(mixed[0].data["was"])
        warriors_ids.add(tuple(sorted(u.id for u in s.tribes[V].units if u.type == "warriors")))
        for viewer in seen:
            public = [GAME.redact(e, viewer) for e in ev]
            seen[viewer].add(repr([(e.type, dict(e.data)) for e in public if e is not None])
                             + repr(GAME.view(s, viewer)))
    assert len(warriors_ids) > 1  # the Warriors are under different ids from one draw to another
    assert all(len(v) == 1 for v in seen.values())  # ... and no one else can tell which


def test_the_owner_still_knows_its_units_after_they_mix() -> None:
    a, s, ev = _warriors_home(3)
    mapping = next(e for e in ev if e.type.endswith("UnitsMixed")).data["secret"]["ids"]
    new = mapping[a]
    assert next(u for u in s.tribes[V].units if u.id == new).type == "warriors"
    own = next(u for u in GAME.view(s, V)["tribes"][V]["units"] if u["id"] == new)
    assert own["type"] == "warriors" and own["hidden"]


def test_a_lone_hidden_unit_keeps_its_id() -> None:
    """Nothing to mix with: a hidden unit alone of its tribe in a territory keeps its id (anyone
    watching the table could follow that miniature too)."""
    s = two()
    a = next(u.id for u in s.tribes[V].units if u.type == "warriors")
    s = at_action(s, V)
    s, _ = play(s, cmd(V, "explore", dir="out", target="camp_a", via=["thicket1"]))
    s, ev = play(s, cmd(V, "take", units=[a]))
    assert not any(e.type.endswith("UnitsMixed") for e in ev)
    assert next(u for u in s.tribes[V].units if u.id == a).loc == "thicket1"


def test_hidden_units_meeting_in_a_territory_mix() -> None:
    """A hidden unit that joins hidden units of its tribe mixes with them: the record after says
    only which ids went and which came."""
    s = two()
    a, b = [u.id for u in s.tribes[V].units if u.type == "warriors"][:2]
    s = at_action(place(s, V, {a: "thicket1"}), V)
    s, _ = play(s, cmd(V, "explore", dir="out", target="camp_a", via=["thicket1"]))
    s, ev = play(s, cmd(V, "take", units=[b]))
    mixed = next(e for e in ev if e.type.endswith("UnitsMixed"))
    public = GAME.redact(mixed, C)
    assert public is not None and public.data == {"at": "thicket1", "was": sorted([a, b], key=lambda x: int(x[1:])),
                                                  "now": ["v7", "v8"]}


# -- 11: refusals in words ---------------------------------------------------------------------

def test_refusal_plan_only_as_your_2nd_action() -> None:
    """"EXPLORE can only be done as your 1st action. PLAN only as your 2nd action" [Step B]."""
    s = at_action(two(), V, 1)
    assert refused(s, cmd(V, "plan")) == "plan: Plan only as your 2nd action"
    s2 = at_action(two(), V, 2)
    msg = refused(s2, cmd(V, "explore", dir="out", target="camp_a", via=["thicket1"]))
    assert msg == "explore out camp_a to thicket1: Explore only as your 1st action"


def test_refusal_names_the_other_tribes_encampment() -> None:
    """"ENTERING: Only your units" [Encampment]."""
    s = two()
    a = next(u.id for u in s.tribes[V].units if u.type == "warriors")
    s = at_action(place(s, V, {a: "thicket2"}), V)
    msg = refused(s, cmd(V, "explore", dir="in", target="camp_b", via=["thicket2"]))
    assert msg == "explore in camp_b from thicket2: camp_b is the Celts' encampment: only that tribe's units enter it"


def test_refusal_a_single_unit_cannot_leave_a_fog_valley() -> None:
    """"If you only have a single unit in the FOG VALLEY, it cannot move out!" [Fog Valley]."""
    s = two()
    a = next(u.id for u in s.tribes[V].units if u.type == "warriors")
    s = at_action(place(s, V, {a: "fog1"}), V)
    msg = refused(s, cmd(V, "explore", dir="out", target="fog1", via=["mountain1"]))
    assert msg.startswith("explore out fog1 to mountain1: ")
    assert "Fog Valley fog1" in msg and "{" not in msg


def test_refusal_of_an_option_lists_the_options_in_words() -> None:
    s = at_task(two(), V, {"k": "reward", "seat": V, "terr": "thicket1"})
    msg = refused(s, cmd(V, "choose", option="reward:gold"))
    assert msg.startswith("choose reward:gold: not an option here; the options are: reward boost; ")
    assert "reward check tree1" in msg and "{" not in msg and "dragondale." not in msg


def test_refusals_say_why_in_words_never_a_python_dict() -> None:
    """Over the first prompts of random games, every refused answer (a legal answer of another
    prompt, or a legal one with a word changed) reads `<the command as typed>: <why>`."""
    rnd = random.Random(5)
    seen = 0
    for seed in range(6):
        tribes = ["vikings", "celts", "druids", "dark_faery"][: 2 + seed % 3]
        rng = Rng(seed.to_bytes(8, "big"))
        s = fold(GAME, GAME.setup({"tribes": tribes}, [SeatInfo(i, t) for i, t in enumerate(tribes)], rng))
        pool: list[Command] = []
        for _ in range(150):
            if GAME.is_over(s) is not None:
                break
            assert s.prompt is not None
            seat = rnd.choice(list(s.prompt.seats))
            ok = list(GAME.legal_commands(s, seat))
            pool += ok
            for wrong in rnd.sample(pool, min(3, len(pool))):
                wrong = Command(wrong.type, wrong.args, seat)
                if wrong in ok or wrong.type not in GAME.answers(s.prompt):
                    continue
                with pytest.raises(IllegalCommand) as exc:
                    decide(GAME, s, wrong, rng)
                text = GAME.format_text(wrong)
                assert exc.value.message.startswith(text + ": "), exc.value.message
                assert "{" not in exc.value.message and "dragondale." not in exc.value.message
                seen += 1
            s = decide(GAME, s, rnd.choice(ok), rng).state
    assert seen > 50

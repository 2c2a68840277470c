"""Set-up for first games and experienced tribes, for 2, 3 and 4 tribes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rules.core import Event, InvalidCommand, Rng, SeatInfo, UnknownOptions
from rules.dragondale.board import board_for, token_places
from rules.dragondale.content import (
    CARD_BY_ID,
    CARDS,
    FURY_CARDS,
    INSIGHT_TYPES,
    MOVEMENT_CARDS,
    TRACK,
    TRIBES,
    UNDERSIDES,
)
from rules.dragondale.decide import run
from rules.dragondale.evolve import evolve
from rules.dragondale.flow import Flow
from rules.dragondale.queries import play_order
from rules.dragondale.state import DRAGON, State

TRIBE_ORDER = ("vikings", "celts", "druids", "dark_faery")
PREFIX = {"vikings": "v", "celts": "c", "druids": "d", "dark_faery": "f"}
OPTION_KEYS = frozenset({"tribes", "experienced", "newcomer", "first"})


def check_options(options: Mapping[str, Any], n: int) -> tuple[list[str], bool, list[bool]]:
    """Validated tribes (seat order), experienced flag and newcomer flag per seat."""
    if not 2 <= n <= 4:
        raise InvalidCommand("bad_options", "Dragon Dale is for 2, 3 or 4 tribes")
    extra = set(options) - OPTION_KEYS
    if extra:
        raise UnknownOptions(extra, OPTION_KEYS)
    tribes = options.get("tribes", list(TRIBE_ORDER[:n]))
    if not isinstance(tribes, list) or len(tribes) != n or len(set(tribes)) != n or any(
        t not in TRIBE_ORDER for t in tribes
    ):
        raise InvalidCommand("bad_options", f"tribes must be {n} distinct of {list(TRIBE_ORDER)}")
    experienced = options.get("experienced", False)
    if not isinstance(experienced, bool):
        raise InvalidCommand("bad_options", "experienced must be true or false")
    newcomer = options.get("newcomer", False)
    if isinstance(newcomer, bool):
        flags = [newcomer] * n
    elif isinstance(newcomer, list) and all(t in tribes for t in newcomer):
        flags = [t in newcomer for t in tribes]
    else:
        raise InvalidCommand("bad_options", "newcomer must be a boolean or a list of tribes in play")
    if "first" in options and not asks_first(n, experienced):
        raise InvalidCommand("bad_options", "first is for a first game of 2 or 4 tribes: with 3 the "
                             "\"1st\" encampment starts, experienced tribes draw the starting tribe")
    if "first" in options and options["first"] not in tribes:
        raise InvalidCommand("bad_options", f"first must be one of the tribes in play: {tribes}")
    return tribes, experienced, flags


def asks_first(n: int, experienced: bool) -> bool:
    """Whether the tribes name the starting tribe: "2 and 4 tribes: Whoever was lost last" [Setup 5]."""
    return not experienced and n != 3


def _introduced(tribe: str, library: list[str]) -> list[str]:
    """The introductory cards a newcomer takes in hand from the Library at set-up: "VIKINGS/CELTS:
    You start with the introductory version of the card "Reaching the Dragon Tree"" [Newcomers].
    The Vikings' card starts in hand anyway; the Druids' sentence ("the introductory version of
    your tree-altering cards") says which version they gain from the Library (RULINGS.md)."""
    if tribe not in ("vikings", "celts"):
        return []
    return [c for c in library if CARD_BY_ID[c].get("is_intro") and "reach" in CARD_BY_ID[c]["regular"]]


def _tribe_tokens(name: str) -> list[list[str]]:
    return [[name, t] for t in INSIGHT_TYPES for _ in range(4)]


def setup_events(options: Mapping[str, Any], seats: Sequence[SeatInfo], rng: Rng, rules: int) -> list[Event]:
    """The set-up under rules version `rules` (version 1 left newcomer Celts' introductory
    Reaching card in Library position 3 and named no version in `GameSetUp`)."""
    n = len(seats)
    tribes, experienced, newcomer = check_options(options, n)
    b = board_for(n)
    camps = [f"camp_{t}" for t in tribes] if n == 4 else ["camp_a", "camp_b", "camp_c"][:n]
    if "first" in options:
        start = tribes.index(options["first"])
    else:
        start = rng.below(n) if experienced and n != 3 else 0
    order = play_order(start, n)
    dominance = [DRAGON, *reversed(order)]
    # insight tokens: one of each tribe on every territory without a reward, encampments too
    # ("all territories of the board that do not contain an exploration reward"), one by each
    # marked Fury space, the rest of the tribe's tokens and the neutral ones into the bag
    places = token_places(b)
    terr_tokens: dict[str, list[list[str]]] = {p: [] for p in places}
    fury_tokens: dict[str, list[str]] = {}
    bag: dict[str, int] = {}

    def into_bag(tok: list[str]) -> None:
        key = f"{tok[0]}:{tok[1]}"
        bag[key] = bag.get(key, 0) + 1

    for name in tribes:
        toks = rng.shuffled(_tribe_tokens(name))
        for p in places:
            terr_tokens[p].append(toks.pop())
        fury_tokens[str(TRACK["tribe_spaces"][name])] = toks.pop()
        for tok in toks:
            into_bag(tok)
    unused = [t for t in TRIBE_ORDER if t not in tribes]
    neutral = [["neutral", t] for t in INSIGHT_TYPES]
    for tok in neutral * (2 if n == 4 else 1):
        into_bag(tok)
    if unused:
        pool = [tok for name in unused for tok in _tribe_tokens(name)]
        for tok in rng.sample(pool, 8):
            into_bag(tok)
    trees = sorted(b.trees)
    unders = rng.shuffled(sorted(UNDERSIDES))
    dragon = b.inner_by_rune[rng.choice(["ash", "oak", "yew"])]
    versioned = {"rules": rules} if rules > 1 else {}
    events = [Event("dragondale.GameSetUp", {
        **versioned, "n": n, "board": b.key, "experienced": experienced, "tribes": tribes, "camps": camps,
        "order": order, "dominance": dominance, "fury_top": list(TRACK["top"]),
        "fury_bottom": list(TRACK["bottom"]), "dragon": dragon, "stone": order[-1], "trees": trees,
        "token_owners": {p: [t[0] for t in v] for p, v in terr_tokens.items()},
        "fury_token_owners": {k: v[0] for k, v in fury_tokens.items()},
        "secret": {
            "bag": bag, "terr_tokens": terr_tokens, "fury_tokens": fury_tokens,
            "fury_cards": rng.shuffled(sorted(FURY_CARDS)),
            "mdeck": rng.shuffled(sorted(MOVEMENT_CARDS)),
            "under": dict(zip(trees, unders, strict=True)),
        },
    })]
    for seat, name in enumerate(tribes):
        info = TRIBES[name]
        pfx = PREFIX[name]
        types = [ut for ut, u in info["units"].items() if ut != "ox" for _ in range(u["count"])]
        types = rng.shuffled(types)
        ids = [f"{pfx}{i + 1}" for i in range(6)]
        type_of = dict(zip(ids, types, strict=True))
        always = {}
        if "ox" in info["units"]:
            ids.append("ox")
            type_of["ox"] = "ox"
            always["ox"] = "ox"

        def card_id(c: dict[str, Any], seat_new: bool = newcomer[seat]) -> str:
            return str(c["intro"]["id"]) if seat_new and "intro" in c else str(c["id"])

        cards = CARDS[name]
        hand = [card_id(c) for c in cards if c["zone"] == "hand"]
        library = [card_id(c) for c in sorted((c for c in cards if c["zone"] == "library"), key=lambda c: c["number"])]
        ideas = [card_id(c) for c in cards if c["zone"] == "ideas"]
        if rules > 1 and newcomer[seat]:
            hand += _introduced(name, library)
            library = [c for c in library if c not in hand]
        # experienced set-up: card A (TOP) only goes to a tribe playing for the first time
        if not experienced or newcomer[seat]:
            ideas += [card_id(c) for c in cards if c["zone"] == "ideas_top"]
        stances = {}
        for ut, lst in info["stances"].items():
            left = set(info.get("leave_out_experienced", [])) if experienced else set()
            stances[ut] = next(c["id"] for c in lst if c["id"] not in left)
        events.append(Event("dragondale.TribeSetUp", {
            "tribe": name, "units": ids, "always": always, "ideas": ideas,
            "tribe_tokens": info["tokens"] - 2, "roots": info.get("roots", 0),
            "newcomer": newcomer[seat],
            "secret": {"types": type_of, "hand": hand, "library": library, "stances": stances},
        }, seat))
    state = State()
    for e in events:
        state = evolve(state, e)
    f = Flow(state, rng)
    if asks_first(n, experienced) and "first" not in options:
        f.push({"k": "first"})
    if experienced:
        f.emit("StanceTodo", {"todo": {str(i): list(TRIBES[t]["stances"]) for i, t in enumerate(tribes)}})
        f.push({"k": "stance_round"})
    run(f)
    return events + f.finish().events

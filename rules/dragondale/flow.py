"""One decision in progress: the running state, its task stack and the moves rules share.

The flow of play is a stack of tasks in the public control record `ctl`; `rules.dragondale.decide`
runs it until someone must choose. Every state change is an event folded at once (the kit's
`Emitter`), and the decision ends with a `PromptChanged` event carrying the new control record,
so replay never re-runs this logic.
"""

from __future__ import annotations

from typing import Any

import orjson

from rules.core import Decision, Rng
from rules.dragondale.content import (
    HIGH,
    LOW,
    MOVEMENT_CARDS,
    TRIBES,
)
from rules.dragondale.evolve import evolve, top_card_on
from rules.dragondale.identity import mixing, named_in, touched
from rules.dragondale.queries import (
    board,
    dominance_rank,
    seats_at,
    vp,
)
from rules.dragondale.state import DRAGON, State
from rules.kit import Emitter

# a task on the stack: {"k": kind, ...its own fields}; JSON data, since it is part of `ctl`
Task = dict[str, Any]


def one_draw_weighted(rng: Rng, weights: list[int]) -> int:
    """An index drawn with probability proportional to its weight, from exactly one draw
    whatever the weights (RULINGS.md, "Drawing by feel").

    The number of draws a command makes is public, and `Rng.weighted` makes none for a total
    of 1 and may redraw for others: with one token in the bag its type showed in the count. One
    64-bit draw scaled onto the total (multiply and shift) is off a fair draw by at most
    total / 2**64, far below anything a game could notice."""
    total = sum(weights)
    x = (rng.below(1 << 64) * total) >> 64
    for i, w in enumerate(weights):
        if x < w:
            return i
        x -= w
    raise AssertionError("unreachable: x < total")


class Flow(Emitter[State]):
    """The kit's emit-and-fold context with Dragon Dale's control record and task stack."""

    __slots__ = ("ctl", "stack")

    def __init__(self, state: State, rng: Rng) -> None:
        super().__init__("dragondale.", evolve, state, rng)
        # the one place `ctl` is copied (see State): tasks are changed in place while the
        # decision runs, and the state's record must stay as it was
        self.ctl: dict[str, Any] = orjson.loads(orjson.dumps(state.ctl)) if state.ctl else {
            "stack": [], "prompt": None, "enc": None, "turn": -1,
        }
        self.stack: list[Task] = self.ctl["stack"]

    def finish(self) -> Decision:
        """Close the decision: the control record goes into the log, and from there the state."""
        self.mix()
        self.emit("PromptChanged", {"ctl": self.ctl})
        return self.decision()

    def push(self, *tasks: Task) -> None:
        """Push tasks so that the first given runs first."""
        self.stack.extend(reversed(tasks))

    def ask(self, seats: list[int], task: Task, options: dict[str, Any] | None = None) -> bool:
        """Prompt `seats` to answer `task` (its kind names the prompt); a step returns this."""
        self.ctl["prompt"] = {"seats": seats, "kind": task["k"], "options": options or {}}
        return True

    # -- game-wide changes -----------------------------------------------------------------
    def check_end(self) -> bool:
        s = self.s
        if s.dominance and s.dominance[-1] == DRAGON:
            self.end_by_vp("the Dragon reached the lowest dominance")
            return True
        if s.trees and all(t.state == "felled" for t in s.trees):
            # "The last felled tree is worth 2 VP; other wood that has not been secured is
            # worth 0 VP" [Other End Game Conditions, case B]
            last = next(t for t in s.trees if t.id == s.wood[-1]) if s.wood else None
            self.end_by_vp("all trees are felled", {last.by: 2} if last and last.by is not None else {})
            return True
        return False

    def end_by_vp(self, reason: str, extra: dict[int, int] | None = None) -> None:
        s = self.s
        scores = [vp(s, i) + (extra or {}).get(i, 0) for i in range(s.n)]
        best = max(scores)
        tied = [i for i in range(s.n) if scores[i] == best]
        winner = min(tied, key=lambda i: dominance_rank(s, i))
        self.emit("GameEnded", {"winners": [winner], "scores": scores, "reason": reason})

    def next_turn(self) -> None:
        s = self.s
        if self.ctl["turn"] < 0:
            seat = s.order[0]
        else:
            seat = s.order[(s.order.index(self.ctl["turn"]) + 1) % s.n]
        self.ctl["turn"] = seat
        self.emit("TurnStarted", {"seat": seat, "turn": s.turn_no + 1})
        self.push(
            {"k": "start", "seat": seat}, {"k": "tribe_action", "seat": seat},
            {"k": "action", "seat": seat, "n": 1}, {"k": "action", "seat": seat, "n": 2},
            {"k": "step_c"}, {"k": "step_d"}, {"k": "step_e"}, {"k": "step_f"}, {"k": "end_turn"},
        )

    @property
    def turn(self) -> int:
        """The seat whose turn it is (the active tribe)."""
        return int(self.ctl["turn"])

    def draw_insight(self, seat: int) -> None:
        bag = self.s.bag
        if not bag:
            return
        pref = TRIBES[self.s.tribes[seat].name]["insight"]
        keys = sorted(bag)
        # feeling the shape: the tribe's own shape is three times as likely per token
        weights = [bag[k] * (3 if k.split(":")[1] == pref else 1) for k in keys]
        if self.s.rules < 2:
            key = keys[self.rng.weighted(weights)]
        else:
            key = keys[one_draw_weighted(self.rng, weights)]
        owner, typ = key.split(":")
        self.emit("InsightDrawn", {"secret": {"token": [owner, typ]}}, seat)

    def pickup(self, seat: int, terr: str) -> None:
        name = self.s.tribes[seat].name
        for tok in self.s.terr_tokens.get(terr, ()):
            if tok.owner == name:
                self.emit("InsightPickedUp", {"where": terr, "owner": name, "secret": {"type": tok.type}}, seat)
                return

    def discard(self, seat: int, card: str) -> None:
        """Discard a card to Ideas: seen by all on top of the pile, secret under a TOP card."""
        if top_card_on(self.s.tribes[seat].ideas):
            self.emit("CardDiscarded", {"secret": {"card": card}}, seat)
        else:
            self.emit("CardDiscarded", {"card": card}, seat)

    def boost(self, seat: int) -> None:
        lib = self.s.tribes[seat].library
        if lib:
            self.emit("CardBoosted", {"card": lib[0]}, seat)
        else:
            self.dragon_down()

    def dragon_down(self, may_end: bool = True) -> None:
        order = list(self.s.dominance)
        i = order.index(DRAGON)
        if i >= len(order) - 1 or (not may_end and i == len(order) - 2):
            return
        order[i], order[i + 1] = order[i + 1], order[i]
        self.emit("DominanceChanged", {"order": order})

    def tribe_up(self, seat: int) -> None:
        order = list(self.s.dominance)
        i = order.index(seat)
        if i > 0 and order[i - 1] != DRAGON:
            order[i], order[i - 1] = order[i - 1], order[i]
            self.emit("DominanceChanged", {"order": order})

    def fury_step(self, seat: int, delta: int) -> None:
        """Move a tribe token `delta` spaces, one space at a time: each space it moves onto that
        holds the tribe's insight token gains it, and a move past either end goes over the edge."""
        step = 1 if delta > 0 else -1
        for _ in range(abs(delta)):
            new = self.s.tribes[seat].fury + step
            if not LOW <= new <= HIGH:
                self.push({"k": "edge", "seat": seat, "side": "top" if new > HIGH else "bottom"})
                return
            self.emit("FuryMoved", {"to": new}, seat)
            tok = self.s.fury_tokens.get(str(new))
            if tok is not None and tok.owner == self.s.tribes[seat].name:
                self.emit("InsightPickedUp", {"where": f"fury:{new}", "owner": tok.owner, "secret": {"type": tok.type}}, seat)

    def hide(self, seat: int, ids: list[str]) -> None:
        units = {u.id: u for u in self.s.tribes[seat].units}
        hide = sorted(i for i in ids if not units[i].hidden and units[i].type != "ox")
        if hide:
            self.emit("UnitsHidden", {"units": hide}, seat)

    def reveal_units(self, seat: int, ids: list[str]) -> None:
        units = {u.id: u for u in self.s.tribes[seat].units}
        rev = {i: units[i].type for i in sorted(ids) if units[i].hidden}
        if rev:
            self.emit("UnitsRevealed", {"units": rev}, seat)

    def dispel(self, seat: int, ids: list[str]) -> None:
        if ids:
            units = {u.id: u for u in self.s.tribes[seat].units}
            self.emit("UnitsDispelled", {"units": {i: units[i].type for i in sorted(ids)}}, seat)

    def to_camp(self, seat: int, ids: list[str]) -> None:
        if ids:
            units = {u.id: u for u in self.s.tribes[seat].units}
            hide = sorted(i for i in ids if units[i].type != "ox")
            self.emit("UnitsPlaced", {"units": sorted(ids), "to": self.s.tribes[seat].camp, "hide": hide}, seat)

    def mix(self) -> None:
        """Fresh public ids for hidden units that joined others of their tribe, or were hidden
        among them, in this decision (rules.dragondale.identity).

        Done once, when the decision closes, from its events: no event in between names a fresh
        id, every way a unit moves or hides is covered, and ids a waiting task holds stay."""
        for seat, terr in touched(self.s, self.events):
            data = mixing(self.s, seat, terr, named_in(self.ctl), self.rng)
            if data is not None:
                self.emit("UnitsMixed", data, seat)

    def pay_tokens(self, seat: int, idx: list[int]) -> None:
        toks = self.s.tribes[seat].tokens
        for i in sorted(idx, reverse=True):
            t = toks[i]
            self.emit("InsightPaid", {"index": i, "token": None if t.hidden else [t.owner, t.type],
                                      "secret": {"token": [t.owner, t.type]}}, seat)

    # -- the Dragon --------------------------------------------------------------------------
    def mshuffle(self) -> None:
        self.emit("DragonDeckShuffled", {"secret": {"deck": self.rng.shuffled(sorted(MOVEMENT_CARDS))}})

    def mdraw(self) -> str:
        if not self.s.mdeck:
            self.mshuffle()
        card = self.s.mdeck[0]
        self.emit("DragonCardDrawn", {"card": card})
        return card

    def dragon_dest(self) -> str | None:
        """Draw movement cards as the rulebook says; a territory, or None on a stay card."""
        b = board(self.s)
        assert self.s.dragon is not None
        cur = b.terr[self.s.dragon]
        card = self.mdraw()
        mc = MOVEMENT_CARDS[card]
        if "stay" in mc:
            self.stay(mc["stay"])
            return None
        rune = mc["rune"]
        if cur.kind == "inner":
            if rune != cur.rune:
                return b.inner_by_rune[rune]
            rune = self.redraw_rune()
            return None if rune is None else b.outer_by_rune[rune]
        if rune in cur.arrows:
            return cur.arrows[rune]
        rune = self.redraw_rune()
        return None if rune is None else b.inner_by_rune[rune]

    def redraw_rune(self) -> str | None:
        """Shuffle the movement deck and draw again: the new card's rune, or None on a stay card."""
        self.mshuffle()
        mc = MOVEMENT_CARDS[self.mdraw()]
        if "stay" in mc:
            self.stay(mc["stay"])
            return None
        rune: str = mc["rune"]
        return rune

    def stay(self, kind: str) -> None:
        if kind == "choice":
            self.push({"k": "stay", "seat": self.s.stone})
            return
        if any(t.state == "felled" or t.poisoned is not None for t in self.s.trees):
            self.dragon_down()
        else:
            for seat in self.play_order_from(self.turn):
                self.draw_insight(seat)

    def play_order_from(self, seat: int) -> list[int]:
        o = list(self.s.order)
        i = o.index(seat)
        return o[i:] + o[:i]

    def dragon_into(self, dest: str) -> None:
        self.emit("DragonMoved", {"to": dest, "from": self.s.dragon})
        self.dragon_encounters(dest)

    def dragon_encounters(self, dest: str) -> None:
        pairs = [[dest, DRAGON, i] for i in seats_at(self.s, dest)]
        if pairs:
            self.push({"k": "encounters", "pairs": pairs})

    def dragon_go(self) -> None:
        if self.s.dragon is None:
            return
        dest = self.dragon_dest()
        if dest is not None:
            self.dragon_into(dest)

    def dispel_dragon(self, seat: int) -> None:
        self.emit("DragonDispelled", {}, seat)
        self.dragon_down()

    # -- movement ------------------------------------------------------------------------
    def start_move(self, seat: int, legs: list[dict[str, Any]], kind: str, hide: bool = False) -> None:
        self.push({"k": "move", "seat": seat, "legs": legs, "kind": kind, "hide": hide,
                   "stage": "companion", "done": []})

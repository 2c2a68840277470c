"""Bright-border cards played outside their tribe's turn (rules version 3, issue #38 item 12).

"Cards with a bright border contain an effect that you can use outside of your turn" [Card
Notes]. When the active tribe's movement creates the moment a card names (`"moment"` in the
content: `entered`, its units moving into a territory where the holder's unit stands), the
holder is asked, with a pass, after the movement's rewards and before its encounters.
"""

from __future__ import annotations

from typing import Any

from rules.core import Command
from rules.dragondale.choices import answer
from rules.dragondale.content import BRIGHT, CARD_BY_ID
from rules.dragondale.flow import Flow, Task
from rules.dragondale.state import DRAGON, State


def entered(e: Flow, mover: int, pairs: list[list[Any]]) -> list[Task]:
    """The `bright` prompts a movement's encounter pairs call for: one per tribe with a card for
    the moment, whether or not the card is in its hand (a prompt asked only when it is would
    tell the other tribes what the hand holds), in playing order from the active tribe."""
    terrs: dict[int, list[str]] = {}
    for terr, _, side in pairs:
        if side not in (DRAGON, mover, e.turn) and BRIGHT.get(e.s.tribes[side].name, {}).get("entered"):
            terrs.setdefault(side, [])
            if terr not in terrs[side]:
                terrs[side].append(terr)
    return [{"k": "bright", "seat": x, "moment": "entered", "terrs": terrs[x], "by": mover}
            for x in e.play_order_from(e.turn) if x in terrs]


def step_bright(e: Flow, t: Task) -> bool:
    return e.ask([t["seat"]], t, {"moment": t["moment"], "terrs": t["terrs"]})


def legal_bright(s: State, t: Task, seat: int) -> list[Command]:
    cards = BRIGHT.get(s.tribes[seat].name, {}).get(t["moment"], ())
    held = sorted(c for c in set(s.tribes[seat].hand) if c in cards)
    return [*[answer(seat, "special", card=c) for c in held], answer(seat, "skip")]


def handle_bright(e: Flow, t: Task, cmd: Command) -> None:
    seat = t["seat"]
    e.stack.pop()
    if cmd.type.endswith("skip"):
        return
    card = cmd.args["card"]
    # played as a special action is ("reveal a card ... and discard it into your Ideas"), but
    # outside the turn: it is not one of the tribe's 2 actions, and its movement goes only into
    # free territories (`aside`), as stance moves do, so it starts no encounter of its own
    e.emit("CardPlayed", {"card": card, "bright": True}, seat)
    e.push({"k": "eff", "seat": seat, "list": CARD_BY_ID[card]["effects"], "i": 0, "ctx": {"aside": True}})

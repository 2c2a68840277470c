"""Dragon Dale state: frozen values, copied on write; `ctl` is the public control record."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from rules.core import Prompt


class Unit(NamedTuple):
    """A unit: its id, unit type, territory (None while dispelled) and whether it is hidden."""

    id: str
    type: str
    loc: str | None
    hidden: bool


class Token(NamedTuple):
    """An insight token: owning tribe (or "neutral"), insight type, face down or not."""

    owner: str
    type: str
    hidden: bool


class Tree(NamedTuple):
    """A tree: its hidden underside, what has been done to it and by whom."""

    id: str
    under: str
    state: str  # unaltered | felled | cursed | blessed
    by: int | None
    poisoned: int | None
    shown: bool
    protected: bool


@dataclass(frozen=True, slots=True)
class TribeState:
    """Everything one tribe holds; hidden parts are only shown to its own seat."""

    name: str
    camp: str
    units: tuple[Unit, ...] = ()
    stances: tuple[tuple[str, str], ...] = ()
    revealed: tuple[str, ...] = ()
    tokens: tuple[Token, ...] = ()
    staked: tuple[Token, ...] = ()
    hand: tuple[str, ...] = ()
    library: tuple[str, ...] = ()
    ideas: tuple[str, ...] = ()
    fury: int = 6
    tribe_tokens: int = 0
    roots: int = 0
    known: tuple[tuple[str, str], ...] = ()
    peek: str | None = None
    newcomer: bool = False
    stance_todo: tuple[str, ...] = ()

    def stance(self, utype: str) -> str:
        for t, c in self.stances:
            if t == utype:
                return c
        raise KeyError(utype)


@dataclass(frozen=True, slots=True)
class State:
    """The whole match; `ctl` drives the flow and is public.

    The mappings here are never changed in place. `evolve` builds a new dict whenever it
    changes `bag`, `terr_tokens` or `fury_tokens`. `ctl` (the task stack, the prompt, the
    encounter in progress and whose turn it is) is JSON data that `rules.dragondale.flow.Flow`
    copies, deeply, in exactly one place: when a decision starts. The decision works on its own
    copy and hands it to its closing `PromptChanged` event, which becomes the next state's `ctl`.
    """

    ctl: Mapping[str, Any] = field(default_factory=dict)
    prompt: Prompt | None = None
    n: int = 0
    board: str = ""
    experienced: bool = False
    order: tuple[int, ...] = ()
    tribes: tuple[TribeState, ...] = ()
    bag: Mapping[str, int] = field(default_factory=dict)
    terr_tokens: Mapping[str, tuple[Token, ...]] = field(default_factory=dict)
    fury_tokens: Mapping[str, Token] = field(default_factory=dict)
    fury_cards: tuple[tuple[str, bool], ...] = ()
    fury_top: tuple[str, ...] = ()
    fury_bottom: tuple[str, ...] = ()
    dominance: tuple[int, ...] = ()
    dragon: str | None = None
    dragon_vp: int | None = None
    dragon_turn: int = -1
    stone: int = 0
    mdeck: tuple[str, ...] = ()
    trees: tuple[Tree, ...] = ()
    # felled trees whose wood is not secured yet, in the order felled (see RULINGS.md, Trees)
    wood: tuple[str, ...] = ()
    turn_no: int = 0
    outcome: Mapping[str, Any] | None = None
    # the rules version the game was set up under (game.py, CHANGELOG.md): decisions that
    # version 2 changed still follow version 1 for a game made under it
    rules: int = 1


# the Dragon's place in the dominance order and on either side of an encounter
DRAGON = -1

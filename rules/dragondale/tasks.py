"""The task tables: each task kind's step, and each prompt kind's answers, legal list and handler.

A step (`STEPS`) runs a task on top of the stack: it returns False when it is done with it for
now (it popped it, or pushed others), True when it asked a prompt (`Flow.ask`). A prompt kind
(`PROMPTS`) names the command types that may answer it, lists the legal answers for a seat and
applies the one chosen. A task may ask more than one kind of prompt (an encounter asks `enc_unit`
then `enc_pay`), and so a prompt kind is not always a task kind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rules.core import Command
from rules.dragondale.bright import handle_bright, legal_bright, step_bright
from rules.dragondale.effects import (
    ask_seat,
    handle_cempower,
    handle_cexplore,
    handle_check,
    handle_cmove,
    handle_fmove,
    handle_lose,
    handle_may,
    handle_opt,
    handle_pick,
    handle_reach,
    handle_ret,
    handle_tree,
    legal_cempower,
    legal_cexplore,
    legal_check,
    legal_cmove,
    legal_fmove,
    legal_lose,
    legal_may,
    legal_opt,
    legal_pick,
    legal_reach,
    legal_ret,
    legal_tree,
    step_eff,
    step_tree,
)
from rules.dragondale.encounter import (
    handle_enc_pay,
    handle_enc_unit,
    handle_encounters,
    legal_enc_pay,
    legal_enc_unit,
    legal_encounters,
    step_enc,
    step_encounters,
)
from rules.dragondale.flow import Flow, Task
from rules.dragondale.movement import (
    handle_companion,
    handle_move,
    handle_reward,
    legal_companion,
    legal_move,
    legal_reward,
    step_move,
    step_reward,
)
from rules.dragondale.state import State
from rules.dragondale.turn import (
    handle_action,
    handle_edge,
    handle_first,
    handle_fury_offer,
    handle_fury_react,
    handle_plan_react,
    handle_stance,
    handle_start,
    handle_stay,
    handle_take,
    handle_tribe_action,
    legal_action,
    legal_edge,
    legal_first,
    legal_fury_offer,
    legal_fury_react,
    legal_plan_react,
    legal_restance,
    legal_stance_round,
    legal_start,
    legal_stay,
    legal_take,
    legal_tribe_action,
    step_action,
    step_c,
    step_d,
    step_e,
    step_end_turn,
    step_f,
    step_first,
    step_fury_offer,
    step_fury_react,
    step_plan_react,
    step_restance,
    step_stance_round,
    step_start,
    step_take,
    step_tribe_action,
)

StepFn = Callable[[Flow, Task], bool]
LegalFn = Callable[[State, Task, int], list[Command]]
HandleFn = Callable[[Flow, Task, Command], None]


@dataclass(frozen=True, slots=True)
class Answers:
    """How a prompt kind is answered: the command types it takes, the legal ones, their effect."""

    types: frozenset[str]
    legal: LegalFn
    handle: HandleFn


def _types(*verbs: str) -> frozenset[str]:
    return frozenset("dragondale." + v for v in verbs)


STEPS: dict[str, StepFn] = {
    "first": step_first,
    "start": step_start,
    "tribe_action": step_tribe_action,
    "action": step_action,
    "take": step_take,
    "plan_react": step_plan_react,
    "move": step_move,
    "reward": step_reward,
    "bright": step_bright,
    "encounters": step_encounters,
    "enc": step_enc,
    "eff": step_eff,
    "pick": ask_seat,
    "fmove": ask_seat,
    "lose": ask_seat,
    "cmove": ask_seat,
    "cexplore": ask_seat,
    "cempower": ask_seat,
    "reach": ask_seat,
    "tree": step_tree,
    "check": ask_seat,
    "ret": ask_seat,
    "may": ask_seat,
    "opt": ask_seat,
    "step_c": step_c,
    "step_d": step_d,
    "fury_offer": step_fury_offer,
    "stay": ask_seat,
    "step_e": step_e,
    "fury_react": step_fury_react,
    "edge": ask_seat,
    "step_f": step_f,
    "restance": step_restance,
    "stance_round": step_stance_round,
    "end_turn": step_end_turn,
}

PROMPTS: dict[str, Answers] = {
    "first": Answers(_types("choose"), legal_first, handle_first),
    "start": Answers(_types("announce", "discard", "return", "skip"), legal_start, handle_start),
    "tribe_action": Answers(_types("choose", "skip"), legal_tribe_action, handle_tribe_action),
    "action": Answers(_types("empower", "explore", "plan", "poison", "special"), legal_action, handle_action),
    "take": Answers(_types("take"), legal_take, handle_take),
    "plan_react": Answers(_types("choose", "skip"), legal_plan_react, handle_plan_react),
    "move": Answers(_types("discard", "pay"), legal_move, handle_move),
    "companion": Answers(_types("choose"), legal_companion, handle_companion),
    "reward": Answers(_types("choose"), legal_reward, handle_reward),
    "bright": Answers(_types("special", "skip"), legal_bright, handle_bright),
    "encounters": Answers(_types("choose"), legal_encounters, handle_encounters),
    "enc_unit": Answers(_types("choose"), legal_enc_unit, handle_enc_unit),
    "enc_pay": Answers(_types("pay", "skip"), legal_enc_pay, handle_enc_pay),
    "pick": Answers(_types("choose"), legal_pick, handle_pick),
    "fmove": Answers(_types("choose"), legal_fmove, handle_fmove),
    "lose": Answers(_types("pay"), legal_lose, handle_lose),
    "cmove": Answers(_types("choose", "skip"), legal_cmove, handle_cmove),
    "cexplore": Answers(_types("explore", "skip"), legal_cexplore, handle_cexplore),
    "cempower": Answers(_types("empower", "skip"), legal_cempower, handle_cempower),
    "reach": Answers(_types("choose", "skip"), legal_reach, handle_reach),
    "tree": Answers(_types("choose", "pay", "skip"), legal_tree, handle_tree),
    "check": Answers(_types("choose"), legal_check, handle_check),
    "ret": Answers(_types("return"), legal_ret, handle_ret),
    "may": Answers(_types("discard", "pay", "reveal", "skip"), legal_may, handle_may),
    "opt": Answers(_types("choose"), legal_opt, handle_opt),
    "fury_offer": Answers(_types("choose", "skip"), legal_fury_offer, handle_fury_offer),
    "stay": Answers(_types("choose"), legal_stay, handle_stay),
    "fury_react": Answers(_types("choose"), legal_fury_react, handle_fury_react),
    "edge": Answers(_types("choose", "skip"), legal_edge, handle_edge),
    "restance": Answers(_types("stance"), legal_restance, handle_stance),
    "stance_round": Answers(_types("stance"), legal_stance_round, handle_stance),
}

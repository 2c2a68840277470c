"""The task table: each task kind with its step, legal answers and handler."""

from __future__ import annotations

from collections.abc import Callable

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
from rules.dragondale.turn import (
    handle_action,
    handle_edge,
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
    step_fury_offer,
    step_fury_react,
    step_plan_react,
    step_restance,
    step_stance_round,
    step_start,
    step_take,
    step_tribe_action,
)


def register(reg: Callable[..., None]) -> None:
    reg("start", step_start, legal_start, handle_start)
    reg("tribe_action", step_tribe_action, legal_tribe_action, handle_tribe_action)
    reg("action", step_action, legal_action, handle_action)
    reg("take", step_take, legal_take, handle_take)
    reg("plan_react", step_plan_react, legal_plan_react, handle_plan_react)
    reg("move", step_move, legal_move, handle_move)
    reg("companion", step_move, legal_companion, handle_companion)
    reg("reward", step_reward, legal_reward, handle_reward)
    reg("encounters", step_encounters, legal_encounters, handle_encounters)
    reg("enc", step_enc)
    reg("enc_unit", step_enc, legal_enc_unit, handle_enc_unit)
    reg("enc_pay", step_enc, legal_enc_pay, handle_enc_pay)
    reg("eff", step_eff)
    reg("pick", ask_seat, legal_pick, handle_pick)
    reg("fmove", ask_seat, legal_fmove, handle_fmove)
    reg("lose", ask_seat, legal_lose, handle_lose)
    reg("cmove", ask_seat, legal_cmove, handle_cmove)
    reg("cexplore", ask_seat, legal_cexplore, handle_cexplore)
    reg("cempower", ask_seat, legal_cempower, handle_cempower)
    reg("reach", ask_seat, legal_reach, handle_reach)
    reg("tree", step_tree, legal_tree, handle_tree)
    reg("check", ask_seat, legal_check, handle_check)
    reg("ret", ask_seat, legal_ret, handle_ret)
    reg("may", ask_seat, legal_may, handle_may)
    reg("opt", ask_seat, legal_opt, handle_opt)
    reg("step_c", step_c)
    reg("step_d", step_d)
    reg("fury_offer", step_fury_offer, legal_fury_offer, handle_fury_offer)
    reg("stay", ask_seat, legal_stay, handle_stay)
    reg("step_e", step_e)
    reg("fury_react", step_fury_react, legal_fury_react, handle_fury_react)
    reg("edge", ask_seat, legal_edge, handle_edge)
    reg("step_f", step_f)
    reg("restance", step_restance, legal_restance, handle_stance)
    reg("stance_round", step_stance_round, legal_stance_round, handle_stance)
    reg("end_turn", step_end_turn)

"""Deciding a command: it must be one of the prompt's legal answers; apply it, run the stack on.

The platform (`rules.decider`) has already checked that the game is on, that the command's seat
is one the prompt names and that its type answers the prompt; what is left is the rules' own
refusal of a well-formed answer that is not among those offered now, with a code from
`refusals.KINDS` naming the rule that stops it.
"""

from __future__ import annotations

from rules.core import Command, Decision, IllegalCommand, Rng
from rules.dragondale.flow import Flow, Task
from rules.dragondale.legal import legal_commands
from rules.dragondale.refusals import refusal
from rules.dragondale.state import State
from rules.dragondale.tasks import PROMPTS, STEPS

# prompts answered at once when they have exactly one answer (no real choice)
AUTO = frozenset({"companion", "encounters", "enc_unit", "pick", "fmove"})


def decide(s: State, cmd: Command, rng: Rng) -> Decision:
    legal = [] if cmd.seat is None else legal_commands(s, cmd.seat)
    if cmd not in legal:
        raise IllegalCommand(*refusal(s, cmd, legal))
    f = Flow(s, rng)
    apply(f, f.stack[-1], cmd)
    run(f)
    return f.finish()


def apply(f: Flow, task: Task, cmd: Command) -> None:
    PROMPTS[f.ctl["prompt"]["kind"]].handle(f, task, cmd)


def run(f: Flow) -> None:
    """Run the tasks on the stack, and new turns, until someone must choose or the game ends."""
    while True:
        f.ctl["prompt"] = None
        if f.s.outcome is not None:
            f.stack.clear()
            return
        if f.check_end():
            continue
        if not f.stack:
            f.next_turn()
            continue
        task = f.stack[-1]
        if STEPS[task["k"]](f, task):
            kind = f.ctl["prompt"]["kind"]
            if kind in AUTO:
                seat = f.ctl["prompt"]["seats"][0]
                legal = PROMPTS[kind].legal(f.s, task, seat)
                if len(legal) == 1:
                    apply(f, task, legal[0])
                    continue
            return

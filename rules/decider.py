"""The Decider obeyed once: the checks every game's command goes through before its rules.

Every caller that runs a game command (the worker, the audit, replay tests, bots) calls
`decide` here, never a game's own `decide`, so the same mistake gets the same code in
every game. The codes are listed in `CODES` (and in docs/errors.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from rules.core import Command, Decision, Game, IllegalCommand, Rng

# The platform's rejections of a game command (HTTP 422), by code.
CODES: dict[str, str] = {
    "game_over": "the game has ended; no command is accepted",
    "seat_required": "a game command is sent by a seat (with a seat token)",
    "not_your_turn": "the command's seat is not one the prompt asks to act",
    "wrong_prompt": "the command's type does not answer the current prompt",
}


def decide(game: Game, state: object, command: Command, rng: Rng, names: Sequence[str] = ()) -> Decision:
    """Check the command against the prompt, normalise it, then ask the game's rules. Given the
    seats' names, a refusal for the prompt says in the game's words what it waits for, as the
    sender may see it ("It is not your turn; the game waits on bob (Goblins): take an action,
    ..."), where without them it names seats and prompt kinds by their codes."""
    if game.is_over(state) is not None:
        raise IllegalCommand("game_over", "the game is over")
    seat = command.seat
    if seat is None:
        raise IllegalCommand("seat_required", "a game command is sent by a seat (use a seat token)")
    command = game.parse_command(command.type, command.args, seat)
    prompt = getattr(state, "prompt", None)
    if prompt is None or seat not in prompt.seats:
        if prompt is None:
            raise IllegalCommand("not_your_turn", f"nobody may act now, seat {seat} neither")
        if names:
            raise IllegalCommand("not_your_turn", f"It is not your turn; the game waits on "
                                                  f"{game.describe_prompt(state, seat, names)}")
        asked = " and ".join(f"seat {s}" for s in prompt.seats)
        raise IllegalCommand("not_your_turn", f"it is {asked}'s turn ({prompt.kind}), not seat {seat}'s")
    types = game.answers(prompt)
    if command.type not in types:
        if names:
            verbs = ", ".join(sorted(t.partition(".")[2] or t for t in types)) or "nothing"
            asks = game.describe_prompt(state, seat, names).rstrip(".")
            raise IllegalCommand("wrong_prompt", f"{command.type.partition('.')[2] or command.type} is not a move now: "
                                                 f"the game asks {asks} (answered with: {verbs}).")
        raise IllegalCommand(
            "wrong_prompt",
            f"{command.type} does not answer the prompt '{prompt.kind}' "
            f"(it takes {', '.join(sorted(types)) or 'nothing'})",
        )
    return game.decide(state, command, rng)

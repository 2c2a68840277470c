"""The Decider obeyed once: the checks every game's command goes through before its rules.

Every caller that runs a game command (the worker, the audit, replay tests, bots) calls
`decide` here, never a game's own `decide`, so the same mistake gets the same code in
every game. The codes are listed in `CODES` (and in docs/errors.md).
"""

from __future__ import annotations

from rules.core import Command, Decision, Game, IllegalCommand, Rng

# The platform's rejections of a game command (HTTP 422), by code.
CODES: dict[str, str] = {
    "game_over": "the game has ended; no command is accepted",
    "seat_required": "a game command is sent by a seat (with a seat token)",
    "not_your_turn": "the command's seat is not one the prompt asks to act",
    "wrong_prompt": "the command's type does not answer the current prompt",
}


def decide(game: Game, state: object, command: Command, rng: Rng) -> Decision:
    """Check the command against the prompt, normalise it, then ask the game's rules."""
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
        asked = " and ".join(f"seat {s}" for s in prompt.seats)
        raise IllegalCommand("not_your_turn", f"it is {asked}'s turn ({prompt.kind}), not seat {seat}'s")
    types = game.answers(prompt)
    if command.type not in types:
        raise IllegalCommand(
            "wrong_prompt",
            f"{command.type} does not answer the prompt '{prompt.kind}' "
            f"(it takes {', '.join(sorted(types)) or 'nothing'})",
        )
    return game.decide(state, command, rng)

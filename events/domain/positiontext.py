"""The position as text and the game's headline, for one viewer: the one place the board page's
"Board as text", `GET …/view.txt`, the view's `headline` and the turn mail get them, so they
never differ (issue #40).

Pure: from the view a viewer is served (`projections.readmodels.view_of`: the game's `board` for
that viewer, the prompt in that viewer's words, the outcome) and the seats' names. The game's own
words come from its `text_board` and `headline` (rules/<game>/textboard.py), given only that
viewer's board, so the text tells a viewer nothing its board does not show; whose turn it is is
the prompt sentence the view already holds (`describe_prompt`, held to the same rule by the
contract tests)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rules.core import Game
from rules.words import listing, seat_name


def headline(rules: Game, board: Mapping[str, Any], names: Sequence[str]) -> str:
    """The game as players call it ("Rite: ann vs bob, round 5"), from a viewer's `board` (the
    game's view; every viewer's gives the same headline)."""
    return rules.headline(board, names)


def turn_line(view: Mapping[str, Any], names: Sequence[str]) -> str:
    """Whose turn it is and what it asks ("To play: ann. ann: roll the die."), or how the game ended."""
    outcome = view.get("outcome")
    if view.get("status") == "aborted":
        return f"The game was stopped ({(outcome or {}).get('reason') or 'by its admin'})."
    if isinstance(outcome, Mapping):
        won = listing((seat_name(names, w) for w in outcome.get("winners") or []), empty="nobody")
        scores = ", ".join(f"{seat_name(names, i)} {n}" for i, n in enumerate(outcome.get("scores") or []))
        reason = outcome.get("reason")
        return (f"The game is over: {won} won" + (f" ({reason})" if reason else "")
                + (f"; scores {scores}" if scores else "") + ".")
    prompt = view.get("prompt")
    if not isinstance(prompt, Mapping) or not prompt.get("seats"):
        return "Nobody is to play."
    who = listing(seat_name(names, s) for s in prompt["seats"])
    said = str(view.get("prompt_text") or "").strip()
    return f"To play: {who}." + (f" {said}" if said else "")


def position_text(rules: Game, view: Mapping[str, Any], names: Sequence[str]) -> str:
    """The position as the viewer of `view` may see it, as plain text: the headline, whose turn
    it is, then the game's own text of the viewer's board."""
    board = view.get("board") or {}
    lines = [str(view.get("headline") or headline(rules, board, names)), turn_line(view, names),
             rules.text_board(board, names)]
    for i, seat_board in enumerate(view.get("seat_boards") or []):  # the referee's view: every seat's
        lines += ["", f"As {seat_name(names, i)} sees it:", rules.text_board(seat_board, names)]
    return "\n".join(lines) + "\n"

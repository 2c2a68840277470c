"""The contract of a game's words, over random play of every registered game (issue #38 items 3
and 4): what test_game_contract.py's sentence test does not ask.

- No sentence (a prompt as any seat or a spectator reads it, a legal command, an event) names a
  player as "seat <number>" or shows an internal id: players are named by their seat names.
- A command the game's rules refuse names a reason from that game's list of refusal kinds (its
  `refusal_kinds`: code -> the rule it names; the platform's own codes are rules.decider.CODES),
  with a message that says why and names no seat by number. The refused commands are those
  that were legal for the same seat a few states earlier: the mistakes a player makes by
  sending a command from a stale page.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping

import pytest

from rules import catalog
from rules.core import Command, Game, IllegalCommand, Rng, SeatInfo, games
from rules.decider import CODES, decide

catalog.load()
GAMES: dict[str, Game] = dict(sorted(games().items()))
PLAYS = 12  # random games a case: each seat count in turn
COMMANDS = 60
STALE = 6  # how many states back a refused command was legal

# "seat 3", "seat 31's", and ids as code prints them: "uid 4", "id=7", "#12"
_SEAT_NUMBER = re.compile(r"\bseat \d+")
_INTERNAL_ID = re.compile(r"\b(uid|id)\s*[=:]?\s*\d+|#\d+")

# Games whose rules keep no list of refusal kinds yet, with why (none now).
NO_KINDS_YET: dict[str, str] = {}


def _seats(n: int) -> list[SeatInfo]:
    return [SeatInfo(i, f"p{i}") for i in range(n)]


def _bad(text: str) -> list[str]:
    return [m.group(0) for rx in (_SEAT_NUMBER, _INTERNAL_ID) for m in rx.finditer(text)]


def _plays(game: Game):  # type: ignore[no-untyped-def]
    """(state before, its events, state, names, rng, bot) along PLAYS short random games, each
    seat count in turn; the first events are the set-up's."""
    for k in range(PLAYS):
        n = game.min_seats + k % (game.max_seats - game.min_seats + 1)
        seats = _seats(n)
        names = [s.name for s in seats]
        rng = Rng(b"sentences-%d" % k)
        bot = random.Random(k)
        state = game.initial_state()
        events = game.setup({}, seats, rng)
        for _ in range(COMMANDS):
            before = state
            for e in events:
                if e.type.startswith(game.name + "."):
                    state = game.evolve(state, e)
            if game.is_over(state) is not None or state.prompt is None:
                break
            yield before, events, state, names, rng, bot
            seat = bot.choice(list(state.prompt.seats))
            legal = list(game.legal_commands(state, seat))
            if not legal:
                break
            events = decide(game, state, bot.choice(legal), rng).events


@pytest.mark.parametrize("name", sorted(GAMES))
def test_no_sentence_names_a_seat_by_number_or_an_internal_id(name: str) -> None:
    game = GAMES[name]
    problems: list[str] = []
    for before, events, state, names, _, _ in _plays(game):
        viewers: list[int | None] = [None, *range(len(names))]
        for e in events:
            if not e.type.startswith(game.name + "."):
                continue
            for v in viewers:
                shown = game.redact(e, v)
                if shown is not None:
                    t = game.describe_event(before, shown, v, names).text
                    problems += [f"{e.type} for {v}: {b!r} in {t!r}" for b in _bad(t)]
            before = game.evolve(before, e)
        for v in viewers:
            t = game.describe_prompt(state, v, names)
            problems += [f"prompt {state.prompt.kind} for {v}: {b!r} in {t!r}" for b in _bad(t)]
        for seat in state.prompt.seats:
            for cmd in game.legal_commands(state, seat):
                t = game.describe_command(state, cmd, seat, names)
                problems += [f"{game.format_text(cmd)!r}: {b!r} in {t!r}" for b in _bad(t)]
        if len(problems) > 50:
            break
    assert not problems, f"{len(problems)} sentences name a seat by number or an id:\n" + "\n".join(sorted(set(problems))[:15])


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_refused_command_names_a_reason_from_the_games_refusal_kinds(name: str) -> None:
    game = GAMES[name]
    kinds: Mapping[str, str] | None = getattr(game, "refusal_kinds", None)
    if kinds is None:
        if name in NO_KINDS_YET:
            pytest.xfail(NO_KINDS_YET[name])
        pytest.skip(f"{name} is a test game with no refusal kinds")
    known = set(kinds) | set(CODES)
    problems: list[str] = []
    refused = 0
    recent: list[list[Command]] = []
    for _, _, state, names, rng, bot in _plays(game):
        seat = state.prompt.seats[0]
        legal = list(game.legal_commands(state, seat))
        stale = [c for old in recent for c in old if c.seat == seat and c not in legal]
        for cmd in bot.sample(stale, min(3, len(stale))):
            try:
                decide(game, state, cmd, rng, names)
            except IllegalCommand as e:
                refused += 1
                where = f"{game.format_text(cmd)!r} refused {e.code}: {e.message!r}"
                if e.code not in known:
                    problems.append(f"{where}: not one of {name}'s refusal kinds")
                if not e.message.strip():
                    problems.append(f"{where}: no reason")
                problems += [f"{where}: names {b!r}" for b in _bad(e.message)]
            else:
                problems.append(f"{game.format_text(cmd)!r} is not listed as legal but was accepted")
        recent = [*recent[-STALE:], legal]
    assert refused, "no command was refused: the check checked nothing"
    assert not problems, f"{len(problems)} refusals:\n" + "\n".join(sorted(set(problems))[:15])

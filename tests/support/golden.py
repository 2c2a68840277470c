"""Golden playthroughs: one readable text format for every game, written and compared here.

A golden file is a seeded random game, one line per command and per event:

    # game rite                                   the case (game, options, seats, Rng, bot)
    1 rite.MapBuilt {"tiles":[...]}               seq, type, data (canonical compact JSON)
    > 0 move c4 d5                                a command: its seat and its notation
    17 rite.UnitMoved @0 {"from":"c4","to":"d5"}  an event with a seat carries `@seat`
    view 10 0 {...}                               a view at a checkpoint (after setup, after
                                                  command 10, ..., at the end); seat `-` is public
    outcome {"winners":[0],...}

so a diff points at the first divergent seq, and the comparison says which line and seq that is
instead of printing the whole file. `BOARDLOG_REGOLD=1` writes the files from the current tree
(`scripts/regold.py` does so for every case) instead of comparing.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from rules.core import Command, Event, Game, Rng, SeatInfo, fold
from rules.decider import decide
from tests.support.randomplay import Policy

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
CHECKPOINTS = (0, 10, 50)
REGOLD = "BOARDLOG_REGOLD"


@dataclass(frozen=True)
class Case:
    """One seeded playthrough: a game's options and seats, the game's Rng (secret, entropy and
    game id) and the bot's own `random.Random(bot_seed)`; `policy` makes the bot's chooser
    (None: a uniform choice among the legal commands)."""

    name: str
    options: Mapping[str, Any]
    seats: Sequence[str]
    secret: bytes
    game_id: str
    bot_seed: int
    entropy: bytes = b""
    policy: Callable[[], Policy] | None = None
    checkpoints: tuple[int, ...] = CHECKPOINTS
    max_commands: int = 400_000


def canon(x: Any) -> str:
    """Canonical compact JSON: sorted keys, no spaces."""
    return orjson.dumps(x, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS).decode()


def header(game: Game, case: Case) -> list[str]:
    policy = "uniform" if case.policy is None else case.policy.__name__
    return [
        "# boardlog golden playthrough (format: tests/support/golden.py)",
        f"# game {game.name}",
        f"# options {canon(dict(case.options))}",
        f"# seats {canon(list(case.seats))}",
        f"# rng {canon({'secret': case.secret.hex(), 'entropy': case.entropy.hex(), 'game': case.game_id})}",
        f"# bot {canon({'seed': case.bot_seed, 'policy': policy})}",
        f"# checkpoints {canon(list(case.checkpoints))}",
    ]


def event_line(seq: int, event: Event) -> str:
    seat = "" if event.seat is None else f" @{event.seat}"
    return f"{seq} {event.type}{seat} {canon(dict(event.data))}"


def command_line(game: Game, command: Command) -> str:
    return f"> {command.seat} {game.format_text(command)}"


def view_lines(game: Game, state: Any, seats: int, at: str) -> list[str]:
    viewers: list[int | None] = [None, *range(seats)]
    return [f"view {at} {'-' if v is None else v} {canon(game.view(state, v))}" for v in viewers]


def play(game: Game, case: Case) -> list[str]:
    """The playthrough's lines from the current tree: the bot picks a prompted seat, then one of
    its legal commands, and the platform's `decide` runs it (as `play_random` does)."""
    seats = [SeatInfo(i, n) for i, n in enumerate(case.seats)]
    rng = Rng(case.secret, case.entropy, case.game_id)
    bot = random.Random(case.bot_seed)
    choose = case.policy() if case.policy is not None else None
    lines = header(game, case)
    events = list(game.setup(case.options, seats, rng))
    lines += [event_line(i + 1, e) for i, e in enumerate(events)]
    seq = len(events)
    state = fold(game, events)
    done = 0
    while True:
        if done in case.checkpoints:
            lines += view_lines(game, state, len(seats), "setup" if done == 0 else str(done))
        outcome = game.is_over(state)
        if outcome is not None:
            break
        if done >= case.max_commands:
            raise AssertionError(f"{case.name}: the game did not end in {case.max_commands} commands")
        assert state.prompt is not None and state.prompt.seats, "a game not over prompts someone"
        seat = bot.choice(list(state.prompt.seats))
        legal = list(game.legal_commands(state, seat))
        cmd = bot.choice(legal) if choose is None else choose(state, seat, legal, bot)
        lines.append(command_line(game, cmd))
        decision = decide(game, state, cmd, rng)
        lines += [event_line(seq + i + 1, e) for i, e in enumerate(decision.events)]
        seq += len(decision.events)
        state = decision.state
        done += 1
    lines += view_lines(game, state, len(seats), "end")
    lines.append(f"outcome {canon(outcome.to_json())}")
    return lines


def _where(lines: Sequence[str], index: int) -> str:
    """Where line `index` sits in the game: its seq, or the command, view or header it is."""
    commands = 0
    seq = 0
    for line in lines[: index + 1]:
        if line.startswith("> "):
            commands += 1
        head = line.split(" ", 1)[0]
        if head.isdigit():
            seq = int(head)
    words = lines[index].split(" ", 3)
    if words[0].isdigit():
        return f"seq {seq} (of command {commands})"
    if words[0] == ">":
        return f"command {commands} (after seq {seq})"
    if words[0] == "view" and len(words) == 4:
        return f"the view of seat {words[2]} at checkpoint {words[1]} (after seq {seq})"
    return f"'{words[0]}' line (after seq {seq})"


def _excerpt(line: str, other: str, width: int = 240) -> str:
    """A long line cut to a window around where it first differs from `other`."""
    if len(line) <= width:
        return line
    col = next((i for i, (a, b) in enumerate(zip(line, other, strict=False)) if a != b),
               min(len(line), len(other)))
    start = max(0, col - width // 2)
    end = start + width
    return ("..." if start else "") + line[start:end] + ("..." if end < len(line) else "")


def first_difference(want: Sequence[str], got: Sequence[str]) -> str | None:
    """A message naming the first line (and seq) where `got` departs from `want`, or None."""
    for i, (w, g) in enumerate(zip(want, got, strict=False)):
        if w != g:
            return (
                f"first difference at line {i + 1}, {_where(want, i)}:\n"
                f"  want: {_excerpt(w, g)}\n  got:  {_excerpt(g, w)}"
            )
    if len(want) != len(got):
        i = min(len(want), len(got))
        longer, which = (want, "want") if len(want) > len(got) else (got, "got")
        return (
            f"first difference at line {i + 1}, {_where(longer, i)}: only {which} goes on:\n"
            f"  {which}: {_excerpt(longer[i], '')}"
        )
    return None


def path_of(game: Game, case: Case) -> Path:
    return GOLDEN / game.name / f"{case.name}.txt"


def write(path: Path, lines: Sequence[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line}\n" for line in lines))


def read(path: Path) -> list[str]:
    return path.read_text().splitlines()


def check(game: Game, case: Case) -> None:
    """Play `case` on the current tree and compare with its golden file (or write it when
    BOARDLOG_REGOLD=1); raise AssertionError naming the first divergent line and seq."""
    path = path_of(game, case)
    got = play(game, case)
    if os.environ.get(REGOLD) == "1":
        write(path, got)
        return
    if not path.exists():
        raise AssertionError(f"no golden file {path}: run with {REGOLD}=1 to write it")
    message = first_difference(read(path), got)
    if message is not None:
        raise AssertionError(f"{path.relative_to(GOLDEN.parent.parent)}: {message}")


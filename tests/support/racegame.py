"""A tiny test-only game ("race") for the platform tests; never shipped or listed.

Seats take turns rolling a die and advancing; the first to reach the target wins. The seat
whose turn it is may also write a note (any text; it changes nothing), which is what the
platform tests send when they need many commands that never end the game.
Each seat draws a secret charm number at set-up (hidden from the others): rolling
it moves two extra spaces. So the game has randomness, a prompt, hidden
information and an end, which is all the platform needs to exercise.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from rules.core import (
    Command,
    Decision,
    Event,
    InvalidCommand,
    Options,
    Outcome,
    Prompt,
    Rng,
    SeatInfo,
    Told,
)

# A note with this text makes decide raise, as a bug in a game's rules would; one with the
# other is accepted, and from then on view raises.
RULES_BUG_NOTE = "rules-bug:raise"
VIEW_BUG_NOTE = "rules-bug:view"


@dataclass(frozen=True, slots=True)
class RaceState:
    seats: int = 0
    target: int = 30
    positions: tuple[int, ...] = ()
    charms: tuple[int, ...] = ()
    turn: int = 0
    notes: int = 0
    winner: int | None = None
    prompt: Prompt | None = None
    broken_view: bool = False


class RaceGame:
    name = "race"
    min_seats = 1
    max_seats = 6
    command_types = frozenset({"race.roll", "race.note"})

    def initial_state(self) -> RaceState:
        return RaceState()

    def setup(self, options: Options, seats: Sequence[SeatInfo], rng: Rng) -> list[Event]:
        target = options.get("target", 30)
        if not isinstance(target, int) or isinstance(target, bool) or not 1 <= target <= 1_000_000:
            raise InvalidCommand("bad_options", "target must be an integer from 1 to 1000000")
        if not self.min_seats <= len(seats) <= self.max_seats:
            raise InvalidCommand("bad_options", "race takes 1 to 6 seats")
        extra = set(options) - {"target"}
        if extra:
            raise InvalidCommand("bad_options", f"unknown options: {sorted(extra)}")
        charms = [rng.randint(1, 6) for _ in seats]
        return [Event("race.RaceSetUp", {"seats": len(seats), "target": target, "charms": charms})]

    def answers(self, prompt: Prompt) -> frozenset[str]:
        return self.command_types

    def decide(self, state: RaceState, command: Command, rng: Rng) -> Decision:
        if command.type == "race.note":
            if command.args["text"] == RULES_BUG_NOTE:
                raise RuntimeError("a deliberate bug in the rules")
            events = [Event("race.NoteWritten", {"text": command.args["text"]}, command.seat)]
        else:
            die = rng.randint(1, 6)
            seat = state.turn
            bonus = 2 if die == state.charms[seat] else 0
            events = [Event("race.DieRolled", {"die": die, "bonus": bonus}, seat)]
            if state.positions[seat] + die + bonus >= state.target:
                events.append(Event("race.RaceWon", {"seat": seat}, seat))
        after = state
        for e in events:
            after = self.evolve(after, e)
        return Decision(events, after)

    def evolve(self, state: RaceState, event: Event) -> RaceState:
        d = event.data
        if event.type == "race.RaceSetUp":
            n = d["seats"]
            return RaceState(n, d["target"], (0,) * n, tuple(d["charms"]), 0, 0, None, Prompt((0,), "roll"))
        if event.type == "race.DieRolled":
            seat = state.turn
            pos = list(state.positions)
            pos[seat] += d["die"] + d["bonus"]
            nxt = (seat + 1) % state.seats
            return replace(state, positions=tuple(pos), turn=nxt, prompt=Prompt((nxt,), "roll"))
        if event.type == "race.NoteWritten":
            return replace(state, notes=state.notes + 1, broken_view=state.broken_view or d["text"] == VIEW_BUG_NOTE)
        if event.type == "race.RaceWon":
            return replace(state, winner=d["seat"], prompt=None)
        raise ValueError(f"unknown event {event.type}")

    def legal_commands(self, state: RaceState, seat: int) -> Iterable[Command]:
        if state.winner is None and seat == state.turn:
            yield Command("race.roll", {}, seat)

    def view(self, state: RaceState, seat: int | None) -> dict[str, Any]:
        if state.broken_view:
            raise RuntimeError("a deliberate bug in the view")
        cells = [
            {"id": f"s{i}", "x": float(p), "y": float(i), "label": str(p), "fill": "",
             "pieces": [{"label": f"seat {i}", "owner": i}]}
            for i, p in enumerate(state.positions)
        ]
        out: dict[str, Any] = {
            "positions": list(state.positions),
            "target": state.target,
            "turn": state.turn,
            "notes": state.notes,
            "winner": state.winner,
            "board": {"kind": "grid", "cells": cells},
        }
        if seat is not None and 0 <= seat < len(state.charms):
            out["charm"] = state.charms[seat]
        return out

    def redact(self, event: Event, seat: int | None) -> Event | None:
        if event.type == "race.RaceSetUp":
            charms = [c if i == seat else None for i, c in enumerate(event.data["charms"])]
            return Event(event.type, {**event.data, "charms": charms}, event.seat)
        return event

    def redact_command(self, command: Command, seat: int | None) -> Command | None:
        return command

    def default_answer(self, state: RaceState, seat: int) -> Command:
        return Command("race.roll", {}, seat)  # the race's only command

    def is_over(self, state: RaceState) -> Outcome | None:
        if state.winner is None:
            return None
        return Outcome((state.winner,), state.positions, "reached the target")

    def parse_command(self, type: str, args: Mapping[str, Any], seat: int) -> Command:
        if type == "race.roll":
            if args:
                raise InvalidCommand("bad_args", "race.roll takes no arguments")
            return Command(type, {}, seat)
        if type == "race.note":
            text = args.get("text")
            if not isinstance(text, str) or set(args) != {"text"}:
                raise InvalidCommand("bad_args", "race.note takes one string field 'text'")
            return Command(type, {"text": text}, seat)
        raise InvalidCommand("unknown_command", f"race has no command {type!r}")

    def parse_text(self, text: str, seat: int) -> Command:
        word, _, rest = text.strip().partition(" ")
        if word == "roll" and not rest:
            return Command("race.roll", {}, seat)
        if word == "note" and rest:
            return Command("race.note", {"text": rest}, seat)
        raise InvalidCommand("bad_notation", f"cannot read {text!r}: try 'roll' or 'note TEXT'")

    def format_text(self, command: Command) -> str:
        if command.type == "race.note":
            return f"note {command.args['text']}"
        return "roll"

    # Words (issue #14): the platform's move list and prompts describe race too.
    def describe_prompt(self, state: RaceState, viewer: int | None, names: Sequence[str]) -> str:
        if state.prompt is None:
            return "Nobody is to act."
        return f"{names[state.turn]}: roll the die."

    def describe_command(self, state: RaceState, command: Command, viewer: int | None, names: Sequence[str]) -> str:
        who = names[command.seat] if command.seat is not None and command.seat < len(names) else "someone"
        return f"{who} writes a note." if command.type == "race.note" else f"{who} rolls the die."

    def describe_event(self, state: RaceState, event: Event, viewer: int | None, names: Sequence[str]) -> Told:
        d = event.data
        if event.type == "race.RaceSetUp":
            charm = d["charms"][viewer] if viewer is not None and viewer < len(d["charms"]) else None
            mine = f" Your charm is {charm}." if charm is not None else ""
            return Told(f"The race is set up: the first to {d['target']} wins.{mine}", heading="Set-up")
        if event.type == "race.DieRolled":
            extra = f", and {d['bonus']} more for the charm" if d["bonus"] else ""
            return Told(f"The die shows {d['die']}{extra}.", draw=f"die {d['die']}")
        if event.type == "race.NoteWritten":
            return Told(f"A note: {d['text']}")
        return Told(f"{names[d['seat']]} wins the race.")

    def touched(self, state: RaceState, command: Command | None, events: Sequence[Event]) -> list[str]:
        return [f"s{e.seat}" for e in events if e.type == "race.DieRolled" and e.seat is not None][:1]

    def text_board(self, view: Mapping[str, Any], names: Sequence[str]) -> str:
        """Each seat's square, and the viewer's own charm (the one secret a race view holds)."""
        lines = [f"{names[i] if i < len(names) else f'seat {i}'}: square {p} of {view.get('target')}"
                 for i, p in enumerate(view.get("positions") or [])]
        if "charm" in view:
            lines.append(f"Your charm: {view['charm']}")
        return "\n".join(lines)

    def headline(self, view: Mapping[str, Any], names: Sequence[str]) -> str:
        return f"Race: {' vs '.join(names)}"

GAME = RaceGame()

"""The random draws of one replay step, each with its index, and, once the seed is revealed,
re-derived from it.

Every command's `CommandAccepted` records its draw range `[from, to)` (set-up's is `[0, draws)`
in `GameCreated`), and the events record the outcomes. Before the seed is revealed the range is
all anyone can be told: the draws are checkable when the game ends. After `SeedRevealed`, the
step's command is run again through the same `decide` with an `Rng` that notes each draw as the
rules ask for it (index, what was asked, the value), and the events it gives are compared with
the logged ones: equal, every draw of the step was derived from the committed seed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from events.domain.match import Match, mix_entropy
from events.records.envelope import Envelope
from rules.core import Command, Event, IllegalCommand, InvalidCommand, Rng, SeatInfo, get_game
from rules.decider import decide

T = TypeVar("T")


class NotingRng(Rng):
    """An `Rng` that notes each draw the rules ask for, at the outermost call: a die
    (`randint`) is one note, not the `below` under it."""

    __slots__ = ("_depth", "notes")

    def __init__(self, seed: bytes, entropy: bytes = b"", game_id: str = "", start: int = 0) -> None:
        super().__init__(seed, entropy, game_id, start)
        self.notes: list[dict[str, Any]] = []
        self._depth = 0

    def _note(self, kind: str, asked: Any, run: Any) -> Any:
        first = self.draws
        self._depth += 1
        try:
            value = run()
        finally:
            self._depth -= 1
        if self._depth == 0:
            self.notes.append({"index": first, "count": self.draws - first, "kind": kind, "asked": asked,
                               "value": value})
        return value

    def below(self, n: int) -> int:
        return int(self._note("below", n, lambda: super(NotingRng, self).below(n)))

    def randint(self, lo: int, hi: int) -> int:
        return int(self._note("randint", [lo, hi], lambda: super(NotingRng, self).randint(lo, hi)))

    def choice(self, seq: Sequence[T]) -> T:
        items = list(seq)
        i = self._note("choice", len(items), lambda: super(NotingRng, self).below(len(items)))
        return items[i]

    def weighted(self, weights: Sequence[int]) -> int:
        return int(self._note("weighted", list(weights), lambda: super(NotingRng, self).weighted(weights)))

    def shuffled(self, seq: Iterable[T]) -> list[T]:
        items = list(seq)
        order = self._note("shuffle", len(items),
                           lambda: super(NotingRng, self).shuffled(range(len(items))))
        return [items[i] for i in order]


def noted_in_words(note: dict[str, Any]) -> str:
    """"#37: d6 → 4", "#38: one of 5 → the 3rd", "#40-#66: a shuffle of 28"."""
    i, n, kind, asked, value = note["index"], note["count"], note["kind"], note["asked"], note["value"]
    at = f"#{i}" if n <= 1 else f"#{i}-#{i + n - 1}"
    if kind == "randint":
        lo, hi = asked
        die = f"d{hi}" if lo == 1 else f"{lo} to {hi}"
        return f"{at}: {die} → {value}"
    if kind == "below":
        return f"{at}: 0 to {asked - 1} → {value}"
    if kind == "choice":
        return f"{at}: one of {asked} → number {value + 1}"
    if kind == "weighted":
        return f"{at}: weighted pick of {len(asked)} → number {value + 1}"
    return f"{at}: a shuffle of {asked}"


def _same(env: Envelope, e: Event) -> bool:
    return env.type == e.type and env.data == dict(e.data) and env.seat == e.seat


def rederive_command(before: Match, accepted: Envelope, logged: Sequence[Envelope], seed: bytes) -> dict[str, Any]:
    """Run the command `accepted` records again from `before` (the match just before it) with the
    revealed seed: its draws, and whether they give the logged game events and range."""
    start, end = accepted.data["rng"]
    rng = NotingRng(seed, bytes.fromhex(before.entropy), before.gid, start)
    cmd = Command(accepted.data["type"], accepted.data.get("args", {}), accepted.seat)
    game_events = [e for e in logged if not e.type.startswith("boardlog.")]
    try:
        decision = decide(before.rules, before.state, cmd, rng)
    except (IllegalCommand, InvalidCommand) as err:
        return {"checked": False, "why": f"the rules now refuse this command: {err.message}", "draws": []}
    same = rng.draws == end and len(decision.events) == len(game_events) and all(
        _same(env, e) for env, e in zip(game_events, decision.events, strict=False))
    return {"checked": same, "why": "" if same else "running the command again with the seed gives other results",
            "draws": rng.notes}


def rederive_setup(created: Envelope, logged: Sequence[Envelope], seed: bytes) -> dict[str, Any]:
    """The set-up's draws, run again from GameCreated's options, seats and entropy."""
    d = created.data
    game = get_game(d["game"])
    rng = NotingRng(seed, mix_entropy(d["entropy"]), created.game, 0)
    events = game.setup(d["options"], [SeatInfo(s["seat"], s["name"]) for s in d["seats"]], rng)
    game_events = [e for e in logged if not e.type.startswith("boardlog.")]
    same = rng.draws == d["draws"] and len(events) == len(game_events) and all(
        _same(env, e) for env, e in zip(game_events, events, strict=False))
    return {"checked": same, "why": "" if same else "running the set-up again with the seed gives other results",
            "draws": rng.notes}


def seed_matches(created: Envelope, seed_hex: str) -> bool:
    try:
        return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest() == created.data.get("commitment")
    except ValueError:
        return False

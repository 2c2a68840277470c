"""The folded match: a game's state with the platform's facts around it (who sits where, the
seed's commitment, the draws so far, the capabilities' own state). `events.domain.match` folds
and decides it; the platform's capabilities (events.domain.platform) read and replace it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from rules.core import Game, Outcome, Prompt, RulesVersionUnavailable, SeatInfo, get_game

# A match before any capability folded anything. Each capability keeps one immutable value
# under its own name (a frozen dataclass, tuple or frozenset), so snapshots write it as they
# write a game's state.
NO_PLATFORM: Mapping[str, Any] = MappingProxyType({})




@dataclass(frozen=True, slots=True)
class Match:
    gid: str
    game: str
    seats: tuple[SeatInfo, ...]
    options: Mapping[str, Any]
    commitment: str
    entropy: str
    draws: int
    state: Any
    seq: int = 0
    aborted: str | None = None
    seed: str | None = None
    joined: frozenset[int] = frozenset()
    # What the platform's capabilities (events.domain.platform) folded: clock, conduct, talk.
    platform: Mapping[str, Any] = field(default_factory=lambda: NO_PLATFORM)
    # The rules version GameCreated names (events.domain.provenance): the match plays under it.
    rules_version: int = 1
    referee: str | None = None  # the referee's name; None: an unrefereed game
    # An analysis game forked from (origin game id, seq, head hash at that seq); None: not a fork.
    origin: tuple[str, int, str] | None = None
    # The platform options chosen at creation (GameCreated's "platform": takeback, clock, ...),
    # beside the game's own `options`, which only the rules read.
    settings: Mapping[str, Any] = field(default_factory=lambda: NO_PLATFORM)
    # (seat, first seq, last seq) of the last game command and the game's events it caused
    # (platform commands do not count): a takeback undoes only a seat's last command before
    # anyone else acted, and a dispute is opened on a command's first seq.
    last_command: tuple[int | None, int, int] | None = None
    # How the referee came by the role (events.domain.provenance.APPOINTMENTS); None: not said.
    referee_appointed: str | None = None

    def played(self, state: Any, seq: int, draws: int, last_command: tuple[int | None, int, int] | None) -> Match:
        """This match with a new game state, seq, draw count and last command: what every
        command's fold makes. Built field by field in order, not by `dataclasses.replace`, which
        looks each of the 19 fields up by name (~7 us against ~3, once or twice a command in
        the worker and a projection in the projector); tests/unit/test_matchstate.py checks
        it copies every other field."""
        return Match(self.gid, self.game, self.seats, self.options, self.commitment, self.entropy, draws, state, seq,
                     self.aborted, self.seed, self.joined, self.platform, self.rules_version, self.referee,
                     self.origin, self.settings, last_command, self.referee_appointed)

    @property
    def rules(self) -> Game:
        """The rules the match plays: exactly its version's, when this build has it; else (to
        read and show the game only: `decide_and_fold` refuses its commands) this build's."""
        try:
            return get_game(self.game, self.rules_version)
        except RulesVersionUnavailable:
            return get_game(self.game)

    def outcome(self) -> Outcome | None:
        if self.aborted is not None:
            return Outcome((), (), f"aborted: {self.aborted}")
        ruled = self.rules.is_over(self.state)
        # The platform may end a game too (a resignation, an agreed draw or abandonment) and
        # keeps resigned seats out of the rules' winners: events.domain.platform.conduct.
        conduct = self.platform.get("conduct")
        return ruled if conduct is None else conduct.outcome(ruled)

    @property
    def over(self) -> bool:
        return self.outcome() is not None

    @property
    def status(self) -> str:
        """active, over (the rules ended it, or the platform: a resignation, an agreed draw or
        abandonment) or aborted (an admin ended it)."""
        if self.aborted is not None:
            return "aborted"
        return "over" if self.over else "active"

    @property
    def prompt(self) -> Prompt | None:
        return None if self.over else self.state.prompt

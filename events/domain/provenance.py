"""What a game's first event says of where it comes from: the rules version it is played under,
its referee, and, for an analysis game, the game, seq and head hash it was forked from; and the
`ForkedFrom` event that carries the origin's state into a fork.

A fork does not re-run its origin: its second event holds the origin's folded state at the seq
it was forked from, as snapshot data, so the fork replays and audits from its own record alone.
What its audit proves is therefore that every move after the fork follows the rules from that
position, with draws from the fork's own committed seed; that the position is the origin's at
that seq is a second check, against the origin's record (`fork_matches_origin`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from events.records.snapshot import SnapshotError, decode, encode
from rules.core import Event, Game, of_the_rules, rules_version

FORKED_FROM = "boardlog.ForkedFrom"


# How a game's referee came by the role (docs/referees-and-forks.md, "Who holds the referee's
# role"): written in the log, so every seat reads from the signed record who could hold it.
APPOINTMENTS = frozenset({"mail", "player", "creator"})


def provenance(game: Game, referee: str | None = None,
               origin: tuple[str, int, str] | None = None, appointed: str | None = None) -> dict[str, Any]:
    """The GameCreated fields beside seats and options: the rules version always; the referee
    (and how they were appointed, when known) and the origin only when there is one (an
    ordinary game's opening stays as it was)."""
    out: dict[str, Any] = {"rules_version": rules_version(game)}
    if referee is not None:
        out["referee"] = {"name": referee, **({"appointed": appointed} if appointed is not None else {})}
    if origin is not None:
        out["fork"] = {"game": origin[0], "seq": origin[1], "head": origin[2]}
    return out


def provenance_of(data: Mapping[str, Any]) -> tuple[int, str | None, tuple[str, int, str] | None]:
    """(rules version, referee's name, origin) from a GameCreated's data, as upcast
    (events.records.upcast gives a record from before versions were named its version 1)."""
    referee = data.get("referee")
    fork = data.get("fork")
    return (
        int(data.get("rules_version", 1)),
        None if referee is None else str(referee["name"]),
        None if fork is None else (str(fork["game"]), int(fork["seq"]), str(fork["head"])),
    )


def appointment_of(data: Mapping[str, Any]) -> str | None:
    """How a GameCreated's referee was appointed ("mail", "player" or "creator"); None for no
    referee, or a record from before appointments were written."""
    referee = data.get("referee")
    got = referee.get("appointed") if isinstance(referee, Mapping) else None
    return got if got in APPOINTMENTS else None


def forked_event(origin: tuple[str, int, str], state: Any) -> Event:
    """The fork's second event: the origin's state at that seq, written as snapshot data."""
    return Event(FORKED_FROM, {"game": origin[0], "seq": origin[1], "head": origin[2],
                               "state": orjson.loads(encode(state))})


def forked_state(game: Game, event: Event) -> Any:
    """The state a ForkedFrom carries; ValueError when it is not a state these rules can make."""
    try:
        state = decode(orjson.dumps(event.data["state"]), of_the_rules)
    except (SnapshotError, KeyError, TypeError) as e:
        raise ValueError(f"the fork's starting state cannot be read under these rules: {e}") from None
    if type(state) is not type(game.initial_state()):
        raise ValueError(f"the fork's starting state is a {type(state).__name__}, not a {game.name} state")
    return state


def fork_matches_origin(fork_state: Any, origin_state: Any) -> bool:
    """Whether a fork started from the origin's state (both folded: the fork's ForkedFrom, the
    origin's record up to the seq the fork names)."""
    return bool(fork_state == origin_state)

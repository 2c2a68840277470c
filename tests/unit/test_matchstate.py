"""The folded match's own copies."""

from dataclasses import fields, replace
from types import MappingProxyType

from events.domain.matchstate import Match
from rules.core import SeatInfo


def test_played_copies_every_other_field_as_replace_does() -> None:
    """`Match.played` lists the fields in order instead of `dataclasses.replace` (faster on the
    command path): a field added to Match must be added there too, or it would be reset to its
    default by every command. Every field here has a value other than its default."""
    m = Match(gid="g1", game="race", seats=(SeatInfo(0, "ann"),), options={"target": 9}, commitment="c", entropy="e",
              draws=3, state=("s",), seq=7, aborted="no", seed="5eed", joined=frozenset({0}),
              platform=MappingProxyType({"clock": 1}), rules_version=2, referee="rita", origin=("g0", 4, "h"),
              settings=MappingProxyType({"takeback": True}), last_command=(0, 6, 7), referee_appointed="creator")
    assert [f.name for f in fields(Match)] == [
        "gid", "game", "seats", "options", "commitment", "entropy", "draws", "state", "seq", "aborted", "seed",
        "joined", "platform", "rules_version", "referee", "origin", "settings", "last_command", "referee_appointed",
    ], "Match's fields changed: update Match.played, then this list"
    assert all(getattr(m, f.name) != f.default for f in fields(Match))
    assert m.played(("t",), 9, 4, (1, 8, 9)) == replace(m, state=("t",), seq=9, draws=4, last_command=(1, 8, 9))

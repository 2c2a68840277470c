"""One name rule everywhere (issue #42 item 5): every place a name enters (a seat's name at
creation, a table's named seat, the referee's name, a player's name) keeps exactly what
events.domain.names.display_name keeps and refuses what it refuses, with its code; and what it
keeps is NFC, not blank, and holds no control, bidi, line-separator, surrogate, private-use or
unassigned code point (a zero-width joiner only inside an emoji sequence)."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from events.domain.names import ZWJ, display_name
from rules.core import InvalidCommand
from service.usecases.matches import _seats, referee_of
from service.usecases.tables import _asks

# The code points the red team used, among ordinary letters and emoji.
TRICKY = ["\u0085", "\u2028", "\u2029", "\u202e", "\u200b", "\u200d", "\ufe0f", "\u3164", "\u00a0", "\u115f",
          "\ud800", "\ue000", "\ufffe", "\U0001f468", "\U0001f469", "\U0001f3fd", "\u0301", "e", "A", " ", "\t"]
names = st.lists(st.one_of(st.sampled_from(TRICKY), st.characters()), min_size=0, max_size=12).map("".join)


def outcome(place: Callable[[str], str], raw: str) -> tuple[str, str]:
    try:
        return "kept", place(raw)
    except InvalidCommand as e:
        return "refused", e.code


PLACES: dict[str, Callable[[str], str]] = {
    "a seat at creation": lambda raw: _seats([raw])[0][0].name,
    "a table's named seat": lambda raw: str(_asks([raw])[0].name),
    "a table's seat by object": lambda raw: str(_asks([{"name": raw}])[0].name),
    "the referee": lambda raw: str(referee_of(raw)),
    "the referee by object": lambda raw: str(referee_of({"name": raw})),
    "a player": lambda raw: display_name(raw, "your name"),
}


@settings(max_examples=400, deadline=None)
@given(names)
def test_every_place_a_name_enters_follows_the_one_rule(raw: str) -> None:
    expected = outcome(display_name, raw)
    for where, place in PLACES.items():
        assert outcome(place, raw) == expected, where
    if expected[0] == "kept":
        name = expected[1]
        assert name == unicodedata.normalize("NFC", name) and name.strip()
        for i, ch in enumerate(name):
            if ch == ZWJ:
                assert unicodedata.category(name[i + 1]) == "So", name
                continue
            assert unicodedata.category(ch) not in {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}, name


def test_the_red_teams_names() -> None:
    for raw in ("x\u0085y", "x\u2028y", "x\u2029y", "x\ud800", "\u3164", "\u00a0", "\u115f\u1160", "a\u200db", "a\u202eb"):
        assert outcome(display_name, raw)[0] == "refused", repr(raw)
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert display_name(family) == family and display_name("ann \U0001f44d\U0001f3fd") == "ann \U0001f44d\U0001f3fd"

"""One name rule everywhere (issue #42 item 5): every place a name enters (a seat's name at
creation, a table's named seat, the referee's name, a player's name) keeps exactly what
events.domain.names.display_name keeps and refuses what it refuses, with its code; and what it
keeps is NFC, not blank, and holds no control, bidi, line-separator, surrogate, private-use or
unassigned code point (a zero-width joiner only inside an emoji sequence). Chat messages (and a
dispute's reason, and a command's comment, which are messages) and notification targets' addresses
share that last part of the rule, events.domain.names.deceptive: each refuses exactly the text it
finds a character in, naming that character."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from events.domain.names import ZWJ, deceptive, display_name
from events.domain.platform.talk import MAX_TEXT, text_problem
from rules.core import InvalidCommand
from service.api.errors import ApiError
from service.api.notifications import NewTarget, _address
from service.usecases.matches import _seats, referee_of
from service.usecases.notifications.egress import Egress, networks
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


def message_outcome(raw: str) -> tuple[str, str]:
    problem = text_problem(raw)
    return ("kept", raw) if problem is None else ("refused", problem.message)


def address_outcome(raw: str) -> tuple[str, str]:
    # 127.0.0.1 allowed, as the tests' BOARDLOG_NOTIFY_ALLOW does: no name to resolve.
    try:
        # The request's model refuses a lone surrogate itself (422 before the handler).
        body = NewTarget(kind="webhook", address="http://127.0.0.1/" + raw)
    except ValidationError as e:
        return "refused", str(e)
    try:
        return "kept", _address(body, None, Egress(networks(["127.0.0.1"])))  # type: ignore[arg-type]
    except ApiError as e:
        return "refused", e.message


# Text that is no message for another reason (blank, too long) says nothing of the shared rule.
SHARED: dict[str, tuple[Callable[[str], tuple[str, str]], Callable[[str], str], frozenset[str]]] = {
    "a chat message": (message_outcome, lambda raw: raw, frozenset("\n\t")),
    "a webhook target's address": (address_outcome, lambda raw: ("http://127.0.0.1/" + raw).strip(), frozenset()),
}


@settings(max_examples=400, deadline=None)
@given(names)
def test_messages_and_addresses_refuse_what_names_refuse(raw: str) -> None:
    for where, (place, seen, allowed) in SHARED.items():
        if where == "a chat message" and (not raw.strip() or len(raw) > MAX_TEXT):
            continue
        found = deceptive(seen(raw), allowed)
        got = place(raw)
        if found is not None:
            assert got[0] == "refused" and (found[1] in got[1] or "string_unicode" in got[1]), (where, raw, got)
        else:
            assert "holds" not in got[1], (where, raw, got)


def test_the_red_teams_characters_in_messages_and_addresses() -> None:
    for raw in ("x\u0085y", "x\u2028y", "x\ud800", "a\u202eb", "a\ue000", "a\ufffe", "a\u200db"):
        assert message_outcome(raw)[0] == "refused", repr(raw)
        assert address_outcome(raw)[0] == "refused", repr(raw)
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert message_outcome(f"gg {family}\nnext time") == ("kept", f"gg {family}\nnext time")
    assert address_outcome("path")[0] == "kept"

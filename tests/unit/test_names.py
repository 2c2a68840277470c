"""Names: NFC, 1 to 40 code points, no character that hides or reorders text, and no two in
one game that look the same; each refusal names its rule, the character and where."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from events.domain.names import MAX_NAME, display_name, name_key, require_distinct
from rules.core import InvalidCommand


def refused(raw: object, code: str, what: str = "the name") -> str:
    with pytest.raises(InvalidCommand) as e:
        display_name(raw, what)
    assert e.value.code == code, e.value.message
    return e.value.message


def test_plain_names_pass_with_surrounding_white_space_stripped() -> None:
    assert display_name("ann") == "ann"
    assert display_name("  Mary Ann O'Brien\t") == "Mary Ann O'Brien"
    assert display_name("Zoë 🐉") == "Zoë 🐉"
    assert display_name("\u3000bob\u00a0") == "bob"  # ideographic and no-break spaces strip too


def test_names_are_nfc_and_a_composed_character_counts_once() -> None:
    assert display_name("e\u0301") == "\u00e9"
    assert display_name("Rene\u0301e") == "Renée"
    assert len(display_name("e\u0301" * MAX_NAME)) == MAX_NAME  # 80 code points in, 40 after NFC
    refused("e\u0301" * (MAX_NAME + 1), "name_too_long")


def test_forty_characters_pass_and_forty_one_do_not() -> None:
    assert display_name("a" * MAX_NAME) == "a" * MAX_NAME
    message = refused("a" * (MAX_NAME + 1), "name_too_long", "seat 1's name")
    assert "seat 1's name" in message and "41" in message and "40" in message
    assert display_name(" " * 5 + "a" * MAX_NAME + " ") == "a" * MAX_NAME  # white space is not counted


@pytest.mark.parametrize("raw", ["", "   ", "\t\n", "\u3000"])
def test_an_empty_name_is_refused(raw: str) -> None:
    assert "empty" in refused(raw, "name_empty")


@pytest.mark.parametrize("raw", [None, 7, ["ann"], {"name": "ann"}])
def test_a_name_that_is_not_text_is_refused(raw: object) -> None:
    refused(raw, "name_not_text")


@pytest.mark.parametrize(("raw", "point", "pos", "kind"), [
    ("ann\u202e", "U+202E", 4, "format"),       # right-to-left override
    ("\u202aann", "U+202A", 1, "format"),       # left-to-right embedding
    ("an\u2066n", "U+2066", 3, "format"),       # left-to-right isolate
    ("an\u2069n", "U+2069", 3, "format"),       # pop directional isolate
    ("an\u200bn", "U+200B", 3, "format"),       # zero-width space
    ("an\u200dn", "U+200D", 3, "format"),       # zero-width joiner
    ("\ufeffann", "U+FEFF", 1, "format"),       # byte order mark / zero-width no-break space
    ("an\u00adn", "U+00AD", 3, "format"),       # soft hyphen
    ("a\x00nn", "U+0000", 2, "control"),
    ("a\nb", "U+000A", 2, "control"),
    ("a\x7fb", "U+007F", 2, "control"),
    ("a\x9bb", "U+009B", 2, "control"),         # C1 control sequence introducer
    ("a\ud800b", "U+D800", 2, "surrogate"),
    ("a\udfffb", "U+DFFF", 2, "surrogate"),
    ("a\ue000b", "U+E000", 2, "private-use"),
    ("a\U000f0000b", "U+F0000", 2, "private-use"),
    ("a\u0378b", "U+0378", 2, "unassigned"),
    ("a\uffffb", "U+FFFF", 2, "noncharacter"),
    ("a\u2028b", "U+2028", 2, "line separator"),
    ("a\u2029b", "U+2029", 2, "paragraph separator"),
])
def test_a_hiding_or_reordering_character_is_refused_by_code_point_and_place(raw: str, point: str, pos: int, kind: str) -> None:
    message = refused(raw, "name_bad_character", "seat 2's name")
    assert message.startswith("seat 2's name")
    assert f"holds {point} " in message
    assert f"at character {pos}" in message and kind in message


def test_the_message_names_the_character_by_its_unicode_name() -> None:
    assert "U+202E RIGHT-TO-LEFT OVERRIDE at character 4" in refused("ann\u202e", "name_bad_character")


def test_the_position_counts_in_the_stored_form() -> None:
    # Leading white space is stripped and "e" + acute is one character before the count.
    assert "at character 3" in refused("  e\u0301e\u200b", "name_bad_character")


def test_length_is_checked_before_characters() -> None:
    refused("\u200b" * (MAX_NAME + 1), "name_too_long")


# -- one game's seats --------------------------------------------------------------------------


def test_distinct_names_pass() -> None:
    require_distinct(["ann", "bob", "cy", "Ann-Marie", "an n"])


@pytest.mark.parametrize(("names", "i", "j"), [
    (["ann", "bob", "ann"], 2, 0),
    (["Ann", "ann"], 1, 0),            # case
    (["ANN", "bob", "ann"], 2, 0),
    (["Straße", "STRASSE"], 1, 0),     # full case folding, not lower()
    (["ann", "\uff41\uff4e\uff4e"], 1, 0),  # full-width forms
    (["\ufb01n", "fin"], 1, 0),        # a ligature
    (["a  b", "a b"], 1, 0),           # HTML shows a run of spaces as one
    (["bob", "ann", "Bob"], 2, 0),
    (["x", "ann", "bob", "Bob"], 3, 2),
])
def test_names_the_same_but_for_case_width_or_spacing_are_taken(names: list[str], i: int, j: int) -> None:
    with pytest.raises(InvalidCommand) as e:
        require_distinct(names)
    assert e.value.code == "name_taken"
    assert e.value.message.startswith(f"seat {i}'s name {names[i]!r} is taken by seat {j}")


def test_name_key_is_what_comparison_uses() -> None:
    assert name_key("Ann") == name_key("ann") == name_key("\uff21\uff2e\uff2e")
    assert name_key("ann") != name_key("anna")
    assert name_key(display_name("Zoe\u0308")) == name_key("ZOË")


# -- properties ------------------------------------------------------------------------------

REFUSED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}

# Text weighted towards the characters the rules are about, beside any code point at all.
tricky = st.sampled_from(["\u202e", "\u200b", "\x00", "\u0301", "e", " ", "\u3000", "\ufeff", "A", "ß", "\ud800"])
names = st.one_of(st.text(max_size=60), st.lists(tricky, max_size=50).map("".join),
                  st.text(st.characters(codec="utf-8"), max_size=45))


@settings(max_examples=500, deadline=None)
@given(names)
@example("e\u0301" * MAX_NAME)
@example(" \u0301a")
def test_any_accepted_name_is_nfc_short_clean_and_a_fixed_point(raw: str) -> None:
    try:
        name = display_name(raw)
    except InvalidCommand as e:
        assert e.code in {"name_empty", "name_too_long", "name_bad_character"}
        assert e.message
        return
    assert unicodedata.is_normalized("NFC", name)
    assert 1 <= len(name) <= MAX_NAME
    assert name == name.strip()
    assert not {unicodedata.category(ch) for ch in name} & REFUSED_CATEGORIES
    assert display_name(name) == name


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cf", "Cs", "Co", "Cn")),
                        min_size=1, max_size=8), min_size=1, max_size=6))
def test_distinct_accepts_exactly_lists_whose_keys_differ(raw: list[str]) -> None:
    keys = [name_key(n) for n in raw]
    try:
        require_distinct(raw)
    except InvalidCommand as e:
        assert e.code == "name_taken"
        assert len(set(keys)) < len(keys)
    else:
        assert len(set(keys)) == len(keys)

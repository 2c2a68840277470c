"""Names people are shown by (seats, players, referees): one normal form, a length, and no
character that hides, reorders or fakes the text around it; `deceptive` is that last rule alone,
which chat messages and notification targets' addresses share.

A name is shown on other people's screens beside moves and chat, so it must not be able to
pass for someone else's or to rewrite what follows it: a bidi override (U+202E) turns the
rest of a line around, a zero-width space (U+200B) makes "ann" and "an\u200bn" two names
that look one, and a NUL truncates it in C code and terminals. Every refusal is an
InvalidCommand whose code names the rule and whose message names the character and where.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from rules.core import InvalidCommand

MAX_NAME = 40

# Unicode general categories a name may not hold, with the words a refusal uses for each.
# Cc, Cf and Cs are the rule (controls; bidi controls, zero-width and other
# invisible formatting; halves of a UTF-16 pair, which are no character at all).
# Co (private use) shows as a glyph only with the font of whoever picked it and as a box
# to everyone else, so two different names can look the same.
# Cn (unassigned, and the noncharacters U+FFFE, U+FDD0...) is refused because Unicode
# promises stable normalisation and categories only for assigned characters: a code point
# assigned later may turn out to be a format character, and a name stored today would
# then break the rule it was accepted under. The cost is that characters newer than this
# Python's Unicode database (the newest emoji) wait for a Python upgrade.
# Zl and Zp (U+2028, U+2029) break a one-line name over lines; at either end they are
# white space and stripped like a space, inside a name they are refused.
_REFUSED = {
    "Cc": "a control character",
    "Cf": "a format character (a bidi control, zero-width or other invisible character)",
    "Cs": "a surrogate (half of a UTF-16 pair, not a character)",
    "Co": "a private-use character (its glyph depends on the reader's font)",
    "Cn": "an unassigned code point or noncharacter",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}


# Characters that show nothing by themselves: the Hangul fillers, the braille blank, the
# combining grapheme joiner, variation selectors and the Mongolian vowel separator. A name made
# only of them (and white space) looks blank on every board, so it is refused as empty.
_INVISIBLE = frozenset({0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0x034F, 0x180E, 0x17B4, 0x17B5,
                        *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)})
ZWJ = "\u200d"
_EMOJI_TAIL = frozenset({0xFE0F, *range(0x1F3FB, 0x1F400)})  # VS16 and the skin tones


def _blank(name: str) -> bool:
    return all(ch.isspace() or ord(ch) in _INVISIBLE for ch in name)


def _in_emoji_sequence(name: str, i: int) -> bool:
    """Whether the zero-width joiner at `i` joins two emoji (a family, a profession): the
    character before it (past a VS16 or a skin tone) and the one after it are symbols (So).
    Between letters it would make two look-alike names, and there it is refused."""
    j = i - 1
    while j >= 0 and ord(name[j]) in _EMOJI_TAIL:
        j -= 1
    return (j >= 0 and unicodedata.category(name[j]) == "So"
            and i + 1 < len(name) and unicodedata.category(name[i + 1]) == "So")


def deceptive(text: str, allowed: frozenset[str] = frozenset()) -> tuple[int, str] | None:
    """The first code point of `text` that may not stand in what one person writes and others are
    shown (a name, a chat message, a target's address), as (its position from 1, why in words
    naming it), or None: a control, bidi or other format character, a line or paragraph
    separator, a lone surrogate, a private-use character or a noncharacter (the categories of
    _REFUSED), a zero-width joiner between two emoji aside. `allowed` are exceptions of the
    caller's (a message's line breaks and tabs)."""
    for pos, ch in enumerate(text, 1):
        if ch in allowed or (ch == ZWJ and _in_emoji_sequence(text, pos - 1)):
            continue
        kind = _REFUSED.get(unicodedata.category(ch))
        if kind is not None:
            label = unicodedata.name(ch, "")
            return pos, f"U+{ord(ch):04X}" + (f" {label}" if label else "") + f" at character {pos}: {kind}"
    return None


def display_name(raw: object, what: str = "the name") -> str:
    """`raw` as a name to store and show: surrounding white space stripped, NFC, 1 to 40
    code points, none of them in a refused category (a zero-width joiner inside an emoji
    sequence aside), and not blank once the invisible characters are left out. `what` says where the name came from
    ("seat 1's name") for the message; raises InvalidCommand with `name_not_text`,
    `name_empty`, `name_too_long` or `name_bad_character`."""
    if not isinstance(raw, str):
        raise InvalidCommand("name_not_text", f"{what} must be a string of 1 to {MAX_NAME} characters")
    # Strip before normalising so the count and the check see what is stored; NFC never
    # turns a character that is not white space into one, so the result needs no second strip.
    name = unicodedata.normalize("NFC", raw.strip())
    if not name or _blank(name):
        raise InvalidCommand("name_empty", f"{what} is empty: a name needs 1 to {MAX_NAME} characters besides white "
                              "space and invisible ones (fillers, joiners, variation selectors)")
    if len(name) > MAX_NAME:
        raise InvalidCommand(
            "name_too_long", f"{what} has {len(name)} characters (after Unicode NFC normalisation): at most {MAX_NAME}")
    found = deceptive(name)
    if found is not None:
        raise InvalidCommand("name_bad_character", f"{what} holds {found[1]}, which a name may not hold")
    return name


def name_key(name: str) -> str:
    """What two names are compared by: Unicode's compatibility caseless match (NFKD of the
    case fold, twice, as its definition D146 has it), with runs of white space made one space.

    Names that differ only by case ("Ann", "ann"), by compatibility forms (full-width
    letters U+FF21..., the ligature U+FB01 for "fi") or by spacing (HTML shows "a  b" as
    "a b") look the same on a board, so one game may not seat both."""
    once = unicodedata.normalize("NFKD", unicodedata.normalize("NFD", name).casefold())
    folded = unicodedata.normalize("NFKD", once.casefold())
    return " ".join(folded.split())


def require_distinct(names: Sequence[str], label: str = "seat") -> None:
    """Refuse with `name_taken` the first name (by position) that matches an earlier one by
    name_key; the message names both positions ("seat 2's name 'Ann' is taken by seat 0")."""
    first: dict[str, int] = {}
    for i, name in enumerate(names):
        j = first.setdefault(name_key(name), i)
        if j != i:
            same = "" if names[j] == name else f" ({names[j]!r}: the same name but for case, width or spacing)"
            raise InvalidCommand(
                "name_taken", f"{label} {i}'s name {name!r} is taken by {label} {j}{same}: names in one game must differ")

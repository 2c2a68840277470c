"""Command shapes and the play-by-post notation (`explore in fog1 from marsh1 thicket1`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rules.core import Command, InvalidCommand
from rules.dragondale.content import CARDS

P = "dragondale."
# A card's id as the content spells it (two cards a tribe end in "-A" and "-B"), from any case,
# so that the notation reads every word in any case as Rite's and Factions' do.
_CARD_IDS = {str(c["id"]).lower(): str(c["id"]) for cards in CARDS.values() for c in cards}
SHAPES: dict[str, dict[str, str]] = {
    "announce": {}, "skip": {}, "plan": {},
    "return": {"unit": "str"}, "discard": {"card": "str"}, "pay": {"tokens": "ints"},
    "reveal": {"token": "int"}, "explore": {"dir": "str", "target": "str", "via": "strs"},
    "take": {"units": "strs"}, "special": {"card": "str"}, "empower": {"card": "str", "effect": "str"},
    "poison": {"tree": "str"}, "choose": {"option": "str"}, "stance": {"unit": "str", "card": "str"},
}
COMMAND_TYPES = frozenset(P + k for k in SHAPES)


def _word(v: Any, field: str) -> str:
    if not isinstance(v, str) or not v or any(c.isspace() for c in v):
        raise InvalidCommand("bad_args", f"{field} must be a non-empty word")
    return v


def _int(v: Any, field: str) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise InvalidCommand("bad_args", f"{field} must be a non-negative integer")
    return v


def parse_command(type: str, args: Mapping[str, Any], seat: int) -> Command:
    if type not in COMMAND_TYPES:
        raise InvalidCommand("unknown_command", f"no command {type!r}")
    if not isinstance(args, Mapping):
        raise InvalidCommand("bad_args", "args must be an object")
    shape = SHAPES[type[len(P):]]
    if set(args) != set(shape):
        raise InvalidCommand("bad_args", f"{type} takes exactly {sorted(shape)}")
    out: dict[str, Any] = {}
    for k, kind in shape.items():
        v = args[k]
        if kind == "str":
            out[k] = _word(v, k)
        elif kind == "int":
            out[k] = _int(v, k)
        else:
            if not isinstance(v, list) or not v or len(set(map(str, v))) != len(v):
                raise InvalidCommand("bad_args", f"{k} must be a non-empty list without repeats")
            items = [_int(x, k) for x in v] if kind == "ints" else [_word(x, k) for x in v]
            out[k] = sorted(items)
    if type == P + "explore" and (out["dir"] not in ("in", "out") or len(out["via"]) > 2):
        raise InvalidCommand("bad_args", "explore needs dir in|out and one or two territories")
    return Command(type, out, seat)


# A prompt's options are keys (`enc:oak:dragon:celts`); each has words a player can type from
# what the board shows, and the key is found from the words alone, so text and command round trip.
# `{x}` is one word, `{*x}` one or more (joined by "+" in the key); literals must match.
CHOICES: tuple[tuple[str, str], ...] = (
    ("enc:{t}:{a}:{b}", "encounter {a} {b} in {t}"),
    ("unit:{u}", "act {u}"),
    ("dispel:{*u}", "dispel {*u}"),
    ("to:{d}", "move all to {d}"),
    ("to:{d}+{e}:{u}", "move all to {d} but {u} to {e}"),
    ("move:{u}:{d}", "move {u} to {d}"),
    ("comp:{u}:{d}", "tunnel {u} to {d}"),
    ("hide:{u}", "hide {u}"),
    ("exchange:{i}", "exchange {i}"),
    ("check:{t}", "check {t}"),
    ("plan:boost:{i}", "reveal {i} to boost"),
    ("plan:take:{i}", "reveal {i} to take idea"),
    ("reward:boost", "reward boost"),
    ("reward:insight", "reward insight"),
    ("reward:dragon", "reward dragon"),
    ("reward:tree:{t}", "reward check {t}"),
    ("dragon:{d}", "dragon to {d}"),
    ("tree:{t}", "tree {t}"),
    ("opt:{i}", "option {i}"),
    ("reveal_fury", "reveal fury"),
    ("stay:dominance", "stay dominance"),
    ("stay:insight", "stay insight"),
    ("first:{s}", "first {s}"),
    ("chaos", "chaos"),
    ("dreams", "dreams"),
)


def _bind(pattern: list[str], parts: list[str], sep: str | None) -> dict[str, Any] | None:
    """Match parts against a pattern; `sep` is the key's list joint, None for words."""
    out: dict[str, Any] = {}
    for i, p in enumerate(pattern):
        if p.startswith("{*"):
            rest = parts[i:]
            items = rest[::2] if sep else rest
            if not items or (sep and any(x != sep for x in rest[1::2])) or (sep and len(rest) % 2 == 0):
                return None
            out[p[2:-1]] = items
            return out
        if i >= len(parts):
            return None
        if p.startswith("{"):
            if not parts[i] or parts[i] in (":", "+"):
                return None
            out[p[1:-1]] = parts[i]
        elif parts[i] != p:
            return None
    return out if len(parts) == len(pattern) else None


def _fill(pattern: list[str], values: dict[str, Any], sep: str | None) -> list[str]:
    out: list[str] = []
    for p in pattern:
        if p.startswith("{*"):
            items = values[p[2:-1]]
            out += [x for item in items for x in (sep, item)][1:] if sep else items
        elif p.startswith("{"):
            out.append(values[p[1:-1]])
        else:
            out.append(p)
    return out


def _key_parts(key: str) -> list[str]:
    return [x for x in re.split(r"([:+])", key) if x != ""]


def choice_words(key: str) -> str | None:
    """The words for an option key, or None when no notation names it."""
    parts = _key_parts(key)
    for kp, tp in CHOICES:
        values = _bind(_key_parts(kp), parts, "+")
        if values is not None:
            words = " ".join(_fill(tp.split(), values, None))
            return words if choice_key(words.split()) == key else None
    return None


# What each placeholder of a choice's words stands for, as a player reads the form.
_PLACEHOLDERS = {"t": "<territory>", "d": "<territory>", "e": "<territory>", "u": "<unit>", "*u": "<unit> ...",
                 "i": "<number>", "s": "<tribe>", "a": "<side>", "b": "<side>"}


def _readable(template: str) -> str:
    """A choice's words with its placeholders named: "move {u} to {d}" -> "move <unit> to <territory>"."""
    return " ".join(_PLACEHOLDERS.get(w[1:-1], w) if w.startswith("{") else w for w in template.split())


def choice_key(words: list[str]) -> str | None:
    """The option key that a player's words name, or None."""
    for kp, tp in CHOICES:
        values = _bind(tp.split(), words, None)
        if values is not None:
            return "".join(_fill(_key_parts(kp), values, "+"))
    return None


def format_text(cmd: Command) -> str:
    verb = cmd.type[len(P):]
    a = cmd.args
    if verb == "choose":
        return choice_words(str(a["option"])) or f"choose {a['option']}"
    if verb == "explore":
        joint = "from" if a["dir"] == "in" else "to"
        return f"explore {a['dir']} {a['target']} {joint} " + " ".join(a["via"])
    if verb == "pay":
        return "pay " + " ".join(str(i) for i in a["tokens"])
    if verb == "take":
        return "take " + " ".join(a["units"])
    # a redacted command lacks its secret fields (another seat's `stance` has no card)
    return " ".join([verb, *[str(a[k]) for k in SHAPES[verb] if k in a]])


def parse_text(text: str, seat: int) -> Command:
    words = text.split()
    if not words:
        raise InvalidCommand("bad_text", "the command is empty: write a move in notation, as the list of commands gives it")
    # Every word is a lower-case id or name but a card's, looked up below: "Explore In Fog1 From
    # Camp_A", "Special Vik-a" and "Encounter Dragon Celts in oak" read.
    verb, rest = words[0].lower(), [w.lower() for w in words[1:]]
    key = choice_key([verb, *rest] if verb != "choose" or len(rest) < 2 else rest)
    if key is not None:
        return parse_command(P + "choose", {"option": key}, seat)
    if verb not in SHAPES:
        forms = [_readable(tp) for _, tp in CHOICES if tp.split()[0] == verb]
        if forms:  # the first word of a choice, with the rest missing or not an option
            raise InvalidCommand("bad_text", f"{verb} is a choice, written {' or '.join(repr(f) for f in forms)}: "
                                             "the list of commands gives the ones open now")
        raise InvalidCommand("bad_text", f"unknown command {verb!r}; the commands are {', '.join(sorted(SHAPES))}, "
                                         "or a choice in the words the list of commands gives it")
    args: dict[str, Any]
    try:
        if verb == "explore":
            if len(rest) < 4 or rest[0] not in ("in", "out") or rest[2] != ("from" if rest[0] == "in" else "to"):
                raise InvalidCommand("bad_text", "explore reads 'explore in <territory> from <territory> [<territory>]' "
                                                 "(explore in fog1 from marsh1 thicket1) or 'explore out <territory> to "
                                                 "<territory> [<territory>]'")
            args = {"dir": rest[0], "target": rest[1], "via": rest[3:]}
        elif verb == "pay":
            args = {"tokens": [int(x) for x in rest]}
        elif verb == "take":
            if not rest:  # the units' ids, as the list of commands shows them ("take c3 c6")
                raise InvalidCommand("bad_text", "take reads 'take <unit> [<unit> ...]', e.g. 'take c3'")
            args = {"units": rest}
        else:
            fields = list(SHAPES[verb])
            if len(rest) != len(fields):
                shape = " ".join(f"<{f}>" for f in fields) or "nothing after it"
                raise InvalidCommand("bad_text", f"{verb} reads '{verb} {shape}'" if fields else f"{verb} takes {shape}")
            args = {f: (int(v) if SHAPES[verb][f] == "int" else v) for f, v in zip(fields, rest, strict=True)}
            if "card" in args:
                args["card"] = _CARD_IDS.get(args["card"], args["card"])
    except ValueError as exc:
        if isinstance(exc, InvalidCommand):
            raise
        raise InvalidCommand("bad_text", f"cannot read {text!r}") from None
    return parse_command(P + verb, args, seat)
